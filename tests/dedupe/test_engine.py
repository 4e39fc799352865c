"""The engine's contract: merges across add() calls, canonicals, families, guard, load()."""

from __future__ import annotations

import numpy as np
import pytest
from corpus import build

from dedupe.test_layers import brute_force_pairs
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


def test_pairs_the_guard_keeps_apart_are_not_tried_one_by_one(monkeypatch) -> None:
    # Copies of two facts that differ in a number: every copy of one is a Jaccard pair of
    # many copies of the other (up to k² pairs), and the guard refuses each. Those pairs are dropped
    # together, by comparing guard keys, before the pairs are joined one at a time.
    base = "会员卡号尾号 {}，积分可以抵扣停车费，每月清零一次，记得在月底之前用掉。"
    spots = [at for at in range(12, 38) if at not in (26, 27)]  # not "一次": a number
    texts = [edited(base.format(n), at) for n in (1037, 1042) for at in spots]
    tried = []
    union = Engine._union_checked

    def counted(self: Engine, a: int, b: int, *rest: object) -> bool:
        tried.append((a, b))
        return union(self, a, b, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "_union_checked", counted)
    engine = Engine()
    engine.add([Item(i, t, None) for i, t in enumerate(texts)])
    assert len({engine.canonical(i) for i in range(24)}) == 1
    assert len({engine.canonical(i) for i in range(24, 48)}) == 1 != engine.canonical(0)
    # One union per copy but the first of each fact, none for the 34 pairs across the facts
    # (before: 80 calls, the 34 refused one at a time).
    assert len(tried) == 46
    assert engine.stats()["jaccard_blocked_by_guard"] == 34


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


# ------------------------------------------------ evidence before merging (issue 10 item 5)


def sync_log(n: int) -> str:
    return f"同步日志：第{n}批记录已写入本地缓存，耗时 {n % 97 + 3} 毫秒"


def invest(value: int) -> str:
    return f"每月定投 {value} 元到指数基金"


REPEATED = [500] * 4 + [800] * 3 + [1000] * 5


def test_a_family_whose_slot_repeats_a_few_values_stays_apart() -> None:
    engine = Engine()
    items = [Item(i, invest(v), None) for i, v in enumerate(REPEATED)]
    merges = engine.add(items)
    assert "template" not in {m.layer for m in merges}
    # One entry per value: its copies merge, values never do.
    by_value: dict[int, set[int]] = {}
    for item, value in zip(items, REPEATED, strict=True):
        by_value.setdefault(value, set()).add(engine.canonical(item.id))
    assert all(len(c) == 1 for c in by_value.values())
    assert len(set().union(*by_value.values())) == 3
    assert engine.stats()["template_held_apart"] == 1


def test_a_counter_family_folds_and_says_why() -> None:
    engine = Engine()
    merges = engine.add([Item(n, sync_log(1000 + 37 * n), None) for n in range(10)])
    assert {m.layer for m in merges} == {"template"} and len(merges) == 9
    assert merges[0].why.startswith("template family «同步日志:第#批记录已写入本地缓存,耗时 #")
    assert merges[0].why.endswith("(10 records), 10 slot values")


def test_repeated_values_stay_apart_across_add_calls_and_loads() -> None:
    first = Engine()
    items = [Item(i, invest(v), None) for i, v in enumerate(REPEATED[:6])]
    merges = first.add(items)
    into = {m.dup: m.into for m in merges}
    rows = [(i.id, i.ts, first.signature(i.id), into.get(i.id)) for i in items]
    texts = {i.id: i.text for i in items}
    loaded = Engine.load(rows, lambda ids: {i: texts[i] for i in ids})
    later = [Item(100 + i, invest(v), None) for i, v in enumerate(REPEATED[6:])]
    merges = loaded.add(later)
    assert "template" not in {m.layer for m in merges}
    canon = {loaded.canonical(i.id) for i in items + later}
    assert len(canon) == 3


