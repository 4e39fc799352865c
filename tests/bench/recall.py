"""Recall against brute force: the engine's groups equal those of an engine that compares every
pair of records exactly.

`BruteEngine` is memctl's Engine with its candidate search replaced: L3 and L4's pair finders
return every pair at or above their Jaccard threshold from an exact intersection count of all
pairs (a sparse matrix product), and L4 takes its dense pairs from those too instead of from the
SimHash block tables. Everything else (template folding, boilerplate, guard, union order) is the
engine's own, so any difference in the groups is a pair the bounded candidate search missed.

Used by tests/dedupe/test_recall.py (small sizes) and bench_import_dedupe.py --recall (20k).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from memctl.dedupe.engine import Engine, Item
from memctl.dedupe.jaccard import Candidates
from memctl.dedupe.tokens import TokenStore

_BLOCK = 1000  # rows per sparse product


class BrutePairs:
    """PairFinder's interface, every pair found by exact counts."""

    def __init__(self, tokens: TokenStore, threshold: float) -> None:
        self.tokens, self.threshold = tokens, threshold
        self._seq: dict[int, int] = {}
        self._next = 0
        self.candidates = self.verified = self.joins = 0

    def __len__(self) -> int:
        return len(self._seq)

    def add(self, rows: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rows = [int(r) for r in rows]
        for r in rows:
            self._seq[r] = self._next
            self._next += 1
        members = np.array(sorted(self._seq, key=self._seq.__getitem__), dtype=np.int64)
        if not len(rows) or not len(members):
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
        codes, offsets = self.tokens.gather(members)
        vocab, cols = np.unique(codes, return_inverse=True)
        sizes = np.diff(offsets)
        owner = np.repeat(np.arange(len(members)), sizes)
        matrix = sparse.csr_matrix(
            (np.ones(len(cols), dtype=np.int32), (owner, cols)), shape=(len(members), len(vocab))
        )
        order_of = {int(m): i for i, m in enumerate(members)}
        mine = np.array([order_of[r] for r in rows], dtype=np.int64)
        xs, ys, ss = [], [], []
        for start in range(0, len(mine), _BLOCK):
            block = mine[start : start + _BLOCK]
            product = (matrix[block] @ matrix.T).tocoo()
            i, j, inter = block[product.row], product.col, product.data
            keep = j < i  # indexed before
            i, j, inter = i[keep], j[keep], inter[keep]
            score = inter / (sizes[i] + sizes[j] - inter)
            hit = score >= self.threshold - 1e-12
            xs.append(i[hit])
            ys.append(j[hit])
            ss.append(score[hit])
        x, y, s = np.concatenate(xs), np.concatenate(ys), np.concatenate(ss)
        order = np.lexsort((y, x))  # by x's place, then y's (positions are places)
        return members[x[order]], members[y[order]], s[order]

    def add_unverified(self, rows: Sequence[int] | np.ndarray) -> Candidates:
        x, y, s = self.add(rows)
        return Candidates(x, y, None, s)

    def jaccard(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = []
        for a, b in zip(x.tolist(), y.tolist(), strict=True):
            sa, sb = (set(self.tokens.gather(np.array([r]))[0].tolist()) for r in (a, b))
            union = len(sa | sb)
            out.append(len(sa & sb) / union if union else 1.0)
        return np.array(out)

    def discard(self, rows: Sequence[int] | np.ndarray) -> None:
        for r in rows:
            self._seq.pop(int(r), None)

    def insert(self, rows: Sequence[int] | np.ndarray) -> None:
        self.add(rows)

    def order(self, rows: np.ndarray) -> np.ndarray:
        return np.vectorize(lambda r: self._seq.get(int(r), -1), otypes=[np.int64])(rows)

    def position(self, row: int) -> int:
        return self._seq.get(row, -1)


class BruteEngine(Engine):
    """The engine with exact all-pairs candidate search (slow: tests and benchmarks only)."""

    def __init__(self) -> None:
        super().__init__()
        c = self.config
        self._jaccard = BrutePairs(self._tokens, c.jaccard)  # type: ignore[assignment]
        self._floor = BrutePairs(self._tokens, c.simhash_min_jaccard)  # type: ignore[assignment]

    def _dense_simhash_pairs(self, eligible: list[int]) -> list[tuple[int, int]]:
        return []  # the floor above already holds every dense pair


def groups(engine: Engine, ids: list[int]) -> set[frozenset[int]]:
    by_root: dict[int, set[int]] = {}
    for i in ids:
        by_root.setdefault(engine.canonical(i), set()).add(i)
    return {frozenset(g) for g in by_root.values()}


def compare(records: Sequence[object], batch: int | None = None) -> tuple[bool, str]:
    """(equal, summary): the engine's groups against brute force over the same records
    (objects with .text and .ts), added in batches of `batch` (all at once by default)."""
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]  # type: ignore[attr-defined]
    step = batch or len(items) or 1
    engines: list[Engine] = [Engine(), BruteEngine()]
    for engine in engines:
        for start in range(0, len(items), step):
            engine.add(items[start : start + step])
    ids = [i.id for i in items]
    ours, brute = (groups(e, ids) for e in engines)
    stats: Counter[str] = Counter(
        {k: v for k, v in engines[0].stats().items() if k.endswith("_merges")}
    )
    missed = len(brute - ours)
    summary = (
        f"{len(items)} records, {len(ours)} groups (brute force {len(brute)}), "
        f"{missed} brute-force groups not found; merges {dict(stats)}"
    )
    return ours == brute, summary


def check(records: Sequence[object]) -> str:
    equal, summary = compare(records)
    return ("recall = brute force: " if equal else "RECALL DIFFERS: ") + summary
