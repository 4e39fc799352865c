"""The engine's contract: merges across add() calls, canonicals, families, guard, load()."""

from __future__ import annotations

import pytest

from memctl.dedupe.engine import ALL_LAYERS, Engine, Item, Merge

COFFEE = "用户每天早上喝一杯美式咖啡，不加糖也不加奶，说这样最提神。"
COFFEE_NEAR = "用户每天早上喝一杯美式黑咖啡，不加糖也不加奶，说这样最提神。"
PREAMBLE = (
    "【置顶背景】你是用户的私人助理，用户在杭州做前端开发，回答请简洁，先给结论再给理由，"
    "涉及日程时使用二十四小时制。以下是本条记录："
)
CONTENTS = ["喜欢猫", "喜欢狗", "住在西湖区", "每天跑步", "不吃辣", "会弹吉他", "养了金鱼",
            "在学日语", "讨厌早起", "周末爬山"]  # fmt: skip


def template(n: int) -> str:
    return f"判断是否值得长期记住：第{n}条消息「消息{n * 7}」——结论：否"


def test_near_copy_merges_into_earliest_with_reason() -> None:
    engine = Engine()
    merges = engine.add([Item(1, COFFEE, "2024-05-02"), Item(2, COFFEE_NEAR, "2024-05-01")])
    assert merges == [Merge(1, 2, "jaccard", merges[0].score, merges[0].why)]
    assert 0.75 <= merges[0].score < 1
    assert merges[0].why == f"bigram Jaccard {merges[0].score:.2f} with #2"


def test_later_call_with_earlier_record_takes_over() -> None:
    engine = Engine()
    assert engine.add([Item(1, COFFEE, "2024-05-02T10:00:00+08:00")]) == []
    merges = engine.add([Item(2, COFFEE_NEAR, "2024-05-01T10:00:00Z")])
    assert [(m.dup, m.into, m.layer) for m in merges] == [(1, 2, "jaccard")]
    assert engine.canonical(1) == 2
    # A third copy later in time joins the group under the new canonical.
    merges = engine.add([Item(3, COFFEE + "!", "2024-06-01")])
    assert [(m.dup, m.into) for m in merges] == [(3, 2)]


def test_canonical_ties_prefer_dated_then_longer_then_lower_id() -> None:
    engine = Engine()
    merges = engine.add([Item(5, COFFEE, None), Item(4, COFFEE_NEAR, None), Item(3, COFFEE, None)])
    assert {m.dup for m in merges} == {5, 3} and {m.into for m in merges} == {4}  # longer
    merges = engine.add([Item(9, COFFEE + "。", "2030-01-01")])
    assert [(m.dup, m.into) for m in merges] == [(4, 9)]  # any time beats no time


def test_template_family_forms_across_calls_and_takes_earlier_members() -> None:
    engine = Engine()
    assert engine.add([Item(n, template(n), None) for n in range(1, 6)]) == []
    merges = engine.add([Item(n, template(n), None) for n in range(6, 10)])
    assert {m.layer for m in merges} == {"template"}
    assert len(merges) == 8 and len({m.into for m in merges}) == 1
    assert {m.dup for m in merges} | {merges[0].into} == set(range(1, 10))
    assert "template family «判断是否值得长期记住:第#条消息#——结论:否» (9 records)" in merges[0].why
    later = engine.add([Item(10, template(10), None)])  # longer: the new canonical
    assert [(m.dup, m.into, m.layer) for m in later] == [(merges[0].into, 10, "template")]
    assert {engine.canonical(n) for n in range(1, 11)} == {10}


def test_boilerplate_prefix_records_compare_on_the_rest() -> None:
    engine = Engine()
    items = [Item(i, PREAMBLE + c, None) for i, c in enumerate(CONTENTS)]
    items.append(Item(100, PREAMBLE + CONTENTS[0], None))  # a real copy behind the preamble
    merges = engine.add(items)
    assert [(m.dup, m.into) for m in merges] == [(100, 0)] or [(m.dup, m.into) for m in merges] == [
        (0, 100)
    ]
    assert engine.stats()["boilerplate_records"] == len(items)