def test_a_counter_family_stored_last_week_takes_new_members_and_stays_folded() -> None:
    first = Engine()
    items = [Item(n, sync_log(n * 11), "2026-01-01") for n in range(1, 6)]
    assert first.add(items) == []  # five: not a family yet
    rows = [(i.id, i.ts, first.signature(i.id), None) for i in items]
    texts = {i.id: i.text for i in items}
    loaded = Engine.load(rows, lambda ids: {i: texts[i] for i in ids})
    merges = loaded.add([Item(n, sync_log(n * 11), "2026-01-08") for n in range(6, 11)])
    assert {m.layer for m in merges} == {"template"}
    assert len({loaded.canonical(n) for n in range(1, 11)}) == 1
    # Stored folded, reloaded with its members, then given copies of them (new ids): the
    # family is still one, although copies now make most of its slot values repeat.
    into = {m.dup: m.into for m in merges}
    ten = [*items, *(Item(n, sync_log(n * 11), "2026-01-08") for n in range(6, 11))]
    texts = {i.id: i.text for i in ten}
    rows = [(i.id, i.ts, loaded.signature(i.id), into.get(i.id)) for i in ten]
    again = Engine.load(rows, lambda ids: {i: texts[i] for i in ids})
    again.add([Item(100 + n, sync_log(n * 11), "2026-02-01") for n in range(1, 11)])
    assert len({again.canonical(i) for i in [*range(1, 11), *range(101, 111)]}) == 1


def test_template_keys_keep_negations_and_named_slots() -> None:
    engine = Engine()
    yes = [Item(n, f"第{n}条消息已处理，结论：值得记住", None) for n in range(1, 10)]
    no = [Item(100 + n, f"第{n}条消息已处理，结论：不值得记住", None) for n in range(1, 10)]
    mon = [Item(200 + n, f"第{n}条消息已处理，周一复查，结论：值得记住", None)
           for n in range(1, 10)]  # fmt: skip
    engine.add(yes + no + mon)
    assert len({engine.canonical(i.id) for i in yes + no + mon}) == 3


BOILERPLATE = (
    "免责声明：本笔记由个人助理自动整理，内容来自与用户的日常对话，仅用于帮助助手在之后的对话中"
    "更好地理解用户的习惯和偏好。如果其中有任何信息已经过时或者不准确，请以用户最新的说法为准，"
    "并在下一次整理时更新。本笔记不会分享给任何第三方，也不会用于广告推送。如需删除某条笔记，"
    "请直接告诉助手，助手会在确认之后把它从记忆中移除，并保留一条删除记录以便之后核对。"
    "整理规则：每条笔记只记录一件事，尽量使用用户自己的原话，不做主观推断，也不记录密码、"
    "验证码和银行卡号这类敏感信息，更不记录用户转述的他人隐私和聊天截图里的内容。谢谢。"
)
NOTES = [
    "用户喜欢在周末去菜市场买新鲜的蔬菜和水果，然后回家自己做饭，最拿手的是红烧肉和糖醋排骨。",
    "用户的猫叫豆豆，是一只英短蓝猫，平时很黏人，晚上喜欢睡在用户的枕头旁边，怕吸尘器的声音。",
    "用户最近在读百年孤独，觉得人物关系有点复杂，需要一边读一边画家谱图，打算读完再看一遍。",
    "用户不喜欢开视频会议，更习惯用文字沟通，觉得这样效率更高，也方便之后翻记录查细节。",
    "用户每天通勤要换乘地铁，所以会提前出门避开高峰，路上习惯听历史类的播客节目打发时间。",
    "用户打算今年年底前把驾照考下来，科目一已经过了，现在每周去驾校练习倒车入库和侧方停车。",
    "用户喜欢听播客，最常听的是历史类和科技类的节目，偶尔也听一些讲心理学的访谈节目。",
    "用户对海鲜过敏，吃了虾会起红疹，点菜的时候要特别注意，外卖备注里也要写清楚不要虾。",
    "用户在阳台上种了几盆多肉和一盆薄荷，夏天经常浇水，冬天会把它们搬进屋里避免冻坏。",
    "用户希望助手在提醒日程时语气轻松一点，不要太正式，也不要用太多的感叹号和表情符号。",
]


