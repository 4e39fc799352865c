"""Layer 4, 64-bit SimHash over word features, Hamming distance <= k, via block tables.

Features are jieba words (CJK) and whole words (Latin) of the light text, weighted by
1 + log(term frequency), so a long text's fingerprint follows what it says most, not its exact
characters; stopwords, single CJK characters and ASCII words under three letters are dropped
(with raw TF weights, "the"/"about"/"的" decided every fingerprint and unrelated texts collided).
Only texts of at least `min_chars` folded characters get one: a handful of words makes an
unstable fingerprint, and bigram Jaccard already judges short texts well.

Index: split the 64 bits into k + 1 blocks of 64 / (k + 1) bits; two fingerprints within
distance k agree exactly on at least one block (pigeonhole), so one table per block, keyed by
the block's value, yields every candidate without a scan of all pairs (Manku et al. 2007).
Candidates are checked by popcount. The `simhash` package's SimhashIndex does the same with
string keys and md5 per feature; this is the same idea with ints and a cached hash per word.
The engine uses these tables for pairs of two English records only; every other L4 candidate
comes from the Jaccard floor (see Engine._simhash_layer), so most texts are never segmented.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from memctl import segment

_WORD = re.compile(r"\w")
_BITS = np.arange(64, dtype=np.uint64)


class Tokenizer:
    """jieba, loaded once and quietly on first use; the load time is kept for the benchmark.

    jieba cuts a text into blocks (runs of Chinese characters, letters, digits and a few
    joiners) and segments each block on its own, so a block's words are cached: near copies
    share most of their blocks, and English blocks are single words from a small vocabulary
    (at 200k records, fingerprints cost 6x less). The result is jieba's, word for word.
    """

    load_seconds: float | None = None
    _jieba: Any = None
    _blocks: re.Pattern[str] | None = None

    @classmethod
    def words(cls, light: str) -> list[str]:
        if cls._blocks is None:
            started = time.perf_counter()
            cls._jieba = jieba = segment.jieba()
            cls._blocks = jieba.re_han_default  # the pattern jieba.cut splits blocks with
            cls.load_seconds = time.perf_counter() - started
        out: list[str] = []
        for i, piece in enumerate(cls._blocks.split(light)):
            if i % 2:  # a block (split() returns the captured blocks at odd positions)
                out.extend(_cut_block(piece))
            else:  # between blocks jieba yields single characters (and whitespace runs)
                out.extend(ch for ch in piece if _WORD.match(ch))
        return out


@lru_cache(maxsize=1 << 16)  # ~13 MB at most; English words repeat, clauses less
def _cut_block(block: str) -> tuple[str, ...]:
    # HMM off: new-word discovery changes the cut of a text under tiny edits, which is the
    # opposite of what a fingerprint needs, and it is 20% faster.
    return tuple(w for w in Tokenizer._jieba.lcut(block, HMM=False) if _WORD.search(w))


class SimHasher:
    """Log-TF-weighted 64-bit SimHash with a stable hash per word (cached)."""

    def __init__(self, stopwords: Iterable[str] = ()) -> None:
        self._hashes: dict[str, int] = {}
        self._stop = frozenset(stopwords)

    def _keep(self, word: str) -> bool:
        if word in self._stop:
            return False
        return len(word) >= 3 if word.isascii() else len(word) >= 2

    def _hash(self, word: str) -> int:
        value = self._hashes.get(word)
        if value is None:
            digest = hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8)
            value = self._hashes[word] = int.from_bytes(digest.digest(), "little")
        return value

    def fingerprint(self, light: str) -> int:
        counts = Counter(w for w in Tokenizer.words(light) if self._keep(w))
        if not counts:
            return 0
        hashes = np.fromiter((self._hash(w) for w in counts), dtype=np.uint64, count=len(counts))
        weights = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))
        bits = ((hashes[:, None] >> _BITS) & np.uint64(1)).astype(np.float64)
        votes = weights @ (2.0 * bits - 1.0)
        return int(np.dot((votes > 0).astype(np.uint64), np.uint64(1) << _BITS))


class SimHashIndex:
    """Fingerprints within Hamming distance k, found through k + 1 exact-block tables.

    A bucket (one block value) crowded past `crowded` fingerprints is indexed once more inside:
    two fingerprints in it agree on that block, so if they are within distance k their other
    64 - b bits differ in at most k places, and again one of k + 1 sub-blocks of those bits
    agrees exactly. A query then reads the k + 1 sub-buckets instead of the whole bucket:
    the same answer, without the bucket's length per query (long texts that share boilerplate
    have fingerprints alike in most bits, and thousands of them share a block value).
    """

    def __init__(self, max_distance: int, crowded: int = 64) -> None:
        if not 0 <= max_distance < 64:
            raise ValueError(f"Hamming distance must be in [0, 63], got {max_distance}")
        self.k = max_distance
        self.crowded = crowded
        self._blocks = _split(0, 63, max_distance + 1)
        # A bucket's remaining bits (packed into one int by _rest) cut into k + 1 sub-blocks,
        # wide enough for the narrowest block's remainder.
        narrowest = min(mask.bit_length() for _, mask in self._blocks)
        self._sub_blocks = _split(0, 63 - narrowest, max_distance + 1)
        self._tables: list[dict[int, list[int]]] = [{} for _ in self._blocks]
        self._inner: list[dict[int, list[dict[int, list[int]]]]] = [{} for _ in self._blocks]
        self._prints: dict[int, int] = {}
        self.candidates = 0

    def __len__(self) -> int:
        return len(self._prints)

    def query(self, fingerprint: int) -> list[tuple[int, int]]:
        """(id, distance) of every indexed fingerprint within distance k."""
        seen: set[int] = set()
        found = []
        prints = self._prints
        for block, ((shift, mask), table) in enumerate(
            zip(self._blocks, self._tables, strict=True)
        ):
            value = (fingerprint >> shift) & mask
            inner = self._inner[block].get(value)
            if inner is None:
                groups: list[list[int]] = [table.get(value, [])]
            else:
                rest = _rest(fingerprint, shift, mask)
                groups = [
                    sub.get((rest >> s) & m, [])
                    for (s, m), sub in zip(self._sub_blocks, inner, strict=True)
                ]
            for group in groups:
                for other in group:
                    if other in seen:
                        continue
                    seen.add(other)
                    self.candidates += 1
                    distance = (fingerprint ^ prints[other]).bit_count()
                    if distance <= self.k:
                        found.append((other, distance))
        return found

    def insert(self, item: int, fingerprint: int) -> None:
        self._prints[item] = fingerprint
        for block, ((shift, mask), table) in enumerate(
            zip(self._blocks, self._tables, strict=True)
        ):
            value = (fingerprint >> shift) & mask
            bucket = table.setdefault(value, [])
            bucket.append(item)
            inner = self._inner[block].get(value)
            if inner is not None:
                self._file(inner, item, _rest(fingerprint, shift, mask))
            elif len(bucket) > self.crowded:
                inner = self._inner[block][value] = [{} for _ in self._sub_blocks]
                for member in bucket:
                    self._file(inner, member, _rest(self._prints[member], shift, mask))

    def _file(self, inner: list[dict[int, list[int]]], item: int, rest: int) -> None:
        for (shift, mask), sub in zip(self._sub_blocks, inner, strict=True):
            sub.setdefault((rest >> shift) & mask, []).append(item)

    def fingerprint_of(self, item: int) -> int | None:
        return self._prints.get(item)


def _split(lo: int, hi: int, parts: int) -> list[tuple[int, int]]:
    """(shift, mask) of `parts` near-equal blocks covering bits [lo, hi]."""
    edges = [lo + round(i * (hi + 1 - lo) / parts) for i in range(parts + 1)]
    return [(a, (1 << (b - a)) - 1) for a, b in zip(edges, edges[1:], strict=False)]


def _rest(fingerprint: int, shift: int, mask: int) -> int:
    """The fingerprint's bits outside one block, packed together (the block's bits removed)."""
    width = mask.bit_length()
    return ((fingerprint >> (shift + width)) << shift) | (fingerprint & ((1 << shift) - 1))
