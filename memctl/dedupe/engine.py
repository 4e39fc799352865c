"""The near-duplicate engine: template folding, bigram Jaccard, SimHash, one union-find.

Usage: keep one Engine per user and scope (an import, a `memctl dedupe` run, a consolidation),
call `add(items)` per batch, apply the returned merges. Survivors and merged records stay
indexed, so later batches are compared with everything seen before; a later record that is
*earlier* in time than the canonical it matches takes over (Merge(dup=old, into=new)).

Applying merges: `Merge(dup=a, into=b)` means a's group now belongs to b — re-point whatever
points at a (its sources, records merged into it earlier) to b. Within one `add()` each dup
appears once and `into` is a survivor at the end of that call.

Layers run cheap-first over a batch: template folding, boilerplate, then L3 (jaccard.py: all
pairs at or above the threshold, by one numpy join for a big batch or by probing an inverted
index for a small one) and L4 (_simhash_layer). Which pairs merge, and in which order, does not
depend on how a batch is matched: pairs are applied in the order of their later record, then
of the earlier one (tests/dedupe/test_engine.py compares the two ways merge by merge).

Signatures: `signature(id)` is a pure function of the record's text (and of the mask/guard
lexicons, whose fingerprint it carries): its folded text, template key, guard key, names key
and, when computed, SimHash. Store it with the entry when it is written; `Engine.load(rows,
fetch_texts)` rebuilds the whole index from signatures without re-normalising, re-masking or
re-running jieba.
Texts are fetched (in one call, only those ids) for records behind detected boilerplate, whose
guard and SimHash must be recomputed on the remainder, for the few records whose SimHash is
needed and was never stored, and for signatures made under other lexicons.

Memory: per record the engine keeps its folded text, a few ints in lists, its bigram set in one
flat array (8 bytes a bigram) and, for dense records, 64 band keys; the texts given to add()
are referenced, not copied (a loaded engine fetches them instead).
"""

from __future__ import annotations

import struct
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from memctl.dedupe.boilerplate import Boilerplate
from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.guard import NAMES_MAX_CHARS, Guard
from memctl.dedupe.jaccard import Candidates, MinHasher, PairFinder
from memctl.dedupe.layers import ALL_LAYERS, JACCARD, SIMHASH, TEMPLATE
from memctl.dedupe.simhash import SimHasher, SimHashIndex
from memctl.dedupe.template import Families, Masker, key_hash, show
from memctl.dedupe.text import cased_slice, fold, light, light_slice
from memctl.dedupe.tokens import TokenStore
from memctl.dedupe.unionfind import Groups
from memctl.heap import give_back

# 2: the names key (guard.names_key) after the guard key.
_SIG_VERSION = 2
# version, flags, fingerprint, template, guard, names, simhash, len
_SIG_HEAD = struct.Struct("<BB8sQQQQI")
_HAS_SIMHASH = 1
_PAIR_BLOCK = 1 << 16  # candidate pairs turned into Python objects at once


@dataclass(frozen=True, slots=True)
class Item:
    id: int  # entry id, unique
    text: str  # entry content as stored (not normalised)
    ts: str | None  # the record's own time, ISO; None sorts after any time


@dataclass(frozen=True, slots=True)
class Merge:
    dup: int  # id merged away (with whatever was merged into it before)
    into: int  # canonical id of its group
    layer: str  # "template" | "jaccard" | "simhash"
    score: float  # Jaccard; 1 - distance/64 for SimHash; family size for templates
    why: str  # one line for humans


TextSource = Callable[[list[int]], dict[int, str]]


