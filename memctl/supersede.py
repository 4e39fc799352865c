"""Supersede chains: when a fact changes, the older entry is superseded, never deleted.

An entry whose text states a clear fact (memctl.classify.facts: subject, predicate, value)
carries `fact_key`/`fact_value`. A different value under the same key for the same user means
the fact changed: the entry with the later time (the record's own `ts`, compared as instants)
stays, the other becomes `superseded`, and the pair is kept in
`supersedes` with the reason.

Only the records' own times order two values (TAXONOMY.md, status): when either has none (an
undated MEMORY.md line; when it was imported says nothing of when it was said), or both have
the same one (two lines of one daily note), both values,
if both are stated plainly and in use, wait in review as one conflict asking which is current.
Approving one supersedes the other, with a reason saying a person decided; rejecting or
deleting one frees the other.

Only an active entry replaces an active one. A pending one — hedged ("可能要搬去…"), low
confidence, or flagged as an injected instruction — waits in review with a reason saying what
it would replace, and replaces it once approved. Entries arriving out of order are slotted
into the chain by time, so the chain is the same whatever order the files came in. When an
entry stops being trusted (rejected, deleted, sent back to review), what it superseded is
reinstated.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right, insort
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from memctl import changes
from memctl.classify.facts import extract
from memctl.store import UserStore, now_iso

LIVE = ("active", "pending_review")
# Reasons this module adds to a pending entry; re-classifying keeps them.
_CONFLICT = "conflict: "
_REASON_PREFIXES = ("uncertain change of ", "replaces ", _CONFLICT)
# Added to the reason of a supersede a person decided (no times to order the two values).
_DECIDED = " (a person decided which is current)"

Entry = dict[str, Any]
# A walk down a chain this many links deep reads the rest of the chain's links in one query.
_DEEP = 8


# The realms whose facts are the user's own: their life and their job (TAXONOMY.md: the user's
# employer is work, and still a fact about them); a story's "I live in a castle" is not.
_FACT_REALMS = frozenset({"real", "work"})


def fact_fields(content: str, realm: str | None) -> dict[str, Any]:
    """The fact columns for an entry: set only for a clear fact about the real user."""
    fact = extract(content) if realm in _FACT_REALMS else None
    if fact is None:
        return {"fact_key": None, "fact_value": None, "fact_certain": None}
    return {
        "fact_key": "|".join(fact.key),
        "fact_value": fact.value,
        "fact_certain": int(fact.certain),
    }


def is_conflict_reason(reason: str) -> bool:
    return reason.startswith(_REASON_PREFIXES)


def holds_back(reasons: Iterable[str]) -> bool:
    """Whether these reasons keep an entry in review on their own: two values with no order
    between them, waiting for a person to say which is current."""
    return any(r.startswith(_CONFLICT) for r in reasons)


Chains = dict[str, "_Chain"]


def resolve(
    user: UserStore,
    entry_ids: Iterable[int],
    who: str = "memctl",
    decided: Iterable[int] = (),
    chains: Chains | None = None,
) -> dict[str, int]:
    """Check each entry's fact against the user's other live entries; returns counts.

    `decided`: entries a person just chose as current (approved in review); they replace the
    values they have no order with (undated ones) instead of going to review with them.
    `chains`: the chains of an earlier call to keep using (an import's files, one call each),
    valid only while nothing else changed their entries since; new entries join them.
    """
    superseded = 0
    held: set[int] = set()
    conflicts = 0
    chosen = set(decided)
    ids = list(entry_ids)
    keys = dict(user.entries_by_id("id, fact_key", ids, "AND fact_key IS NOT NULL"))
    kept: Chains = {} if chains is None else chains
    single: set[str] = set()  # keys with one value in force: no entry of them has a rival
    by_key: dict[str, list[int]] = {}
    for entry_id in ids:
        if (key := keys.get(entry_id)) is not None:
            by_key.setdefault(key, []).append(entry_id)
    for key, of_key in by_key.items():
        if key in kept:
            kept[key].admit(user, of_key)
        elif len(user.facts.values(key, LIVE)) < 2:
            single.add(key)  # nothing to load (checked again by a later call)
        else:
            kept[key] = _Chain.load(user, key)
    for entry_id in ids:
        key = keys.get(entry_id)
        if key is None or key in single:
            continue
        chain = kept[key]
        entry = chain.entries.get(entry_id)
        if entry is None or entry["status"] not in LIVE:
            continue
        if _in_conflict(entry) and entry_id not in chosen:
            continue  # waiting for a person to say which value is current
        for rival in chain.rivals(entry):
            if entry["status"] not in LIVE:
                break
            if entry_id not in chosen and _unordered(entry, rival):
                if _disagree(entry, rival):
                    _conflict(user, entry, rival, who)
                    conflicts += 1
                    break  # held for a person now; one conflict says so
                pending = rival if entry["status"] == "active" else entry
                if pending["status"] != "active" and _hold(
                    user, pending, entry if pending is rival else rival, who
                ):
                    held.add(pending["id"])
                continue
            by_person = entry_id in chosen and _unordered(entry, rival)
            if by_person:
                newer, older = entry, rival
            else:
                newer, older = (entry, rival) if _at(entry) > _at(rival) else (rival, entry)
            if not _may_replace(newer, older):
                if _hold(user, newer, older, who):
                    held.add(newer["id"])
                continue
            if older is entry:
                newer = chain.closest_newer(newer, entry)
            _supersede(user, newer, older, who, chain, decided=by_person)
            superseded += 1
            if older is entry:
                break  # this entry is out; its other rivals are judged against the newer one
    return {"superseded": superseded, "review": len(held) + conflicts}


class _Chain:
    """One fact key's live entries, read once per `resolve` (one query), and the links below
    them, read when first needed; both kept up to date in memory. A file stating one fact
    thousands of times then costs a pass, not a query per pair of entries and per step down
    the chain (tests/bench/bench_supersede.py)."""

    def __init__(self, user: UserStore, key: str, live: list[Entry]) -> None:
        self.user, self.key = user, key
        self.entries = {e["id"]: e for e in live}
        self.olds: dict[int, list[int]] = {}
        self.whole = False  # all links of the key read (else each entry's when first needed)
        self._index([e["id"] for e in live])
        # The spine: the path `closest_newer` walks down from one head (each entry's latest
        # old, down to one with none), oldest first, with each entry's `_at` beside it. Kept
        # only while strictly in time order, where the closest newer is found by bisection:
        # values arriving one a file in shuffled order walked the whole chain each (issue 11:
        # 2k -> 8k values, 18.8 s -> 281 s). Built once all links are in memory (`whole`), so
        # it reads nothing the walk would not, and mended by `mend` after each supersede.
        self.spine: list[Entry] = []
        self.spine_at: list[tuple[str, int]] = []
        self.linked = 0  # supersedes made in this chain
        self.build_at = 0  # no spine is built before `linked` reaches this (see `_build`)

    def _index(self, ids: Iterable[int]) -> None:
        # Live entries in id order; one superseded since is skipped by `_next` (path halving),
        # so going over the rivals again and again costs nothing for those already gone.
        self.live = sorted(i for i in ids if self.entries[i]["merged_into"] is None)
        self.skip = list(range(len(self.live) + 1))
        # How many of `live` hold each value (less those found gone): when every one holds the
        # entry's own value there is no rival to look for. A pinned preamble restating one fact
        # on thousands of lines made each entry walk all the others for nothing.
        self.values = Counter(self.entries[i]["fact_value"] for i in self.live)
        self.count = len(self.live)

    def admit(self, user: UserStore, ids: list[int]) -> None:
        """Take in entries of the key written since the chain was read (they are new: they
        have no links yet)."""
        rows = [_entry(r) for r in user.facts.by_ids([i for i in ids if i not in self.entries])]
        for entry in rows:
            self.entries[entry["id"]] = entry
        live = sorted(e["id"] for e in rows if e["merged_into"] is None and e["status"] in LIVE)
        if not live:
            return
        if self.live and live[0] < self.live[-1]:  # not after the others: index them anew
            self._index(i for i in [*self.live, *live] if self.entries[i]["status"] in LIVE)
            return
        # After the others: the end marker of `skip` becomes the first new entry.
        self.live += live
        self.skip += range(len(self.skip), len(self.skip) + len(live))
        self.values.update(self.entries[i]["fact_value"] for i in live)
        self.count += len(live)

    @classmethod
    def load(cls, user: UserStore, key: str) -> _Chain:
        return cls(user, key, [_entry(row) for row in user.facts.live(key)])

    def _next(self, n: int) -> int:
        skip = self.skip
        while skip[n] != n:
            skip[n] = skip[skip[n]]
            n = skip[n]
        return n

    def rivals(self, entry: Entry) -> Iterator[Entry]:
        """The other live values, in id order (as `_rivals` reads them)."""
        if self.values[entry["fact_value"]] >= self.count:
            return
        n = self._next(0)
        while n < len(self.live):
            rival = self.entries[self.live[n]]
            if rival["status"] not in LIVE:
                self.skip[n] = n + 1
                self.values[rival["fact_value"]] -= 1
                self.count -= 1
            elif rival["id"] != entry["id"] and rival["fact_value"] != entry["fact_value"]:
                yield rival
            n = self._next(n + 1)

    def _old_ids(self, new_id: int) -> list[int]:
        if new_id not in self.olds:
            self.olds[new_id] = [] if self.whole else self._read_olds(new_id)
        return self.olds[new_id]

    def _read_olds(self, new_id: int | None = None) -> list[int]:
        """Read links below entries of this key (all, or `new_id`'s); returns the old ids."""
        found = []
        for entry in self.user.links.below(self.key, new_id):
            above = entry.pop("new_id")
            old = self.entries.setdefault(entry["id"], _entry(entry))
            found.append(old["id"])
            if self.whole:
                self.olds.setdefault(above, []).append(old["id"])
        return found

    def _read_whole(self) -> None:
        """Every link of the key in one query, once a walk down the chain goes deep."""
        self.whole, self.olds = True, {}
        self._read_olds()

    def olds_of(self, entry: Entry) -> list[Entry]:
        """What `entry` supersedes in this chain, in id order (as `_olds` reads them)."""
        found = (self.entries[i] for i in self._old_ids(entry["id"]))
        return [o for o in found if o["status"] == "superseded"]

    def closest_newer(self, newest: Entry, entry: Entry) -> Entry:
        """As `_closest_newer`, on the links in memory: by bisection on the spine when it
        hangs from `newest`, else link by link (and a deep walk builds the spine)."""
        at = _at(entry)
        if self.spine and self.spine[-1]["id"] == newest["id"]:
            # Each entry's latest old is the one before it, all in time order: the walk
            # stops at the first one newer than `entry`.
            k = bisect_right(self.spine_at, at)
            return self.spine[k] if k < len(self.spine) else newest
        current, steps = newest, 0
        while below := [o for o in self.olds_of(current) if _at(o) > at]:
            current, steps = max(below, key=_at), steps + 1
            if steps == _DEEP and not self.whole:
                self._read_whole()
        if steps >= _DEEP and self.linked >= self.build_at:
            self._build(newest)
        return current

    def _latest_old(self, entry: Entry) -> Entry | None:
        """The next entry down the walk from `entry` (whatever the time it walks down to)."""
        return max(self.olds_of(entry), key=_at, default=None)

    def _build(self, head: Entry) -> None:
        """The spine down from `head`; none if some link goes up in time (a person decided
        for the older value) or round. Not built again until as many supersedes as it has
        entries were made: heads taking turns, or a chain out of time order, cost a walk down
        the chain per its length in supersedes, not per query."""
        path, current = [head], head
        while (below := self._latest_old(current)) is not None and _at(below) < _at(current):
            path.append(current := below)
        self.build_at = self.linked + len(path)
        if below is not None:
            self.spine, self.spine_at = [], []
            return
        self.spine = path[::-1]
        self.spine_at = [_at(e) for e in self.spine]

    def _place(self, entry: Entry) -> int | None:
        """Where `entry` is on the spine, if it is."""
        i = bisect_left(self.spine_at, _at(entry))
        return i if i < len(self.spine) and self.spine[i]["id"] == entry["id"] else None

    def mend(self, newer: Entry, older: Entry) -> None:
        """After `newer` superseded `older`: the spine again the path down from its head.

        Only the links of these two changed (moved from `newer` to `older`, one added), and
        `older` became superseded; no other entry holds a link to it (a link in memory points
        at a superseded entry: read so, or made by `_supersede` just before the status). So
        the path is walked anew only below the higher of the two on the spine, until it meets
        the spine below the lower one: a value slotted in between two is one step.
        """
        self.linked += 1
        if not self.spine:
            return
        marks = [i for e in (newer, older) if (i := self._place(e)) is not None]
        if marks:
            low, high = min(marks), max(marks)
            segment, current, join = [], self.spine[high], None
            for _ in range(_DEEP):
                below = self._latest_old(current)
                if below is None:
                    join = 0
                    break
                if _at(below) >= _at(current):
                    break  # out of time order: no spine
                if (i := self._place(below)) is not None and i < low:
                    join = i + 1
                    break
                segment.append(current := below)
            if join is None:
                self.spine, self.spine_at = [], []
                return
            segment.reverse()  # (a list insert moves the rest: memmove, ~1 µs per 10k)
            self.spine[join:high] = segment
            self.spine_at[join:high] = [_at(e) for e in segment]
        below = self._latest_old(newer) if self.spine[-1]["id"] == older["id"] else None
        if below is not None and below["id"] == older["id"] and _at(newer) > _at(older):
            self.spine.append(newer)  # a new head on top of the old one
            self.spine_at.append(_at(newer))

    def link(self, new_id: int, old_id: int) -> None:
        olds = self._old_ids(new_id)
        if old_id not in olds:
            insort(olds, old_id)

    def unlink(self, new_id: int, old_id: int) -> None:
        olds = self._old_ids(new_id)
        if old_id in olds:
            olds.remove(old_id)


def _entry(row: Any) -> Entry:
    entry = dict(row)
    entry["reasons"] = orjson.loads(entry.pop("review_reasons") or "[]")
    return entry


def _at(entry: Entry) -> tuple[str, int]:
    """`_when`, worked out once per entry (most rows read are never compared)."""
    if "when" not in entry:
        entry["when"] = _when(entry)
    return entry["when"]


def restate(user: UserStore, stated: dict[int, list[str]], who: str = "memctl") -> int:
    """Facts stated again: `stated` maps an entry to the times of records that repeat its text
    exactly (an exact copy adds no entry). An entry takes its latest statement's time, so a
    value restated after a change is the newer one; a superseded entry stated again after
    everything that replaced it is current again (Paris → Lyon → Paris). Returns how many
    came back."""
    revived = 0
    for entry_id in sorted(_stating_facts(user, list(stated))):
        entry = user.facts.get(entry_id)
        if entry is None or entry["status"] not in (*LIVE, "superseded"):
            continue
        ts = max(stated[entry_id], key=lambda t: _when({"ts": t, "id": entry_id}))
        when = _when({"ts": ts, "id": entry_id})[0]
        if when <= _when(entry)[0]:
            continue
        if any(_when(rival)[0] >= when for rival in _current_rivals(user, entry)):
            continue  # a current value is newer still: the chain stands
        values = {"ts": ts}
        if entry["status"] == "superseded":
            unlink(user, entry_id)
            values["status"] = _status_before_supersede(user, entry_id)
            revived += 1
        changes.update(user, entry_id, "restate", values, who=who, note=f"stated again on {ts}")
        resolve(user, [entry_id], who)
    return revived


def unrestate(user: UserStore, entry_id: int, who: str | None = None) -> None:
    """After a restatement was undone (the entry is superseded again, with its old time): what
    it had superseded comes back, and the newest value supersedes it again, with a link."""
    release(user, entry_id, who)
    entry = user.facts.get(entry_id)
    if entry is None or not entry["fact_key"]:
        return
    newer = [r for r in _current_rivals(user, entry) if _when(r) > _when(entry)]
    if newer:
        head = max(newer, key=_when)
        _supersede(user, _closest_newer(user, head, entry), entry, who or changes.actor())


def release(user: UserStore, entry_id: int, who: str | None = None) -> list[int]:
    """Reinstate what `entry_id` superseded, now that it is no longer trusted; returns their ids.

    Each one returns to the status it had before it was superseded, unless something else
    still supersedes it. Its links to them go: `supersedes` describes the chain as it stands,
    and the change log keeps what happened.
    """
    reinstated = []
    for old_id in user.links.superseded_olds(entry_id):
        user.links.remove(entry_id, old_id)
        if user.superseded_by(old_id):
            continue
        status = _status_before_supersede(user, old_id)
        changes.update(user, old_id, "reinstate", {"status": status}, who=who,
                       note=f"#{entry_id} no longer supersedes it")  # fmt: skip
        reinstated.append(old_id)
    resolve(user, reinstated, who or changes.actor())
    if user.entry(entry_id)["status"] not in LIVE:
        _end_conflicts(user, entry_id, who or changes.actor())
    return reinstated


def settle(
    user: UserStore,
    entry_id: int,
    was: str,
    *,
    fact_changed: bool = False,
    decided: bool = False,
    who: str | None = None,
) -> None:
    """After a person changed an entry (status `was` before): bring its chain up to date.

    Now active: it may replace older values, and be replaced by newer ones; `decided` (it was
    approved) means a person chose it as current, so it replaces values it has no order with.
    No longer trusted (sent to review, archived, or superseded again by undoing a
    restatement): what it replaced comes back, and a value it was in conflict with is free
    again. Its fact changed: both.
    """
    status = user.entry(entry_id)["status"]
    if was == "active" and (fact_changed or status in ("pending_review", "archived", "superseded")):
        release(user, entry_id, who)
    if status not in LIVE:
        _end_conflicts(user, entry_id, who or changes.actor())
    if status == "active" and (was != "active" or fact_changed):
        resolve(user, [entry_id], who or changes.actor(), decided=[entry_id] if decided else ())


def _end_conflicts(user: UserStore, entry_id: int, who: str) -> None:
    """`entry_id` is out (rejected, deleted): the values waiting in a conflict with it lose
    that reason, and one with no other reason to wait is active again (then checked anew)."""
    mark = f"(#{entry_id})"
    freed = []
    for other_id, raw in user.facts.pending_naming(mark, entry_id):
        reasons = orjson.loads(raw)
        kept = [r for r in reasons if not (r.startswith(_CONFLICT) and mark in r)]
        if kept == reasons:
            continue
        values: dict[str, Any] = {"review_reasons": orjson.dumps(kept).decode() if kept else None}
        if not kept:
            values["status"] = "active"
            freed.append(other_id)
        changes.update(user, other_id, "settle", values, who=who,
                       note=f"#{entry_id}, the other side of its conflict, is out")  # fmt: skip
    resolve(user, freed, who)


def unlink(user: UserStore, old_id: int) -> None:
    """Forget what superseded `old_id` (a person undid that supersede)."""
    user.links.remove_to(old_id)


def _stating_facts(user: UserStore, ids: list[int]) -> set[int]:
    """Those of `ids` that state a fact: an import's new entries, most of which do not, are
    filtered in a few queries instead of one each (0.6 s -> 0.05 s for 140k)."""
    return {r[0] for r in user.entries_by_id("id", ids, "AND fact_key IS NOT NULL")}


def _current_rivals(user: UserStore, entry: Entry) -> list[Entry]:
    """The other values in force: active ones (a pending change is not, until approved)."""
    if user.facts.values(entry["fact_key"], ("active",)) <= {entry["fact_value"]}:
        return []  # read from the index alone: the usual case, one value restated
    return [r for r in user.facts.rivals(entry) if r["status"] == "active"]


def _olds(user: UserStore, entry: Entry) -> list[Entry]:
    """The entries `entry` supersedes in its own chain (same fact key, still superseded)."""
    return user.links.olds_in_key(entry["id"], entry["fact_key"])


def _may_replace(newer: Entry, older: Entry) -> bool:
    """An active entry replaces anything; a pending one only another pending one, and only
    when it is not hedged (if it is rejected later, `release` gives the older one back)."""
    if newer["status"] == "active":
        return True
    return bool(newer["fact_certain"]) and older["status"] != "active"


def _closest_newer(user: UserStore, newest: Entry, entry: Entry) -> Entry:
    """The entry that directly follows `entry` in time: walk down from the chain's head past
    every link that is still newer than `entry` (it arrived out of order)."""
    current = newest
    while below := [o for o in _olds(user, current) if _when(o) > _when(entry)]:
        current = max(below, key=_when)
    return current


def _supersede(
    user: UserStore,
    newer: Entry,
    older: Entry,
    who: str,
    chain: _Chain | None = None,
    decided: bool = False,
) -> None:
    # Links `newer` holds to entries older than `older` now start at `older`: it came in
    # between them. (A link between equal values is left where it is.)
    olds = chain.olds_of(newer) if chain is not None else _olds(user, newer)
    for old in olds:
        if _when(old) < _when(older) and old["fact_value"] != older["fact_value"]:
            at = older["ts"] or now_iso()
            user.links.move(newer["id"], old["id"], older["id"], _reason(old, older), at)
            if chain is not None:
                chain.unlink(newer["id"], old["id"])
                chain.link(older["id"], old["id"])
    reason = _reason(older, newer) + (_DECIDED if decided else "")
    # A link the other way is stale (an undone restatement, undone again): no cycles.
    user.links.remove(older["id"], newer["id"])
    user.add_supersede(newer["id"], older["id"], reason, newer["ts"])
    if chain is not None:
        chain.unlink(older["id"], newer["id"])
        chain.link(newer["id"], older["id"])
    if older["status"] != "superseded":
        changes.update(user, older["id"], "supersede", {"status": "superseded"}, who=who,
                       note=f"superseded by #{newer['id']}: {reason}")  # fmt: skip
        older["status"] = "superseded"
    if chain is not None:
        chain.mend(newer, older)


def _reason(older: Entry, newer: Entry) -> str:
    return f"{_predicate(newer)}: '{older['fact_value']}' → '{newer['fact_value']}'"


def _predicate(entry: Entry) -> str:
    return str(entry["fact_key"]).split("|")[1]


def _hold(user: UserStore, newer: Entry, older: Entry, who: str) -> bool:
    """Note on the pending `newer` what approving it would replace; False if already noted."""
    predicate = _predicate(newer)
    if newer["fact_certain"]:
        reason = (
            f"replaces {predicate} '{older['fact_value']}' (#{older['id']}) "
            f"with '{newer['fact_value']}' once approved"
        )
    else:
        reason = (
            f"uncertain change of {predicate}: "
            f"'{older['fact_value']}' (#{older['id']}) → '{newer['fact_value']}'"
        )
    reasons = orjson.loads(user.facts.reasons(newer["id"]) or "[]")
    if reason in reasons:
        return False
    values = {"review_reasons": orjson.dumps([*reasons, reason]).decode()}
    changes.update(user, newer["id"], "review", values, who=who, note=reason)
    newer["reasons"] = [*reasons, reason]
    return True


def _status_before_supersede(user: UserStore, entry_id: int) -> str:
    status = user.log.last_before(entry_id, "supersede").get("status")
    return status if status in LIVE else "active"


def _unordered(a: Entry, b: Entry) -> bool:
    """No order between two values: one of them has no time of its own (an undated line of a
    MEMORY.md; import time is not when the user said it), or both have the same one (two lines
    of one daily note: its date says nothing of which came later)."""
    if a["ts"] is None or b["ts"] is None:
        return True
    return _utc(str(a["ts"])) == _utc(str(b["ts"]))


def _disagree(entry: Entry, rival: Entry) -> bool:
    """A real disagreement worth holding both back for: both stated without hedging, the
    entry in use, the rival in use or already waiting in a conflict."""
    if not (entry["fact_certain"] and rival["fact_certain"]) or entry["status"] != "active":
        return False
    return rival["status"] == "active" or _in_conflict(rival)


def _in_conflict(entry: Entry) -> bool:
    return any(r.startswith(_CONFLICT) for r in entry["reasons"])


def _conflict(user: UserStore, entry: Entry, rival: Entry, who: str) -> None:
    """Both values wait for a person, with one reason naming both. A rival already waiting in
    a conflict keeps its reasons: the new value joins that conflict."""
    a, b = sorted((entry, rival), key=lambda e: int(e["id"]))
    reason = (
        f"{_CONFLICT}{_predicate(a)} '{a['fact_value']}' (#{a['id']}) "
        f"vs '{b['fact_value']}' (#{b['id']}) — which is current?"
    )
    for side in (entry, rival) if rival["status"] == "active" else (entry,):
        reasons = [*side["reasons"], reason]
        values = {"status": "pending_review", "review_reasons": orjson.dumps(reasons).decode()}
        changes.update(user, side["id"], "review", values, who=who, note=reason)
        side["reasons"], side["status"] = reasons, "pending_review"


def _when(entry: Entry) -> tuple[str, int]:
    """When the entry's fact was stated, as a sortable UTC text (then its id, for ties)."""
    return (_utc(str(entry["ts"] or entry.get("created_at") or "")), int(entry["id"]))


@functools.lru_cache(maxsize=65536)
def _utc(raw: str) -> str:
    """An ISO time as sortable UTC text (the text itself when it is no ISO time). Cached: a
    chain compares the same few times over and over (perf4 profiled 18 parses per supersede)."""
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        return raw
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")
