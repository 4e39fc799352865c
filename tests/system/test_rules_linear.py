"""No rule of memctl/data/*.toml costs more than linear time in a record's length.

A regex with two adjacent quantifiers over overlapping classes (`[\\w.]*/?[\\w./]*\\.md`), or
an unanchored run before a literal that is absent (`[\\w.]+@…` on a CJK paragraph, all `\\w`),
is scanned again from every character: a 2M-character text sent to `remember` kept the MCP
server busy for hours. Each pattern is searched in texts of one alphabet, 16 times as long as
each other: a linear pattern takes about 16 times as long, a quadratic one 256 times.
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[2] / "memctl" / "data"
ALPHABETS = ("很长的记忆", "abcde", "12345", "ab 12 记忆", "a/b.c", "a  b ", "**- :", "a@b.c")
SHORT, LONG = 800, 12_800


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _strings(item)


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found = []
    for path in sorted(DATA.glob("*.toml")):
        for text in _strings(tomllib.loads(path.read_text(encoding="utf-8"))):
            if not any(q in text for q in "*+{"):
                continue  # no repetition: nothing to rescan
            try:
                found.append((f"{path.name}: {text[:80]}", re.compile(text, re.I)))
            except re.error:
                continue  # a word, not a pattern
    return found


def _seconds(pattern: re.Pattern[str], text: str) -> float:
    started = time.perf_counter()
    pattern.search(text)
    return time.perf_counter() - started


def test_the_data_files_hold_patterns() -> None:
    assert len(_patterns()) > 100


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_no_pattern_rescans_a_long_text(alphabet: str) -> None:
    short, long = alphabet * (SHORT // len(alphabet)), alphabet * (LONG // len(alphabet))
    slow = []
    for name, pattern in _patterns():
        took = _seconds(pattern, long)
        if took > 0.05 and took > 50 * max(_seconds(pattern, short), 1e-5):
            slow.append(f"{name} ({took:.2f} s)")
    assert slow == []