def edited(text: str, at: int) -> str:
    """`text` with the character at `at` replaced (a typo: no number, negation or slot)."""
    return text[:at] + ("们" if text[at] != "们" else "这") + text[at + 1 :]


@pytest.mark.parametrize("side", ["head", "tail"])
@pytest.mark.parametrize("where", [10, 120, -10])  # in the boilerplate: near its start, middle, end
def test_boilerplate_with_a_typo_still_frames_the_note(side: str, where: int) -> None:
    # Long notes (>= 300 characters, boilerplate >= 80 %): a copy whose boilerplate has one
    # character changed merges with its note; different notes never merge.
    def note(i: int) -> str:
        return BOILERPLATE + NOTES[i] if side == "head" else NOTES[i] + BOILERPLATE

    offset = 0 if side == "head" else len(NOTES[0])
    at = offset + (where if where >= 0 else len(BOILERPLATE) + where)
    items = [Item(i, note(i), None) for i in range(len(NOTES))]
    items.append(Item(100, edited(note(0), at), None))
    assert len(note(0)) >= 300 and len(BOILERPLATE) >= 0.8 * len(note(0))
    engine = Engine()
    merges = engine.add(items)
    assert [(m.dup, m.into) for m in merges] in ([(100, 0)], [(0, 100)])
    assert merges[0].why.endswith(" with #0 (boilerplate set aside)")
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)


@pytest.mark.parametrize("side", ["head", "tail"])
def test_boilerplate_copy_with_a_typo_arriving_later_joins_its_note(side: str) -> None:
    def note(i: int) -> str:
        return BOILERPLATE + NOTES[i] if side == "head" else NOTES[i] + BOILERPLATE

    engine = Engine()
    assert engine.add([Item(i, note(i), None) for i in range(len(NOTES))]) == []
    at = 5 if side == "head" else len(note(3)) - 5  # in the characters that group records
    merges = engine.add([Item(100, edited(note(3), at), None)])
    assert [(m.dup, m.into) for m in merges] in ([(100, 3)], [(3, 100)])


def test_a_tail_search_holds_each_folded_text_once() -> None:
    """A tail group's folded texts are reversed in place while it is searched, then back; one
    that an earlier batch's exact map keeps is read reversed instead: reversed back, it would
    be a second copy from then on."""
    items = [Item(i, NOTES[i] + BOILERPLATE, None) for i in range(len(NOTES))]
    engine = Engine()
    assert engine.add(items[:3]) == []  # too few to be a group: compared on their whole text
    earlier = [engine._folded[i] for i in range(3)]
    assert all(engine._exact[text] == i for i, text in enumerate(earlier))
    assert engine.add(items[3:]) == []
    assert engine.stats()["boilerplate_records"] == len(NOTES)
    assert all(engine._folded[i] is text for i, text in enumerate(earlier))
    assert engine._folded == [fold(light(i.text)) for i in items]


def test_the_guard_holds_on_the_text_after_boilerplate() -> None:
    notes = [BOILERPLATE + n for n in NOTES]
    copy = BOILERPLATE + NOTES[5].replace("每周去", "每周三去")  # a named slot: another fact
    engine = Engine()
    engine.add([Item(i, t, None) for i, t in enumerate(notes)] + [Item(100, copy, None)])
    assert engine.canonical(100) == 100 != engine.canonical(5)
    assert engine.stats()["jaccard_blocked_by_guard"] >= 1


@pytest.mark.parametrize("side", ["head", "tail"])
def test_boilerplate_carrying_a_date_is_one_boilerplate(side: str) -> None:
    # A footer (header) stamped with the day it was written: different notes never merge on
    # it, and a note written down twice, on two days, is one memory.
    def note(i: int, day: int) -> str:
        stamped = BOILERPLATE.replace("整理规则", f"（{day} 日整理）整理规则")
        return stamped + NOTES[i] if side == "head" else NOTES[i] + stamped

    items = [Item(i, note(i, i % 2 + 1), None) for i in range(len(NOTES))]  # two days shared
    items += [Item(100 + i, note(i, 20 + i), None) for i in range(3)]
    engine = Engine()
    engine.add(items)
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)
    assert [engine.canonical(100 + i) == engine.canonical(i) for i in range(3)] == [True] * 3


