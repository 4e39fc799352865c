"""Credential detection and redaction: API keys, tokens, passwords, private keys, card and
identity numbers never reach the store in clear.

Detectors live in memctl/data/secrets.toml. Card and ID numbers are checksum-verified so
ordinary long numbers, dates and hashes in memory text are left alone.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources
from itertools import groupby
from typing import Any

from memctl.classify.gate import Gated, fold, gated, requirement

_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"


def luhn(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return len(digits) >= 13 and total % 10 == 0


def cn_id(number: str) -> bool:
    """Checksum (ISO 7064 MOD 11-2) and a real birth date."""
    if len(number) != 18:
        return False
    try:
        date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    total = sum(int(c) * w for c, w in zip(number[:17], _CN_ID_WEIGHTS, strict=True))
    return _CN_ID_CHECK[total % 11] == number[17].upper()


def complex_password(value: str) -> bool:
    """Three of the four classes a password policy asks for: lower case, upper case, digits,
    and symbols other than the - _ . that names and versions hold ("Adg-2026-home!",
    "Pve-Cluster-09", but not "x86_64" or "arm64-v8a"); and not a name with a number or a
    version after it ("Windows11", "Python3.12"): a symbol, or a digit inside the word."""
    classes = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        any(c.isdigit() for c in value),
        any(not c.isalnum() and c not in "-_." for c in value),
    )
    if len(value) < 6 or sum(classes) < 3 or _NAME_AND_NUMBER.fullmatch(value):
        return False
    return not value.isalnum() or _DIGIT_INSIDE.search(value) is not None


# "Windows11", "Python3.12", "Ubuntu-24.04", "Next.js14": a product and its number or version.
_NAME_AND_NUMBER = re.compile(r"[A-Za-z]+(?:\.[A-Za-z]+)?[ _-]?v?\d+(?:\.\d+)*")
_DIGIT_INSIDE = re.compile(r"\d[A-Za-z]")


def token_like(value: str) -> bool:
    """A generated key rather than a name: mixed case with digits, or a third of its letters
    and digits digits (hex, UUIDs); a file name like id_ed25519_homelab is neither."""
    alnum = [c for c in value if c.isalnum()]
    digits = sum(c.isdigit() for c in alnum)
    mixed = any(c.islower() for c in alnum) and any(c.isupper() for c in alnum)
    return digits > 0 and (mixed or 3 * digits >= len(alnum))


_CHECKS: dict[str, Callable[[str], bool]] = {
    "luhn": luhn,
    "cn_id": cn_id,
    "complex": complex_password,
    "token": token_like,
}


@dataclass(frozen=True)
class _Detector:
    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None
    # Lower-case literals one of which the text holds whenever this detector can fire (from
    # the pattern itself, or its `near` words, or the `gate` list in secrets.toml); () for the
    # checked numbers, which the digit runs of the gate stand for.
    gate: tuple[str, ...] = ()
    # A match counts only with one of these words in the `within` characters before it, in
    # the same sentence (lower case, plain substrings: an alternation regex would cost more
    # than every other detector together).
    near: tuple[str, ...] = ()
    within: int = 0
    # What else every match needs, derived from the pattern (gate.requirements): the other
    # literals, a digit. Checked against the text as earlier detectors left it.
    wide: Gated | None = None

    def has_context(self, text: str, start: int) -> bool:
        if not self.near:
            return True
        window = _folded(text[max(0, start - self.within) : start])
        cut = max(window.rfind(stop) for stop in _SENTENCE_ENDS)
        return any(word in window[cut + 1 :] for word in self.near)


_SENTENCE_ENDS = ("\n", "。", "！", "？", "!", "?")


def _selective(literals: tuple[str, ...]) -> bool:
    """Whether a line holding one of these is rare enough to be worth a gate (3+ ASCII
    characters, or any CJK)."""
    return bool(literals) and all(len(w) >= 3 or not w.isascii() for w in literals)


def _gate_literals(pattern: str, raw: dict[str, Any], near: tuple[str, ...]) -> tuple[str, ...]:
    """What the cheap gate looks for on this pattern's behalf (see secrets.toml)."""
    if "gate" in raw:
        return tuple(str(w).lower() for w in raw["gate"])
    if "check" in raw:
        return ()
    for literals in (requirement(pattern), near):
        if _selective(literals):
            return literals
    raise ValueError(f"secrets.toml: {raw['kind']} pattern {pattern!r} needs a `gate` list")


