"""Each dedupe layer on its own: guard, template keys, boilerplate, Jaccard index, SimHash index."""

from __future__ import annotations

import random

import numpy as np
import pytest
from corpus import build
from scipy import sparse

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.guard import Guard, zh_number
from memctl.dedupe.jaccard import JaccardIndex
from memctl.dedupe.simhash import SimHashIndex
from memctl.dedupe.template import Masker
from memctl.dedupe.text import bigrams, fold, light, light_slice
from memctl.normalise import normalise

CONFIG = DedupeConfig.default()


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard(CONFIG)


def key(guard: Guard, text: str) -> int:
    return guard.key(light(text))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("会员卡号尾号 1037", "会员卡号尾号 1042"),
        ("每周一晚上游泳", "每周三晚上游泳"),
        ("Standup on Monday", "Standup on Wednesday"),
        ("用户喜欢香菜", "用户不喜欢香菜"),
        ("He likes tea", "He doesn't like tea"),
        ("He likes tea", "He never likes tea"),
        ("生日是 3 月 14 日", "生日是 3 月 15 日"),
        ("二十三岁", "二十四岁"),
        ("has two kids", "has three kids"),
        ("flight on May 5", "flight on June 5"),
        ("明天上午开会", "明天下午开会"),
    ],
)
def test_guard_separates(guard: Guard, a: str, b: str) -> None:
    assert key(guard, a) != key(guard, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("会员卡号尾号 1037", "会员卡号尾号１０３７"),  # full width
        ("每周一晚上游泳", "every Monday evening, swimming"),  # one slot, two spellings
        ("I don't eat meat", "I do not eat meat"),
        ("我非常喜欢猫", "我喜欢猫"),  # 非常 is not a negation
        ("特别喜欢猫", "喜欢猫"),
        ("rent is 1,200", "rent is 1200"),
        ("2024-05-01", "2024年5月1日"),
        ("you may call me Bob", "call me Bob"),  # "may" is only a month before a day
    ],
)
def test_guard_accepts(guard: Guard, a: str, b: str) -> None:
    assert key(guard, a) == key(guard, b)


def test_chinese_numerals() -> None:
    assert [zh_number(t) for t in ("三", "十五", "二十三", "一百零五", "二〇二四", "三万五千")] == [
        3, 15, 23, 105, 2024, 35000,
    ]  # fmt: skip


def test_template_key_masks_slots_only() -> None:
    masker = Masker(CONFIG)
    a = masker.key(light("判断是否值得长期记住：第12条消息「今天好累」——结论：否"))
    b = masker.key(light("判断是否值得长期记住：第9876条消息「晚安」——结论：否"))
    c = masker.key(light("判断是否值得长期记住：第12条消息「今天好累」——结论：是"))
    assert a is not None and a == b != c
    assert masker.key(light("用户喜欢猫")) is None  # nothing to mask: not a template
    assert masker.key(light("第12条")) is None  # too little literal text
    same = [masker.key(light(f"Run {h}: see https://x.io/{n} or mail a{n}@b.cn")) for h, n in
            (("a3f9c2e1", 1), ("0b77de42", 20))]  # fmt: skip
    assert same[0] == same[1]


def test_light_and_fold_split_normalise() -> None:
    text = "  Ｈｅｌｌｏ，World！「引号」 don't  "
    assert fold(light(text)) == normalise(text)
    lt = light("Pre amble: 用户, 喜欢猫!")
    assert fold(lt) == "preamble用户喜欢猫"
    assert fold(light_slice(lt, 8, 13)) == "用户喜欢猫"
    assert light_slice(lt, 0, 3) == "pre "


def brute_force_pairs(sets: list[set[int]], threshold: float) -> set[tuple[int, int]]:
    """Every pair with Jaccard >= threshold, from exact intersection counts of all pairs."""
    vocab: dict[int, int] = {}
    rows, cols = [], []
    for i, s in enumerate(sets):
        for token in s:
            rows.append(i)
            cols.append(vocab.setdefault(token, len(vocab)))
    x = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(len(sets), len(vocab))
    )
    sizes = np.array([len(s) for s in sets])
    found = set()
    for start in range(0, len(sets), 2000):
        block = (x[start : start + 2000] @ x.T).tocoo()
        i, j, inter = block.row + start, block.col, block.data
        keep = i > j
        i, j, inter = i[keep], j[keep], inter[keep]
        score = inter / (sizes[i] + sizes[j] - inter)
        hit = score >= threshold - 1e-12
        found.update(zip(i[hit].tolist(), j[hit].tolist(), strict=True))
    return found


def test_jaccard_index_recall_equals_brute_force_on_20k() -> None:
    records = build(20_000, seed=7)
    filler = str.maketrans("", "", CONFIG.filler)
    sets = [bigrams(fold(light(r.text)).translate(filler)) for r in records]
    c = CONFIG
    index = JaccardIndex(c.jaccard, c.rerank_growth, c.lsh_bands, c.lsh_rows, c.dense_frequency)
    found = {(item, other) for item, other, _ in index.add(list(enumerate(sets)))}
    expected = brute_force_pairs(sets, 0.75)
    print(f"\n20k sample: {len(expected)} pairs >= 0.75; index found {len(found)}, "
          f"{index.candidates} candidates, {index.verified} verified")  # fmt: skip
    assert len(expected) > 1000
    assert found == expected


def test_jaccard_index_is_incremental() -> None:
    texts = (
        "用户每天早上喝一杯美式咖啡不加糖",
        "用户每天早上都喝一杯美式咖啡不加糖",
        "完全不同的一句话",
    )
    sets = [bigrams(fold(light(t))) for t in texts]
    index = JaccardIndex(0.75)
    assert list(index.add([(1, sets[0])])) == []
    assert [(i, o) for i, o, _ in index.add([(2, sets[1]), (3, sets[2])])] == [(2, 1)]


def test_simhash_index_finds_all_within_k_without_scanning() -> None:
    rng = random.Random(3)
    prints = [rng.getrandbits(64) for _ in range(3000)]
    near = [p ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64)) for p in prints[:300]]
    index = SimHashIndex(3)
    for i, p in enumerate(prints):
        index.insert(i, p)
    for j, q in enumerate(near):
        got = {i for i, _ in index.query(q)}
        assert got == {i for i, p in enumerate(prints) if (p ^ q).bit_count() <= 3}
        assert j in got
    assert index.candidates < 300 * 3000 / 50  # far from a scan of all pairs
