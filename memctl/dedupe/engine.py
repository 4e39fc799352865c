"""The near-duplicate engine: template folding, bigram Jaccard, SimHash, one union-find.

Usage: keep one Engine per user and scope (an import, a `memctl dedupe` run, a consolidation),
call `add(items)` per batch, apply the returned merges. Survivors and merged records stay
indexed, so later batches are compared with everything seen before; a later record that is
*earlier* in time than the canonical it matches takes over (Merge(dup=old, into=new)).

Applying merges: `Merge(dup=a, into=b)` means a's group now belongs to b — re-point whatever
points at a (its sources, records merged into it earlier) to b. Within one `add()` each dup
appears once and `into` is a survivor at the end of that call.

Signatures: `signature(id)` is a pure function of the record's text (and of the mask/guard
lexicons, whose fingerprint it carries): its folded text, template key, guard key and, when
computed, SimHash. Store it with the entry when it is written; `Engine.load(rows, fetch_texts)`
rebuilds the whole index from signatures without re-normalising, re-masking or re-running jieba.
Texts are fetched (in one call, only those ids) for records behind detected boilerplate, whose
guard and SimHash must be recomputed on the remainder, and for signatures made under other
lexicons. The folded text is kept rather than a sketch because prefix filtering needs each
record's complete bigram set under an order that changes as the index grows; it is about the
size of the text itself.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from memctl.dedupe.boilerplate import Boilerplate
from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.guard import Guard
from memctl.dedupe.jaccard import JaccardIndex
from memctl.dedupe.simhash import SimHasher, SimHashIndex
from memctl.dedupe.template import Families, Masker, key_hash, show
from memctl.dedupe.text import bigrams, fold, light, light_slice
from memctl.dedupe.unionfind import Groups, order_key

TEMPLATE, JACCARD, SIMHASH = "template", "jaccard", "simhash"
ALL_LAYERS = (TEMPLATE, JACCARD, SIMHASH)

_SIG_VERSION = 1
_SIG_HEAD = struct.Struct("<BB8sQQQI")  # version, flags, fingerprint, template, guard, simhash, len
_HAS_SIMHASH = 1


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


class _Rec:
    """What the engine keeps per record."""

    __slots__ = (
        "core",
        "folded",
        "guard",
        "guard_full",
        "light",
        "simhash",
        "size",
        "text",
        "tkey",
    )

    def __init__(self, text: str | None, folded: str, size: int) -> None:
        self.text = text  # None for a loaded record until fetched
        self.light: str | None = None  # kept only during the add() that brought the record
        self.folded = folded
        self.size = size  # length of the stored text: the tie-break for canonicals
        self.tkey = 0  # template key hash, 0 when none
        self.core = (0, len(folded))  # span of `folded` left after boilerplate
        self.guard: int | None = None  # guard key of the core, computed on demand
        self.guard_full: int | None = None  # guard key of the whole text (for the signature)
        self.simhash: int | None = None  # of the core, when computed

    def cored(self) -> bool:
        return self.core != (0, len(self.folded))


class Engine:
    """Layered near-duplicate detection over records added in batches."""

    def __init__(
        self, config: DedupeConfig | None = None, layers: Collection[str] = ALL_LAYERS
    ) -> None:
        unknown = set(layers) - set(ALL_LAYERS)
        if unknown:
            raise ValueError(f"unknown dedupe layer(s): {', '.join(sorted(unknown))}")
        self.config = config or DedupeConfig.default()
        self.layers = frozenset(layers)
        self._fingerprint = self.config.fingerprint()
        self._masker = Masker(self.config)
        self._guard = Guard(self.config)
        self._families = Families(self.config.family_min)
        self._boilerplate = Boilerplate(self.config)
        c = self.config
        self._jaccard = JaccardIndex(
            c.jaccard, c.rerank_growth, c.lsh_bands, c.lsh_rows, c.dense_frequency
        )
        self._simhash = SimHashIndex(self.config.hamming)
        self._hasher = SimHasher(self.config.stopwords)
        self._filler = str.maketrans("", "", self.config.filler)
        self._groups = Groups()
        self._recs: dict[int, _Rec] = {}
        self._exact: dict[str, int] = {}  # core text -> first record with it
        self._mixed: set[int] = set()  # roots of template families
        self._fetch: TextSource | None = None
        self._lost: dict[int, tuple[str, float, str]] = {}
        self._stats: Counter[str] = Counter()

    # ---------------------------------------------------------------- public API

    def add(self, items: Sequence[Item]) -> list[Merge]:
        """Dedupe `items` against everything added before (in this engine) and each other.

        Returns the merges to apply. Every record stays indexed for later add() calls.
        """
        new: list[int] = []
        for item in items:
            if item.id in self._recs:
                raise ValueError(f"record {item.id} was already added to this engine")
            lt = light(item.text)
            rec = _Rec(item.text, fold(lt), len(item.text))
            rec.light = lt
            if TEMPLATE in self.layers:
                key = self._masker.key(lt)
                rec.tkey = key_hash(key) if key else 0
            self._recs[item.id] = rec
            self._groups.add(item.id, order_key(item.id, item.ts, rec.size))
            new.append(item.id)
        self._stats["records"] += len(new)

        if TEMPLATE in self.layers:
            self._fold_templates(new)
        recored = self._find_boilerplate(new) if self.layers - {TEMPLATE} else []
        todo = [i for i in chain(new, recored) if not self._in_family(i)]
        if JACCARD in self.layers:
            self._jaccard_layer(todo)
        if SIMHASH in self.layers:
            self._simhash_layer(todo)
        for i in new:
            self._recs[i].light = None
        return self._take_merges()

    def stats(self) -> dict[str, int]:
        """Counts so far: records, merges and candidates per layer, guard blocks, families…"""
        out = dict(self._stats)
        out["jaccard_candidates"] = self._jaccard.candidates
        out["jaccard_verified"] = self._jaccard.verified
        out["simhash_candidates"] = self._simhash.candidates
        out["template_families"] = len(self._families)
        return out

    def canonical(self, item: int) -> int:
        """The id currently representing `item`'s group."""
        return self._groups.find(item)

    def signature(self, item: int) -> bytes:
        """A persistable summary of one record's text (see the module docstring)."""
        rec = self._recs[item]
        if rec.guard_full is None:
            rec.guard_full = self._guard.key(self._light_of(item, whole=True))
        if not rec.tkey and TEMPLATE not in self.layers:
            key = self._masker.key(self._light_of(item, whole=True))
            rec.tkey = key_hash(key) if key else 0
        simhash = rec.simhash if rec.simhash is not None and not rec.cored() else None
        head = _SIG_HEAD.pack(
            _SIG_VERSION,
            _HAS_SIMHASH if simhash is not None else 0,
            self._fingerprint,
            rec.tkey,
            rec.guard_full,
            simhash or 0,
            rec.size,
        )
        return head + rec.folded.encode("utf-8", "surrogatepass")

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
            rec = engine._from_signature(sig)
            if rec is None:
                stale.append((item, ts))
            else:
                engine._recs[item] = rec
                engine._groups.add(item, order_key(item, ts, rec.size))
            if into is not None and into != item:
                attach.append((item, into))
        if stale:
            texts = fetch_texts([i for i, _ in stale])
            for item, ts in stale:
                text = texts[item]
                lt = light(text)
                rec = _Rec(text, fold(lt), len(text))
                key = engine._masker.key(lt)
                rec.tkey = key_hash(key) if key else 0
                engine._recs[item] = rec
                engine._groups.add(item, order_key(item, ts, rec.size))
        engine._restore(attach)
        return engine

    # ---------------------------------------------------------------- layers

    def _fold_templates(self, new: list[int]) -> None:
        recs = self._recs
        ready = self._families.add((i, recs[i].tkey) for i in new if recs[i].tkey)
        for key in ready:
            members = self._families.members(key)
            head = min(members, key=self._groups._key.__getitem__)
            masked = self._masker.masked(self._light_of(head, whole=True))
            why = f"template family «{show(masked)}» ({len(members)} records)"
            for member in members:
                joined = self._groups.union(member, head)
                if joined:
                    loser, winner = joined
                    self._note_loss(loser, winner, TEMPLATE, float(len(members)), why)
            self._mixed.add(self._groups.find(head))

    def _in_family(self, item: int) -> bool:
        key = self._recs[item].tkey
        return bool(key) and TEMPLATE in self.layers and self._families.is_family(key)

    def _find_boilerplate(self, new: list[int]) -> list[int]:
        """Detect boilerplate in groups the new records joined; return older records whose
        core changed (they must be re-indexed)."""
        recs = self._recs
        heads, tails = self._boilerplate.add((i, recs[i].folded) for i in new)
        return self._apply_boilerplate(heads, tails, set(new))

    def _apply_boilerplate(self, heads: set[str], tails: set[str], new: set[int]) -> list[int]:
        recs = self._recs
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        folded = lambda i: recs[i].folded  # noqa: E731
        for head in heads:
            starts.update(self._boilerplate.prefixes(head, folded))
        for tail in tails:
            ends.update(self._boilerplate.suffixes(tail, folded))
        changed = []
        for item in starts.keys() | ends.keys():
            rec = recs[item]
            n = len(rec.folded)
            start = starts.get(item, rec.core[0])
            end = n - ends[item] if item in ends else rec.core[1]
            core = (start, max(start, end))
            if core != rec.core:
                rec.core = core
                rec.guard = None
                rec.simhash = None
                self._stats["boilerplate_records"] += 1
                if item not in new:
                    changed.append(item)
        if changed:
            self._prefetch(changed)
        return changed

    def _jaccard_layer(self, todo: list[int]) -> None:
        recs = self._recs
        exact = self._exact
        pending: list[tuple[int, set[int]]] = []
        for item in todo:
            rec = recs[item]
            core = rec.folded[rec.core[0] : rec.core[1]]
            twin = exact.get(core)
            if twin is None:
                exact[core] = item
            elif twin != item and self._union_checked(
                item, twin, JACCARD, 1.0, "same text after normalisation"
            ):
                self._jaccard.discard(item)
                continue
            pending.append((item, bigrams(core.translate(self._filler))))
        for item, other, score in self._jaccard.add(pending):
            self._union_checked(item, other, JACCARD, score, f"bigram Jaccard {score:.2f}")

    def _simhash_layer(self, todo: list[int]) -> None:
        recs = self._recs
        minimum = self.config.simhash_min_chars
        standalone = JACCARD not in self.layers
        for item in todo:
            rec = recs[item]
            if rec.core[1] - rec.core[0] < minimum:
                continue
            # Records L3 already placed in a group are skipped: their group is represented
            # in this index by whichever member came alone, and jieba is the costliest step.
            if not standalone and self._groups.size(item) > 1:
                continue
            if rec.simhash is None:
                rec.simhash = self._hasher.fingerprint(self._light_of(item))
                self._stats["simhash_computed"] += 1
            for other, distance in self._simhash.query(rec.simhash):
                if other != item and self._shares_enough(item, other):
                    score = 1.0 - distance / 64
                    self._union_checked(item, other, SIMHASH, score, f"SimHash distance {distance}")
            self._simhash.insert(item, rec.simhash)

    def _shares_enough(self, a: int, b: int) -> bool:
        """The SimHash floor: bigram Jaccard >= simhash_min_jaccard (see dedupe.toml)."""
        x, y = self._core_bigrams(a), self._core_bigrams(b)
        union = len(x | y)
        ok = not union or len(x & y) >= self.config.simhash_min_jaccard * union - 1e-9
        if not ok:
            self._stats["simhash_below_jaccard_floor"] += 1
        return ok

    def _core_bigrams(self, item: int) -> set[int]:
        """The bigram set L3 compares: the core, function particles dropped."""
        rec = self._recs[item]
        return bigrams(rec.folded[rec.core[0] : rec.core[1]].translate(self._filler))

    # ---------------------------------------------------------------- merging

    def _union_checked(self, a: int, b: int, layer: str, score: float, what: str) -> bool:
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
        loser, winner = groups.union(a, b)  # type: ignore[misc]
        via, partner = (a, b) if loser == ra else (b, a)
        why = f"{what} with #{partner}" if via == loser else f"{what}: #{via} with #{partner}"
        self._note_loss(loser, winner, layer, score, why)
        return True

    def _note_loss(self, loser: int, winner: int, layer: str, score: float, why: str) -> None:
        self._lost.setdefault(loser, (layer, score, why))
        self._stats[f"{layer}_merges"] += 1
        if loser in self._mixed:
            self._mixed.discard(loser)
            self._mixed.add(winner)

    def _take_merges(self) -> list[Merge]:
        find = self._groups.find
        merges = [
            Merge(dup=loser, into=find(loser), layer=layer, score=round(score, 4), why=why)
            for loser, (layer, score, why) in self._lost.items()
        ]
        self._lost = {}
        return merges

    # ---------------------------------------------------------------- per-record data

    def _guard_key(self, item: int) -> int:
        rec = self._recs[item]
        if rec.guard is None:
            rec.guard = self._guard.key(self._light_of(item))
            if not rec.cored():
                rec.guard_full = rec.guard
        return rec.guard

    def _light_of(self, item: int, whole: bool = False) -> str:
        """The light text of a record's core (or of all of it)."""
        rec = self._recs[item]
        lt = rec.light
        if lt is None:
            if rec.text is None:
                self._prefetch([item])
            lt = light(rec.text or "")
        if whole or not rec.cored():
            return lt
        return light_slice(lt, *rec.core)

    def _prefetch(self, items: list[int]) -> None:
        missing = [i for i in items if self._recs[i].text is None]
        if missing and self._fetch is not None:
            texts = self._fetch(missing)
            for item in missing:
                self._recs[item].text = texts[item]

    # ---------------------------------------------------------------- loading

    def _from_signature(self, sig: bytes) -> _Rec | None:
        if len(sig) < _SIG_HEAD.size:
            return None
        version, flags, fingerprint, tkey, guard, simhash, size = _SIG_HEAD.unpack_from(sig)
        if version != _SIG_VERSION or fingerprint != self._fingerprint:
            return None
        folded = sig[_SIG_HEAD.size :].decode("utf-8", "surrogatepass")
        rec = _Rec(None, folded, size)
        rec.tkey = tkey
        rec.guard = rec.guard_full = guard
        if flags & _HAS_SIMHASH:
            rec.simhash = simhash
        return rec

    def _restore(self, attach: list[tuple[int, int]]) -> None:
        recs, groups = self._recs, self._groups
        for item, into in attach:
            if into in recs:
                groups.attach(item, groups.find(into))
        families = self._families
        if TEMPLATE in self.layers:
            families.add((i, r.tkey) for i, r in recs.items() if r.tkey)
            for item, rec in recs.items():
                if rec.tkey and families.is_family(rec.tkey) and groups.size(item) > 1:
                    self._mixed.add(groups.find(item))
        everything = list(recs)
        if self.layers - {TEMPLATE}:
            self._boilerplate.add((i, recs[i].folded) for i in everything)
            self._apply_boilerplate(*self._boilerplate.all_groups(), new=set())
        todo = [i for i in everything if not self._in_family(i)]
        if JACCARD in self.layers:
            pending = []
            for item in todo:
                rec = recs[item]
                core = rec.folded[rec.core[0] : rec.core[1]]
                if self._exact.setdefault(core, item) == item:
                    pending.append((item, bigrams(core.translate(self._filler))))
            self._jaccard.insert_all(pending)
        if SIMHASH in self.layers:
            minimum = self.config.simhash_min_chars
            roots = [
                i
                for i in todo
                if groups.find(i) == i and recs[i].core[1] - recs[i].core[0] >= minimum
            ]
            self._prefetch([i for i in roots if recs[i].simhash is None])
            for item in roots:
                rec = recs[item]
                if rec.simhash is None:
                    rec.simhash = self._hasher.fingerprint(self._light_of(item))
                self._simhash.insert(item, rec.simhash)
