"""Layer 3, character-bigram Jaccard >= t: every pair, found by prefix filtering or MinHash LSH.

Which pairs are found (the same whichever way they are looked for, below):
- every pair with Jaccard >= t in which at least one set is *sparse*, exactly, by prefix
  filtering (Bayardo et al. 2007, "AllPairs"): order all tokens rarest first; if
  J(x, y) >= t then x's first |x| - ceil(t|x|) + 1 tokens and y's share one, so indexing those
  prefixes finds every such pair. Chinese text is ideal for it: a record's rarest bigrams are
  shared only by its copies.
- pairs of two *dense* sets that agree on one of `bands` MinHash bands of `rows` hashes.
  A set is dense when most of its characters come from a small alphabet (Latin, Cyrillic…):
  English bigrams are few and common ("th", "er"; unrelated English sentences have bigram
  Jaccard 0.17 on average), so even the rarest prefix of an English record names thousands of
  others (measured at 200k records: 156M prefix matches between dense sets, 0.4M for all the
  rest). With 64 bands x 6 rows a dense pair at exactly J = 0.75 is found with probability
  1 - (1 - 0.75^6)^64 = 0.999996 (datasketch's defaults for t = 0.75, 11 x 11, give 0.38 —
  measured in tests/bench/bench_dedupe.py). Band keys are pure functions of a set, and density
  of a text, so a pair is found or not regardless of batching.

How: a batch big enough (`join_min` sets, and `join_share` of what is indexed already) is
joined in numpy: one global token order for the batch and everything before it (exact
frequencies), sort-based matching of prefixes with the length filter (t|x| <= |y| <= |x|/t),
the shorter "mid-prefix" on the indexed side (|y| - ceil(2t/(1+t)|y|) + 1 tokens suffice for
the smaller set of a pair) and the positional filter (ppjoin); LSH bands joined by sorting.
Smaller batches probe a persistent inverted index of *all* tokens of the indexed sets (any
prefix of the probing set then suffices, so the order may be anything: rarest in the index).
Every candidate is checked by a 512-bit bitmap bound on the overlap, then by exact Jaccard.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from memctl.dedupe.keyindex import KeyIndex, distinct, spans
from memctl.dedupe.tokens import TokenStore

_EPS = 1e-9  # thresholds are floats: round every bound in the direction that keeps pairs
Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]  # x rows, y rows, Jaccard
_NO_PAIRS: Pairs = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float64))


def jaccard(a: set[int], b: set[int]) -> float:
    """Jaccard of two token sets (1.0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


class PairFinder:
    """All pairs of indexed token sets with Jaccard >= threshold, found batch by batch."""

    def __init__(
        self,
        tokens: TokenStore,
        threshold: float,
        hasher: MinHasher | None = None,
        join_min: int = 1000,
        join_share: float = 0.1,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"Jaccard threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.tokens = tokens
        self.hasher = hasher  # None: pairs of two dense sets are not looked for
        self.join_min = join_min
        self.join_share = join_share
        self._seq = np.full(0, -1, dtype=np.int64)  # row -> position in the index, -1 if none
        self._next = 0
        self._members = 0
        self._slot = np.full(0, -1, dtype=np.int64)  # row -> its band keys in _bands, -1 if none
        self._bands = np.empty((0, hasher.bands if hasher else 0), dtype=np.uint64)
        self._filled = 0
        self._postings: tuple[KeyIndex, KeyIndex, KeyIndex] | None = None  # built on demand
        self.candidates = 0  # pairs that reached the bitmap bound
        self.verified = 0  # pairs whose exact Jaccard was computed
        self.joins = 0  # batches matched by the numpy join (the rest probed the index)

    def __len__(self) -> int:
        return self._members

    def add(self, rows: Sequence[int] | np.ndarray) -> Pairs:
        """Index rows after everything indexed before (in the given order) and return every
        pair (x, y, Jaccard) with x one of them and y indexed before x, J >= threshold, sorted
        by x's place, then y's. A row indexed before is re-indexed with its current tokens."""
        found = self._found(rows)
        if found is None:
            return _NO_PAIRS
        return self._verify(*found)

    def add_unverified(self, rows: Sequence[int] | np.ndarray) -> Candidates:
        """add(), but its candidates before their exact Jaccard is computed: a superset of
        add()'s pairs, in the same order, each scored only when asked (Candidates.scores)."""
        found = self._found(rows)
        if found is None:
            return Candidates(np.empty(0, np.int64), np.empty(0, np.int64), None)
        local, codes, offsets, x, y = found
        order = np.lexsort((self._seq[local[y]], self._seq[local[x]]))
        x, y = x[order], y[order]
        return Candidates(local[x], local[y], (self, codes, offsets, x, y))

    def _found(
        self, rows: Sequence[int] | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """(rows the sets are of, their codes and offsets, candidate pairs as positions in
        those rows) of newly indexed rows; None for no rows."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return None
        earlier = self._members - int((self._seq[rows[rows < len(self._seq)]] >= 0).sum())
        if len(rows) >= self.join_min and len(rows) >= self.join_share * earlier:
            self.joins += 1
            before = self._members_in_order()
            before = before[~np.isin(before, rows)]
            self._enter(rows)
            local = np.concatenate((before, rows))
            codes, offsets = self.tokens.gather(local)
            bound = _Bound(codes, offsets, self.threshold)
            x, y = self._join(local, codes, offsets, len(before), bound)
            if self._postings is not None:
                self._post(rows)
        else:
            if self._postings is None:
                self._postings = (KeyIndex(), KeyIndex(), KeyIndex())
                self._post(self._members_in_order())
            self._enter(rows)
            self._post(rows)
            pair_x, pair_y = self._probe(rows)
            local = distinct(np.concatenate((pair_x, pair_y)))
            codes, offsets = self.tokens.gather(local)
            bound = _Bound(codes, offsets, self.threshold)
            x, y = np.searchsorted(local, pair_x), np.searchsorted(local, pair_y)
            keep = bound(x, y)
            x, y = x[keep], y[keep]
        self.candidates += bound.checked
        return local, codes, offsets, x, y

    def jaccard(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Exact Jaccard of each pair of rows' sets (1.0 for two empty sets)."""
        rows = distinct(np.concatenate((x, y)))
        codes, offsets = self.tokens.gather(rows)
        a, b = np.searchsorted(rows, x), np.searchsorted(rows, y)
        sizes = np.diff(offsets)
        overlap = _overlaps(codes, offsets, a, b)
        union = sizes[a] + sizes[b] - overlap
        return np.divide(overlap, union, out=np.ones(len(x)), where=union > 0)

    def discard(self, rows: Sequence[int] | np.ndarray) -> None:
        """Stop matching rows (until they are added again)."""
        rows = np.asarray(rows, dtype=np.int64)
        rows = rows[rows < len(self._seq)]
        rows = rows[self._seq[rows] >= 0]
        self._members -= len(rows)
        self._seq[rows] = -1
        self._slot[rows] = -1

    def release(self) -> None:
        """Free the band keys and postings, for an engine whose last batch has been matched
        (64 band keys a dense set: ~100 MiB at 200k English records); nothing is added after."""
        self._bands = np.empty((0, self._bands.shape[1]), dtype=np.uint64)
        self._slot[:] = -1
        self._filled = 0
        self._postings = None

    def insert(self, rows: Sequence[int] | np.ndarray) -> None:
        """Index rows without looking for pairs (rebuilding stored state)."""
        rows = np.asarray(rows, dtype=np.int64)
        self._enter(rows)
        if self._postings is not None:
            self._post(rows)

    # ------------------------------------------------------------ bookkeeping

    def _members_in_order(self) -> np.ndarray:
        members = np.flatnonzero(self._seq >= 0)
        return members[np.argsort(self._seq[members], kind="stable")]

    def _enter(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        need = int(rows.max()) + 1
        if need > len(self._seq):
            grow = need - len(self._seq)
            self._seq = np.concatenate((self._seq, np.full(grow, -1, np.int64)))
            self._slot = np.concatenate((self._slot, np.full(grow, -1, np.int64)))
        self._members += int((self._seq[rows] < 0).sum())
        self._seq[rows] = np.arange(self._next, self._next + len(rows))
        self._next += len(rows)
        self._slot[rows] = -1
        if self.hasher is None:
            return
        dense = rows[self._dense(rows)]
        if not len(dense):
            return
        if self._filled + len(dense) > len(self._bands):
            grown = np.empty((max(self._filled + len(dense), 2 * len(self._bands)),
                              self.hasher.bands), dtype=np.uint64)  # fmt: skip
            grown[: self._filled] = self._bands[: self._filled]
            self._bands = grown
        into = self._bands[self._filled : self._filled + len(dense)]
        self.hasher.band_keys(*self.tokens.gather(dense), out=into)  # no copy of the keys
        self._slot[dense] = np.arange(self._filled, self._filled + len(dense))
        self._filled += len(dense)

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        """Which rows are dense (an empty set never is: it matches nothing)."""
        return self.tokens.dense(rows) & (self.tokens.sizes(rows) > 0)

    def order(self, rows: np.ndarray) -> np.ndarray:
        """Where each row is in the index (larger: later), -1 if it is not."""
        return self._seq[rows]

    def position(self, row: int) -> int:
        """order() of one row."""
        return int(self._seq[row]) if row < len(self._seq) else -1

    # ------------------------------------------------------------ batch join

    def _join(
        self, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray, old: int, bound: _Bound
    ) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs (x, y) of positions in `rows` with x > y and x >= old that pass
        the bitmap bound."""
        dense = self._dense(rows)
        pairs = [_prefix_join(codes, offsets, dense, old, self.threshold, bound)]
        if self.hasher is not None and dense.any():
            on = np.flatnonzero(dense)
            slots = self._slot[rows[on]]
            pairs.append(
                _band_join(self._bands, slots, on, np.diff(offsets), old, self.threshold, bound)
            )
        keys = distinct(np.concatenate(pairs))
        return keys >> 32, keys & 0xFFFFFFFF

    # ------------------------------------------------------------ index probing

    def _post(self, rows: np.ndarray) -> None:
        assert self._postings is not None
        sparse, dense, bands = self._postings
        if not len(rows):
            return
        codes, offsets = self.tokens.gather(rows)
        owner = np.repeat(rows, np.diff(offsets))
        on = self._dense(owner)
        sparse.add(codes[~on].view(np.uint64), owner[~on])
        dense.add(codes[on].view(np.uint64), owner[on])
        with_bands = rows[self._slot[rows] >= 0]
        if len(with_bands):
            keys = self._bands[self._slot[with_bands]]
            b = keys.shape[1]
            bands.add(
                (keys ^ _band_salt(b)[None, :]).ravel(),
                (with_bands[:, None] * b + np.arange(b)[None, :]).ravel(),
            )

    def _probe(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidate pairs (x, y) of rows: x among `rows`, y indexed before x."""
        assert self._postings is not None
        sparse, dense_postings, band_index = self._postings
        t = self.threshold
        codes, offsets = self.tokens.gather(rows)
        sizes = np.diff(offsets)
        local = np.repeat(np.arange(len(rows), dtype=np.int64), sizes)
        # The prefix: each set's rarest tokens in the index (any choice is exact here, as
        # the index holds every token of every indexed set).
        keys = codes.view(np.uint64)
        df = sparse.count(keys) + dense_postings.count(keys)
        order = np.lexsort((codes, df, local))
        pos = np.arange(len(codes)) - offsets[local[order]]
        prefix = order[pos < _prefix_length(sizes, t)[local[order]]]
        dense = self._dense(rows)
        xs, ys = [], []
        for postings, for_dense in ((sparse, True), (dense_postings, False)):
            probing = prefix if for_dense else prefix[~dense[local[prefix]]]
            which, y = postings.lookup(keys[probing])
            xs.append(local[probing][which])
            ys.append(y)
        if self.hasher is not None and dense.any():
            on = np.flatnonzero(dense)
            mine = self._bands[self._slot[rows[on]]]
            b = mine.shape[1]
            which, value = band_index.lookup((mine ^ _band_salt(b)[None, :]).ravel())
            y, band = value // b, value % b
            mine_at, their_band = np.divmod(which, b)
            slot = self._slot[y]
            same = (band == their_band) & (slot >= 0)
            same[same] = self._bands[slot[same], band[same]] == mine[mine_at[same], band[same]]
            xs.append(on[mine_at[same]])
            ys.append(y[same])
        # A set re-indexed since it was posted may have become dense: dense pairs come from
        # the bands only, as in the join.
        mixed = ~(dense[xs[0]] & self._dense(ys[0]))
        xs[0], ys[0] = xs[0][mixed], ys[0][mixed]
        x_local = np.concatenate(xs)
        x, y = rows[x_local], np.concatenate(ys)
        n_x, n_y = sizes[x_local], self.tokens.sizes(y)
        seq_y = self._seq[y]
        keep = (seq_y >= 0) & (seq_y < self._seq[x])  # y indexed (still) and before x
        keep &= (n_y >= np.ceil(t * n_x - _EPS)) & (n_y <= np.floor(n_x / t + _EPS))
        x, y = x[keep], y[keep]
        key = distinct((x.astype(np.uint64) << np.uint64(32)) | y.astype(np.uint64))
        return (key >> np.uint64(32)).astype(np.int64), (key & np.uint64(0xFFFFFFFF)).astype(
            np.int64
        )

    # ------------------------------------------------------------ verification

    def _verify(
        self, rows: np.ndarray, codes: np.ndarray, offsets: np.ndarray, x: np.ndarray,
        y: np.ndarray,
    ) -> Pairs:  # fmt: skip
        """The candidates (positions in `rows`, whose sets are `codes`/`offsets`) with
        Jaccard >= threshold: (x rows, y rows, Jaccard), in index order."""
        self.verified += len(x)
        sizes = np.diff(offsets)
        overlap = _overlaps(codes, offsets, x, y)
        union = sizes[x] + sizes[y] - overlap
        score = np.divide(overlap, union, out=np.zeros(len(x)), where=union > 0)
        hit = score >= self.threshold - 1e-12
        x, y, score = rows[x[hit]], rows[y[hit]], score[hit]
        order = np.lexsort((self._seq[y], self._seq[x]))
        return x[order], y[order], score[order]


class Candidates:
    """Pairs that may reach the threshold (x rows, y rows, in add()'s order), scored on demand.

    A cluster of k near copies is ~k²/2 candidates, nearly all of them inside one group by the
    time they come (samples at 200k: 2.3M for 74k merges); the engine passes those over, and
    only the pairs it would still join have their exact Jaccard computed."""

    def __init__(
        self,
        x: np.ndarray,
        y: np.ndarray,
        sets: tuple[PairFinder, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
        known: np.ndarray | None = None,
    ) -> None:
        self.x, self.y = x, y
        self._sets = sets
        self._known = known  # every pair's Jaccard, when computed already (tests' brute force)

    def __len__(self) -> int:
        return len(self.x)

    def scores(self, which: np.ndarray) -> np.ndarray:
        """Exact Jaccard of the candidates at `which` (indexes into x and y)."""
        if self._known is not None:
            return self._known[which]
        if self._sets is None or not len(which):
            return np.empty(0, dtype=np.float64)
        finder, codes, offsets, x, y = self._sets
        a, b = x[which], y[which]
        finder.verified += len(which)
        sizes = np.diff(offsets)
        overlap = _overlaps(codes, offsets, a, b)
        union = sizes[a] + sizes[b] - overlap
        return np.divide(overlap, union, out=np.zeros(len(a)), where=union > 0)


# ---------------------------------------------------------------- the numpy join


def _prefix_length(sizes: np.ndarray, t: float) -> np.ndarray:
    """|x| - ceil(t|x|) + 1: a prefix this long meets every set with J >= t under one order."""
    return sizes - np.ceil(t * sizes - _EPS).astype(np.int64) + 1


def _prefix_join(
    codes: np.ndarray, offsets: np.ndarray, dense: np.ndarray, old: int, t: float,
    bound: _Bound,
) -> np.ndarray:  # fmt: skip
    """Pairs with at least one sparse set and a token in common in their prefixes that pass
    the bitmap bound, as x << 32 | y (positions, x > y, x >= old): a superset of such pairs
    with J >= t."""
    if dense.all():  # every pair has a sparse set: none here
        return np.empty(0, dtype=np.int64)
    sizes = np.diff(offsets)
    n = len(sizes)
    # Sets in order of size (ties: position), so "the larger of a pair" and the length filter
    # are ranges of this order.
    by_size = np.argsort((sizes << 32) | np.arange(n), kind="stable")
    place = np.empty(n, dtype=np.int64)
    place[by_size] = np.arange(n)
    sorted_sizes = sizes[by_size]
    new = np.arange(n) >= old
    probe = _prefix_length(sizes, t)
    mid = sizes - np.ceil(2 * t / (1 + t) * sizes - _EPS).astype(np.int64) + 1
    # Indexed: new sets by their mid-prefix (they only meet larger new sets there), old sets
    # by their whole prefix (they meet new sets of any size). Probing: new sets, whole prefix.
    indexed, probing = _prefixes(
        codes, offsets, np.where(new, mid, probe), np.where(new, probe, 0), dense
    )
    index_owner, index_rank, index_pos = indexed
    x, x_rank, x_pos = probing
    del indexed, probing  # else they hold the arrays as made while theirs are reordered
    bits = max(int(n).bit_length(), 1)
    vocab = max(int(index_rank.max(initial=0)), int(x_rank.max(initial=0))) + 1
    # Class (old/new x sparse/dense), then rarity, then size order.
    index_key = ((2 * new + dense)[index_owner] * vocab + index_rank) << bits
    index_key |= place[index_owner]
    order = _sorting(index_key)  # keys are distinct: the place makes them so
    index_key, index_owner, index_pos = index_key[order], index_owner[order], index_pos[order]
    low = np.searchsorted(sorted_sizes, np.ceil(t * sizes - _EPS), "left").astype(np.int32)[x]
    high = np.searchsorted(sorted_sizes, np.floor(sizes / t + _EPS), "right").astype(np.int32)[x]
    # Probes in key order: searchsorted is several times faster on sorted queries.
    by_key = _sorting((x_rank.astype(np.int64) << bits) | low)
    x, x_rank, x_pos, low, high = (a[by_key] for a in (x, x_rank, x_pos, low, high))
    del by_key
    found = _PairSet()
    for c in (0, 1, 2, 3):
        # Only the probes that meet something: most meet nothing (a dense probe, in a class
        # of sparse sets), and each cost _passes() and spans() several int64s. Their ranges
        # are found a block of probes at a time: for all probes at once, the five int64
        # temporaries were the join's peak (the boilerplate shape, 810k probes at 100k).
        live = []
        for a, b in _blocks(len(x)) or [(0, 0)]:
            sel = a + (np.flatnonzero(~dense[x[a:b]]) if c & 1 else np.arange(b - a))
            base = (x_rank[sel].astype(np.int64) + c * vocab) << bits
            upper = place[x[sel]] if c >= 2 else high[sel]  # new: smaller than x; old: any
            lo = np.searchsorted(index_key, base | low[sel], "left")
            hi = np.searchsorted(index_key, base | upper, "left")
            meets = np.flatnonzero(hi > lo)
            live.append((sel[meets], lo[meets], hi[meets]))
        del base, upper
        sel, lo, hi = (np.concatenate(col) for col in zip(*live, strict=True))
        del live
        for part, lo_part, hi_part in _passes(lo, hi, _PAIRS_PER_PASS):
            which, at = spans(lo_part, hi_part)
            e = sel[part[which]]
            px, py = x[e].astype(np.int64), index_owner[at].astype(np.int64)
            nx, ny = sizes[px], sizes[py]
            # ppjoin's positional filter: after the first common token, at most this many.
            room = 1 + np.minimum(nx - 1 - x_pos[e], ny - 1 - index_pos[at])
            ok = room >= np.ceil(t / (1 + t) * (nx + ny) - _EPS)
            px, py = np.maximum(px[ok], py[ok]), np.minimum(px[ok], py[ok])
            keys = distinct((px << 32) | py)
            found.add(keys[bound(keys >> 32, keys & 0xFFFFFFFF)])
    return found.keys()


class _PairSet:
    """Distinct pair keys (x << 32 | y) gathered piece by piece, as one sorted array at the end.

    One pair comes in many pieces: near copies agree on most of their 64 bands and share many
    prefix tokens, so each band or pass finds the pair again. Held until the end, the pieces
    were ten times the distinct pairs (the samples shape at 200k: 28M keys for 2.3M pairs, the
    band join's 430 MiB rise of the import's peak); merged into the distinct ones whenever they
    outgrow them, they stay at most about as many.

    With `check` (the bitmap bound; the band join gives it), a key is checked once, when it
    is first merged, and kept only if it passes: checked in each piece, a pair of near copies
    was checked again for every band it agrees on (samples at 100k: 5.6M checks for 0.3M
    distinct pairs; the prefix join finds a pair again seldom, and checks its pieces)."""

    def __init__(self, check: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> None:
        self._held = np.empty(0, dtype=np.int64)
        self._pieces: list[np.ndarray] = []
        self._pending = 0
        self._check = check

    def add(self, keys: np.ndarray) -> None:
        self._pieces.append(keys)
        self._pending += len(keys)
        if self._pending >= max(_PAIRS_HELD, len(self._held)):
            self._merge()

    def keys(self) -> np.ndarray:
        """Every key added, sorted, each once."""
        self._merge()
        return self._held

    def _merge(self) -> None:
        if not self._pieces:
            return
        if self._check is None:
            self._held = distinct(np.concatenate((self._held, *self._pieces)))
        else:
            fresh = distinct(np.concatenate(self._pieces))
            held = self._held
            at = np.minimum(np.searchsorted(held, fresh), max(len(held) - 1, 0))
            if len(held):
                fresh = fresh[held[at] != fresh]
            fresh = fresh[self._check(fresh >> 32, fresh & 0xFFFFFFFF)]
            self._held = distinct(np.concatenate((held, fresh)))
        self._pieces, self._pending = [], 0


def _passes(
    lo: np.ndarray, hi: np.ndarray, limit: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ranges [lo[i], hi[i]) in passes of at most `limit` positions in all, as (i, lo, hi)
    arrays: a range longer than that is cut into pieces. Bounds the temporaries of one pass
    by the candidates, not by the probes: in a crowd of texts that share most of their
    bigrams one probe's range can hold every record (60k notes whose boilerplate was not
    set aside: 282M candidates in one pass of 65,536 probes, 2 GiB an array)."""
    counts = np.maximum(hi - lo, 0)
    pieces = np.maximum(-(-counts // limit), 1)
    owner = np.repeat(np.arange(len(lo), dtype=np.int64), pieces)
    k = np.arange(len(owner), dtype=np.int64) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    piece_lo = lo[owner] + k * limit
    piece_hi = np.minimum(piece_lo + limit, np.maximum(hi[owner], lo[owner]))
    ends = np.cumsum(np.maximum(piece_hi - piece_lo, 0))
    start = 0
    while start < len(owner):
        before = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, before + limit, "right")), start + 1)
        yield owner[start:stop], piece_lo[start:stop], piece_hi[start:stop]
        start = stop


def _prefixes(
    codes: np.ndarray,
    offsets: np.ndarray,
    indexed: np.ndarray,
    probing: np.ndarray,
    dense: np.ndarray,
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """(set, rank, place in set) of the first indexed[i] and the first probing[i] tokens of
    each set i, rarest first: rank 0 is the batch's rarest token (ties by code). As int32:
    the six arrays are ~40 % of the tokens each, the largest temporaries of the join.

    A dense set's token is left out where it can meet nothing: pairs of two dense sets are
    not looked for here, so a dense set's indexed token only matters if a sparse set probes
    that token, and its probing token only if a sparse set indexes it. (English sets' prefixes
    were most of the arrays, and at the L4 floor, t = 0.5, half of all their tokens: ~18
    bytes a token of the batch at once, ~470 MiB at 200k English records.)

    Two in-place sorts of one packed int64 array (each token keyed by rarity and set) and
    block-by-block passes over it: no argsort, no scatter, no other array as long as the
    tokens (at millions of tokens each costs as much again in page faults as its work)."""
    sizes = np.diff(offsets)
    n, total = len(sizes), len(codes)
    if not total:
        empty = (np.empty(0, np.int64),) * 3
        return empty, empty
    # Characters renumbered densely so a bigram takes ~26 bits and (bigram, set) packs.
    seen = np.zeros(1 << 21, dtype=bool)
    for a, b in _blocks(total):
        seen[codes[a:b] >> 21] = True
        seen[codes[a:b] & _LOW21] = True
    number = np.cumsum(seen, dtype=np.int64) - 1
    letters = int(number[-1]) + 1
    set_bits = max(int(n - 1).bit_length(), 1)
    if (letters**2).bit_length() + set_bits > 63:
        raise ValueError("too many distinct characters and sets for one join")
    key = np.empty(total, dtype=np.int64)
    for a, b in _blocks(total):
        c = codes[a:b]
        token = number[c >> 21] * letters + number[c & _LOW21]
        key[a:b] = (token << set_bits) | _owners(offsets, a, b)
    del seen, number  # 16 MiB of int64 for the renumbering, not read past here
    key.sort()  # by token, then set
    set_mask = (1 << set_bits) - 1
    starts = [np.zeros(1, dtype=np.int64)]
    for a, b in _blocks(total):
        lo = max(a, 1)
        change = (key[lo:b] >> set_bits) != (key[lo - 1 : b - 1] >> set_bits)
        starts.append(lo + np.flatnonzero(change))
    first = np.concatenate(starts)
    del starts
    counts = np.diff(np.append(first, total))
    rank_of_token = np.empty(len(first), dtype=np.int64)
    rank_of_token[np.argsort(counts, kind="stable")] = np.arange(len(first))
    del counts
    rank_bits = max(int(len(first) - 1).bit_length(), 1)
    for a, b in _blocks(total):
        g0 = int(np.searchsorted(first, a, "right")) - 1
        g1 = int(np.searchsorted(first, b, "left"))
        span = np.append(first[g0 + 1 : g1], b) - np.maximum(first[g0:g1], a)
        key[a:b] = ((key[a:b] & set_mask) << rank_bits) | np.repeat(rank_of_token[g0:g1], span)
    # Three int64 arrays as long as the distinct bigrams, not read by _picked: freed before
    # its pieces are made (the join's peak is there).
    ranks = len(first)
    del first, rank_of_token
    key.sort()  # by set, then rank
    picked = _picked(key, offsets, rank_bits, ranks, (indexed, probing), dense)
    del key  # as long as the tokens: gone before the pieces are joined
    index_part, probe_part = (tuple(np.concatenate(col) for col in cols) for cols in picked)
    return index_part, probe_part


def _picked(
    key: np.ndarray,
    offsets: np.ndarray,
    rank_bits: int,
    ranks: int,
    limits: tuple[np.ndarray, np.ndarray],
    dense: np.ndarray,
) -> tuple[list[list[np.ndarray]], ...]:
    """_prefixes()' pieces: for the indexed and the probing limits, (set, rank, place) int32
    arrays block by block, of the tokens `key` (set << rank_bits | rank, sorted) holds within
    each set's limit, and for a dense set only those a sparse set may meet."""
    total = len(key)
    rank_mask = (1 << rank_bits) - 1
    # Which ranks a sparse set indexes (probes): the only ones a dense set's probe (indexed
    # token) can meet. Every rank of each, when all sets are sparse.
    wanted = [np.ones(ranks, dtype=bool)] * 2
    if dense.any():
        wanted = [np.zeros(ranks, dtype=bool) for _ in range(2)]
        for a, b in _blocks(total):
            owner = key[a:b] >> rank_bits
            pos = np.arange(a, b, dtype=np.int64) - offsets[owner]
            rank = key[a:b] & rank_mask
            sparse = ~dense[owner]
            for limit, marks in zip(limits, wanted, strict=True):
                marks[rank[sparse & (pos < limit[owner])]] = True
    picked: tuple[list[list[np.ndarray]], ...] = ([[], [], []], [[], [], []])
    for a, b in _blocks(total):
        owner = key[a:b] >> rank_bits
        pos = np.arange(a, b, dtype=np.int64) - offsets[owner]
        rank = key[a:b] & rank_mask
        sparse = ~dense[owner]
        # Indexed tokens kept where a sparse set probes them (wanted[1]), probing ones where
        # a sparse set indexes them (wanted[0]).
        for limit, meets, out in zip(limits, wanted[::-1], picked, strict=True):
            at = np.flatnonzero((pos < limit[owner]) & (sparse | meets[rank]))
            out[0].append(owner[at].astype(np.int32))
            out[1].append(rank[at].astype(np.int32))
            out[2].append(pos[at].astype(np.int32))
    return picked


def _sorting(keys: np.ndarray) -> np.ndarray:
    """argsort of non-negative int64 keys, by sorting them packed with their positions
    when that fits in 63 bits (several times faster than an argsort)."""
    if not len(keys):
        return np.empty(0, dtype=np.int64)
    shift = int(len(keys) - 1).bit_length()
    if int(keys.max()).bit_length() + shift > 63:
        return np.argsort(keys, kind="stable")
    packed = (keys << shift) | np.arange(len(keys), dtype=np.int64)
    packed.sort()
    return packed & ((1 << shift) - 1)


_LOW21 = (1 << 21) - 1
# Entries per pass over a token-sized array: each pass holds ~6 int64 temporaries this long
# (at 1 << 20, ~50 MiB of the join's peak, in _prefixes, _picked and _bitmaps; a pass's
# Python cost is nothing beside its numpy work either way).
_BLOCK = 1 << 18
# Candidate pairs per pass of the prefix join and per chunk of the band join: each pass holds
# a dozen arrays this long (at 1 << 20, ~100 MiB of the import's peak; the passes' Python cost
# is nothing beside their numpy work either way).
_PAIRS_PER_PASS = 1 << 18
_PAIRS_HELD = 1 << 21  # pair keys found again that may wait before they are merged (16 MB)


def _blocks(total: int) -> list[tuple[int, int]]:
    return [(a, min(a + _BLOCK, total)) for a in range(0, total, _BLOCK)]


def _owners(offsets: np.ndarray, a: int, b: int) -> np.ndarray:
    """The set of each token position in [a, b)."""
    first = int(np.searchsorted(offsets, a, "right")) - 1
    last = int(np.searchsorted(offsets, b, "left"))
    ends = np.minimum(offsets[first + 1 : last + 1], b)
    return np.repeat(
        np.arange(first, last, dtype=np.int64), ends - np.maximum(offsets[first:last], a)
    )


def _band_join(
    table: np.ndarray, slots: np.ndarray, at: np.ndarray, sizes: np.ndarray, old: int, t: float,
    bound: _Bound,
) -> np.ndarray:  # fmt: skip
    """Pairs of dense sets (positions `at`, band keys table[slots]) agreeing on a whole band,
    with x >= old, sizes within the length filter and passing the bitmap bound, as x << 32 | y.

    A few bands at a time (~1M keys): all 64 at once, each of the sort's temporaries was
    sets x 64 x 8 bytes (100 MiB at 200k English records, and there were eight of them)."""
    found = _PairSet(bound)
    step = max(1, _BAND_KEYS // max(len(slots), 1))
    for lo in range(0, table.shape[1], step):
        _band_runs(table[slots, lo : lo + step], at, sizes, old, t, bound, found)
    return found.keys()


_BAND_KEYS = 1 << 20  # band keys sorted at once by the band join (8 MiB an array)


def _band_runs(
    bands: np.ndarray, at: np.ndarray, sizes: np.ndarray, old: int, t: float, bound: _Bound,
    found: _PairSet,
) -> None:  # fmt: skip
    """_band_join over the bands given (sets x bands), into `found`."""
    n, b = bands.shape
    # All bands in one sort: (band, top bits of its key, set) packed in an int64. Sets whose
    # truncated keys agree are then checked on the whole key.
    set_bits = max(int(n - 1).bit_length(), 1)
    band_bits = max(int(b - 1).bit_length(), 1)
    key_bits = 63 - set_bits - band_bits
    packed = (bands >> np.uint64(64 - key_bits)).astype(np.int64) << set_bits
    packed |= np.arange(n, dtype=np.int64)[:, None]
    packed |= np.arange(b, dtype=np.int64)[None, :] << (key_bits + set_bits)
    packed = packed.T.ravel()  # band by band, so equal keys of one band are contiguous
    packed.sort()
    group = packed >> set_bits
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    ends = np.append(starts[1:], len(packed))
    # Sets fit an int32; packed (sets x bands int64) is not needed past this point.
    member = (packed & ((1 << set_bits) - 1)).astype(np.int32)
    del packed
    # A crowded key (every English text has "th", "he", "in"…: some bands' minima are the
    # same few common bigrams for thousands of sets) holds most of the pairs: those runs are
    # checked as blocks of a matrix, without gathering each pair.
    crowded = ends - starts >= _CROWDED
    for a, e in zip(starts[crowded].tolist(), ends[crowded].tolist(), strict=True):
        run = member[a:e]
        band = int(group[a] >> key_bits)
        full = bands[run, band]
        by_key = np.argsort(full, kind="stable")
        run, full = run[by_key], full[by_key]
        cut = np.flatnonzero(np.concatenate(([True], full[1:] != full[:-1], [True])))
        for lo, hi in zip(cut[:-1].tolist(), cut[1:].tolist(), strict=True):
            if hi - lo > 1:
                found.add(bound.block(at[run[lo:hi]], old, t))
    shared = (ends - starts > 1) & ~crowded  # most keys are one set's alone
    first, last = starts[shared], ends[shared]
    # The other runs a chunk at a time (_PAIRS_PER_PASS pairs each): the temporaries stay small.
    pairs = np.cumsum((last - first) * (last - first - 1) // 2)
    limit = _PAIRS_PER_PASS
    cuts = np.searchsorted(pairs, np.arange(limit, int(pairs[-1]) if len(pairs) else 0, limit))
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(first)], strict=True):
        head, tail = first[lo:hi], last[lo:hi]
        _, mine = spans(head, tail)  # every position in a shared run...
        which, other = spans(mine + 1, np.repeat(tail, tail - head))  # ...and those after it
        mine = mine[which]
        band = group[mine] >> key_bits
        p, q = member[mine], member[other]
        same = bands[p, band] == bands[q, band]
        p, q = at[p[same]], at[q[same]]
        x, y = np.maximum(p, q), np.minimum(p, q)
        small, large = np.minimum(sizes[p], sizes[q]), np.maximum(sizes[p], sizes[q])
        ok = (x >= old) & (small >= np.ceil(t * large - _EPS))
        keys = distinct((x[ok] << 32) | y[ok])
        found.add(keys)  # checked once by the bound when merged, however many bands found it


_CROWDED = 64  # sets sharing one band key, from which a run is checked as a matrix


# ---------------------------------------------------------------- verification


_BITMAP_WORDS = 8  # 512 bits: popcount(a ^ b) <= |x △ y| bounds the overlap from above
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _bitmaps(codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """(sets, words) bitmaps: bit h(token) of each set's tokens, h = the top 9 bits of a
    multiplicative hash."""
    width = _BITMAP_WORDS * 8  # bytes
    maps = np.zeros((len(offsets) - 1) * width, dtype=np.uint8)
    for a, b in _blocks(len(codes)):
        with np.errstate(over="ignore"):
            bit = codes[a:b].view(np.uint64) * _GOLDEN
        bit >>= np.uint64(64 - 9)
        byte = _owners(offsets, a, b) * width + (bit >> np.uint64(3)).astype(np.int64)
        np.bitwise_or.at(maps, byte, np.left_shift(1, bit & np.uint64(7)).astype(np.uint8))
    return maps.view(np.uint64).reshape(len(offsets) - 1, _BITMAP_WORDS)


class _Bound:
    """Which pairs of one batch's sets may still reach J >= t: 2|x ∩ y| = |x| + |y| - |x △ y|
    must be at least 2t/(1+t) (|x| + |y|), and each bit set in one set's bitmap only stands
    for a token the other lacks (~50 ns a pair, against ~1 µs for an exact count)."""

    def __init__(self, codes: np.ndarray, offsets: np.ndarray, t: float) -> None:
        self.maps = _bitmaps(codes, offsets)
        self.sizes = np.diff(offsets)
        self.ratio = 2 * t / (1 + t)
        self.checked = 0  # pairs looked at

    def block(self, members: np.ndarray, old: int, t: float) -> np.ndarray:
        """Every pair of `members` (positions) passing the length filter and the bound, with
        one of them >= old, as x << 32 | y (x > y): the group's pairs as blocks of a matrix.

        Members are taken smallest set first, so a row only needs the columns before it
        whose sets are at least t times its size: a band of the matrix, not all of it."""
        order = np.lexsort((members, self.sizes[members]))
        members = members[order]
        sizes = self.sizes[members]
        words = self.maps[members].T.copy()  # one row per bitmap word
        n = len(members)
        first = np.searchsorted(sizes, np.ceil(t * sizes - _EPS), "left")  # smallest partner
        found = [np.empty(0, dtype=np.int64)]
        rows = max(1, (1 << 16) // n)
        for i in range(0, n, rows):
            stop = min(i + rows, n)
            lo = int(first[i])
            if lo >= stop:
                continue
            cols = slice(lo, stop)
            self.checked += int(np.maximum(np.arange(i, stop) - first[i:stop], 0).sum())
            differ = np.zeros((stop - i, stop - lo), dtype=np.int16)
            for word in words:
                differ += np.bitwise_count(word[i:stop, None] ^ word[None, cols])
            total = sizes[i:stop, None] + sizes[None, cols]
            ok = total - differ >= self.ratio * total - _EPS
            ok &= np.arange(lo, stop)[None, :] < np.arange(i, stop)[:, None]  # each pair once
            ok &= np.arange(lo, stop)[None, :] >= first[i:stop, None]  # length filter
            a, b = np.nonzero(ok)
            p, q = members[i + a], members[lo + b]
            x, y = np.maximum(p, q), np.minimum(p, q)
            keep = x >= old
            found.append((x[keep] << 32) | y[keep])
        return np.concatenate(found)

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        self.checked += len(x)
        keep = np.zeros(len(x), dtype=bool)
        step = 1 << 18
        for i in range(0, len(x), step):
            a, b = x[i : i + step], y[i : i + step]
            differ = np.bitwise_count(self.maps[a] ^ self.maps[b]).sum(axis=1, dtype=np.int64)
            total = self.sizes[a] + self.sizes[b]
            keep[i : i + step] = total - differ >= self.ratio * total - _EPS
        return keep


def _overlaps(codes: np.ndarray, offsets: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|x ∩ y| for each pair, exactly: both sets' tokens tagged by pair, sorted, and equal
    neighbours counted."""
    out = np.zeros(len(x), dtype=np.int64)
    sizes = np.diff(offsets)
    step = 1 << 12
    for i in range(0, len(x), step):
        sets = np.concatenate((x[i : i + step], y[i : i + step]))
        m = len(sets) // 2
        counts = sizes[sets]
        at = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(
            offsets[sets] - (np.cumsum(counts) - counts), counts
        )
        pair = np.repeat(np.arange(2 * m, dtype=np.int64) % m, counts)
        tagged = np.sort((pair << 42) | codes[at])
        common = tagged[1:][tagged[1:] == tagged[:-1]]  # a token both sets of a pair hold
        out[i : i + m] = np.bincount(common >> 42, minlength=m)
    return out


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit affects every output bit."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> np.uint64(27))
        x = x * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _band_salt(bands: int) -> np.ndarray:
    """One constant per band, so one table can hold every band's keys."""
    return _mix(np.arange(1, bands + 1, dtype=np.uint64))


# ---------------------------------------------------------------- MinHash


class MinHasher:
    """LSH band keys for many token sets at once.

    Not datasketch: with the same 64 x 6 bands and the same recall, datasketch's bulk API
    (MinHash.bulk -> LeanMinHash, MinHashLSH(params=(64, 6)) filled in one insertion session,
    one query per set) took 54x as long on 20k English texts, 23 s against 0.42 s, both
    finding all 3,814 pairs (tests/bench/bench_minhash.py):
    it hashes token by token per permutation and its LSH is a dict per band queried one set at
    a time, where this is one table lookup per token and one sort-based join per batch.

    Hash p of token x is the top 16 bits of ((mix(x) ^ seed_p) * M). Every distinct token's
    hashes are tabulated once (tokens x hashes); a block of sets of one padded length gathers
    its rows of the table (padding repeats a set's own token, which leaves its minimum alone)
    and takes the minimum along one axis: ~0.1 µs per token for all 384 hashes. Two tokens
    with equal 16-bit hashes can only make two sets agree more often, so a pair with Jaccard J
    still agrees on one hash with probability >= J, and on some band with probability
    >= 1 - (1 - J^rows)^bands. A band key folds its minima into 64 bits.
    """

    def __init__(self, bands: int, rows: int, seed: int = 0x5EED) -> None:
        rng = np.random.default_rng(seed)
        self.bands, self.rows = bands, rows
        self._seeds = rng.integers(0, 2**63, bands * rows, dtype=np.uint64)
        self._fold = rng.integers(1, 2**63, rows, dtype=np.uint64) | np.uint64(1)

    def band_keys(
        self, codes: np.ndarray, offsets: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """(sets, bands) uint64 band keys of the sets codes[offsets[i]:offsets[i + 1]]
        (each set non-empty), written into `out` if given.

        The minima (sets x 384 uint16: 768 bytes a set) are taken _KEY_SETS sets at a time
        and folded into keys at once: whole, they and the folding's uint64 temporaries were
        ~2 KB a set (400 MiB at 200k English records) above the keys themselves."""
        n = len(offsets) - 1
        keys = np.empty((n, self.bands), dtype=np.uint64) if out is None else out
        if not n:
            return keys
        vocab = distinct(codes)
        # Built a slice of the vocabulary at a time: whole, each uint64 temporary is
        # vocabulary x 384 x 8 bytes (75 MB for tests/corpus.py's 200k records, growing
        # with the vocabulary of a bigger store).
        hashes = self.bands * self.rows
        table = np.empty((len(vocab), hashes), dtype=np.uint16)
        mixed = _mix(vocab.view(np.uint64))
        for i in range(0, len(vocab), _TABLE_ROWS):
            with np.errstate(over="ignore"):
                part = (mixed[i : i + _TABLE_ROWS, None] ^ self._seeds[None, :]) * _M
            table[i : i + _TABLE_ROWS] = part >> np.uint64(48)
        for lo in range(0, n, _KEY_SETS):
            hi = min(lo + _KEY_SETS, n)
            part_codes = codes[offsets[lo] : offsets[hi]]
            # int32: one per token of the sets, half the bytes.
            ids = np.searchsorted(vocab, part_codes).astype(np.int32)
            keys[lo:hi] = self._keys(table, ids, offsets[lo : hi + 1] - offsets[lo])
        return keys

    def _keys(self, table: np.ndarray, ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Band keys of the sets ids[offsets[i]:offsets[i + 1]] (token numbers in `table`)."""
        n = len(offsets) - 1
        hashes = self.bands * self.rows
        mins = np.empty((n, hashes), dtype=np.uint16)
        sizes = np.diff(offsets)
        width = -(-sizes // 8) * 8  # padded length, a multiple of 8
        for w in distinct(width):
            sets = np.flatnonzero(width == w)
            block = max(1, (1 << 22) // (int(w) * hashes * 2))  # ~4 MB per gather
            step = np.arange(int(w))
            for i in range(0, len(sets), block):
                chunk = sets[i : i + block]
                at = offsets[chunk, None] + np.minimum(step[None, :], sizes[chunk, None] - 1)
                mins[chunk] = table[ids[at]].min(axis=1)
        grid = mins.reshape(n, self.bands, self.rows)
        keys = np.zeros((n, self.bands), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for r in range(self.rows):
                keys += grid[:, :, r].astype(np.uint64) * self._fold[r]
        return keys


_M = np.uint64(0x9E3779B97F4A7C15)
_TABLE_ROWS = 8192  # vocabulary rows per slice of the hash table (~25 MB of temporaries)
_KEY_SETS = 1 << 13  # sets whose minima are taken at once (6 MiB of minima)