class Engine:
    """Layered near-duplicate detection over records added in batches."""

    def __init__(
        self, config: DedupeConfig | None = None, layers: Collection[str] = ALL_LAYERS
    ) -> None:
        unknown = set(layers) - set(ALL_LAYERS)
        if unknown:
            raise ValueError(f"unknown dedupe layer(s): {', '.join(sorted(unknown))}")
        self.config = c = config or DedupeConfig.default()
        self.layers = frozenset(layers)
        self._fingerprint = c.fingerprint()
        self._masker = Masker(c)
        self._guarder = Guard(c)
        self._families = Families(c.family_min, c.template_min_distinct_share)
        self._boilerplate = Boilerplate(c)
        self._hasher = SimHasher(c.stopwords)
        self._filler = str.maketrans("", "", c.filler)
        self._tokens = TokenStore()  # bigram sets of record cores, shared by L3 and L4
        self._jaccard = PairFinder(
            self._tokens, c.jaccard, MinHasher(c.lsh_bands, c.lsh_rows), c.join_min_batch,
            c.join_min_share,
        )  # fmt: skip
        self._floor = PairFinder(
            self._tokens, c.simhash_min_jaccard, None, c.join_min_batch, c.join_min_share
        )  # L4's candidates: pairs at or above its Jaccard floor
        self._prints = SimHashIndex(c.hamming)  # fingerprints of dense L4 records
        self._unprinted: list[int] = []  # loaded dense L4 records not in _prints yet
        self._groups = Groups()
        # Per record (row = position in the order added):
        self._ids: list[int] = []
        self._row: dict[int, int] = {}  # id -> row
        self._texts: list[str | None] = []  # as given to add(); None until fetched if loaded
        # "" once a last add() is past them (signature() folds the text again: _folded_of)
        self._folded: list[str] = []
        self._length = array("i")  # of the folded text
        self._tkey: list[int | None] = []  # template key hash, 0 when none, None: not computed
        self._guard: list[int | None] = []  # guard key of the core, computed on demand
        self._core = _Spans()  # span of the folded text after boilerplate
        self._guard_full = _Keys()  # guard of the whole text, for cored records
        # Names key of the core (0: unknown, None: not computed), and of the whole text for
        # cored records; a group's names are those of its members that show them, kept for
        # its root once it has two members (guard.py: names are compared per group).
        self._names: list[int | None] = []
        self._names_full = _Keys()
        self._group_names: dict[int, int] = {}
        self._simhash: dict[int, int] = {}  # fingerprint of the core, when computed
        self._exact: dict[str, int] = {}  # core text -> first record with it
        self._mixed: set[int] = set()  # roots of template families
        # Template key -> (members folded so far, the head they were folded into).
        self._family_folded: dict[int, tuple[int, int]] = {}
        self._fetch: TextSource | None = None
        self._loaded = 0  # rows made by load(): their folded text is their signature's
        # Records that stopped being canonical in this add(): how (no tuple per record: the
        # garbage collector walks every container, and at 200k records that shows).
        self._lost_layer: dict[int, str] = {}
        self._lost_score: dict[int, float] = {}
        self._lost_why: dict[int, str] = {}
        self._stats: Counter[str] = Counter()
        self._last = False  # the coming add() is the last one (last_add)
        self._closed = False  # the last add() is done: nothing may be added

    # ---------------------------------------------------------------- public API

    def last_add(self) -> None:
        """Say that the next add() is the last: what only a later batch would read (LSH band
        keys, bigram sets, the boilerplate and SimHash indexes, the exact-text map) is freed
        as soon as that add() is past it. signature() and canonical() still work; add() does
        not. (An import's last file: ~300 MiB at 200k English records.)"""
        self._last = True

    def add(self, items: Sequence[Item]) -> list[Merge]:
        """Dedupe `items` against everything added before (in this engine) and each other.

        Returns the merges to apply. Every record stays indexed for later add() calls.
        """
        if self._closed:
            raise RuntimeError("add() after the last add() (Engine.last_add)")
        seen: set[int] = set()
        for item in items:  # checked first: a refused batch leaves the engine as it was
            if item.id in self._row or item.id in seen:
                raise ValueError(f"record {item.id} was already added to this engine")
            seen.add(item.id)
        new = [self._new_row(item) for item in items]
        self._stats["records"] += len(new)
        if TEMPLATE in self.layers:
            self._fold_templates(new)
            if self._last:
                self._families.release()
        recored = self._find_boilerplate(new) if self.layers - {TEMPLATE} else []
        if self._last:
            self._boilerplate.release()
        todo = [r for r in chain(new, recored) if not self._in_family(r)]
        if self.layers - {TEMPLATE} and JACCARD not in self.layers:
            self._put_tokens(todo)  # with L3, _jaccard_layer puts those it reads
        if JACCARD in self.layers:
            self._jaccard_layer(todo, recored)
        if self._last:
            self._jaccard.release()
            self._exact = {}
        if SIMHASH in self.layers:
            self._simhash_layer(todo, recored)
        if self._last:
            self._closed = True
            self._tokens.clear()
            self._floor.release()
            self._prints = SimHashIndex(self.config.hamming)
        return self._take_merges()

    def stats(self) -> dict[str, int]:
        """Counts so far: records, merges and candidates per layer, guard blocks, families…"""
        out = dict(self._stats)
        out["jaccard_candidates"] = self._jaccard.candidates
        out["jaccard_verified"] = self._jaccard.verified
        out["jaccard_joins"] = self._jaccard.joins
        out["template_families"] = len(self._families)
        out["boilerplate_near_compared"] = self._boilerplate.compared
        out["template_held_apart"] = len(self._families.held_apart)
        return out

    def canonical(self, item: int) -> int:
        """The id currently representing `item`'s group."""
        return self._ids[self._groups.find(self._row[item])]

    def signature(self, item: int) -> bytes:
        """A persistable summary of one record's text (see the module docstring)."""
        row = self._row[item]
        cored = row in self._core
        guard = self._guard_full.get(row) if cored else self._guard_key(row)
        if guard is None:
            guard = self._guard_full[row] = self._guarder.key(self._light_of(row, whole=True))
        names = self._names_full.get(row) if cored else self._names_key(row)
        if names is None:
            names = self._names_full[row] = self._guarder.names_key(self._text_of(row))
        tkey = self._tkey[row]
        if tkey is None:
            lt = self._light_of(row, whole=True)
            key = self._masker.key(lt, self._folded_of(row))
            tkey = self._tkey[row] = key_hash(key) if key else 0
        simhash = None if cored else self._simhash.get(row)
        head = _SIG_HEAD.pack(
            _SIG_VERSION,
            _HAS_SIMHASH if simhash is not None else 0,
            self._fingerprint,
            tkey,
            guard,
            names,
            simhash or 0,
            self._groups.length(row),
        )
        return head + self._folded_of(row).encode("utf-8", "surrogatepass")

    @classmethod
    def load(
        cls,
        rows: Iterable[tuple[int, str | None, bytes] | tuple[int, str | None, bytes, int | None]],
        fetch_texts: TextSource,
        config: DedupeConfig | None = None,
        layers: Collection[str] = ALL_LAYERS,
    ) -> Engine:
        """An engine holding stored records, ready for add().

        Rows are (id, ts, signature) or (id, ts, signature, into): pass merged-away records
        with the id they were merged into, so template families and boilerplate groups keep
        their full counts (survivors alone also work; a family then re-forms only once enough
        new copies arrive). Loading never merges; it trusts the stored grouping.
        """
        engine = cls(config, layers)
        engine._fetch = fetch_texts
        stale: list[tuple[int, str | None]] = []
        attach: list[tuple[int, int]] = []
        for row in rows:
            item, ts, sig = row[0], row[1], row[2]
            into = row[3] if len(row) > 3 else None
            if not engine._from_signature(item, ts, sig):
                stale.append((item, ts))
            if into is not None and into != item:
                attach.append((item, into))
        if stale:
            texts = fetch_texts([i for i, _ in stale])
            for item, ts in stale:
                text = texts[item]
                r = engine._new_row(Item(item, text, ts))
                if engine._tkey[r] is None:
                    key = engine._masker.key(light(text), engine._folded[r])
                    engine._tkey[r] = key_hash(key) if key else 0
        engine._restore(attach)
        engine._loaded = len(engine._ids)
        return engine

    # ---------------------------------------------------------------- layers

    def _new_row(self, item: Item) -> int:
        lt = light(item.text)
        folded = fold(lt)
        row = self._groups.add(item.ts, len(item.text), item.id)
        self._ids.append(item.id)
        self._row[item.id] = row
        self._core.append()
        self._guard_full.append()
        self._names_full.append()
        self._texts.append(item.text)
        self._folded.append(folded)
        self._length.append(len(folded))
        # The whole text's guard, which goes into its signature (an import stores one for
        # each; in an import this runs beside classification, a signature() afterwards would
        # not), and the core's until boilerplate gives it a core. Computed now, the light text
        # is not kept: it was as big as the texts (160 MiB at 200k long notes), held through
        # the join; the few records that need it again (a core's guard, a SimHash) remake it.
        self._guard.append(self._guarder.key(lt))
        self._names.append(self._guarder.names_key(item.text))
        if TEMPLATE in self.layers:
            key = self._masker.key(lt, folded)
            self._tkey.append(key_hash(key) if key else 0)
        else:
            self._tkey.append(None)
        return row

    def _fold_templates(self, new: list[int]) -> None:
        tkeys = self._tkey
        ready = self._families.add(((r, k) for r in new if (k := tkeys[r])), self._slot_values)
        for key in ready:
            members = self._families.members(key)
            # A family folded before is one group already: only its head and the members
            # that joined since need a union (a family that gains a member per file would
            # otherwise be walked whole for each file).
            folded, previous = self._family_folded.get(key, (0, None))
            fold = members[folded:] if previous is None else [previous, *members[folded:]]
            head = min(fold, key=self._groups.key)
            self._family_folded[key] = (len(members), head)
            masked = self._masker.masked(self._light_of(head, whole=True))
            values = self._families.distinct(key, self._slot_values)
            why = f"template family «{show(masked)}» ({len(members)} records), {values} slot values"
            for member in fold:
                joined = self._groups.union(member, head)
                if joined:
                    loser, winner = joined
                    self._note_loss(loser, winner, TEMPLATE, float(len(members)), why)
            self._mixed.add(self._groups.find(head))

    def _slot_values(self, row: int) -> int:
        """Equal for members of one template key that have equal slot values: their literal
        text is the key's, so their folded texts differ exactly where their slots do."""
        return hash(self._folded_of(row))

    def _in_family(self, row: int) -> bool:
        key = self._tkey[row]
        if not key or TEMPLATE not in self.layers:
            return False
        return self._families.is_family(key)

    def _find_boilerplate(self, new: list[int]) -> list[int]:
        """Detect boilerplate in groups the new records joined; return older records whose
        core changed (they must be re-indexed)."""
        heads, tails = self._boilerplate.add(new, self._folded.__getitem__)
        return self._apply_boilerplate(heads, tails, set(new))

    def _apply_boilerplate(self, heads: list[int], tails: list[int], new: set[int]) -> list[int]:
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        folded = self._folded.__getitem__
        for head in heads:
            starts.update(self._boilerplate.prefixes(head, folded))
        if tails:
            ends = self._suffixes(tails)
        # A note inside its boilerplate: the side that found the copy's start gives its end.
        for cuts, more in zip((starts, ends), self._boilerplate.split_cuts(), strict=True):
            cuts.update({row: n for row, n in more.items() if row not in cuts})
        changed = []
        for row in starts.keys() | ends.keys():
            n = self._length[row]
            old = self._core.get(row) or (0, n)
            start = starts.get(row, old[0])
            end = n - ends[row] if row in ends else old[1]
            core = (start, max(start, end))
            if core != old:
                if row not in self._core:  # the whole text's guard is the old core's
                    whole = self._guard[row]
                    if whole is not None:
                        self._guard_full[row] = whole
                    names = self._names[row]
                    if names is not None:
                        self._names_full[row] = names
                self._core[row] = core
                self._guard[row] = None
                self._names[row] = None
                self._simhash.pop(row, None)
                self._stats["boilerplate_records"] += 1
                if row not in new:
                    changed.append(row)
        changed.sort()
        if changed:
            self._prefetch(changed)
        return changed

    def _suffixes(self, tails: list[int]) -> dict[int, int]:
        """Boilerplate.suffixes for each tail group: row -> length of its suffix.

        A tail group's texts are read reversed: its members' folded texts are reversed in
        place while the groups are searched, so each is held once, not also as a reversed
        copy (~140 MiB at 200k boilerplate notes, in one crowd); other rows (found through
        a second window, or kept by the exact map) are reversed when read."""
        texts, exact = self._folded, self._exact
        # Not a text that an earlier batch's exact map holds too (as its core): reversed
        # back, it would be held twice from then on.
        members = [
            r
            for r in self._boilerplate.tail_members(tails).tolist()
            if r in self._core or exact.get(texts[r]) != r
        ]
        flipped = bytearray(len(texts))
        for row in members:
            texts[row] = texts[row][::-1]
            flipped[row] = 1

        def backwards(row: int) -> str:
            return texts[row] if flipped[row] else texts[row][::-1]

        ends: dict[int, int] = {}
        try:
            for tail in tails:
                ends.update(self._boilerplate.suffixes(tail, backwards))
        finally:
            for row in members:
                texts[row] = texts[row][::-1]
        return ends

    def _jaccard_layer(self, todo: list[int], recored: list[int]) -> None:
        exact = self._exact
        pending: list[int] = []
        self._jaccard.discard(recored)  # re-indexed below under their new core, if at all
        for row in todo:
            core = self._core_text(row)
            twin = exact.get(core)
            if twin is None:
                exact[core] = row
            elif twin != row and self._union_checked(
                row, twin, JACCARD, 1.0, "same text after normalisation"
            ):
                continue
            pending.append(row)
        if self._last:
            # Read by a later batch only; it holds a copy of every cored record's core (~30
            # MiB at 200k boilerplate notes), which the candidate search would hold at its peak.
            self._exact = exact = {}
        # Bigram sets only for the rows L3 matches, put in its order: a record merged here as
        # another's exact copy is read by neither layer (L4 takes records alone in their
        # group), and a first batch's sets, stored in the join's order, are read in place
        # instead of copied (8 bytes a bigram, ~45 MiB at 200k boilerplate notes).
        self._put_tokens(pending)
        if self._last:
            self._drop_folded()
        self._join_candidates(self._jaccard.add_unverified(pending))

    def _drop_folded(self) -> None:
        """After a last add() has put its bigram sets, only signature() reads a folded text:
        it folds the record's text again (~20 µs a record) rather than the join's peak being
        also the folded texts' (~140 MiB at 200k boilerplate notes, held to the last write)."""
        folded = self._folded
        for row in range(self._loaded, len(folded)):
            folded[row] = ""
        give_back()

    def _put_tokens(self, rows: list[int]) -> None:
        self._tokens.put(rows, [self._core_text(r).translate(self._filler) for r in rows])

    def _join_candidates(self, found: Candidates) -> None:
        """Join the Jaccard pairs, in order, unless already one group or kept apart.

        A cluster of k copies gives ~k²/2 pairs, nearly all of them inside one group by the
        time they come (samples at 200k: 2.3M pairs for 74k merges). A block of candidates
        at a time:
        - pairs the guard keeps apart are scored together, only to be counted (copies of one
          fact stated with k different numbers are ~k² such pairs);
        - of the others, the first of each record into each group its partners are in when
          the block starts is scored; when it reaches the threshold, the record's later pairs
          into that group are passed over: by their turn the two are one group (or the first
          was refused as a template family's, and so would they be);
        - the rest are joined in order, each scored only if its two are still apart.
        Which pairs join, in what order, with what score, is as if every pair had been tried.
        (As Python lists, 2M pairs at once took ~200 MB more.)"""
        groups = self._groups
        find = groups.find
        floor = self._jaccard.threshold - 1e-12
        # Guard keys do not change while pairs are joined: looked up once per record, not
        # once per block it has pairs in (a record of a big cluster has pairs in most).
        paired = np.zeros(len(groups), dtype=bool)
        paired[found.x] = paired[found.y] = True
        rows = np.flatnonzero(paired)
        guard = np.zeros(len(groups), dtype=np.uint64)
        guard[rows] = np.fromiter(map(self._guard_key, rows.tolist()), np.uint64, len(rows))
        for lo in range(0, len(found), _PAIR_BLOCK):
            at = np.arange(lo, min(lo + _PAIR_BLOCK, len(found)), dtype=np.int64)
            x, y = found.x[at], found.y[at]
            apart = guard[x] != guard[y]
            refused = int((found.scores(at[apart]) >= floor).sum())
            self._stats[f"{JACCARD}_blocked_by_guard"] += refused
            at, x, y = at[~apart], x[~apart], y[~apart]
            into = x * len(groups) + groups.roots(y)
            first = np.unique(into, return_index=True)[1]
            scores = np.full(len(at), np.nan)
            scores[first] = found.scores(at[first])
            # A later pair into the group a record's first pair (scored above) will join.
            settled = np.zeros(len(at), dtype=bool)
            settled[first] = scores[first] >= floor
            _, group_of = np.unique(into, return_inverse=True)
            later = settled[first][group_of]
            later[first] = False
            keep = ~later
            for i, a, b, score in zip(
                at[keep].tolist(), x[keep].tolist(), y[keep].tolist(), scores[keep].tolist(),
                strict=True,
            ):  # fmt: skip
                if find(a) == find(b):
                    continue
                if score != score:  # not scored yet
                    score = float(found.scores(np.array([i]))[0])
                if score >= floor:
                    self._union_checked(a, b, JACCARD, score, "bigram Jaccard {score}")

    def _simhash_layer(self, todo: list[int], recored: list[int]) -> None:
        """SimHash distance <= k between records sharing at least the floor of their bigrams.

        Candidates: a pair can only merge here if it is at or above the Jaccard floor, so
        pairs with a sparse record are found that way first (exact prefix filtering; only
        their records are then segmented and fingerprinted: jieba is the costliest step of
        all, and most long records have no such partner). For two dense (English) records
        the floor is not selective (long English texts share half their bigrams by chance),
        so those are fingerprinted and found through SimHash block tables, then checked
        against the floor. Records L3 already placed in a group are not indexed: their group
        is represented by whichever member came alone.
        """
        minimum = self.config.simhash_min_chars
        standalone = JACCARD not in self.layers
        groups = self._groups
        self._floor.discard(recored)
        eligible = [
            r
            for r in todo
            if self._core_length(r) >= minimum and (standalone or groups.size(r) == 1)
        ]
        x, y, _ = self._floor.add(eligible)
        pairs = list(zip(x.tolist(), y.tolist(), strict=True))
        self._prefetch([r for r in {*x.tolist(), *y.tolist()} if r not in self._simhash])
        pairs += self._dense_simhash_pairs(eligible)
        self._stats["simhash_candidates"] += len(pairs)
        if not pairs:
            return
        order = self._floor.order(np.array(pairs, dtype=np.int64)).tolist()
        k = self.config.hamming
        for (a, b), _ in sorted(zip(pairs, order, strict=True), key=lambda p: p[1]):
            distance = (self._fingerprint_of(a) ^ self._fingerprint_of(b)).bit_count()
            if distance > k:
                continue
            score = 1.0 - distance / 64
            self._union_checked(a, b, SIMHASH, score, f"SimHash distance {distance}")

    def _dense_simhash_pairs(self, eligible: list[int]) -> list[tuple[int, int]]:
        """Pairs of dense records (one of them new), SimHash distance <= k, at or above the
        floor."""
        dense = [r for r in eligible if self._tokens.dense_row(r)]
        if not dense:
            return []
        if self._unprinted:  # loaded members not yet in the SimHash tables
            waiting, self._unprinted = self._unprinted, []
            self._prefetch([r for r in waiting if r not in self._simhash])
            for row in waiting:
                self._prints.insert(row, self._fingerprint_of(row))
        self._prefetch([r for r in dense if r not in self._simhash])
        position = self._floor.position
        found = []
        for row in dense:
            fingerprint = self._fingerprint_of(row)
            mine = position(row)
            for other, _ in self._prints.query(fingerprint):
                if other != row and 0 <= position(other) < mine:  # indexed, and before row
                    found.append((row, other))
            self._prints.insert(row, fingerprint)
        if not found:
            return []
        a, b = np.array(found, dtype=np.int64).T
        floor = self._floor.jaccard(a, b) >= self.config.simhash_min_jaccard - 1e-12
        return [pair for pair, ok in zip(found, floor.tolist(), strict=True) if ok]

    # ---------------------------------------------------------------- merging

    def _union_checked(self, a: int, b: int, layer: str, score: float, what: str) -> bool:
        """Join a's and b's groups unless a template family or the guard keeps them apart;
        `what` says how they matched ("{score}" in it is filled in if they are joined)."""
        groups = self._groups
        ra, rb = groups.find(a), groups.find(b)
        if ra == rb:
            return True
        if ra in self._mixed or rb in self._mixed:
            self._stats[f"{layer}_blocked_by_template"] += 1
            return False
        if self._guard_key(a) != self._guard_key(b):
            self._stats[f"{layer}_blocked_by_guard"] += 1
            return False
        names_a, names_b = self._names_of_group(ra), self._names_of_group(rb)
        if names_a and names_b and names_a != names_b:
            self._stats[f"{layer}_blocked_by_names"] += 1
            return False
        loser, winner = groups.union(a, b)  # type: ignore[misc]
        self._group_names.pop(loser, None)
        if names_a or names_b:
            self._group_names[winner] = names_a or names_b
        via, partner = (a, b) if loser == ra else (b, a)
        ids = self._ids
        what = what.replace("{score}", f"{score:.2f}")  # never str.format: no text is a template
        why = (
            f"{what} with #{ids[partner]}"
            if via == loser
            else f"{what}: #{ids[via]} with #{ids[partner]}"
        )
        if a in self._core or b in self._core:
            why += " (boilerplate set aside)"
        self._note_loss(loser, winner, layer, score, why)
        return True

    def _note_loss(self, loser: int, winner: int, layer: str, score: float, why: str) -> None:
        if loser in self._group_names:  # a template family's union: the names go with it
            names = self._group_names.pop(loser)
            self._group_names.setdefault(winner, names)
        if loser not in self._lost_layer:
            self._lost_layer[loser] = layer
            self._lost_score[loser] = score
            self._lost_why[loser] = why
        self._stats[f"{layer}_merges"] += 1
        if loser in self._mixed:
            self._mixed.discard(loser)
            self._mixed.add(winner)

    def _take_merges(self) -> list[Merge]:
        find, ids = self._groups.find, self._ids
        score, why = self._lost_score, self._lost_why
        merges = [
            Merge(dup=ids[loser], into=ids[find(loser)], layer=layer,
                  score=round(score[loser], 4), why=why[loser])
            for loser, layer in self._lost_layer.items()
        ]  # fmt: skip
        self._lost_layer, self._lost_score, self._lost_why = {}, {}, {}
        return merges

    # ---------------------------------------------------------------- per-record data

    def _folded_of(self, row: int) -> str:
        """The folded text of a row, folded again when a last add() dropped it (every reader
        goes through here, so none reads a dropped text as empty)."""
        folded = self._folded[row]
        text = self._texts[row]
        if not folded and text:  # dropped (an empty one is folded again to "")
            folded = fold(light(text))
        return folded

    def _core_text(self, row: int) -> str:
        folded = self._folded_of(row)
        span = self._core.get(row)
        return folded if span is None else folded[span[0] : span[1]]

    def _core_length(self, row: int) -> int:
        span = self._core.get(row)
        return self._length[row] if span is None else span[1] - span[0]

    def _guard_key(self, row: int) -> int:
        guard = self._guard[row]
        if guard is None:
            guard = self._guard[row] = self._guarder.key(self._light_of(row))
        return guard

    def _names_key(self, row: int) -> int:
        names = self._names[row]
        if names is None:
            names = self._names[row] = self._guarder.names_key(self._text_of(row))
        return names

    def _names_of_group(self, root: int) -> int:
        """The names of a group's members that show them (0: none does)."""
        names = self._group_names.get(root)
        return self._names_key(root) if names is None else names

    def _fingerprint_of(self, row: int) -> int:
        fingerprint = self._simhash.get(row)
        if fingerprint is None:
            fingerprint = self._simhash[row] = self._hasher.fingerprint(self._light_of(row))
            self._stats["simhash_computed"] += 1
        return fingerprint

    def _light_of(self, row: int, whole: bool = False) -> str:
        """The light text of a record's core (or of all of it)."""
        text = self._texts[row]
        if text is None:
            self._prefetch([row])
            text = self._texts[row] or ""
        lt = light(text)
        span = self._core.get(row)
        if whole or span is None:
            return lt
        return light_slice(lt, *span)

    def _text_of(self, row: int) -> str:
        """A record's core as written (NFKC, not casefolded), or all of it: what its names are
        read from. Only a short core is cut out (a longer one names nothing known)."""
        text = self._texts[row]
        if text is None:
            self._prefetch([row])
            text = self._texts[row] or ""
        span = self._core.get(row)
        if span is None:
            return text
        if span[1] - span[0] > NAMES_MAX_CHARS:
            return ""
        return cased_slice(text, *span)

    def _prefetch(self, rows: list[int]) -> None:
        missing = [r for r in rows if self._texts[r] is None]
        if missing and self._fetch is not None:
            texts = self._fetch([self._ids[r] for r in missing])
            for row in missing:
                self._texts[row] = texts[self._ids[row]]

    # ---------------------------------------------------------------- loading

    def _from_signature(self, item: int, ts: str | None, sig: bytes) -> bool:
        """Add a record from its signature; False (nothing added) if the signature is stale."""
        if len(sig) < _SIG_HEAD.size:
            return False
        version, flags, fingerprint, tkey, guard, names, simhash, size = _SIG_HEAD.unpack_from(sig)
        if version != _SIG_VERSION or fingerprint != self._fingerprint:
            return False
        if item in self._row:
            raise ValueError(f"record {item} was already added to this engine")
        row = self._groups.add(ts, size, item)
        self._ids.append(item)
        self._row[item] = row
        self._core.append()
        self._guard_full.append()
        self._names_full.append()
        self._texts.append(None)
        self._folded.append(sig[_SIG_HEAD.size :].decode("utf-8", "surrogatepass"))
        self._length.append(len(self._folded[-1]))
        self._tkey.append(tkey)
        self._guard.append(guard)
        self._names.append(names)
        if flags & _HAS_SIMHASH:
            self._simhash[row] = simhash
        return True

    def _restore(self, attach: list[tuple[int, int]]) -> None:
        rows, groups = self._row, self._groups
        for item, into in attach:
            if into in rows:
                groups.attach(rows[item], rows[into])
        for row, names in enumerate(self._names):
            if names and groups.size(row) > 1:
                self._group_names.setdefault(groups.find(row), names)
        everything = list(range(len(self._ids)))
        if TEMPLATE in self.layers:
            families = self._families
            families.add(((r, k) for r in everything if (k := self._tkey[r])), self._slot_values)
            for key in list(families.held_apart):  # folded before, so it is one still
                folded: dict[int, set[int]] = {}
                for r in families.members(key):
                    folded.setdefault(groups.find(r), set()).add(self._slot_values(r))
                if max(map(len, folded.values())) >= families.family_min:
                    families.form(key)
            for r in everything:
                if self._in_family(r) and groups.size(r) > 1:
                    self._mixed.add(groups.find(r))
        if not self.layers - {TEMPLATE}:
            return
        heads, tails = self._boilerplate.add(everything, self._folded.__getitem__)
        self._apply_boilerplate(heads, tails, new=set())
        todo = [r for r in everything if not self._in_family(r)]
        self._tokens.put(todo, [self._core_text(r).translate(self._filler) for r in todo])
        if JACCARD in self.layers:
            self._jaccard.insert(
                [r for r in todo if self._exact.setdefault(self._core_text(r), r) == r]
            )
        if SIMHASH in self.layers:
            # The records L4 indexed during add(): dense ones were fingerprinted then, so
            # they are those with a stored fingerprint (or alone in their group: a signature
            # made without L4); other long records are indexed if canonical.
            minimum = self.config.simhash_min_chars
            members = []
            for r in todo:
                if self._core_length(r) < minimum:
                    continue
                if not self._tokens.dense_row(r):
                    if groups.find(r) == r:
                        members.append(r)
                elif r in self._simhash or groups.size(r) == 1:
                    members.append(r)
            self._floor.insert(members)
            self._unprinted = [r for r in members if self._tokens.dense_row(r)]


class _Spans:
    """Each row's core (the span of its folded text left after boilerplate), or none: two C
    ints a row. (A dict of tuples held ~46 MiB at 200k boilerplate notes, nearly all cored.)"""

    def __init__(self) -> None:
        self._start = array("i")  # -1: no core, the whole text
        self._end = array("i")

    def append(self) -> None:
        """Room for the next row, with no core."""
        self._start.append(-1)
        self._end.append(-1)

    def get(self, row: int) -> tuple[int, int] | None:
        start = self._start[row]
        return None if start < 0 else (start, self._end[row])

    def __setitem__(self, row: int, span: tuple[int, int]) -> None:
        self._start[row], self._end[row] = span

    def __contains__(self, row: int) -> bool:
        return self._start[row] >= 0


class _Keys:
    """A 64-bit key per row, or none yet (the key that reads as none is only computed again)."""

    _NONE = (1 << 64) - 1

    def __init__(self) -> None:
        self._keys = array("Q")

    def append(self) -> None:
        self._keys.append(self._NONE)

    def get(self, row: int) -> int | None:
        key = self._keys[row]
        return None if key == self._NONE else key

    def __setitem__(self, row: int, key: int) -> None:
        self._keys[row] = key
