"""The engine's contract: merges across add() calls, canonicals, families, guard, load()."""

from __future__ import annotations

import numpy as np
import pytest
from corpus import build
from test_dedupe_layers import brute_force_pairs

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.engine import ALL_LAYERS, Engine, Item, Merge
from memctl.dedupe.guard import Guard
from memctl.dedupe.simhash import SimHasher
from memctl.dedupe.text import bigrams, fold, light

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
    # Same text, no times: the tie goes to the lowest id.
    assert [(m.dup, m.into) for m in merges] == [(100, 0)]
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


def test_a_refused_batch_leaves_the_engine_as_it_was() -> None:
    engine = Engine()
    engine.add([Item(1, COFFEE, None)])
    with pytest.raises(ValueError, match="record 3 was already added"):
        engine.add([Item(2, COFFEE_NEAR, None), Item(3, "别的内容", None), Item(3, "x", None)])
    assert engine.stats()["records"] == 1
    merges = engine.add([Item(2, COFFEE_NEAR, "2020-01-01"), Item(3, "别的内容", None)])
    assert [(m.dup, m.into) for m in merges] == [(1, 2)]


JOIN = DedupeConfig.default().with_(join_min_batch=0, join_min_share=0.0)  # always the join
PROBE = DedupeConfig.default().with_(join_min_batch=10**9)  # always the inverted index


@pytest.mark.slow
@pytest.mark.parametrize("chunks", [1, 6])
def test_batch_join_and_index_probes_give_exactly_the_same_merges(chunks: int) -> None:
    records = build(3_000, seed=3)
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]
    joined, probed = Engine(JOIN), Engine(PROBE)
    size = -(-len(items) // chunks)
    total: list[Merge] = []
    for start in range(0, len(items), size):
        batch = items[start : start + size]
        merges = joined.add(batch)
        assert merges == probed.add(batch)
        total += merges
    assert joined.stats()["jaccard_joins"] == chunks and probed.stats()["jaccard_joins"] == 0
    assert [joined.canonical(i.id) for i in items] == [probed.canonical(i.id) for i in items]
    layers = {m.layer for m in total}
    assert {"template", "jaccard"} <= layers and len(total) > 500


def test_simhash_layer_equals_brute_force() -> None:
    # L4 alone: two long records merge iff SimHash distance <= k, bigram Jaccard >= the floor
    # and equal guard keys. The engine only fingerprints what the floor lets through (and
    # dense records); the partition must still be that of every such pair.
    config = DedupeConfig.default()
    records = [
        r
        for r in build(8_000, seed=9)
        if len(fold(light(r.text))) >= config.simhash_min_chars and r.kind != "pinned"
    ]
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]
    engine = Engine(layers=("simhash",))
    engine.add(items)
    assert engine.stats().get("boilerplate_records", 0) == 0
    hasher, guard = SimHasher(config.stopwords), Guard(config)
    lights = [light(i.text) for i in items]
    prints = np.array([hasher.fingerprint(lt) for lt in lights], dtype=np.uint64)
    keys = [guard.key(lt) for lt in lights]
    filler = str.maketrans("", "", config.filler)
    floor = brute_force_pairs([bigrams(fold(lt).translate(filler)) for lt in lights], 0.5)
    parent = list(range(len(items)))

    def find(a: int) -> int:
        while parent[a] != a:
            a = parent[a]
        return a

    merged = 0
    for a, b in floor:
        near = int(np.bitwise_count(prints[a] ^ prints[b])) <= config.hamming
        if near and keys[a] == keys[b] and find(a) != find(b):
            parent[find(a)] = find(b)
            merged += 1
    groups = lambda f: {frozenset(i for i in range(len(items)) if f(i) == r)  # noqa: E731
                        for r in {f(i) for i in range(len(items))}}  # fmt: skip
    assert groups(find) == groups(engine.canonical)
    assert merged > 20 and engine.stats()["simhash_merges"] == merged
    assert engine.stats()["simhash_computed"] < len(items)  # some were provably not needed


def test_simhash_fingerprints_only_records_with_a_partner_at_the_floor() -> None:
    texts = [COFFEE * 3 + f"第{n}段落" + "今天学习了新的东西然后去公园散步看见很多人" * (n % 3 + 1)
             for n in range(4)]  # fmt: skip
    texts.append("用户最近在读一本关于城市规划的书，书里讲到街道的宽度、树木的种类、路灯的高度"
                 "和人行道的材质怎样影响人们愿不愿意走路，用户觉得很有意思，打算周末去老城区走走，"
                 "看看那里的街道是不是像书里说的那样。")  # fmt: skip
    engine = Engine(layers=("simhash",))
    engine.add([Item(i, t, None) for i, t in enumerate(texts)])
    assert engine.stats()["simhash_computed"] == 4  # the city-planning record has no partner


def test_loaded_engine_uses_stored_fingerprints_of_english_records() -> None:
    long = ("The user keeps a small vegetable garden on the balcony and grows tomatoes, basil, "
            "chili peppers and mint; she waters them every evening and wants reminders when "
            "the weather forecast says it will freeze overnight.")  # fmt: skip
    edited = long.replace("every evening", "each evening", 1)
    first = Engine(layers=("simhash",))
    first.add([Item(1, long, None)])
    fetched: list[list[int]] = []

    def fetch(ids: list[int]) -> dict[int, str]:
        fetched.append(ids)
        return {1: long}

    loaded = Engine.load([(1, None, first.signature(1))], fetch, layers=("simhash",))
    merges = loaded.add([Item(2, edited, "2020-01-01")])
    assert [(m.dup, m.into, m.layer) for m in merges] == [(1, 2, "simhash")]
    assert fetched == []  # the signature carried the fingerprint
    # A signature made without L4 has none: the text is fetched once, when needed.
    other = Engine(layers=("jaccard",))
    other.add([Item(1, long, None)])
    loaded = Engine.load([(1, None, other.signature(1))], fetch, layers=("simhash",))
    assert [m.layer for m in loaded.add([Item(2, edited, "2020-01-01")])] == ["simhash"]
    assert fetched == [[1]]
