"""Flags for text that tries to instruct the model: overrides, system prompts, tool calls.

Flagged text is kept as evidence (pending_review), never followed. The patterns live in
memctl/data/injection.toml.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources

from memctl.classify.gate import Index, gated


@cache
def _flags() -> tuple[list[str], Index]:
    text = resources.files("memctl.data").joinpath("injection.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)["flag"]
    reasons = [f["reason"] for f in raw]
    index = Index([(i, gated(p, re.I | re.M)) for i, f in enumerate(raw) for p in f["patterns"]])
    return reasons, index


def flags(text: str, text_grams: frozenset[str] | None = None) -> list[str]:
    """Human-readable reasons the text looks like an instruction to the model; [] when clean.

    `text_grams` (gate.grams of the casefolded text) may be passed to save recomputing them.
    """
    reasons, index = _flags()
    return [reasons[i] for i in sorted(index.owners(text, text.casefold(), set(), text_grams))]
