"""Cheap pre-checks for regexes: literals a pattern cannot match without.

Python's regex engine tries every alternative at every position, and a leading `\\b` or
lookbehind switches off its own prefix scan. Classification runs ~250 patterns per entry, so
each pattern is reduced to the literals one of which every match must contain, and the
patterns are indexed by those literals' first two characters (`Index`): an entry only pays for
the few patterns whose literal it actually contains. This is what keeps classification under
100 µs an entry.
"""

from __future__ import annotations

import importlib
import operator
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

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


def _better(a: Requirement, b: Requirement) -> Requirement:
    """The more selective requirement: longer shortest literal, then fewer alternatives."""
    if not a:
        return b
    if not b:
        return a
    return a if (min(map(len, a)), -len(a)) >= (min(map(len, b)), -len(b)) else b


def _sequence(items: object) -> tuple[Requirement, str, str, bool]:
    """Best requirement inside a sequence, plus its literal prefix and suffix and whether the
    whole sequence is one literal (so an enclosing run can continue through it)."""
    best: Requirement = ()
    run = ""
    prefix: str | None = None
    whole = True
    for op, av in items:  # type: ignore[attr-defined]
        if op is _c.LITERAL:
            run += chr(av)
            continue
        if op in _ZERO_WIDTH:
            continue
        if op is _c.SUBPATTERN and not av[1] and not av[2]:
            inner, head, tail, literal = _sequence(av[3])
            if literal:
                run += head
                continue
            best = _better(best, (run + head,) if run + head else ())
            best = _better(best, inner)
            prefix = run if prefix is None else prefix
            whole, run = False, tail
            continue
        if op is _c.BRANCH:
            # A match goes through one option, so it holds one of that option's literals:
            # together, the options' literals are a requirement if each option has some.
            parts = [_sequence(branch) for branch in av[1]]
            options = [part[0] for part in parts]
            if all(options):
                best = _better(best, _fewest({literal for o in options for literal in o}))
            # The run before it, with each option's own start: re's parser takes the common
            # start out of "os|operating system", leaving "o" before "s|perating system".
            if run:
                best = _better(best, _fewest({run + part[1] for part in parts}))
        elif op is _c.IN and (chars := _few_chars(av)):
            best = _better(best, chars)
            # The run before it, with each of them: "P[0-3]" needs "p0", "p1", "p2" or "p3".
            best = _better(best, tuple(run + ch for ch in chars) if run else ())
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
            best = _better(best, _sequence(av[2])[0])
        best = _better(best, (run,) if run else ())
        prefix = run if prefix is None else prefix
        whole, run = False, ""
    best = _better(best, (run,) if run else ())
    return best, run if prefix is None else prefix, run, whole


def _fewest(found: set[str]) -> Requirement:
    """`found` as a requirement, less the literals that hold another ("confidence " where
    "confidence" will do); () when too many are left to be worth checking."""
    alternatives = tuple(sorted(w for w in found if not any(o in w for o in found - {w})))
    return alternatives if len(alternatives) <= _MAX_OPTIONS else ()


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
    best = _sequence(_p.parse(pattern, flags))[0]
    return tuple(sorted({fold(literal) for literal in best}))


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


def fold(text: str) -> str:
    """`text` casefolded so that it holds a casefolded literal whenever a case-insensitive
    pattern finds that literal in `text` (tests/classify/test_gate.py checks every letter)."""
    return text.translate(_AS_ASCII).casefold()


@dataclass(frozen=True)
class Gated:
    """A compiled pattern and the literals one of which must be in the casefolded text."""

    needs: Requirement
    pattern: re.Pattern[str]

    def search(self, text: str, folded: str) -> re.Match[str] | None:
        if self.needs and not any(literal in folded for literal in self.needs):
            return None
        return self.pattern.search(text)


def gated(pattern: str, flags: int = 0) -> Gated:
    return Gated(requirement(pattern, flags), re.compile(pattern, flags))


# Classifying one entry consults several indexes (cues, injection, hedges, facts) for the same
# text: its grams are built once (about a fifth of the classifier's time otherwise).
@lru_cache(maxsize=256)
def grams(folded: str) -> frozenset[str]:
    """Characters and character pairs of the text: the keys an `Index` is looked up by."""
    found = set(map(operator.add, folded, folded[1:]))  # a third faster than slicing
    found.update(folded)
    return frozenset(found)


class Index:
    """Gated patterns, each tagged with an owner, looked up by the text they could match."""

    def __init__(self, entries: list[tuple[int, Gated]]) -> None:
        self.always: list[tuple[int, Gated]] = []
        # literal -> the patterns that need it; first two characters -> those literals.
        self.by_literal: dict[str, list[tuple[int, Gated]]] = defaultdict(list)
        for owner, gate in entries:
            if not gate.needs:
                self.always.append((owner, gate))
            for literal in gate.needs:
                self.by_literal[literal].append((owner, gate))
        by_gram: dict[str, list[str]] = defaultdict(list)
        for literal in self.by_literal:
            by_gram[literal[:2]].append(literal)
        self.by_gram = {key: tuple(literals) for key, literals in by_gram.items()}
        self.keys = frozenset(by_gram)

    def _candidates(
        self, folded: str, text_grams: frozenset[str] | None, skip: set[int]
    ) -> list[tuple[int, Gated]]:
        """Gated patterns whose required literal occurs in `folded`, owners in `skip` left out."""
        keys = (text_grams if text_grams is not None else grams(folded)) & self.keys
        found: dict[int, tuple[int, Gated]] = {}
        for key in keys:
            for literal in self.by_gram[key]:
                if literal in folded:
                    for owner, gate in self.by_literal[literal]:
                        if owner not in skip:
                            found[id(gate)] = (owner, gate)
        return list(found.values())

    def present(self, folded: str, text_grams: frozenset[str] | None = None) -> set[int]:
        """Owners with a pattern whose required literal occurs (the pattern may still fail)."""
        found = {owner for owner, _ in self.always}
        found.update(owner for owner, _ in self._candidates(folded, text_grams, set()))
        return found

    def owners(
        self, text: str, folded: str, skip: set[int], text_grams: frozenset[str] | None = None
    ) -> set[int]:
        """Owners with a pattern that matches; owners in `skip` are not tried."""
        found: set[int] = set()
        for owner, gate in self._candidates(folded, text_grams, skip):
            if owner not in found and gate.pattern.search(text):
                found.add(owner)
        for owner, gate in self.always:
            if owner not in found and owner not in skip and gate.pattern.search(text):
                found.add(owner)
        return found
