"""The Jaccard join holds each candidate pair about once, however many bands or passes find it.

Near copies agree on most of their 64 LSH bands and share many prefix tokens, so one pair is
found again and again; kept until the end, those repeats were ten times the distinct pairs on
the samples shape at 200k records (28M keys for 2.3M pairs: the band join alone raised the
import's peak by 430 MiB). jaccard._PairSet merges them into the distinct ones as they come.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memctl.dedupe import jaccard
from memctl.dedupe.jaccard import _PairSet
from memctl.dedupe.keyindex import distinct


@given(st.lists(st.lists(st.integers(0, 2**40), max_size=30), max_size=30), st.integers(1, 50))
def test_the_keys_are_every_key_added_sorted_and_once(pieces: list[list[int]], held: int) -> None:
    arrays = [np.array(p, dtype=np.int64) for p in pieces]
    found = _PairSet()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jaccard, "_PAIRS_HELD", held)
        for keys in arrays:
            found.add(keys)
        got = found.keys()
    expected = distinct(np.concatenate([np.empty(0, np.int64), *arrays]))
    assert got.dtype == np.int64
    assert got.tolist() == expected.tolist()


def test_a_pair_found_by_every_band_is_held_about_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jaccard, "_PAIRS_HELD", 1_000)
    rng = np.random.default_rng(7)
    pairs = distinct(rng.integers(0, 2**40, 10_000))
    found = _PairSet()
    most = 0
    for _band in range(64):  # each band finds nearly the same pairs again
        found.add(pairs[rng.random(len(pairs)) < 0.9])
        most = max(most, len(found._held) + found._pending)
    assert found.keys().tolist() == pairs.tolist()
    assert most <= 3 * len(pairs)  # not the 64 x 9,000 pieces
