"""The noise classes' cheap gate (memctl/ingest/noise.py): a pattern is only run on a text that
holds one of the literals every match of it needs, and a pattern anchored at the start is only
tried there. Neither may change a verdict: `judge` must equal searching every class's patterns
as one case-insensitive alternation, in file order."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.ingest import noise


def _brute() -> list[tuple[str, re.Pattern[str]]]:
    text = resources.files("memctl.data").joinpath("noise.toml").read_text(encoding="utf-8")
    return [
        (c["reason"], re.compile("|".join(f"(?:{p})" for p in c["patterns"]), re.I))
        for c in tomllib.loads(text)["class"]
        if c.get("patterns")
    ]


BRUTE = _brute()


def brute_judge(text: str) -> str | None:
    text = text.strip()
    found = next((reason for reason, p in BRUTE if p.search(text)), None)
    # As judge does: a line wrapped in emphasis is judged by its words too.
    if found is None and (wrapped := re.match(r"^([_*]{1,2})(?=\S)(.+?)(?<=\S)\1$", text, re.S)):
        return brute_judge(wrapped[2])
    return found


# Lines that reach (or nearly reach) each class, and the letters re.I takes for ASCII ones
# although str.casefold() does not (dotless ı, dotted İ), so a literal gate must fold them too.
TEXTS = [
    "Exit code: 0",
    "EXIT CODE: 1",
    "exıt code: 1",
    "[2026-04-03T20:15] TOOL: Successfully edited index.html",
    "2026-05-01 10:02:11 INFO worker started",
    "**Name:** _(pick something you like)_",
    "Fill thıs in during your first conversation.",
    "_Fill this in during your first conversation. Make it yours._",
    "FİLL THIS IN during your first conversation.",
    "Keep thıs file under 200 lines.",
    "The more you know, the better you can help.",
    "confidence = 0.85",
    "CONFİDENCE SCORES decay over time",
    "P1: 90天归档",
    "本文件用于记录长期记忆，由助手自动维护",
    "Raw logs go in memory/YYYY-MM-DD.md",
    "this ſtores what the agent learnt",
    "The user prefers tea in the morning.",
    "用户每天 7 点前不看消息",
    "  test  ",
    "hello world!",
    "- [Invoicing](project_invoicing.md) — rates, invoice numbering",
    "*Architecture: OpenViking L0/L1/L2*",
    "Last updated: 2026-11-02",
]


def test_judge_equals_searching_every_pattern() -> None:
    assert [noise.judge(t) for t in TEXTS] == [brute_judge(t) for t in TEXTS]


# Words of the patterns' literals, and the letters re.I folds unlike str.casefold.
WORDS = [
    "this",
    "file",
    "ıs",
    "İ",
    "ſ",
    "memory",
    "notes",
    "confidence",
    "fill",
    "in",
    "here",
    "goes",
    "p1",
    "0.8",
    "exit",
    "code",
    "0",
    "keep",
    "the",
    "under",
    "记忆",
    "本文件",
    "用于",
    "记录",
    "置信度",
    "衰减",
] + [" ", ":", "：", "=", "(", ")", "*", "-", "\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=14).map("".join))
def test_judge_equals_searching_every_pattern_on_generated_text(text: str) -> None:
    assert noise.judge(text) == brute_judge(text)


def test_an_ordinary_line_runs_no_search_pattern() -> None:
    """The patterns searched through the whole text are most of the cost; a line without any
    of their literals runs none of them."""
    searched = [s for c in noise._classes() for s in c.searched]
    assert searched  # the data file has patterns that are not anchored
    assert [g for g in searched if g.may_match("the user prefers tea in the morning.")] == []


def test_every_search_pattern_has_a_gate() -> None:
    """A pattern searched through the text without any literal to gate it costs every line
    its search: the gate must find one for each."""
    assert [s.pattern.pattern for c in noise._classes() for s in c.searched if not s.needs] == []