@cache
def _detectors() -> tuple[_Detector, ...]:
    text = resources.files("memctl.data").joinpath("secrets.toml").read_text(encoding="utf-8")
    found = []
    for raw in tomllib.loads(text)["secret"]:
        check = _CHECKS[raw["check"]] if "check" in raw else None
        near = tuple(raw.get("near", ()))
        for p in raw["patterns"]:
            gate = _gate_literals(p, raw, near)
            compiled = re.compile(p)
            wide = gated(p, compiled.flags & ~re.UNICODE)
            found.append(
                _Detector(raw["kind"], compiled, check, gate, near, raw.get("within", 0), wide)
            )
    return tuple(found)


@cache
def _gate() -> re.Pattern[str]:
    """Cheap gate: one search for every detector's literals and, for the checked numbers, a
    run of 8 digits. Most memory lines have none, and skip all the detectors. Every
    alternative starts with a plain character, so the regex engine looks for those first
    characters in C (a leading \\d would switch that off and double the cost); the text is
    lower-cased (re.I would make this search three times slower), after folding the letters
    re.I also takes for an ASCII one and str.lower() does not (İ, ı, ſ). The literals are
    one branch per first character (a trie): the engine tries every alternative in turn at
    each place the first-character scan stops, and 100 flat alternatives cost twice as much
    as this."""
    literals = {w for d in _detectors() for w in d.gate}
    # A literal that holds another adds nothing: the shorter one already lets the line in.
    kept = sorted(w for w in literals if not any(o != w and o in w for o in literals))
    digits = [f"{d}\\d{{3}}(?:[ -]?\\d){{4}}" for d in "0123456789"]
    return re.compile("|".join([_trie(kept), *digits]))


def _trie(words: list[str]) -> str:
    """An alternation of `words` that branches once per character: "a(?:dmin|kia)|b…"."""
    branches = []
    for _, group in groupby(sorted(words), key=lambda w: w[0]):
        same = list(group)
        stem = os.path.commonprefix(same)
        rests = [w[len(stem) :] for w in same]
        if "" in rests:  # a word ends here, so the longer ones add nothing
            branches.append(re.escape(stem))
        else:
            branches.append(f"{re.escape(stem)}(?:{_trie(rests)})")
    return "|".join(branches)


# The checked numbers' part of the gate, for the detectors that have no literals: a run of 8
# digits, with spaces or dashes between them.
_DIGIT_RUN = re.compile(r"\d{4}(?:[ -]?\d){4}")


_AS_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def _folded(text: str) -> str:
    """`text` lower-cased with İ, ı and ſ as the ASCII letters re.I matches them to. Most texts
    hold none of the three: the translation (a dict look-up per character, ~30 µs on a long
    Chinese note, on every accepted record) is skipped after three `in` tests."""
    if "\u0130" in text or "\u0131" in text or "\u017f" in text:
        text = text.translate(_AS_ASCII)
    return text.lower()


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with each credential replaced by "[REDACTED:<kind>]", and the kinds found."""
    folded = _folded(text)
    if not _gate().search(folded):
        return text, []
    kinds: list[str] = []
    digit_run: bool | None = None  # the checked numbers' share of the gate, searched once
    now_folded: str | None = None  # `text` as the detectors so far left it, folded
    for detector in _detectors():
        # A redaction made by an earlier detector only removes text, so literals missing
        # from the original are missing from what it has become.
        if detector.gate and not any(literal in folded for literal in detector.gate):
            continue
        if not detector.gate:
            if digit_run is None:
                digit_run = _DIGIT_RUN.search(folded) is not None
            if not digit_run:
                continue
        if detector.near and not any(word in folded for word in detector.near):
            continue
        if detector.wide is not None and not detector.wide.plain:
            if now_folded is None:
                now_folded = fold(text)
            if not detector.wide.rest_holds(now_folded):
                continue

        def replace(m: re.Match[str], d: _Detector = detector) -> str:
            start, end = m.span("s") if "s" in m.groupdict() else m.span()
            secret = m.string[start:end]
            already = secret.startswith("[REDACTED:")  # "password: [REDACTED:password]"
            if already or (d.check is not None and not d.check(secret)):
                return m.group(0)
            if not d.has_context(m.string, m.start()):
                return m.group(0)
            if d.kind not in kinds:
                kinds.append(d.kind)
            whole_start = m.start()
            return m.string[whole_start:start] + f"[REDACTED:{d.kind}]" + m.string[end : m.end()]

        redacted = detector.pattern.sub(replace, text)
        if redacted != text:
            text, now_folded = redacted, None
    return text, kinds


def has_secret(text: str) -> bool:
    return bool(redact(text)[1])
