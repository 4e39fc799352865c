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


@dataclass(frozen=True)
class _Class:
    reason: str
    text: re.Pattern[str] | None  # the record's own shape
    section: re.Pattern[str] | None  # the nearest heading or label above it
    under: re.Pattern[str] | None  # what a record under such a heading must look like


def _compiled(patterns: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I) if patterns else None


@cache
def _classes() -> tuple[_Class, ...]:
    text = resources.files("memctl.data").joinpath("noise.toml").read_text(encoding="utf-8")
    return tuple(
        _Class(
            c["reason"],
            _compiled(c.get("patterns", [])),
            _compiled(c.get("sections", [])),
            _compiled(c.get("under", [])),
        )
        for c in tomllib.loads(text)["class"]
    )


REASONS = tuple(dict.fromkeys(c.reason for c in _classes()))


def judge(text: str) -> str | None:
    """The reason `text` is not a memory, or None when it may be one."""
    text = text.strip()
    for c in _classes():
        if c.text is not None and c.text.search(text):
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
