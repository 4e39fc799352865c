"""The worker sends a file's classified chunks back in no fixed order (memctl/parallel.py); what
a home learns from a file (its first job statements, its public lines) must not depend on it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from memctl.importer import classify


def _store() -> Any:
    return SimpleNamespace(entries=SimpleNamespace(amend_new=lambda rows: None))


def test_a_files_lines_are_settled_in_entry_order_whatever_order_the_chunks_came_in() -> None:
    lines = [(i, f"- line {i}", "real", False, "procedural", "public", False) for i in range(1, 9)]
    came = lines[4:] + lines[:4]  # the worker's chunk first, the caller's after
    settled = classify.settle_realms(_store(), came)
    assert [line.id for line in settled] == list(range(1, 9))
