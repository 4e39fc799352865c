"""Text in a memory file that is not a memory: logs and tool output, template placeholders,
remarks about the memory file itself (TAXONOMY.md, "Kind"). The classes and their patterns
live in memctl/data/noise.toml; each match is a skip reason of its own in the import report.

A class matches a record by its text (`patterns`), or by where it stands: under a heading
whose words say what the lines below it are (`sections`, tried on the nearest heading or label),
optionally only for records of a given shape there (`under`). The Markdown reader, which knows
the headings, asks `judge_in_section`; the importer asks `judge` of every record.

    >>> judge("Exit code: 0")
    'log line'
    >>> judge("用户每天 7 点前不看消息") is None
    True
    >>> judge_in_section("- 60天无访问 → 开始衰减", "MEMORY > 时间衰减")
    'about the memory file'
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from memctl.classify.gate import anchored, fold, requirement


@dataclass(frozen=True)
class _Searched:
    """A pattern that may match anywhere in the text, and the literals (folded) one of which
    every match holds: most records are asked of every class, and one alternation of all of a
    class's patterns, tried at every position of the text, was half the cost of accepting a
    record. A text without any of them is not searched."""

    pattern: re.Pattern[str]
    needs: tuple[str, ...]
    # The literals as one alternation: a pattern of the memory file's own upkeep needs one of
    # up to a dozen, and testing each with `in` was most of the time of a record no class
    # matches.
    gate: re.Pattern[str] | None = None

    def may_match(self, folded: str) -> bool:
        return self.gate is None or self.gate.search(folded) is not None


@dataclass(frozen=True)
class _Class:
    reason: str
    # The record's own shape: the patterns anchored at its start (^) as one alternation, tried
    # only there (`match`); the others each searched for where the text holds its literals.
    anchored: re.Pattern[str] | None
    searched: tuple[_Searched, ...]
    section: re.Pattern[str] | None  # the nearest heading or label above it
    under: re.Pattern[str] | None  # what a record under such a heading must look like
    # Every literal of every searched pattern, as one alternation (None when one of them needs
    # none): most records hold none of them and are then not asked of each pattern in turn.
    gate: re.Pattern[str] | None = None

    def matches(self, text: str, folded: str) -> bool:
        if self.anchored is not None and self.anchored.match(text):
            return True
        if not self.searched or (self.gate is not None and not self.gate.search(folded)):
            return False
        return any(s.may_match(folded) and s.pattern.search(text) for s in self.searched)


def _compiled(patterns: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None


def _literals(needs: tuple[str, ...]) -> re.Pattern[str] | None:
    """One of `needs` anywhere in a folded text (None: the pattern needs no literal)."""
    return re.compile("|".join(map(re.escape, needs))) if needs else None


def _class(c: dict[str, Any]) -> _Class:
    patterns = c.get("patterns", [])
    searched = tuple(
        _Searched(re.compile(p, re.I), needs, _literals(needs))
        for p in patterns
        if not anchored(p, re.I)
        for needs in (requirement(p, re.I),)
    )
    every = tuple(dict.fromkeys(n for s in searched for n in s.needs))
    return _Class(
        c["reason"],
        _compiled([p for p in patterns if anchored(p, re.I)]),
        searched,
        _compiled(c.get("sections", [])),
        _compiled(c.get("under", [])),
        None if any(not s.needs for s in searched) else _literals(every),
    )


@cache
def _classes() -> tuple[_Class, ...]:
    text = resources.files("memctl.data").joinpath("noise.toml").read_text(encoding="utf-8")
    return tuple(_class(c) for c in tomllib.loads(text)["class"])


REASONS = tuple(dict.fromkeys(c.reason for c in _classes()))


# A line in italics or bold from end to end ("_Fill this in during your first conversation._"):
# its words are judged too, since a word boundary does not fall between "_" and a letter.
_WRAPPED = re.compile(r"^([_*]{1,2})(?=\S)(.+?)(?<=\S)\1$", re.S)


def judge(text: str) -> str | None:
    """The reason `text` is not a memory, or None when it may be one."""
    text = text.strip()
    if found := _judge(text):
        return found
    wrapped = _WRAPPED.match(text)
    if wrapped:
        return _judge(wrapped[2].strip())
    return _LOG if _all_output(text) else None


_LOG = "log line"
_FENCED = re.compile(r"^(```|~~~)[^\n]*\n(.*)\n\1$", re.S)


def _all_output(text: str) -> bool:
    """Whether `text` is a fenced block each line of which a program wrote, judged line by
    line (a test run's summary, then a checker's "dag-check: 14 DAGs OK"): what a program
    printed, pasted whole (TAXONOMY.md, noise: tool output)."""
    fenced = _FENCED.match(text)
    if fenced is None:
        return False
    lines = [line.strip() for line in fenced[2].splitlines() if line.strip()]
    # A command at a prompt is what the agent runs, kept (a fenced "$ make test").
    return bool(lines) and all(
        not _PROMPT.match(line) and _LOG in (_judge(line), _judge(f"```\n{line}\n```"))
        for line in lines
    )


_PROMPT = re.compile(r"^(?:\S*[$#%>]|PS [^>]*>)\s")


def _judge(text: str) -> str | None:
    folded = fold(text)
    for c in _classes():
        if c.matches(text, folded):
            return c.reason
    return None


def judge_in_section(text: str, section: str | None) -> str | None:
    """The reason `text` is not a memory because of the heading it stands under (`section` is
    the heading path, "MEMORY > 置信度体系"; only its last part counts), or None."""
    if not section:
        return None
    text = text.strip()
    for c in _under_heading(section.rsplit(" > ", 1)[-1]):
        if c.under is None or c.under.search(text):
            return c.reason
    return None


@lru_cache(maxsize=1024)
def _under_heading(heading: str) -> tuple[_Class, ...]:
    """The classes whose `sections` name this heading (a file's records share a few)."""
    return tuple(c for c in _classes() if c.section is not None and c.section.search(heading))
