"""Credential detection and redaction: API keys, tokens, passwords, private keys, card and
identity numbers never reach the store in clear.

Detectors live in memctl/data/secrets.toml. Card and ID numbers are checksum-verified so
ordinary long numbers, dates and hashes in memory text are left alone.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources

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


_CHECKS: dict[str, Callable[[str], bool]] = {"luhn": luhn, "cn_id": cn_id}


@dataclass(frozen=True)
class _Detector:
    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], bool] | None


@cache
def _detectors() -> tuple[_Detector, ...]:
    text = resources.files("memctl.data").joinpath("secrets.toml").read_text(encoding="utf-8")
    found = []
    for raw in tomllib.loads(text)["secret"]:
        check = _CHECKS[raw["check"]] if "check" in raw else None
        for p in raw["patterns"]:
            found.append(_Detector(raw["kind"], re.compile(p), check))
    return tuple(found)


# Cheap gate: every detector needs one of these somewhere in the text (a long digit run, a
# known prefix, a keyword). Most memory lines have none, and skip all the detectors. Searched
# in lower-cased text (re.I would make this search three times slower), after folding the
# letters re.I also takes for an ASCII one and str.lower() does not (İ, ı, ſ).
_GATE = re.compile(
    r"\d{4}(?:[ -]?\d){4}|-----begin|eyj|sk-|gh[pousr]_|github_pat_|glpat-|akia|asia|agpa|aida|aroa"
    r"|xox|hooks\.slack|aiza|_live_|_test_|hf_|npm_|://|bearer|pass|pwd|pin|key|token|secret"
    r"|密码|口令|密钥|秘钥|令牌"
)


_AS_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with each credential replaced by "[REDACTED:<kind>]", and the kinds found."""
    if not _GATE.search(text.translate(_AS_ASCII).lower()):
        return text, []
    kinds: list[str] = []
    for detector in _detectors():

        def replace(m: re.Match[str], d: _Detector = detector) -> str:
            start, end = m.span("s") if "s" in m.groupdict() else m.span()
            secret = m.string[start:end]
            already = secret.startswith("[REDACTED:")  # "password: [REDACTED:password]"
            if already or (d.check is not None and not d.check(secret)):
                return m.group(0)
            if d.kind not in kinds:
                kinds.append(d.kind)
            whole_start = m.start()
            return m.string[whole_start:start] + f"[REDACTED:{d.kind}]" + m.string[end : m.end()]

        text = detector.pattern.sub(replace, text)
    return text, kinds


def has_secret(text: str) -> bool:
    return bool(redact(text)[1])
