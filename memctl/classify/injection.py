"""Flags for text that tries to instruct the model: overrides, system prompts, tool calls,
permission escalation.

Flagged text is kept as evidence (pending_review), never followed. The patterns live in
memctl/data/injection.toml. Each reason is "<category>: '<the words that matched>'", so the
review queue can group by category and the reviewer sees what tripped it.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources

from memctl.classify.gate import Gated, Grams, Index, gated

# Longest quote of the matched words shown in a reason.
QUOTE = 40


@cache
def _flags() -> tuple[list[str], list[list[Gated]], Index]:
    text = resources.files("memctl.data").joinpath("injection.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)["flag"]
    reasons = [f["reason"] for f in raw]
    patterns = [[gated(p, re.I | re.M) for p in f["patterns"]] for f in raw]
    index = Index([(i, g) for i, group in enumerate(patterns) for g in group])
    return reasons, patterns, index


def _quote(text: str, patterns: list[Gated]) -> str:
    match = next(m for g in patterns if (m := g.pattern.search(text)) is not None)
    words = " ".join(match.group(0).split())
    return words if len(words) <= QUOTE else words[: QUOTE - 1] + "…"


def categories() -> list[str]:
    """The reason categories this module can give (the part before the colon)."""
    return list(_flags()[0])


def flags(text: str, text_grams: Grams | None = None) -> list[str]:
    """Human-readable reasons the text looks like an instruction to the model; [] when clean.

    `text_grams` (gate.grams of the casefolded text) may be passed to save recomputing them.
    """
    reasons, patterns, index = _flags()
    found = sorted(index.owners(text, text.casefold(), set(), text_grams))
    return [f"{reasons[i]}: '{_quote(text, patterns[i])}'" for i in found]
