"""Layer 2a, template folding: one sentence with a counter slot is one family.

The seed's store held 999 copies of "判断是否值得长期记住：第N条消息…——结论：否" — an
extraction step's own output saved as if it were a memory. Masking the slots (numbers, dates,
times, ids, URLs, e-mails, quoted spans) gives every copy the same key. A key is a family, folded
into one canonical entry with the rest as its sources, only when its slot behaves like a counter,
an id or a timestamp: at least `family_min` distinct slot values, and nearly every member a value
of its own (distinct values / members >= `min_distinct_share`). "每月定投 500 元" ×4, "…800 元…"
×3, "…1000 元…" ×5 share a key too, but a few values that repeat are facts, not serial numbers:
that key never folds, and its members go through the other layers, where copies of one value
merge and the guard keeps values apart.

This is the merge guard's number rule for this layer (members differ in masked numbers by
definition, so the counter test stands in for "numbers must agree"); negations and named slots
are never masked, so they are part of the key and members always agree on them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.text import fold

SLOT = "\ue000"  # a private-use character: never in real text, kept by the fold table
_SLOT_RUNS = re.compile(SLOT + "{2,}")
_DIGIT_OR_SLOT_RUNS = re.compile("[0-9" + SLOT + "]+")


class Masker:
    """Computes template keys: the folded text with every slot replaced by one SLOT mark."""

    def __init__(self, config: DedupeConfig) -> None:
        self._patterns = [
            (re.compile(regex), _any_of(triggers))
            for _name, regex, triggers in config.mask_patterns
        ]
        self._min_literal = config.template_min_literal
        # A text none of whose patterns can fire and without digits has no key. Most texts are
        # like that, and a few C-speed scans say so (a pattern only runs when one of its
        # triggers occurs, and a substitution only inserts SLOT, so it cannot add a trigger).
        every = {t for _n, _r, triggers in config.mask_patterns for t in triggers}
        self._maybe_chars = _any_of({t for t in every if len(t) == 1} | {*"0123456789", SLOT})
        self._maybe_words = sorted(t for t in every if len(t) > 1)
        self._always = [pattern for pattern, trigger in self._patterns if trigger is None]

    def masked(self, light: str) -> str:
        """`light` with slots replaced, punctuation kept: for showing a family to a human."""
        for pattern, trigger in self._patterns:
            if trigger is None or trigger.search(light):
                light = pattern.sub(SLOT, light)
        return light

    def key(self, light: str, folded: str | None = None) -> str | None:
        """The template key of a light text (`folded`, if given, is fold(light)), or None when
        it cannot head a family.

        None when nothing was masked (copies without slots are exact duplicates, found by the
        other layers) or when too little literal text is left to call it a template.
        """
        if not (
            (self._maybe_chars and self._maybe_chars.search(light))
            or any(word in light for word in self._maybe_words)
            or any(pattern.search(light) for pattern in self._always)
        ):
            return None
        masked = self.masked(light)
        # Digits and slots both become one SLOT per run, punctuation between them dropped.
        if masked is not light or folded is None:
            folded = fold(masked)
        key = _DIGIT_OR_SLOT_RUNS.sub(SLOT, folded)
        if SLOT not in key:
            return None
        if len(key) - key.count(SLOT) < self._min_literal:
            return None
        return key


def _any_of(triggers: Iterable[str]) -> re.Pattern[str] | None:
    """A regex finding any of the strings (None for none: the pattern always runs). One
    character class where it can be: that scan runs at memchr speed."""
    chars = sorted(t for t in triggers if len(t) == 1)
    words = sorted(t for t in triggers if len(t) > 1)
    if not chars and not words:
        return None
    parts = [re.escape(w) for w in words]
    if chars:
        parts.append("[" + "".join(re.escape(c) for c in chars) + "]")
    return re.compile("|".join(parts))


def key_hash(key: str) -> int:
    """A stable, non-zero 64-bit id for a template key (0 means "no key")."""
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


_DIGIT_RUNS = re.compile(r"\d+")


def show(masked: str, limit: int = 40) -> str:
    """A family's masked text for one line of output: slots as '#', whitespace squeezed."""
    masked = _SLOT_RUNS.sub(SLOT, _DIGIT_RUNS.sub(SLOT, masked))
    text = " ".join(masked.split()).replace(SLOT, "#")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Families:
    """Which records share each template key, and which keys have become families.

    Most keys belong to one record (a text with a unique number): those map to the record
    itself, and only a shared key gets a list, so 200k records do not leave 200k lists for
    the garbage collector to walk. A family, once formed, stays one: later members fold into
    it whatever their values (copies of an old member included), so a re-import adds nothing.
    """

    def __init__(self, family_min: int, min_distinct_share: float) -> None:
        self.family_min = family_min
        self.min_distinct_share = min_distinct_share
        self._members: dict[int, int | list[int]] = {}
        self._formed: set[int] = set()
        self.held_apart: set[int] = set()  # keys big enough but whose slot values repeat
        # The slot values seen under each key big enough to be judged, kept up to date as
        # members join: recounting a key's whole group on each join made a key that gains a
        # member per file (a note per day) quadratic in its members.
        self._values: dict[int, set[int]] = {}

    def add(self, pairs: Iterable[tuple[int, int]], value: Callable[[int], int]) -> set[int]:
        """Record (id, key) pairs; return the keys that are families and gained members.

        `value(id)` identifies a member's slot values (equal for members with equal values).
        """
        touched: dict[int, list[int]] = {}
        members = self._members
        for item, key in pairs:
            held = members.get(key)
            if held is None:
                members[key] = item
            elif isinstance(held, list):
                held.append(item)
            else:
                members[key] = [held, item]
            touched.setdefault(key, []).append(item)
        ready = set()
        for key, added in touched.items():
            seen = self._values.get(key)
            if seen is not None:
                seen.update(value(m) for m in added)
            if key in self._formed:
                ready.add(key)
                continue
            group = self.members(key)
            if len(group) < self.family_min:
                continue
            if seen is None:
                seen = self._values[key] = {value(m) for m in group}
            distinct = len(seen)
            if distinct >= self.family_min and distinct >= self.min_distinct_share * len(group):
                self._formed.add(key)
                self.held_apart.discard(key)
                ready.add(key)
            else:
                self.held_apart.add(key)
        return ready

    def release(self) -> None:
        """Forget the members and slot values (~22 MiB at 200k records): only which keys are
        families is read once an engine's last batch is folded."""
        self._members, self._values = {}, {}

    def form(self, key: int) -> None:
        """Mark `key` a family without the test (a stored family whose members are folded)."""
        self._formed.add(key)
        self.held_apart.discard(key)

    def distinct(self, key: int, value: Callable[[int], int]) -> int:
        """How many different slot values the key's members hold."""
        seen = self._values.get(key)
        if seen is None:  # a stored family (`form`): counted once, then kept up to date
            seen = self._values[key] = {value(m) for m in self.members(key)}
        return len(seen)

    def members(self, key: int) -> list[int]:
        held = self._members.get(key)
        if held is None:
            return []
        return held if isinstance(held, list) else [held]

    def is_family(self, key: int) -> bool:
        return key in self._formed

    def __len__(self) -> int:
        return len(self._formed)
