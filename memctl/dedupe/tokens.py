"""Character-bigram sets of many texts at once, stored flat: what L3 and L4 compare.

A token is one bigram packed into an int exactly as `text.bigrams` packs it (first code point
<< 21 | second; a one-character text is that character with 0x1FFFFF). Sets are computed for a
whole batch with numpy (one UTF-32 view of the joined texts, one sort) instead of one Python set
per record, and kept in one int64 array with a start and a size per row: 8 bytes a token, no
object per record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

_SHIFT = 21
_LONE = (1 << _SHIFT) - 1  # second half of a one-character text's only token
_OWNER = 42  # bit where a text's number starts in the sort key (codes take 42 bits)
# Texts per numpy pass: bounds the temporary arrays, ~8 int64 arrays as long as the chunk's
# characters (put() of 50k English notes rose 110 MiB with 1 << 14 and the codes joined
# before they were copied, 54 MiB now; tests/bench/engine_mem.py --trace).
_CHUNK = 1 << 12
# Characters below U+0800 (Latin, Greek, Cyrillic, Hebrew, Arabic…) come from small alphabets:
# a text written mostly in them has only common bigrams (see jaccard.py, "dense").
_SMALL_ALPHABET = 0x800


def bigram_sets(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, offsets, dense): text i's distinct bigrams, ascending, are
    codes[offsets[i]:offsets[i + 1]]; dense[i] says most of its characters are from a small
    alphabet."""
    codes: list[np.ndarray] = [np.empty(0, np.int64)]
    counts = np.zeros(len(texts), dtype=np.int64)
    dense = np.zeros(len(texts), dtype=bool)
    for first, piece, piece_counts, piece_dense in _bigram_pieces(texts):
        codes.append(piece)
        counts[first : first + len(piece_counts)] = piece_counts
        dense[first : first + len(piece_dense)] = piece_dense
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return np.concatenate(codes), offsets, dense


def _bigram_pieces(
    texts: Sequence[str],
) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """bigram_sets() a chunk of texts at a time: (its first text, the codes of its texts one
    after the other, a count per text, whether each is dense)."""
    for first in range(0, len(texts), _CHUNK):
        chunk = texts[first : first + _CHUNK]
        lengths = np.fromiter(map(len, chunk), dtype=np.int64, count=len(chunk))
        joined = "".join(chunk).encode("utf-32-le", "surrogatepass")
        chars = np.frombuffer(joined, dtype=np.uint32).astype(np.int64)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        small = np.concatenate(([0], np.cumsum(chars < _SMALL_ALPHABET)))
        dense = 2 * (small[ends] - small[starts]) > lengths
        owner = np.repeat(np.arange(len(chunk), dtype=np.int64), lengths)
        inside = owner[:-1] == owner[1:]  # the bigram does not straddle two texts
        keys = (owner[:-1][inside] << _OWNER) | (chars[:-1][inside] << _SHIFT) | chars[1:][inside]
        lone = np.flatnonzero(lengths == 1)
        keys = np.concatenate((keys, (lone << _OWNER) | (chars[starts[lone]] << _SHIFT) | _LONE))
        keys.sort()
        keep = np.ones(len(keys), dtype=bool)
        keep[1:] = keys[1:] != keys[:-1]
        keys = keys[keep]
        counts = np.bincount(keys >> _OWNER, minlength=len(chunk))
        yield first, keys & ((1 << _OWNER) - 1), counts, dense


class TokenStore:
    """Every row's bigram set (rows are the engine's record numbers), replaceable."""

    def __init__(self) -> None:
        self._codes = np.empty(0, dtype=np.int64)
        self._used = 0  # codes in use, live or replaced
        self._start = np.zeros(0, dtype=np.int64)
        self._size = np.zeros(0, dtype=np.int64)
        self._dense = np.zeros(0, dtype=bool)

    def __len__(self) -> int:
        return len(self._size)

    def put(self, rows: Sequence[int] | np.ndarray, texts: Sequence[str]) -> None:
        """Set the rows' token sets from their texts (a row seen before is replaced)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return
        # Each chunk's codes copied into the store as they are made: all made first, the
        # batch's codes were held twice at once (215 MiB at 200k English records). Room is
        # reserved for a bigram a character (a text has at most as many), of which only what
        # is written ever becomes resident.
        self._reserve(int(rows.max()) + 1, sum(map(len, texts)))
        at = self._used
        for first, piece, counts, dense in _bigram_pieces(texts):
            mine = rows[first : first + len(counts)]
            self._start[mine] = at + np.cumsum(counts) - counts
            self._size[mine] = counts
            self._dense[mine] = dense
            self._codes[at : at + len(piece)] = piece
            at += len(piece)
        self._used = at

    def clear(self) -> None:
        """Forget every set (an engine past its last batch)."""
        self._codes = np.empty(0, dtype=np.int64)
        self._used = 0
        self._start = np.zeros(0, dtype=np.int64)
        self._size = np.zeros(0, dtype=np.int64)
        self._dense = np.zeros(0, dtype=bool)

    def sizes(self, rows: np.ndarray) -> np.ndarray:
        return self._size[rows]

    def dense(self, rows: np.ndarray) -> np.ndarray:
        return self._dense[rows]

    def dense_row(self, row: int) -> bool:
        """Whether one row's set is dense (and not empty)."""
        return bool(self._dense[row]) and bool(self._size[row])

    def gather(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(codes, offsets) of the rows' sets, in the order given (codes may be a view of
        the store: read them, do not write them)."""
        sizes = self._size[rows]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        starts = self._start[rows]
        if len(rows) and np.array_equal(starts[1:], starts[:-1] + sizes[:-1]):
            # Stored in this order already (a first batch joined whole): copied, the codes
            # were the biggest array of the join (8 bytes a token, 110 MiB at 200k English).
            first = int(starts[0])
            return self._codes[first : first + int(offsets[-1])], offsets
        out = np.empty(int(offsets[-1]), dtype=np.int64)
        step = 1 << 14  # rows per pass: the index arrays stay small
        for i in range(0, len(rows), step):
            a, b = offsets[i], offsets[min(i + step, len(rows))]
            part = slice(i, min(i + step, len(rows)))
            at = np.arange(a, b, dtype=np.int64) + np.repeat(
                self._start[rows[part]] - offsets[part], sizes[part]
            )
            out[a:b] = self._codes[at]
        return out, offsets

    def _reserve(self, rows: int, codes: int) -> None:
        if rows > len(self._size):
            grow = rows - len(self._size)
            self._start = np.concatenate((self._start, np.zeros(grow, np.int64)))
            self._size = np.concatenate((self._size, np.zeros(grow, np.int64)))
            self._dense = np.concatenate((self._dense, np.zeros(grow, bool)))
        if self._used + codes <= len(self._codes):
            return
        live = int(self._size.sum())
        if self._used > 2 * live:  # mostly replaced sets: compact instead of growing
            everything = np.arange(len(self._size), dtype=np.int64)
            kept, offsets = self.gather(everything)
            self._start = offsets[:-1].copy()
            self._used = len(kept)
            self._codes = kept
        capacity = max(self._used + codes, len(self._codes) + len(self._codes) // 2, 1024)
        grown = np.empty(capacity, dtype=np.int64)
        grown[: self._used] = self._codes[: self._used]
        self._codes = grown