def test_copies_sharing_a_long_prefix_are_not_boilerplate() -> None:
    base = (
        "用户在杭州一家做跨境电商的公司负责数据分析，常用 SQL 和 Python，每周要给老板写一份周报，"
    )
    endings = ["周报要先写结论。", "周报要先写结论！", "周报最好先写结论。", "周报要先写结论的。",
               "周报要先写结论呢。", "周报要先写出结论。", "周报还要先写结论。",
               "周报要先写好结论。", "周报一定要先写结论。"]  # fmt: skip
    engine = Engine()
    merges = engine.add([Item(i, base + e, None) for i, e in enumerate(endings)])
    assert len({m.into for m in merges}) == 1 and len(merges) == len(endings) - 1
    assert engine.stats().get("boilerplate_records", 0) == 0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "会员卡号尾号 1037，积分可以抵扣停车费，每月清零一次。",
            "会员卡号尾号 1042，积分可以抵扣停车费，每月清零一次。",
        ),
        ("用户每周一晚上去游泳馆游泳一个小时。", "用户每周三晚上去游泳馆游泳一个小时。"),
        ("用户喜欢吃辣的川菜和湘菜，尤其是水煮鱼。", "用户不喜欢吃辣的川菜和湘菜，尤其是水煮鱼。"),
    ],
)
def test_guard_keeps_similar_facts_apart(a: str, b: str) -> None:
    engine = Engine()
    assert engine.add([Item(1, a, None), Item(2, b, None)]) == []
    assert engine.stats()["jaccard_blocked_by_guard"] == 1


def test_guard_holds_across_a_group() -> None:
    # 2 is near both 1 and 3, but 1 and 3 differ in a number: 2 may join only one of them.
    one = "用户的房租每月 4500 元，每个月的五号之前交给房东，房东姓王。"
    two = "用户的房租每月 4500 元，每个月五号之前交给房东，房东姓王。"
    three = "用户的房租每月 4800 元，每个月五号之前交给房东，房东姓王。"
    engine = Engine()
    engine.add([Item(1, one, None), Item(2, two, None), Item(3, three, None)])
    assert engine.canonical(1) == engine.canonical(2) != engine.canonical(3)


def test_layers_can_be_chosen() -> None:
    with pytest.raises(ValueError, match="unknown dedupe layer"):
        Engine(layers=("jaccard", "fuzzy"))
    engine = Engine(layers=("template",))
    assert engine.add([Item(1, COFFEE, None), Item(2, COFFEE_NEAR, None)]) == []
    assert set(ALL_LAYERS) == {"template", "jaccard", "simhash"}


def test_simhash_layer_alone_merges_long_near_copies() -> None:
    long = COFFEE * 4 + "另外用户提到下个月要搬家，新住处离公司更近，通勤时间能缩短到二十分钟左右。"
    edited = long.replace("说这样最提神", "说这样最提神了", 1)
    engine = Engine(layers=("simhash",))
    merges = engine.add([Item(1, long, None), Item(2, edited, None)])
    assert [(m.dup, m.into, m.layer) for m in merges] == [(1, 2, "simhash")]  # longer wins tie
    assert merges[0].why.startswith("SimHash distance ")


def test_signatures_rebuild_the_engine_without_texts() -> None:
    first = Engine()
    items = [Item(1, COFFEE, "2024-01-01"), Item(2, "The user prefers tea in the afternoon.", None)]
    items += [Item(10 + i, PREAMBLE + c, None) for i, c in enumerate(CONTENTS)]
    items += [Item(30 + n, template(n), None) for n in range(9)]
    merges = first.add(items)
    into = {m.dup: m.into for m in merges}
    rows = [(i.id, i.ts, first.signature(i.id), into.get(i.id)) for i in items]
    fetched: list[list[int]] = []
    texts = {i.id: i.text for i in items}

    def fetch(ids: list[int]) -> dict[int, str]:
        fetched.append(sorted(ids))
        return {i: texts[i] for i in ids}

    loaded = Engine.load(rows, fetch)
    # Only records behind the detected preamble needed their text (guard on the remainder).
    assert fetched and set().union(*fetched) <= {10 + i for i in range(len(CONTENTS))}
    merges = loaded.add([Item(100, COFFEE_NEAR, "2023-12-31"), Item(101, template(99), None),
                         Item(102, PREAMBLE + "喜欢猫", None)])  # fmt: skip
    got = {(m.dup, m.into, m.layer) for m in merges}
    family = first.canonical(30)
    assert got == {(1, 100, "jaccard"), (family, 101, "template"), (102, 10, "jaccard")}
    assert {loaded.canonical(30 + n) for n in range(9)} == {101}


def test_signature_from_other_lexicons_is_recomputed_from_text() -> None:
    first = Engine()
    first.add([Item(1, COFFEE, None)])
    sig = bytearray(first.signature(1))
    sig[2] ^= 0xFF  # a different lexicon fingerprint
    loaded = Engine.load([(1, None, bytes(sig))], lambda ids: {1: COFFEE})
    assert [(m.dup, m.into) for m in loaded.add([Item(2, COFFEE_NEAR, "2020-01-01")])] == [(1, 2)]


def test_duplicate_ids_are_refused() -> None:
    engine = Engine()
    engine.add([Item(1, COFFEE, None)])
    with pytest.raises(ValueError, match="already added"):
        engine.add([Item(1, COFFEE_NEAR, None)])
