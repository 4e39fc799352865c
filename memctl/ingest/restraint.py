"""Restraint for transcripts: which user messages become memories, and what text they keep.

The rules live in `memctl/data/restraint.toml`; this module only compiles and applies them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

NOT_MEMORABLE = "not memorable"
TOO_LONG = "too long for an automatic memory"


@dataclass(frozen=True)
class Rules:
    max_chars: int
    remember: list[re.Pattern[str]]
    categories: dict[str, list[re.Pattern[str]]]
    event_date: list[re.Pattern[str]]
    event_subject: list[re.Pattern[str]]
    questions: list[re.Pattern[str]]


def _compile(patterns: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(p, re.I) for p in patterns]


@cache
def rules() -> Rules:
    raw = tomllib.loads(resources.files("memctl.data").joinpath("restraint.toml").read_text())
    return Rules(
        max_chars=int(raw["limits"]["max_chars"]),
        remember=_compile(raw["remember"]["prefixes"]),
        categories={name: _compile(pats) for name, pats in raw["rules"].items()},
        event_date=_compile(raw["dated_event"]["date"]),
        event_subject=_compile(raw["dated_event"]["subject"]),
        questions=_compile(raw["questions"]["patterns"]),
    )


@dataclass(frozen=True)
class Verdict:
    """`category` is None when the message is not to be remembered; `reason` then says why."""

    category: str | None
    text: str
    reason: str | None = None


def judge(message: str) -> Verdict:
    r = rules()
    text = message.strip()
    for prefix in r.remember:
        if m := prefix.match(text):
            fact = text[m.end() :].strip()
            return Verdict("remember", fact) if fact else Verdict(None, text, NOT_MEMORABLE)
    if len(text) > r.max_chars:
        return Verdict(None, text, TOO_LONG)
    if any(q.search(text) for q in r.questions):
        return Verdict(None, text, NOT_MEMORABLE)
    for name, patterns in r.categories.items():
        if any(p.search(text) for p in patterns):
            return Verdict(name, text)
    if any(p.search(text) for p in r.event_date) and any(p.search(text) for p in r.event_subject):
        return Verdict("dated_event", text)
    return Verdict(None, text, NOT_MEMORABLE)