@pytest.mark.parametrize("side", ["head", "tail"])
@pytest.mark.parametrize("change", ["put in", "left out"])
def test_boilerplate_copy_with_a_character_put_in_or_left_out_near_its_edge(
    side: str, change: str
) -> None:
    def note(i: int) -> str:
        return BOILERPLATE + NOTES[i] if side == "head" else NOTES[i] + BOILERPLATE

    text = note(4)
    at = 6 if side == "head" else len(text) - 6  # in the characters that group records
    copy = text[:at] + "们" + text[at:] if change == "put in" else text[:at] + text[at + 1 :]
    engine = Engine()
    engine.add([Item(i, note(i), None) for i in range(len(NOTES))] + [Item(100, copy, None)])
    assert engine.canonical(100) == engine.canonical(4)
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)


def test_a_family_growing_by_one_member_per_call_folds_as_in_one_call() -> None:
    """A note a day: each call adds one member. The family is folded incrementally (only the
    new member joins its group), with the counts its reasons give as they stand."""
    dates = [f"2026-{1 + n // 28:02d}-{1 + n % 28:02d}" for n in range(60)]
    items = [Item(n, sync_log(1000 + 37 * n), dates[59 - n]) for n in range(60)]  # latest first
    whole = Engine()
    whole.add(items)
    daily = Engine()
    merges = [m for item in items for m in daily.add([item])]
    assert {daily.canonical(i.id) for i in items} == {whole.canonical(items[0].id)} == {59}
    # The earliest member arrives last, so each new member takes the family over, its reason
    # counting the family as it was then.
    assert [(m.dup, m.into) for m in merges[-3:]] == [(56, 57), (57, 58), (58, 59)]
    assert merges[-1].why.endswith("(60 records), 60 slot values")


def test_pairs_taken_a_block_at_a_time_give_the_same_merges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """L3's pairs are applied in blocks (memory): the merges, their reasons and the
    canonicals are those of applying them all in one go."""
    import memctl.dedupe.engine as engine_module

    records = build(2_000, seed=5)
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]
    whole = Engine()
    merges = whole.add(items)
    monkeypatch.setattr(engine_module, "_PAIR_BLOCK", 3)
    blocks = Engine()
    assert blocks.add(items) == merges
    assert [blocks.canonical(i.id) for i in items] == [whole.canonical(i.id) for i in items]
    assert sum(m.layer == "jaccard" for m in merges) > 100


def test_the_last_add_frees_the_indexes_and_changes_no_merge_nor_signature() -> None:
    """After last_add() the next add() frees what only a later batch reads (band keys, bigram
    sets, SimHash and boilerplate indexes, the exact-text map, template families' members)
    as soon as it is past it: its
    merges, canonicals and signatures are those of an engine that keeps everything; a further
    add() is refused."""
    records = build(3_000, seed=7)
    items = [Item(i + 1, r.text, r.ts) for i, r in enumerate(records)]
    items += [Item(5000 + i, PREAMBLE + c, None) for i, c in enumerate(CONTENTS)]
    kept, last = Engine(), Engine()
    assert kept.add(items[:1000]) == last.add(items[:1000])
    last.last_add()
    merges = kept.add(items[1000:])
    assert last.add(items[1000:]) == merges
    assert sum(m.layer == "jaccard" for m in merges) > 100
    assert [last.canonical(i.id) for i in items] == [kept.canonical(i.id) for i in items]
    assert [last.signature(i.id) for i in items] == [kept.signature(i.id) for i in items]
    assert last._jaccard._bands.size == 0 < kept._jaccard._bands.size
    assert len(last._tokens) == 0 < len(kept._tokens)
    assert not last._exact and kept._exact
    # Its folded texts too, which signature() folds again (the same signatures, above).
    assert not any(last._folded) and all(kept._folded)
    assert not last._families._members and kept._families._members
    with pytest.raises(RuntimeError, match="last add"):
        last.add([Item(99_999, COFFEE, None)])
