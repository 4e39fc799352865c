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

sys.path.insert(0, str(Path(__file__).parent / "bench"))
from recall import BruteEngine, compare  # noqa: E402
from shapes import SHAPES, SamplesMissing, generate  # noqa: E402

from memctl.dedupe.engine import Engine, Item  # noqa: E402

# Brute force is quadratic: the dense shapes are kept smaller.
SIZES = {"boilerplate": 400, "nearcopies": 800}


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
