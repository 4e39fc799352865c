"""Cheap pre-checks for regexes: literals a pattern cannot match without.

Python's regex engine tries every alternative at every position, and a leading `\\b` or
lookbehind switches off its own prefix scan. Classification runs ~250 patterns per entry, so
each pattern is reduced to the literals one of which every match must contain, and the
patterns are indexed by a rare pair of characters of those literals (`Index`): an entry only
pays for the few patterns whose literal it actually contains. Every other literal a match needs,
and whether it needs a digit, are checked too before the regex runs (`Gated.rest_holds`).
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain
from typing import Any, NamedTuple

# The regex parser is private API (re._parser since 3.11; sre_parse before, now deprecated).
# It is only read here, and tests/classify/test_gate.py checks every gate against its pattern.
_p: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

# Zero-width items do not consume text, so a literal run continues across them.
_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}
# Above this many alternatives a requirement is not worth checking: the characters of a class,
# the literals of an alternation (an Index looks each literal up by its first two characters,
# so a long alternation of words still gates well).
_MAX_ALTERNATIVES = 12
_MAX_OPTIONS = 32

Requirement = tuple[str, ...]  # one of these literals must occur; () means no requirement
Patterns = tuple[tuple[int, "Gated"], ...]  # (owner, pattern) pairs of an Index


def _better(a: Requirement, b: Requirement) -> Requirement:
    """The more selective requirement: longer shortest literal, then fewer alternatives."""
    if not a:
        return b
    if not b:
        return a
    return a if (min(map(len, a)), -len(a)) >= (min(map(len, b)), -len(b)) else b


class _Found(NamedTuple):
    """What a sequence's matches need: the best requirement, every requirement found (all of
    them hold), whether a decimal digit does, and its literal start and end."""

    best: Requirement
    every: list[Requirement]
    digit: bool
    head: str
    tail: str
    whole: bool  # the whole sequence is one literal (an enclosing run continues through it)


def _sequence(items: object, wide: bool) -> _Found:
    """Requirements inside a sequence, plus its literal prefix and suffix. `wide` for an Index,
    which looks many literals up cheaply: alternations of up to _MAX_OPTIONS literals, a run
    joined to each option of the alternation after it, groups with flags. Without it, the
    requirement is one a caller checks literal by literal (`requirement`)."""
    most = _MAX_OPTIONS if wide else _MAX_ALTERNATIVES
    best: Requirement = ()
    every: list[Requirement] = []
    digit = False
    run = ""
    prefix: str | None = None
    whole = True

    def take(found: Requirement) -> None:
        nonlocal best
        if found:
            best = _better(best, found)
            every.append(found)

    for op, av in items:  # type: ignore[attr-defined]
        if op is _c.LITERAL:
            run += chr(av)
            continue
        if op in _ZERO_WIDTH:
            continue
        # A group's flags leave its literals required: "(?-i:May)" holds "may" once folded.
        if op is _c.SUBPATTERN and (wide or not av[1] and not av[2]):
            inner = _sequence(av[3], wide)
            if inner.whole:
                run += inner.head
                continue
            take((run + inner.head,) if run + inner.head else ())
            for found in inner.every:
                take(found)
            digit = digit or inner.digit
            prefix = run if prefix is None else prefix
            whole, run = False, inner.tail
            continue
        if op is _c.BRANCH:
            # A match goes through one option, so it holds one of that option's literals:
            # together, the options' literals are a requirement if each option has some.
            parts = [_sequence(branch, wide) for branch in av[1]]
            if all(part.best for part in parts):
                take(_fewest({literal for part in parts for literal in part.best}, most))
            # The run before it, with each option's own start: re's parser takes the common
            # start out of "os|operating system", leaving "o" before "s|perating system".
            if run and wide:
                take(_fewest({run + part.head for part in parts}, most))
            digit = digit or all(part.digit for part in parts)
        elif op is _c.IN and (chars := _few_chars(av)):
            take(chars)
            # The run before it, with each of them: "P[0-3]" needs "p0", "p1", "p2" or "p3".
            take(tuple(run + ch for ch in chars) if run else ())
            digit = digit or all(ch.isdecimal() for ch in chars)
        elif op is _c.IN:
            digit = digit or _digits_only(av)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
            inner = _sequence(av[2], wide)
            for found in inner.every:
                take(found)
            digit = digit or inner.digit
        take((run,) if run else ())
        digit = digit or any(ch.isdecimal() for ch in run)
        prefix = run if prefix is None else prefix
        whole, run = False, ""
    take((run,) if run else ())
    digit = digit or any(ch.isdecimal() for ch in run)
    return _Found(best, every, digit, run if prefix is None else prefix, run, whole)


def _digits_only(items: list[tuple[Any, Any]]) -> bool:
    """Whether a class matches decimal digits only (\\d, [0-9])."""
    return bool(items) and all(
        (kind is _c.CATEGORY and value is _c.CATEGORY_DIGIT)
        or (
            kind is _c.RANGE
            and chr(value[0]).isdecimal()
            and chr(value[1]).isdecimal()
            and value[1] - value[0] < 10
        )
        or (kind is _c.LITERAL and chr(value).isdecimal())
        for kind, value in items
    )


def _fewest(found: set[str], most: int) -> Requirement:
    """`found` as a requirement, less the literals that hold another ("confidence " where
    "confidence" will do); () when too many are left to be worth checking."""
    alternatives = tuple(sorted(w for w in found if not any(o in w for o in found - {w})))
    return alternatives if len(alternatives) <= most else ()


def _few_chars(items: list[tuple[Any, Any]]) -> Requirement:
    """The characters a class like [abc] or [0-3] matches, if it is one of a few; else ()."""
    chars: set[str] = set()
    for kind, value in items:
        if kind is _c.LITERAL:
            chars.add(chr(value))
        elif kind is _c.RANGE and value[1] - value[0] < _MAX_ALTERNATIVES:
            chars.update(chr(v) for v in range(value[0], value[1] + 1))
        else:
            return ()
    return tuple(sorted(chars)) if len(chars) <= _MAX_ALTERNATIVES else ()


def requirement(pattern: str, flags: int = 0) -> Requirement:
    """Literals (folded) one of which every match of `pattern` contains; () if unknown."""
    return _folded(_sequence(_p.parse(pattern, flags), wide=False).best)


def _folded(found: Requirement) -> Requirement:
    return tuple(sorted({fold(literal) for literal in found}))


def requirements(pattern: str, flags: int = 0) -> tuple[Requirement, tuple[Requirement, ...], bool]:
    """The requirement an Index looks `pattern` up by (`requirement`), the others every match
    also holds (less those the first one implies), and whether every match holds a decimal
    digit."""
    found = _sequence(_p.parse(pattern, flags), wide=True)
    best = _folded(found.best)
    also: list[Requirement] = []
    for other in map(_folded, found.every):
        implied = bool(best) and all(any(o in b for o in other) for b in best)
        if other != best and not implied and other not in also:
            also.append(other)
    return best, tuple(also), found.digit


def anchored(pattern: str, flags: int = 0) -> bool:
    """Whether every match of `pattern` starts where the text does (a leading ^ or \\A, and
    no re.M), so `match` finds what `search` would, without trying every other position."""
    parsed = _p.parse(pattern, flags)
    if parsed.state.flags & re.M or not len(parsed):
        return False
    op, av = parsed[0]
    return op is _c.AT and av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING)


# re.I takes these for the ASCII letter (a pattern's "i" matches "ı"), str.casefold() does not.
_AS_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i"})


def _refold(folded: str) -> str:
    """`folded` (callers pass str.casefold() or segment.fold of the text) with the dotless ı,
    which re.I takes for "i" and casefolding keeps, folded as `fold` does: else a literal
    with an "i" would hide a match on "thınk". Most texts have none: `folded` itself."""
    return fold(folded) if "\u0131" in folded else folded


def fold(text: str) -> str:
    """`text` casefolded so that it holds a casefolded literal whenever a case-insensitive
    pattern finds that literal in `text` (tests/classify/test_gate.py checks every letter).
    Most texts hold neither dotted nor dotless I: translating them changes nothing, and costs
    ~30 µs on a 400-character Chinese note (a dict look-up per character), the two `in` 0.2."""
    if "\u0130" in text or "\u0131" in text:
        text = text.translate(_AS_ASCII)
    return text.casefold()


_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=256)
def has_digit(folded: str) -> bool:
    """Whether the text holds a decimal digit (casefolding changes none)."""
    return _DIGIT.search(folded) is not None


@dataclass(frozen=True)
class Gated:
    """A pattern (`source`, compiled as `pattern`) and what every match of it needs in the
    casefolded text: one of the literals `needs`, one of each of `also`, a decimal digit if
    `digit`."""

    needs: Requirement
    source: str
    also: tuple[Requirement, ...] = ()
    digit: bool = False
    flags: int = 0
    plain: bool = field(init=False)  # nothing besides `needs` to check
    # Each of `also` as the pairs (`pair`) of its two-character literals and its other
    # literals: for a text whose grams an Index has at hand (`rest_holds`).
    split: tuple[tuple[frozenset[int], Requirement], ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "plain", not self.also and not self.digit)
        split = tuple(
            (
                frozenset(pair(literal) for literal in one if _as_pair(literal)),
                tuple(literal for literal in one if not _as_pair(literal)),
            )
            for one in self.also
        )
        object.__setattr__(self, "split", split)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use: a small import's few texts meet the needs of few of the
        lexicons' ~800 patterns, and compiling them all was a third of loading them (a big
        import compiles them all before its worker forks: `compile_all`)."""
        return re.compile(self.source, self.flags)

    def rest_holds(self, folded: str, text_grams: Grams | None = None) -> bool:
        """Whether `folded` meets the requirements besides `needs` (an Index checked those);
        `text_grams`, its grams (as an Index takes them), spare most substring searches."""
        if self.digit and not has_digit(folded):
            return False
        if text_grams is None:
            for one in self.also:  # loops, not all(any(…)): this runs for most candidates
                for literal in one:
                    if literal in folded:
                        break
                else:
                    return False
            return True
        # Most candidates of a long note have a few of these to check, mostly Chinese words
        # of two characters that a scan of its 370 characters sought one by one (~45 µs of
        # the cues' ~80 in such a note): a look-up among its pairs finds them, ~10x cheaper.
        for pairs, others in self.split:
            if pairs.isdisjoint(text_grams):
                for literal in others:
                    if literal in folded:
                        break
                else:
                    return False
        return True

    def admits(self, folded: str) -> bool:
        """Whether `folded` meets every requirement (the pattern may still fail)."""
        folded = _refold(folded)
        if self.needs and not any(literal in folded for literal in self.needs):
            return False
        return self.plain or self.rest_holds(folded)

    def search(self, text: str, folded: str) -> re.Match[str] | None:
        return self.pattern.search(text) if self.admits(folded) else None


