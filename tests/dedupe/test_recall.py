"""Recall on every input shape: the engine's groups equal those found by comparing every pair.

The engine bounds how many candidates a record draws from one bucket, band or prefix; this
checks, per shape of tests/bench/shapes.py, that nothing it skips would have merged: the
partition equals that of the same engine with exact all-pairs candidate search
(tests/bench/recall.py). Sizes keep each case to a few seconds; the benchmark runs the same
check at 20k (bench_import_dedupe.py --recall).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
from recall import BruteEngine, compare  # noqa: E402
from shapes import SHAPES, SamplesMissing, generate  # noqa: E402

from memctl.dedupe.engine import Engine, Item  # noqa: E402

# Brute force is quadratic: the dense shapes are kept smaller.
SIZES = {"boilerplate": 400, "nearcopies": 800}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_groups_equal_brute_force(shape: str, seed: int) -> None:
    try:
        records = generate(shape, SIZES.get(shape, 2_500), seed)
    except SamplesMissing as exc:
        pytest.skip(str(exc))
    equal, summary = compare(records)
    print(f"\n{shape} seed {seed}: {summary}")
    assert equal, summary


def test_groups_equal_brute_force_in_small_batches() -> None:
    # Small batches probe the persistent index instead of joining.
    equal, summary = compare(generate("mix", 1_500, 3), batch=97)
    assert equal, summary


def test_brute_force_engine_finds_the_merges() -> None:
    # The reference itself must merge: near copies of one text end in one group.
    records = generate("nearcopies", 400, 1)
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]
    brute, ours = BruteEngine(), Engine()
    brute.add(items)
    ours.add(items)
    copies = [i for i, r in enumerate(records) if r.kind == "near"]
    # (a one-character edit that drops a negation or a digit is rightly a different memory)
    assert len(copies) == 200 and len({brute.canonical(i) for i in copies}) <= 10
    assert {brute.canonical(i) for i in copies} == {ours.canonical(i) for i in copies}


def _clustered_prints(n: int, seed: int) -> list[int]:
    """Fingerprints of texts sharing most of their words: one base with a few of 24 bits
    flipped (so thousands share every block value), plus some random ones."""
    import random

    rng = random.Random(seed)
    base = rng.getrandbits(64)
    spots = rng.sample(range(64), 24)
    prints = []
    for _ in range(n):
        if rng.random() < 0.1:
            prints.append(rng.getrandbits(64))
            continue
        value = base
        for bit in rng.sample(spots, rng.randint(0, 8)):
            value ^= 1 << bit
        prints.append(value)
    return prints


@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
def test_simhash_index_equals_brute_force_on_crowded_buckets(k: int) -> None:
    from memctl.dedupe.simhash import SimHashIndex

    prints = _clustered_prints(3_000, seed=k)
    index = SimHashIndex(k, crowded=16)
    found, expected = set(), set()
    for i, p in enumerate(prints):
        found |= {(i, j, d) for j, d in index.query(p)}
        expected |= {(i, j, (p ^ q).bit_count()) for j, q in enumerate(prints[:i])
                     if (p ^ q).bit_count() <= k}  # fmt: skip
        index.insert(i, p)
    assert found == expected
    assert len(expected) > 1_000


def test_simhash_index_reads_sub_buckets_of_a_crowded_bucket() -> None:
    # Fewer fingerprints read that are not within k: a whole-bucket scan reads every member
    # of a crowded bucket, the sub-buckets only those agreeing on one more block.
    from memctl.dedupe.simhash import SimHashIndex

    prints = _clustered_prints(3_000, seed=9)
    wasted = {}
    for crowded in (10**9, 64):
        index = SimHashIndex(3, crowded=crowded)
        hits = 0
        for i, p in enumerate(prints):
            hits += len(index.query(p))
            index.insert(i, p)
        wasted[crowded] = index.candidates - hits
    assert wasted[64] * 1.5 < wasted[10**9]
