"""A multimap from 64-bit keys to row numbers, kept as sorted numpy arrays.

The engine's lookup tables (bigram postings, LSH band tables, boilerplate groups) hold one entry
per record or per token: as Python dicts of lists they cost ~100 bytes an entry, here 16. Each
batch of new entries is sorted into a run of its own; a run at least half the size of the one
before it merges with it, so there are O(log n) runs and each entry is re-sorted O(log n) times
(a stream of small batches stays cheap, one big batch is one sort).
"""

from __future__ import annotations

import numpy as np


def spans(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with lo[i] <= j < hi[i], as two arrays: which range, and the position."""
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    which = np.repeat(np.arange(len(lo), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts  # where each range starts in the output
    return which, np.arange(total, dtype=np.int64) - np.repeat(first - lo, counts)


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique without arguments hashes: 100x slower here)."""
    ordered = np.sort(values)
    if not len(ordered):
        return ordered
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


class KeyIndex:
    """key -> rows, for many keys at once."""

    def __init__(self) -> None:
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted keys, rows), big first

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self._runs)

    def add(self, keys: np.ndarray, rows: np.ndarray) -> None:
        if not len(keys):
            return
        self._runs.append(_sorted(np.asarray(keys, np.uint64), np.asarray(rows, np.int64)))
        while len(self._runs) > 1 and 2 * len(self._runs[-1][0]) >= len(self._runs[-2][0]):
            (k1, r1), (k2, r2) = self._runs.pop(), self._runs.pop()
            self._runs.append(_sorted(np.concatenate((k2, k1)), np.concatenate((r2, r1))))

    def lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(i, row) for every stored entry whose key equals keys[i]."""
        keys = np.asarray(keys, dtype=np.uint64)
        which, rows = [np.empty(0, np.int64)], [np.empty(0, np.int64)]
        for sorted_keys, run_rows in self._runs:
            lo = np.searchsorted(sorted_keys, keys, "left")
            hi = np.searchsorted(sorted_keys, keys, "right")
            i, at = spans(lo, hi)
            which.append(i)
            rows.append(run_rows[at])
        return np.concatenate(which), np.concatenate(rows)

    def count(self, keys: np.ndarray) -> np.ndarray:
        """How many entries each key has."""
        keys = np.asarray(keys, dtype=np.uint64)
        total = np.zeros(len(keys), dtype=np.int64)
        for sorted_keys, _ in self._runs:
            total += np.searchsorted(sorted_keys, keys, "right")
            total -= np.searchsorted(sorted_keys, keys, "left")
        return total


def _sorted(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keys sorted with their rows, the rows of one key in ascending order: never in an order
    the key values decide, as some keys are str hashes salted per process (the boilerplate
    layer's), and the order of a key's rows decides which of them a group tries first."""
    if not len(keys):
        return keys, rows
    row_bits = max(int(rows.max()).bit_length(), 1) if rows.min() >= 0 else 64
    if int(keys.max()).bit_length() + row_bits <= 64:  # e.g. bigram codes: 42 bits
        packed = (keys << np.uint64(row_bits)) | rows.astype(np.uint64)
        packed.sort()  # a plain sort of packed keys is several times faster than argsort
        return packed >> np.uint64(row_bits), (packed & np.uint64((1 << row_bits) - 1)).astype(
            np.int64
        )
    order = np.lexsort((rows, keys))
    return keys[order], rows[order]