# A two-character literal is in a text exactly when its pair is among the text's grams, for
# the grams an Index may be given (of the text with typographic apostrophes made plain) too,
# unless it holds an apostrophe.
_APOSTROPHES = frozenset("'\u2018\u2019")


def _as_pair(literal: str) -> bool:
    """Whether `rest_holds` may look `literal` up among a text's grams."""
    return len(literal) == 2 and _APOSTROPHES.isdisjoint(literal)


def gated(pattern: str, flags: int = 0) -> Gated:
    needs, also, digit = requirements(pattern, flags)
    made = Gated(needs, pattern, also, digit, flags)
    _MADE.append(made)
    return made


# Every gated pattern made, for `compile_all`.
_MADE: list[Gated] = []


def compile_all() -> None:
    """Compile every gated pattern made so far (before a worker forks: it then shares them)."""
    for made in _MADE:
        _ = made.pattern


# A text's character pairs, each as one int: its two code points' 8 bytes of UTF-32, read in
# the machine's byte order (`grams`, `pair`).
Grams = frozenset[int]
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"


# Classifying one entry consults several indexes (cues, injection, hedges, facts) for the same
# text: its grams are built once (about a fifth of the classifier's time otherwise).
@lru_cache(maxsize=256)
def grams(folded: str) -> Grams:
    """The character pairs of the text (`pair` of each): what an `Index` looks its
    two-character keys up in (its one-character keys it looks for in the text itself)."""
    # The pairs are read out of the text's UTF-32 by C loops, as 8-byte words from byte 0
    # (the pairs at even positions) and from byte 4 (at odd ones): making a 2-character
    # string per position, ~0.2 µs, made a 370-character Chinese note's pairs cost ~60 µs,
    # these ~28 (and an int hashes for nothing).
    raw = memoryview(folded.encode(_UTF32, "surrogatepass"))
    even = raw[: len(raw) // 8 * 8].cast("Q")
    odd = raw[4 : 4 + max(len(raw) - 4, 0) // 8 * 8].cast("Q")
    return frozenset(chain(even, odd))


def pair(two: str) -> int:
    """The int `grams` holds for the pair of characters `two`."""
    return memoryview(two.encode(_UTF32, "surrogatepass")).cast("Q")[0]


# Callers may pass the pairs of a text folded with typographic apostrophes made plain
# (segment.fold) and look literals up in its plain casefold: a pair holding one may be missing
# from the pairs although the literal is in the text, so such a pair keys nothing.
_TYPOGRAPHIC = frozenset("\u2018\u2019")


def _pairs(literal: str) -> list[str]:
    """The pairs of `literal` a text holding it surely has among its grams (the literal
    itself when it is one character or two; the first two characters if none is sure)."""
    pairs = [literal[i : i + 2] for i in range(len(literal) - 1)] or [literal]
    return [p for p in pairs if _TYPOGRAPHIC.isdisjoint(p)] or [literal[:2]]


def _key(literal: str, counts: Counter[str]) -> str:
    """The pair of characters of `literal` that fewest of the index's literals hold (`counts`;
    the first of the rarest): a text holds the literal only if it holds that pair, and a rare
    pair ("nf" of "confidential", not "co") is in fewer texts, so fewer literals are looked
    for in each."""
    return min(_pairs(literal), key=counts.__getitem__)


class Index:
    """Gated patterns, each tagged with an owner, looked up by the text they could match."""

    def __init__(self, entries: list[tuple[int, Gated]]) -> None:
        self.always: list[tuple[int, Gated]] = []
        # literal -> the patterns that need it; a character pair -> the literals keyed by it.
        self.by_literal: dict[str, list[tuple[int, Gated]]] = defaultdict(list)
        for owner, gate in entries:
            if not gate.needs:
                self.always.append((owner, gate))
            for literal in gate.needs:
                self.by_literal[literal].append((owner, gate))
        by_gram: dict[str, list[str]] = defaultdict(list)
        counts = Counter(pair for literal in self.by_literal for pair in _pairs(literal))
        for literal in self.by_literal:
            by_gram[_key(literal, counts)].append(literal)
        self.by_gram = {key: tuple(literals) for key, literals in by_gram.items()}
        self.keys = frozenset(by_gram)
        # A key of one character (a one-character literal: "岁", "€") is looked for in the
        # text (`in`, ~0.1 µs), not among its grams: each character of a Chinese text made a
        # string of its own, as dear to make and hash as a pair, ~80 µs for 400 of them.
        self._pair_keys = frozenset(pair(key) for key in self.keys if len(key) > 1)
        self._singles = tuple(sorted(key for key in self.keys if len(key) == 1))
        self._ascii_singles = tuple(key for key in self._singles if key.isascii())

        # What _candidates walks: per pair, its literals, another pair of each (its rarest
        # but the key: a set look-up in the text's pairs, cheaper than a substring search)
        # and their patterns. None for a literal the pairs prove present. Keyed as the text
        # gives its keys: a one-character key as it is, a pair as `pair` packs it.
        def entry(key: str, literal: str) -> tuple[str | None, int | None, Patterns]:
            others = sorted(
                (two for two in dict.fromkeys(_pairs(literal)) if two != key),
                key=counts.__getitem__,
            )
            return (
                None if literal == key else literal,
                pair(others[0]) if others else None,
                tuple(self.by_literal[literal]),
            )

        self._lookup: dict[str | int, tuple[tuple[str | None, int | None, Patterns], ...]] = {
            (key if len(key) == 1 else pair(key)): tuple(entry(key, lit) for lit in literals)
            for key, literals in self.by_gram.items()
        }

    def _candidates(
        self, folded: str, text_grams: Grams | None, skip: set[int]
    ) -> list[tuple[int, Gated]]:
        """Gated patterns whose required literal occurs in `folded`, owners in `skip` left out."""
        if (refolded := _refold(folded)) is not folded:
            folded, text_grams = refolded, grams(refolded)
        text_grams = text_grams if text_grams is not None else grams(folded)
        found: dict[int, tuple[int, Gated]] = {}
        singles = self._ascii_singles if folded.isascii() else self._singles
        keys: list[str | int] = [key for key in singles if key in folded]
        keys += text_grams & self._pair_keys
        for key in keys:
            for literal, other, patterns in self._lookup[key]:
                if literal is None or (
                    (other is None or other in text_grams) and literal in folded
                ):
                    for owner, gate in patterns:
                        if owner not in skip:
                            found[id(gate)] = (owner, gate)
        return [(o, g) for o, g in found.values() if g.plain or g.rest_holds(folded, text_grams)]

    def present(self, folded: str, text_grams: Grams | None = None) -> set[int]:
        """Owners with a pattern whose requirements `folded` meets (the pattern may still fail)."""
        found = {owner for owner, gate in self.always if gate.rest_holds(_refold(folded))}
        found.update(owner for owner, _ in self._candidates(folded, text_grams, set()))
        return found

    def owners(
        self, text: str, folded: str, skip: set[int], text_grams: Grams | None = None
    ) -> set[int]:
        """Owners with a pattern that matches; owners in `skip` are not tried."""
        found: set[int] = set()
        for owner, gate in self._candidates(folded, text_grams, skip):
            if owner not in found and gate.pattern.search(text):
                found.add(owner)
        for owner, gate in self.always:
            if owner in found or owner in skip or not gate.rest_holds(_refold(folded)):
                continue
            if gate.pattern.search(text):
                found.add(owner)
        return found
