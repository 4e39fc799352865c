"""Layer 3, character-bigram Jaccard >= t: prefix filtering, with MinHash LSH where it fails.

Candidates come mainly from a prefix-filter index (Bayardo et al. 2007, "AllPairs"): order
every set's tokens rarest first by one global order; if J(x, y) >= t then x's first
|x| - ceil(t|x|) + 1 tokens and y's share a token. Indexing each set under its prefix and
probing with the prefix of the next finds *every* pair at or above the threshold. Chinese text
is ideal for it: almost every record holds a few bigrams that only its copies share.

English is not: char bigrams of English text are few and common ("th", "er"; unrelated English
sentences have bigram Jaccard 0.17 on average, 0.3 at the 99th percentile), so the rarest
prefix of an English record still names hundreds of unrelated records, and probes grow
quadratically (measured: 20k records, 0.7M candidates; 60k, 6.5M). So each set is classed when
indexed: *sparse* when its prefix tokens are rare (the sum of their frequencies is small), else
*dense*. Pairs with a sparse member are found exactly by prefix filtering (a dense record's
prefix is also indexed, for sparse probes only). Dense-dense pairs come from MinHash LSH with
explicitly chosen bands: 64 bands x 6 rows catch a pair at exactly J = 0.75 with probability
1 - (1 - 0.75^6)^64 = 0.999996 (datasketch's defaults for t = 0.75, 11 x 11, catch it with
probability 0.38 — measured in tests/bench/bench_dedupe.py). Signatures are computed for a whole
batch at once with numpy, and only for dense records.

Every candidate is checked by size (t|x| <= |y| <= |x|/t), by a 251-bit bitmap bound on the
overlap (0.2 µs, rules out ~97% of the rest), then verified by exact Jaccard. Nothing merged is
approximated; only dense-dense recall is probabilistic.

The token order only has to be *fixed* while sets are indexed under it: a token's rank is its
frequency when ranked, and the index is re-ranked when it has grown by `rerank_growth` since
(amortised O(n log n)). A stale order costs probes, never recall.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import reduce
from itertools import chain
from operator import or_

import numpy as np


def jaccard(a: set[int], b: Iterable[int], size_b: int) -> float:
    inter = len(a.intersection(b))
    union = len(a) + size_b - inter
    return inter / union if union else 1.0


class _Ranks(dict[int, int]):
    """token -> sort key: (document frequency when ranked) << 42 | token, unique per token.

    A token never seen by `prepare` (a re-cored text's new edge bigram) ranks as if seen once.
    """

    def __missing__(self, token: int) -> int:
        key = self[token] = (1 << 42) | token
        return key


class JaccardIndex:
    """All pairs of token sets with Jaccard >= threshold, found incrementally."""

    def __init__(
        self,
        threshold: float,
        rerank_growth: float = 2.0,
        bands: int = 64,
        rows: int = 6,
        dense_frequency: int = 24,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"Jaccard threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.growth = rerank_growth
        self.dense_frequency = dense_frequency
        self._tokens: dict[int, array[int]] = {}
        self._bitmaps: dict[int, int] = {}
        self._wide: dict[int, int] = {}  # 1021-bit bitmaps of long sets
        self._rank = _Ranks()  # token -> sort key (frozen until the next re-rank)
        self._sparse: dict[int, list[int]] = {}  # prefix token -> sparse ids
        self._dense: dict[int, list[int]] = {}  # prefix token -> dense ids (for sparse probes)
        self._minhash = MinHasher(bands, rows)
        self._bands: list[dict[int, list[int]]] = [{} for _ in range(bands)]
        self._band_keys: dict[int, tuple[int, ...]] = {}
        self._ranked_size = 0
        self.candidates = 0  # pairs that passed the size filter
        self.verified = 0  # of those, pairs the bitmap bound could not rule out

    def __len__(self) -> int:
        return len(self._tokens)

    def add(self, batch: list[tuple[int, set[int]]]) -> Iterator[tuple[int, int, float]]:
        """Index the batch in order, yielding (item, earlier item, Jaccard) for every pair at
        or above the threshold with an item indexed before it."""
        for (item, tokens), plan in zip(batch, self._plans(batch), strict=True):
            for other, score in self._query(item, tokens, plan):
                yield item, other, score
            self._insert(item, tokens, plan)

    def insert_all(self, batch: list[tuple[int, set[int]]]) -> None:
        """Index the batch without looking for pairs (restoring stored records)."""
        for (item, tokens), plan in zip(batch, self._plans(batch), strict=True):
            self._insert(item, tokens, plan)

    def _plans(self, batch: list[tuple[int, set[int]]]) -> list[tuple[list[int], int, bool]]:
        self._prepare(tokens for _, tokens in batch)
        plans = [self._plan(tokens) for _, tokens in batch]
        dense = [i for i, plan in enumerate(plans) if plan[2]]
        keys = self._minhash.band_keys([batch[i][1] for i in dense])
        for row, i in enumerate(dense):
            self._band_keys[batch[i][0]] = keys[row]
        return plans

    def discard(self, item: int) -> None:
        """Stop matching `item` (its postings stay behind as dead entries)."""
        self._tokens.pop(item, None)
        self._band_keys.pop(item, None)

    # ------------------------------------------------------------ internals

    def _prepare(self, batch: Iterable[set[int]]) -> None:
        """Rank the tokens of the sets about to be added."""
        counts = Counter(chain.from_iterable(batch))
        if not self._rank or len(self._tokens) >= self.growth * max(self._ranked_size, 1):
            for stored in self._tokens.values():
                counts.update(stored)
            self._rank = _Ranks((t, (n << 42) | t) for t, n in counts.items())
            self._ranked_size = len(self._tokens)
            self._sparse, self._dense = {}, {}
            self._bands = [{} for _ in self._bands]
            old = [(item, set(tokens)) for item, tokens in self._tokens.items()]
            plans = [self._plan(tokens) for _, tokens in old]
            missing = [
                tokens for (item, tokens), p in zip(old, plans, strict=True)
                if p[2] and item not in self._band_keys
            ]  # fmt: skip
            keys = iter(self._minhash.band_keys(missing))
            for (item, tokens), plan in zip(old, plans, strict=True):
                if plan[2] and item not in self._band_keys:
                    self._band_keys[item] = next(keys)
                self._insert(item, tokens, plan)
        else:
            rank = self._rank
            for token, n in counts.items():
                if token not in rank:
                    rank[token] = (n << 42) | token

    def _plan(self, tokens: set[int]) -> tuple[list[int], int, bool]:
        """The prefix (rarest tokens first), the overlap a match needs, and whether the set
        is dense (its prefix tokens are common)."""
        n = len(tokens)
        need = math.ceil(self.threshold * n - 1e-9)
        rank = self._rank
        prefix = sorted(tokens, key=rank.__getitem__)[: n - need + 1]
        common = sum(rank[t] >> 42 for t in prefix)
        dense = need >= 2 and common > self.dense_frequency * len(prefix)
        return prefix, need, dense

    def _query(
        self, item: int, tokens: set[int], plan: tuple[list[int], int, bool]
    ) -> list[tuple[int, float]]:
        n = len(tokens)
        if n == 0:
            return []
        prefix, _need, dense = plan
        buckets = [self._sparse.get(t, ()) for t in prefix]
        if dense:
            keys = self._band_keys[item]
            buckets += [table.get(key, ()) for table, key in zip(self._bands, keys, strict=True)]
        else:
            buckets += [self._dense.get(t, ()) for t in prefix]
        t = self.threshold
        low, high = t * n - 1e-9, n / t + 1e-9
        ratio = 2 * t / (1 + t)
        bitmap = _bitmap(tokens)
        wide = _wide_bitmap(tokens) if n >= _WIDE_FROM else 0
        bitmaps, wides, all_tokens = self._bitmaps, self._wide, self._tokens
        seen: set[int] = set()
        found = []
        for bucket in buckets:
            for other in bucket:
                if other in seen:
                    continue
                seen.add(other)
                other_tokens = all_tokens.get(other)
                if other_tokens is None:  # discarded
                    continue
                size = len(other_tokens)
                if size < low or size > high:
                    continue
                self.candidates += 1
                # J >= t needs an overlap of t/(1+t) * (n + size); bits set in one bitmap only
                # each stand for a token the other set lacks, bounding the overlap from above.
                if wide and size >= _WIDE_FROM:
                    differ = (wide ^ wides[other]).bit_count()
                else:
                    differ = (bitmap ^ bitmaps[other]).bit_count()
                if n + size - differ < ratio * (n + size) - 1e-9:
                    continue
                self.verified += 1
                score = jaccard(tokens, other_tokens, size)
                if score >= t - 1e-12:
                    found.append((other, score))
        return found

    def _insert(self, item: int, tokens: set[int], plan: tuple[list[int], int, bool]) -> None:
        self._tokens[item] = array("q", tokens)
        self._bitmaps[item] = _bitmap(tokens)
        if len(tokens) >= _WIDE_FROM:
            self._wide[item] = _wide_bitmap(tokens)
        prefix, _need, dense = plan
        postings = self._dense if dense else self._sparse
        for token in prefix:
            bucket = postings.get(token)
            if bucket is None:
                postings[token] = [item]
            else:
                bucket.append(item)
        if dense:
            for table, key in zip(self._bands, self._band_keys[item], strict=True):
                bucket = table.get(key)
                if bucket is None:
                    table[key] = [item]
                else:
                    bucket.append(item)


def _bitmap(tokens: Iterable[int]) -> int:
    """A 251-bit summary: bit (token mod 251) for each token; popcount(a ^ b) <= |x △ y|."""
    return reduce(or_, map(_ONE.__lshift__, map(_MOD.__rmod__, tokens)), 0)


def _wide_bitmap(tokens: Iterable[int]) -> int:
    """The same bound for long texts, whose 251-bit bitmaps are nearly all ones (measured: at
    200k records, 1.8M verifications of long texts got past the narrow bound)."""
    return reduce(or_, map(_ONE.__lshift__, map(_WIDE.__rmod__, tokens)), 0)


_ONE, _MOD, _WIDE, _WIDE_FROM = 1, 251, 1021, 96


class MinHasher:
    """LSH band keys for many sets at once (numpy; one pass over all tokens per hash).

    Hash p of token x is the high half of ((mix(x) ^ seed_p) * M), a multiply-shift hash of a
    well-mixed key; a band key folds its `rows` minima into one 64-bit value. datasketch's
    MinHash costs ~60 µs per record here; this costs ~1.5 µs per record and hash.
    """

    def __init__(self, bands: int, rows: int, seed: int = 0x5EED) -> None:
        rng = np.random.default_rng(seed)
        self.bands, self.rows = bands, rows
        self._seeds = rng.integers(0, 2**63, bands * rows, dtype=np.uint64)
        self._fold = rng.integers(1, 2**63, rows, dtype=np.uint64) | np.uint64(1)

    def band_keys(self, sets: list[set[int]]) -> list[tuple[int, ...]]:
        if not sets:
            return []
        lengths = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
        tokens = np.fromiter(chain.from_iterable(sets), dtype=np.uint64, count=int(lengths.sum()))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        x = _mix(tokens)
        mins = np.empty((self.bands * self.rows, len(sets)), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for p, seed in enumerate(self._seeds):
                mins[p] = np.minimum.reduceat(((x ^ seed) * _M) >> np.uint64(32), starts)
            folded = (mins.reshape(self.bands, self.rows, -1) * self._fold[None, :, None]).sum(
                axis=1
            )
        return [tuple(col) for col in folded.T.tolist()]


_M = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit affects every output bit."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> np.uint64(27))
        x = x * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))
