"""Each dedupe layer on its own: guard, template keys, boilerplate, Jaccard index, SimHash index."""

from __future__ import annotations

import os
import random
import re
import unicodedata

import numpy as np
import pytest
from corpus import build
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import sparse

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.guard import Guard, _numbers, zh_number
from memctl.dedupe.jaccard import MinHasher, PairFinder, jaccard
from memctl.dedupe.keyindex import KeyIndex
from memctl.dedupe.simhash import SimHashIndex, Tokenizer
from memctl.dedupe.template import SLOT, Masker
from memctl.dedupe.text import bigrams, cased_slice, fold, light, light_slice
from memctl.dedupe.tokens import TokenStore, bigram_sets
from memctl.normalise import _fold_table, normalise

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


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Lives in Leipzig with two cats", "Lives in Dresden with two cats"),
        ("Lives in Leipzig with two cats", "Lives in the city with two cats"),  # known: none
        ("Ask Dr Okafor about the knee", "Ask Dr Mensah about the knee"),
        ("Hosting is on Cloudflare Pages", "Hosting is on Cloudflare Workers"),  # an initial
        ("The trip goes to New York", "The trip goes to New Delhi"),
        ("Send it to Ｍｉｒａ", "Send it to Nora"),  # full width, NFKC
        ("Ask Dr. Okafor about the knee", "Ask Dr. Osei about the knee"),  # a title's stop
        ("Dr Okafor said to rest", "Dr Osei said to rest"),  # is no sentence's end
        ("Call Bernadette Ngozi", "Call Adaeze Ngozi"),  # a first name
    ],
)
def test_names_key_separates_names(guard: Guard, a: str, b: str) -> None:
    assert guard.names_key(a) != guard.names_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Always squash before merging", "Always squash before merging"),
        ("Lives near Elm Street.", "Lives near Elm St."),  # a later word abbreviated
        ("Lives near Elm Street.", "Lives near Elm Steeet."),  # or misspelt
        ("Runs PostgreSQL 16 in prod", "Runs Postgres 16 in prod"),  # six letters
        ("He wants British  English", "He wants British English"),  # spaces in a name
        ("Weekly call. Priya leads it", "Weekly call. Tobias leads it"),  # a sentence's first
        ("Done.Priya leads it", "Done.Tobias leads it"),  # word, even with no space after "."
        ("I think I saw it", "We think we saw it"),  # "I" is no name
    ],
)
def test_names_key_agrees(guard: Guard, a: str, b: str) -> None:
    assert guard.names_key(a) == guard.names_key(b)


@pytest.mark.parametrize(
    "text",
    [
        "lives in leipzig",  # no case shown
        "LIVES IN LEIPZIG",
        "Weekly Standup Moved To Thursday Mornings",  # Title Case
        "博客用 Astro 搭建，部署在 Cloudflare Pages 上",  # Chinese: the guard key has its names
        "Lives in Leipzig. " * 12,  # longer than one statement
    ],
)
def test_names_key_is_unknown_without_case(guard: Guard, text: str) -> None:
    assert guard.names_key(text) == 0


def test_names_key_tells_no_names_from_unknown(guard: Guard) -> None:
    assert guard.names_key("Always squash before merging") not in (0, guard.names_key("Ask Bob"))


def test_chinese_guard_keys_are_unchanged(guard: Guard) -> None:
    # The names rule reads case only outside Chinese: a Latin word in a Chinese text is a
    # name in the guard key, casefolded, and the names key says nothing.
    a, b = "前端仓库安装依赖一律用 PNPM", "前端仓库安装依赖一律用 pnpm"
    assert key(guard, a) == key(guard, b) != key(guard, "前端仓库安装依赖一律用 yarn")
    assert guard.names_key(a) == guard.names_key(b) == 0


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


def _fold_by_char(lt: str) -> str:
    """fold() and light_slice() by their definition, one character at a time."""
    return "".join(c for c in lt if ord(c) not in _fold_table())


def _slice_by_char(lt: str, start: int, end: int) -> str:
    kept = [i for i, c in enumerate(lt) if ord(c) not in _fold_table()]
    if end < len(kept):
        return lt[kept[start] : kept[end]] if start <= end else ""
    return lt[kept[start] :] if start < len(kept) else ""


