"""Dates in memory text and when a time-bound entry stops being true.

Patterns live in the [dates] section of memctl/data/classify.toml. Nothing here reads the
clock: dates without a year and relative days ("明天", "next friday") resolve against an anchor
the caller supplies (the record's timestamp, a daily note's date, or an explicit `now`).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache

from memctl.classify import rules
from memctl.classify.gate import Gated, fold, gated

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            (),
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_DIGIT = re.compile(r"\d")
_PATH_DATE = re.compile(r"(?:^|[/\\])(\d{4})-?(\d{2})-?(\d{2})(?:-[^/\\]*)?\.md$")


@dataclass(frozen=True)
class _Rules:
    absolute: tuple[Gated, ...]
    relative: re.Pattern[str]
    # The relative words folded, searched for in the folded text without re.I (which makes
    # the regex engine give up its first-character scan): most lines name no relative day.
    relative_words: re.Pattern[str]
    offsets: dict[str, int]
    next_weekday: tuple[Gated, ...]
    this_weekday: tuple[Gated, ...]
    weekdays: dict[str, int]
    plan: re.Pattern[str]
    recurring: re.Pattern[str]


def _any(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)


@cache
def _rules() -> _Rules:
    raw = rules.table("dates")
    offsets = {k.casefold(): int(v) for k, v in raw["relative"].items()}
    words = sorted(offsets, key=len, reverse=True)
    relative = "|".join(re.escape(w) for w in words)
    return _Rules(
        absolute=tuple(gated(p, re.I) for p in raw["absolute"]),
        relative=re.compile(relative, re.I),
        relative_words=re.compile("|".join(re.escape(fold(w)) for w in words)),
        offsets=offsets,
        next_weekday=tuple(gated(p, re.I) for p in raw["next_weekday"]),
        this_weekday=tuple(gated(p, re.I) for p in raw["this_weekday"]),
        weekdays={k.casefold(): int(v) for k, v in raw["weekdays"].items()},
        plan=_any(raw["plan"]),
        recurring=_any(raw["recurring"]),
    )


def _parts(m: re.Match[str]) -> tuple[int, int, int] | None:
    """(year or 0, month, day or -1 for end of month) from an absolute-date match."""
    groups = m.groupdict()
    month = (
        int(groups["m"]) if groups.get("m") else _MONTHS.get((groups.get("mn") or "").casefold(), 0)
    )
    year = int(groups["y"]) if groups.get("y") else 0
    day = -1 if groups.get("end") else int(groups.get("d") or 0)
    if not 1 <= month <= 12 or day == 0 or day > 31:
        return None
    return year, month, day


def parse_day(text: str) -> tuple[int, int, int] | None:
    """The first calendar day in `text` as (year or 0, month, day), unresolved."""
    for gate in _rules().absolute:
        if (m := gate.pattern.search(text)) and (parts := _parts(m)) and parts[2] > 0:
            year, month, day = parts
            try:
                date(year or 2000, month, day)  # 2000 is a leap year: 02-29 stays valid
            except ValueError:
                continue
            return parts
    return None


def _make(year: int, month: int, day: int) -> date | None:
    if day == -1:
        day = calendar.monthrange(year, month)[1]
    try:
        return date(year, month, day)
    except ValueError:
        return None


def anchor(ts: str | None, path: str | None, now: datetime | None) -> date | None:
    """The day the text was written: its timestamp, a daily note's name, or `now`."""
    if ts:
        try:
            return datetime.fromisoformat(ts.strip()).date()
        except ValueError:
            pass
    if path and (m := _PATH_DATE.search(path)):
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            pass
    return now.date() if now else None


def mentioned(text: str, at: date | None) -> list[date]:
    """Every day `text` names that can be resolved (year-less and relative ones need `at`)."""
    r = _rules()
    found: list[date] = []
    # Every absolute date has a digit; most memory lines have none. Each pattern runs only on
    # a line with the literals it needs, folded as the gates' literals are (gate.fold).
    gate_folded = fold(text)
    for gate in r.absolute if _DIGIT.search(text) else ():
        if not gate.admits(gate_folded):
            continue
        for m in gate.pattern.finditer(text):
            parts = _parts(m)
            if parts is None:
                continue
            year, month, day = parts
            if year:
                day_named = _make(year, month, day)
            elif at is not None:
                # No year: the occurrence nearest the anchor ("1月5日" on 12-20 is next year).
                near = [d for k in (-1, 0, 1) if (d := _make(at.year + k, month, day))]
                day_named = min(near, key=lambda d: abs(d - at)) if near else None
            else:
                continue
            if day_named:
                found.append(day_named)
    # An explicit date wins over the relative words around it ("下周五（3月13日）").
    if at is None or found:
        return found
    monday = at - timedelta(days=at.weekday())
    folded = text.casefold()
    weekday_spans = []
    for gates, week in ((r.next_weekday, 7), (r.this_weekday, 0)):
        for gate in gates:
            if gate.search(text, folded) is None:
                continue
            for m in gate.pattern.finditer(text):
                weekday_spans.append(m.span())
                found.append(monday + timedelta(days=week + r.weekdays[m["wd"].casefold()]))
    for m in r.relative.finditer(text) if r.relative_words.search(gate_folded) else ():
        # "下周" inside "下周五" is already counted as that Friday.
        if not any(start <= m.start() < end for start, end in weekday_spans):
            found.append(at + timedelta(days=r.offsets[m.group(0).casefold()]))
    return found


def expires_at(text: str, at: date | None, days: int) -> str | None:
    """ISO date from which a dated plan is stale, or None when the text is not time-bound.

    Time-bound: it names a day that is not a yearly/weekly recurrence, and that day lies on or
    after the anchor (or, with no anchor, the wording is a plan: "要", "scheduled", "flight").
    """
    r = _rules()
    days_named = mentioned(text, at)
    if not days_named or r.recurring.search(text):
        return None
    last = max(days_named)
    if at is not None:
        if last < at:
            return None
    elif not r.plan.search(text):
        return None
    return (last + timedelta(days=days)).isoformat()
