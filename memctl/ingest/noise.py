"""Text in a memory file that is not a memory: logs and tool output, template placeholders,
remarks about the memory file itself (TAXONOMY.md, "Kind"). The classes and their patterns
live in memctl/data/noise.toml; each match is a skip reason of its own in the import report.

    >>> judge("Exit code: 0")
    'log line'
    >>> judge("用户每天 7 点前不看消息") is None
    True
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources


@cache
def _classes() -> tuple[tuple[str, re.Pattern[str]], ...]:
    text = resources.files("memctl.data").joinpath("noise.toml").read_text(encoding="utf-8")
    return tuple(
        (c["reason"], re.compile("|".join(f"(?:{p})" for p in c["patterns"]), re.I))
        for c in tomllib.loads(text)["class"]
    )


REASONS = tuple(reason for reason, _ in _classes())


def judge(text: str) -> str | None:
    """The reason `text` is not a memory, or None when it may be one."""
    text = text.strip()
    for reason, pattern in _classes():
        if pattern.search(text):
            return reason
    return None
