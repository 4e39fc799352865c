"""Pairs inside one group are passed over before they are scored, with the same merges.

A cluster of k near copies gives ~k²/2 Jaccard pairs (samples at 200k: 2.3M pairs for 74k
merges), nearly all of them inside one group by their turn. Engine._join_candidates scores a
record's first pair into each group and passes over its later ones into a group that pair
joins; these tests hold it to the result of scoring and trying every pair in order.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.dedupe import engine as engine_module
from memctl.dedupe.engine import JACCARD, Engine, Item
from memctl.dedupe.jaccard import Candidates
from memctl.dedupe.unionfind import Groups

BASE = "用户每周{}晚上去游泳馆游泳一个小时，游完以后在旁边的面馆吃一碗牛肉面，再走路回家。"
DAYS = "一二三四五"


class EveryPair(Engine):
    """The engine as before: every candidate scored, guard and groups checked pair by pair."""

    def _join_candidates(self, found: Candidates) -> None:
        at = np.arange(len(found), dtype=np.int64)
        scores = found.scores(at)
        floor = self._jaccard.threshold - 1e-12
        for a, b, score in zip(found.x.tolist(), found.y.tolist(), scores.tolist(), strict=True):
            if score < floor:
                continue
            if self._guard_key(a) != self._guard_key(b):
                self._stats[f"{JACCARD}_blocked_by_guard"] += 1
                continue
            if self._groups.find(a) != self._groups.find(b):
                self._union_checked(a, b, JACCARD, score, "bigram Jaccard {score}")


def near_copies(seed: int, n: int, days: str = DAYS) -> list[Item]:
    """Copies of a text, each with two characters changed, stating one of `days` (the guard
    keeps those apart), in a shuffled order, with times."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        text = BASE.format(rng.choice(days))
        for _ in range(2):
            at = rng.randrange(8, len(text) - 1)
            text = text[:at] + rng.choice("们这那") + text[at + 1 :]
        texts.append(text)
    rng.shuffle(texts)
    return [Item(i, t, f"2026-0{1 + i % 9}-1{i % 10}") for i, t in enumerate(texts)]


def merges(engine: Engine, items: list[Item], batches: int) -> list[tuple]:
    step = -(-len(items) // batches)
    out = []
    for lo in range(0, len(items), step):
        out += engine.add(items[lo : lo + step])
    return sorted((m.dup, m.into, m.layer, m.score, m.why) for m in out)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 160), st.integers(1, 3), st.integers(1, 300))
def test_the_merges_are_those_of_trying_every_pair(
    seed: int, n: int, batches: int, block: int
) -> None:
    items = near_copies(seed, n)
    mine, every = Engine(), EveryPair()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine_module, "_PAIR_BLOCK", block)  # the groups known at a block's start
        assert merges(mine, items, batches) == merges(every, items, batches)
    blocked = "jaccard_blocked_by_guard"
    assert mine.stats().get(blocked, 0) == every.stats().get(blocked, 0)


def test_pairs_inside_one_group_are_not_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_module, "_PAIR_BLOCK", 2048)
    items = near_copies(3, 600, days="一")
    engine = Engine()
    engine.add(items)
    stats = engine.stats()
    assert len({engine.canonical(i.id) for i in items}) < 5
    every = EveryPair()
    every.add(items)
    assert every.stats()["jaccard_verified"] > 20_000  # ~k²/2 pairs of the copies that differ
    assert stats["jaccard_verified"] < every.stats()["jaccard_verified"] / 3


def test_guard_keys_are_looked_up_once_per_record_whatever_the_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A record of a big cluster has pairs in most blocks: its guard key was looked up again
    # in each (the keys do not change while pairs are joined).
    items = near_copies(5, 300)
    lookups = []
    for block in (1 << 16, 50):
        monkeypatch.setattr(engine_module, "_PAIR_BLOCK", block)
        engine = Engine()
        calls = [0]
        key = engine._guard_key

        def counted(row: int, key=key, calls=calls) -> int:  # type: ignore[no-untyped-def]
            calls[0] += 1
            return key(row)

        monkeypatch.setattr(engine, "_guard_key", counted)
        engine.add(items)
        lookups.append(calls[0])
    assert lookups[0] == lookups[1]
    assert lookups[0] < 3 * len(items)  # one per record, two per union


def test_roots_are_find_of_each_row() -> None:
    rng = random.Random(7)
    groups = Groups()
    for i in range(500):
        groups.add(None, 10, i)
    for _ in range(300):
        groups.union(rng.randrange(500), rng.randrange(500))
    rows = np.array([rng.randrange(500) for _ in range(1000)], dtype=np.int64)
    assert groups.roots(rows).tolist() == [groups.find(r) for r in rows.tolist()]