# Texts on both sides of the length from which fold() works on an array of code points, with
# punctuation, spaces, CJK, surrogates and characters past the planes the fold table scans.
_TEXTS = st.text(
    alphabet=st.sampled_from(
        [*"ab 1,.。、「」用户猫\u200b\t\n", "\U0001f600", "\U000f0001", "\ud800"]
    ),
    max_size=400,
)


@given(_TEXTS, st.integers(0, 420), st.integers(0, 420))
@example("x" * 200 + ", " + "y" * 200, 150, 260)
def test_fold_and_light_slice_agree_with_their_definition(lt: str, a: int, b: int) -> None:
    assert fold(lt) == _fold_by_char(lt)
    start, end = min(a, b), max(a, b)
    assert light_slice(lt, start, end) == _slice_by_char(lt, start, end)
    assert fold(light_slice(lt, start, end)) == fold(lt)[start:end]


def _cased_slice_by_char(text: str, start: int, end: int) -> str:
    """cased_slice() by its definition: walk NFKC(text), counting each character's casefolded
    characters that fold() keeps."""
    text = unicodedata.normalize("NFKC", text)
    kept, begin = 0, None
    for index, char in enumerate(text):
        if kept >= end:
            return text[begin if begin is not None else index : index]
        if begin is None and kept >= start:
            begin = index
        kept += sum(ord(c) not in _fold_table() for c in char.casefold())
    return text[begin if begin is not None else len(text) :]


@given(
    st.text(
        alphabet=st.sampled_from(
            [*"aAbB ,.Zß用户，！ＡｚİΣς\t\n", "\ufb01", "\u0301", "\U0001f600", "\u200b"]
        ),
        max_size=400,
    ),
    st.integers(0, 420),
    st.integers(0, 420),
)
@example("Berlin " * 60, 100, 180)
@example("Straße, Maß und " * 30, 50, 240)
def test_cased_slice_agrees_with_its_definition(text: str, a: int, b: int) -> None:
    start, end = min(a, b), max(a, b)
    assert cased_slice(text, start, end) == _cased_slice_by_char(text, start, end)


@given(
    st.integers(0, 150),
    st.text(
        alphabet=st.sampled_from(
            [*"aAé用户 ,", *"，！：（）Ａｚ０　", *"\u0301\u0308\ufb01①\ud800ｶﾞ"]
        ),
        max_size=300,
    ),
)
@example(0, "用户，喜欢！猫：　" * 30)  # full-width forms only: mapped, then normalised
@example(0, "用户，喜欢！猫：" * 30 + "Ａ\u0301")  # a full-width letter that composes with its mark
def test_light_is_nfkc_and_casefold(filler: int, text: str) -> None:
    text = "猫" * filler + text  # long texts too: those are mapped as arrays first
    assert light(text) == unicodedata.normalize("NFKC", text).casefold()


@pytest.mark.parametrize(
    ("text", "same"),
    [("用户喜欢猫", True), ("user likes cats", True), ("猫" * 200, True), ("User", False),
     ("用户，喜欢！猫：" * 30, False)],
)  # fmt: skip
def test_light_is_the_text_itself_when_nothing_changes(text: str, same: bool) -> None:
    # The engine holds every new record's light text during add(): no second copy of it.
    assert (light(text) is text) == same
    assert light(text) == unicodedata.normalize("NFKC", text).casefold()


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


@pytest.fixture(scope="module")
def sample_20k() -> tuple[list[str], set[tuple[int, int]]]:
    """The folded, filler-free texts L3 compares for a 20k corpus, and its true pairs."""
    records = build(20_000, seed=7)
    filler = str.maketrans("", "", CONFIG.filler)
    texts = [fold(light(r.text)).translate(filler) for r in records]
    return texts, brute_force_pairs([bigrams(t) for t in texts], 0.75)


def finder(texts: list[str], threshold: float, lsh: bool, join: bool) -> PairFinder:
    """A pair finder over `texts` (rows 0..n-1) that always joins, or always probes."""
    tokens = TokenStore()
    tokens.put(range(len(texts)), texts)
    hasher = MinHasher(CONFIG.lsh_bands, CONFIG.lsh_rows) if lsh else None
    return PairFinder(tokens, threshold, hasher, 0 if join else 10**9, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [20_000, 1_000, 97])
def test_jaccard_index_recall_equals_brute_force_on_20k(
    sample_20k: tuple[list[str], set[tuple[int, int]]], batch: int
) -> None:
    # One batch goes through the numpy join; small batches probe the inverted index.
    texts, expected = sample_20k
    index = finder(texts, 0.75, lsh=True, join=batch >= 1_000)
    found: set[tuple[int, int]] = set()
    for start in range(0, len(texts), batch):
        x, y, _ = index.add(range(start, min(start + batch, len(texts))))
        found.update(zip(x.tolist(), y.tolist(), strict=True))
    print(f"\n20k sample, batches of {batch}: {len(expected)} pairs >= 0.75; found "
          f"{len(found)}, {index.candidates} candidates, {index.verified} verified, "
          f"{index.joins} joins")  # fmt: skip
    assert len(expected) > 1000
    assert index.joins == (-(-len(texts) // batch) if batch >= 1_000 else 0)
    assert found == expected


def test_join_and_index_return_the_same_pairs_in_the_same_order() -> None:
    records = build(4_000, seed=11)
    filler = str.maketrans("", "", CONFIG.filler)
    texts = [fold(light(r.text)).translate(filler) for r in records]
    results = []
    for join in (True, False):
        index = finder(texts, 0.75, lsh=True, join=join)
        got = [index.add(range(a, min(a + 700, len(texts)))) for a in range(0, len(texts), 700)]
        results.append([(x.tolist(), y.tolist(), s.round(12).tolist()) for x, y, s in got])
    assert results[0] == results[1]
    assert sum(len(x) for x, _, _ in results[0]) > 300


def test_join_finds_the_same_pairs_whatever_its_block_sizes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The join holds its temporaries a block at a time (bands, minima, pair passes, bigram
    # chunks): blocks a few elements long must find what the defaults find.
    from memctl.dedupe import jaccard as jaccard_module
    from memctl.dedupe import tokens as tokens_module

    records = build(3_000, seed=5)
    filler = str.maketrans("", "", CONFIG.filler)
    texts = [fold(light(r.text)).translate(filler) for r in records]

    def pairs() -> list[tuple[list[int], list[int], list[float]]]:
        index = finder(texts, 0.75, lsh=True, join=True)
        got = [index.add(range(a, min(a + 1_500, len(texts)))) for a in (0, 1_500)]
        return [(x.tolist(), y.tolist(), s.round(12).tolist()) for x, y, s in got]

    default = pairs()
    for name, small in (
        ("_BAND_KEYS", 1_000),
        ("_KEY_SETS", 7),
        ("_PAIRS_PER_PASS", 50),
        ("_PAIRS_HELD", 40),
    ):
        monkeypatch.setattr(jaccard_module, name, small)
    monkeypatch.setattr(tokens_module, "_CHUNK", 3)
    assert pairs() == default
    assert sum(len(x) for x, _, _ in default) > 200


def test_token_store_gathers_rows_stored_in_order_without_copying() -> None:
    tokens = TokenStore()
    tokens.put(range(4), ["abc", "用户喜欢", "", "hello"])
    codes, offsets = tokens.gather(np.arange(4))
    assert codes.base is not None  # a view of the store
    tokens.put([4], ["later"])  # writes after the rows gathered: the view is unchanged
    got = [codes[offsets[i] : offsets[i + 1]].tolist() for i in range(4)]
    assert got == [sorted(bigrams(t)) for t in ["abc", "用户喜欢", "", "hello"]]
    codes, offsets = tokens.gather(np.array([3, 0]))  # another order: copied
    assert codes.base is None
    assert codes.tolist() == sorted(bigrams("hello")) + sorted(bigrams("abc"))


@pytest.mark.slow
def test_floor_finder_finds_every_pair_with_a_sparse_set() -> None:
    # L4's candidates: Jaccard >= 0.5, no LSH; pairs of two dense (English) sets are left to
    # the SimHash tables, every other pair is found exactly.
    records = [r for r in build(6_000, seed=5) if len(r.text) >= 60][:2_500]
    texts = [fold(light(r.text)) for r in records]
    sets = [bigrams(t) for t in texts]
    tokens = TokenStore()
    tokens.put(range(len(texts)), texts)
    dense = tokens.dense(np.arange(len(texts)))
    expected = {(a, b) for a, b in brute_force_pairs(sets, 0.5) if not (dense[a] and dense[b])}
    for join in (True, False):
        index = finder(texts, 0.5, lsh=False, join=join)
        x, y, scores = index.add(range(len(texts)))
        assert set(zip(x.tolist(), y.tolist(), strict=True)) == expected
        assert all(s >= 0.5 for s in scores.tolist())
    assert len(expected) > 50 and dense.sum() > 200


@pytest.mark.parametrize("threshold", [0.5, 0.75])
def test_pairs_of_a_dense_and_a_sparse_set_are_all_found(threshold: float) -> None:
    # Texts about half Latin, half Chinese: a copy with a few letters made Chinese turns
    # sparse. The join leaves out a dense set's prefix tokens that no sparse set meets; what
    # it finds must still be every pair with a sparse set, in one batch and in two.
    rng = random.Random(11)
    words = ["tea", "cat", "run", "blue", "jazz", "code", "milk", "rain", "wolf", "kite"]
    han = "的是了和在有人我他这中大为上个国以要"
    texts = []
    for _ in range(300):
        latin = " ".join(rng.choice(words) for _ in range(5))
        chinese = "".join(rng.choice(han) for _ in range(int(len(latin) * 0.72)))
        base = latin + chinese
        texts.append(base)
        copy = list(base)
        for i in rng.sample([i for i, c in enumerate(latin) if c != " "], 2):
            copy[i] = rng.choice(han)
        texts.append("".join(copy))
    texts = [fold(light(t)) for t in texts]
    tokens = TokenStore()
    tokens.put(range(len(texts)), texts)
    dense = tokens.dense(np.arange(len(texts)))
    sets = [bigrams(t) for t in texts]
    expected = {
        (a, b) for a, b in brute_force_pairs(sets, threshold) if not (dense[a] and dense[b])
    }
    mixed = {(a, b) for a, b in expected if dense[a] != dense[b]}
    for batches in ([range(len(texts))], [range(200), range(200, len(texts))]):
        index = finder(texts, threshold, lsh=False, join=True)
        found = set()
        for rows in batches:
            x, y, _ = index.add(rows)
            found |= set(zip(x.tolist(), y.tolist(), strict=True))
        assert found == expected
    assert len(mixed) > 50 and 0 < dense.sum() < len(texts)


def test_jaccard_index_is_incremental() -> None:
    texts = [
        fold(light(t))
        for t in ("用户每天早上喝一杯美式咖啡不加糖", "用户每天早上都喝一杯美式咖啡不加糖",
                  "完全不同的一句话", "The user drinks green tea every afternoon at four",
                  "The user drinks green tea every single afternoon at four")
    ]  # fmt: skip
    for join in (True, False):
        index = finder(texts, 0.75, lsh=True, join=join)
        x, y, scores = index.add([0])
        assert len(x) == 0
        x, y, scores = index.add([1, 2, 3, 4])
        assert list(zip(x.tolist(), y.tolist(), strict=True)) == [(1, 0), (4, 3)]
        assert scores[0] == pytest.approx(jaccard(bigrams(texts[0]), bigrams(texts[1])))
        index.discard([0])  # no longer matched; re-adding re-indexes it
        x, y, _ = index.add([0])
        assert list(zip(x.tolist(), y.tolist(), strict=True)) == [(0, 1)]


def test_bigram_sets_match_the_one_text_reference() -> None:
    texts = ["", "a", "ab", "aa", "用户", "用户喜欢猫", "\ud800x", "x\udfff", "abab", "多音字多"]
    codes, offsets, dense = bigram_sets(texts)
    for i, text in enumerate(texts):
        assert codes[offsets[i] : offsets[i + 1]].tolist() == sorted(bigrams(text))
    assert dense.tolist() == [False, True, True, True, False, False, False, False, True, False]


@given(st.lists(st.text(max_size=12), max_size=30))
def test_bigram_sets_property(texts: list[str]) -> None:
    codes, offsets, _ = bigram_sets(texts)
    assert [codes[offsets[i] : offsets[i + 1]].tolist() for i in range(len(texts))] == [
        sorted(bigrams(t)) for t in texts
    ]


def test_token_store_replaces_rows_and_compacts() -> None:
    tokens = TokenStore()
    tokens.put(range(3), ["abc", "用户喜欢", "x"])
    for i in range(200):  # replacing row 1 over and over: old sets are reclaimed
        tokens.put([1], ["abcd" * (i % 7)])
    tokens.put([5], ["hello"])
    codes, offsets = tokens.gather(np.array([5, 1, 0, 4]))
    got = [codes[offsets[i] : offsets[i + 1]].tolist() for i in range(4)]
    assert got == [sorted(bigrams("hello")), sorted(bigrams("abcd" * (199 % 7))),
                   sorted(bigrams("abc")), []]  # fmt: skip


def test_key_index_matches_a_dict_of_lists() -> None:
    rng = random.Random(2)
    index = KeyIndex()
    reference: dict[int, list[int]] = {}
    row = 0
    for batch in [1, 5, 2, 40, 3, 3, 300, 1, 7, 1000, 2]:  # runs merge as they grow
        keys = [rng.randrange(60) for _ in range(batch)]
        index.add(np.array(keys, dtype=np.uint64), np.arange(row, row + batch))
        for k in keys:
            reference.setdefault(k, []).append(row)
            row += 1
        probe = np.array(range(70), dtype=np.uint64)
        which, rows = index.lookup(probe)
        got: dict[int, list[int]] = {}
        for w, r in zip(which.tolist(), rows.tolist(), strict=True):
            got.setdefault(w, []).append(r)
        assert {k: sorted(v) for k, v in got.items()} == reference
        assert index.count(probe).tolist() == [len(reference.get(k, [])) for k in range(70)]
    assert len(index) == row


@pytest.mark.parametrize("wide", [False, True])
def test_key_index_gives_a_keys_rows_in_row_order(wide: bool) -> None:
    # The boilerplate layer's keys are str hashes, salted per process: if a key's rows came
    # back in an order those values decide, one import gave different merges in different runs
    # (988 of 59,540 on the boilerplate shape at 200k).
    rng = random.Random(4)
    base = (1 << 63) if wide else 0  # too wide to pack with the row: the argsort path
    index = KeyIndex()
    reference: dict[int, list[int]] = {}
    row = 0
    for batch in [3000, 10, 900, 5000, 1]:
        keys = [base + rng.randrange(40) * 7919 for _ in range(batch)]
        rows = sorted(rng.sample(range(row, row + 10 * batch), batch))  # as the engine adds
        index.add(np.array(keys, dtype=np.uint64), np.array(rows))
        for k, r in zip(keys, rows, strict=True):
            reference.setdefault(k, []).append(r)
        row += 10 * batch
    for key, expected in reference.items():
        assert index.lookup(np.array([key], dtype=np.uint64))[1].tolist() == expected


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


def reference_template_key(masker: Masker, lt: str) -> str | None:
    """The template key by its definition: mask, fold with digits as slots, squeeze."""
    table: dict[int, str | None] = {**_fold_table(), **{ord(d): SLOT for d in "0123456789"}}
    key = masker.masked(lt).translate(table)
    if SLOT not in key:
        return None
    key = re.sub(SLOT + "{2,}", SLOT, key)
    return None if len(key) - key.count(SLOT) < CONFIG.template_min_literal else key


_TEMPLATE_BITS = st.sampled_from(
    ["第", "12", "条", "消息", "「晚安」", "“好”", "《书》", "'x'", '"q"', "a3f9c2e1", "@",
     "me@x.io", "http://x.io/1", "www.a.cn", "三", "个", "五月", " ", "，", "。", "-", ":",
     SLOT, "结论是否", "hello", "2024-05-01", "10:30", "1.5"]
)  # fmt: skip


@given(st.lists(_TEMPLATE_BITS, max_size=40).map("".join))  # some past fold()'s array length
@example("hello" + SLOT + SLOT + "结论是否")  # slot marks already in the text, side by side
@example("第" + SLOT + "12条消息结论是否")
@example("判断是否值得长期记住：第12条消息「今天好累」——结论：否")
@example("第 12 条消息：" + "用户，" * 60 + " 2026-05-03, no. 7 " + SLOT)
def test_template_key_fast_paths_match_the_definition(text: str) -> None:
    masker = Masker(CONFIG)
    lt = light(text)
    expected = reference_template_key(masker, lt)
    assert masker.key(lt, fold(lt)) == expected
    assert masker.key(lt) == expected


def reference_word_facts(guard: Guard, lt: str) -> tuple[set[str], list[str], set[object]]:
    """Numbers, negations and slots from English words, by the original loop over every
    run of letters (the guard now matches only lexicon words and n't endings)."""
    numbers: set[str] = set()
    negations: list[str] = []
    slots: set[object] = set()
    for m in re.finditer(r"[a-z]+(?:['’]t\b)?", lt):
        word = m.group()
        if word[-2:] in ("'t", "’t"):
            negations.append("not")
        elif word in guard._word_negation:
            negations.append(guard._word_negation[word])
        elif word in guard._word_number:
            numbers.add(guard._word_number[word])
        elif word in guard._word_slot:
            slots.add(guard._word_slot[word])
        elif (
            word in guard._word_slot_before_number
            and lt[m.end() : m.end() + 4].lstrip()[:1].isdigit()
        ):
            slots.add(guard._word_slot_before_number[word])
    return numbers, negations, slots


_GUARD_BITS = st.sampled_from(
    ["no", "not", "don't", "won’t", "may", "5", "march", "two", "the", "x", "'t", "’t",
     "nothing", "nothingness", "never", "monday", "cannot", "neither", "twenty", "é", "9a",
     " ", "'", ".", ",", "-", "a't", "notnot", "hundred"]
)  # fmt: skip


@given(text=st.lists(_GUARD_BITS, max_size=12).map("".join))
def test_guard_word_pass_matches_the_original_loop(text: str, guard: Guard) -> None:
    lt = light(text)
    numbers, negations, slots = reference_word_facts(guard, lt)
    facts = guard.facts(lt)  # an ASCII text: only digits and words can contribute
    digits = {n for run in re.findall(r"\d[\d,.]*", lt) for n in _numbers(run)}
    assert facts.numbers == frozenset(numbers | digits)
    assert facts.negations == tuple(sorted(negations))
    assert facts.slots == frozenset(slots)


def test_cached_segmentation_is_jiebas() -> None:
    import jieba

    texts = [light(r.text) for r in build(1_500, seed=4)]
    texts += ["héllo wörld 你好，世界！\r\n tab\tx", "ａｂｃ 12.5% C++ a-b", "", "日本語"]
    Tokenizer.words("预热")
    for text in texts:
        expected = [w for w in jieba.lcut(text, HMM=False) if re.search(r"\w", w)]
        assert Tokenizer.words(text) == expected


def test_template_family_needs_a_counter_slot() -> None:
    from memctl.dedupe.template import Families

    families = Families(family_min=8, min_distinct_share=0.8)
    value = {r: r % 3 for r in range(12)}.__getitem__  # three values, four times each
    assert families.add(((r, 7) for r in range(12)), value) == set()
    assert families.held_apart == {7} and not families.is_family(7)
    counter = {r: r for r in range(100, 110)}.__getitem__
    assert families.add(((r, 9) for r in range(100, 107)), counter) == set()  # seven: too few
    assert families.add([(107, 9)], counter) == {9} and families.is_family(9)
    # 8 values among 10 members (0.8): a counter with a collision still folds; 8 among 11 not.
    many = Families(family_min=8, min_distinct_share=0.8)
    assert many.add(((r, 1) for r in range(10)), lambda r: min(r, 7)) == {1}
    assert many.add(((r, 2) for r in range(11)), lambda r: min(r, 7)) == set()
    # Once formed, a family takes any new member, copies of old ones included.
    assert many.add([(50, 1), (51, 1)], lambda r: 0) == {1}


BP = "".join(chr(0x4E00 + 7 * i) for i in range(52))  # 52 characters, no repeats


@pytest.mark.parametrize(
    ("copy", "expected"),
    [
        (BP + "rest", 52),  # exact
        (BP[:20] + "x" + BP[21:] + "rest", 52),  # a typo
        ("x" + BP[1:] + "rest", 52),  # a typo in its first character
        (BP[:-1] + "x" + "rest", 52),  # in its last: the copy ends where the boilerplate would
        (BP[:30] + BP[31:] + "rest", 51),  # a character left out
        (BP[:30] + "xy" + BP[30:] + "rest", 54),  # two put in
        (BP[:18] + BP[26:] + "rest", 0),  # 8 characters missing: below 0.9
        (BP, 0),  # nothing after it: not a note behind boilerplate
    ],
)
def test_boilerplate_carried_with_small_edits(copy: str, expected: int) -> None:
    from memctl.dedupe.boilerplate import Boilerplate

    assert Boilerplate(CONFIG)._carried(BP, copy) == (expected, 0)


NOTE = "abcdefghijklmnopqrstuvwxyz"  # 26 characters of the record's own


@pytest.mark.parametrize(
    ("copy", "expected"),
    [
        (BP[:26] + NOTE + BP[26:], (26, 26)),  # the note inside: cut on both sides of it
        (BP[:26] + NOTE + BP[26:40] + "x" + BP[41:], (26, 26)),  # and a typo after it
        (BP[:26] + NOTE + BP[26:] + "rest", (26, 0)),  # more after the copy: its start only
        (BP[:26] + NOTE[:10] + BP[26:] + "rest", (62, 0)),  # 10 put in: an edit, not a note
        (BP[:10] + NOTE + BP[30:] + "rest", (0, 0)),  # 20 replaced: below 0.9
        (NOTE + BP, (0, 0)),  # the copy does not start the text
    ],
)
def test_boilerplate_carried_around_a_note_inside_it(copy: str, expected: tuple) -> None:
    from memctl.dedupe.boilerplate import Boilerplate

    assert Boilerplate(CONFIG)._carried(BP, copy) == expected


@given(st.text(alphabet="ab12", max_size=30))
def test_unmasked_length_maps_a_masked_prefix_back(text: str) -> None:
    from memctl.dedupe.boilerplate import _masked, _unmasked_length

    masked = _masked(text)
    for length in range(len(masked) + 1):
        raw = _unmasked_length(text, length)
        assert _masked(text[:raw]) == masked[:length]
        assert raw == len(text) or _masked(text[: raw + 1]) != masked[:length]  # the shortest


def _difflib_carried(boilerplate: str, text: str) -> int:
    """_carried() as it was written first: difflib on the whole boilerplate (the oracle)."""
    from difflib import SequenceMatcher

    from memctl.dedupe.boilerplate import _widest_gap

    n = len(boilerplate)
    head = text[: n + max(8, n // 10)]
    blocks = [b for b in SequenceMatcher(None, boilerplate, head, False).get_matching_blocks()]
    blocks = [b for b in blocks if b.size]
    whole = [
        tuple(b) for b in SequenceMatcher(None, boilerplate, text, False).get_matching_blocks()
    ]
    if sum(b[2] for b in whole) >= CONFIG.boilerplate_near_similarity * n and (
        _widest_gap(whole)[0] >= CONFIG.boilerplate_inside_min_chars
    ):
        return -1  # perhaps a note inside the copy (tested on its own)
    if not blocks or sum(b.size for b in blocks) < CONFIG.boilerplate_near_similarity * n:
        return 0
    if _widest_gap([tuple(b) for b in blocks])[0] >= CONFIG.boilerplate_inside_min_chars:
        return -1  # a note inside the copy (tested on its own)
    last = blocks[-1]
    end = last.b + last.size + (n - last.a - last.size)
    return end if end < len(text) else 0


def _edited(rng: random.Random, text: str, alphabet: str) -> str:
    for _ in range(rng.randrange(3)):
        at = rng.randrange(len(text) + 1)
        piece = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        op = rng.randrange(3)
        if op == 0:  # put in
            text = text[:at] + piece + text[at:]
        elif op == 1:  # left out
            text = text[:at] + text[at + 1 + len(piece) :]
        else:  # changed
            text = text[:at] + piece + text[at + len(piece) :]
    return text


def test_boilerplate_carried_equals_difflib() -> None:
    """The slice-and-find answer is difflib's on edited copies, over small alphabets too,
    where a match found by str.find is most often not the one difflib takes."""
    from memctl.dedupe.boilerplate import Boilerplate

    boilerplate = Boilerplate(CONFIG)
    rng = random.Random(7)
    for _ in range(12000):
        alphabet = rng.choice(["ab", "abc", "abcd", "用户是的"[: rng.randrange(2, 5)]])
        bp = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40, 120)))
        rest = "".join(rng.choice(alphabet + "x") for _ in range(rng.randrange(30)))
        text = _edited(rng, bp, alphabet + "x") + rest
        expected = _difflib_carried(bp, text)
        if expected >= 0:
            assert boilerplate._carried(bp, text) == (expected, 0), (bp, text)


@given(st.text(alphabet="abcd", max_size=60), st.text(alphabet="abcd", max_size=60))
def test_ratio_bound_decides_as_difflib(a: str, b: str) -> None:
    from difflib import SequenceMatcher

    from memctl.dedupe.boilerplate import _common_prefix, _common_suffix, _ratio_at_least

    assert _common_prefix(a, b) == len(os.path.commonprefix([a, b]))
    assert _common_suffix(a, b) == len(os.path.commonprefix([a[::-1], b[::-1]]))
    for threshold in (0.3, 0.5, 0.7):
        expected = SequenceMatcher(None, a, b, False).ratio() >= threshold
        assert _ratio_at_least(a, b, threshold) == expected


@given(
    st.lists(st.tuples(st.integers(0, 50), st.integers(-5, 30)), max_size=40),
    st.integers(1, 12),
)
def test_prefix_join_passes_cover_every_candidate_once_within_the_bound(
    ranges: list[tuple[int, int]], limit: int
) -> None:
    from memctl.dedupe.jaccard import _passes
    from memctl.dedupe.keyindex import spans

    lo = np.array([a for a, _ in ranges], dtype=np.int64)
    hi = np.array([a + d for a, d in ranges], dtype=np.int64)
    which, at = spans(lo, hi)
    seen = []
    for part, lo_part, hi_part in _passes(lo, hi, limit):
        w, a = spans(lo_part, hi_part)
        assert len(w) <= limit
        seen += zip(part[w].tolist(), a.tolist(), strict=True)
    assert sorted(seen) == sorted(zip(which.tolist(), at.tolist(), strict=True))


def test_boilerplate_groups_of_one_size_come_in_the_order_of_their_rows() -> None:
    """Groups are keyed by str hashes, salted per process; the order groups of one size are
    worked in (which decides a record's cut when two groups match it) follows their rows, so
    one import gives one store in every run."""
    from memctl.dedupe.boilerplate import Boilerplate

    bp = Boilerplate(CONFIG)
    n, size = bp.min_chars, bp.min_records
    heads = [(chr(0x4E00 + 3 * g) + chr(0x4E01 + 3 * g)) * (2 * n) for g in range(12)]
    texts = [heads[g] + f" note {chr(97 + g)}{chr(97 + k)} " + "z" * (3 * n)
             for g in range(12) for k in range(size)]  # fmt: skip
    rows = list(range(len(texts)))[::-1]  # added last group first: the rows give the order
    found, _ = bp.add(rows, texts.__getitem__)
    firsts = [min(r for r in rows if texts[r].startswith(heads[g])) for g in range(12)]
    by_key = {bp._heads.lookup(np.array([key], np.uint64))[1].min(): key for key in found}
    assert found == [by_key[row] for row in sorted(firsts)]
