"""The README documents every command (a command nobody can find is not shipped)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from memctl.cli import app
from memctl.ingest.noise import REASONS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _names() -> list[str]:
    names = [c.name or c.callback.__name__ for c in app.registered_commands if c.callback]
    for group in app.registered_groups:
        sub: typer.Typer = group.typer_instance
        names += [f"{group.name} {c.name}" for c in sub.registered_commands]
    return sorted(names)


@pytest.mark.parametrize("name", _names())
def test_every_command_is_documented_with_an_example(name):
    assert f"memctl {name} " in README, f"README has no example of `memctl {name}`"


def test_exit_codes_are_documented():
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 75 |"):
        assert code in README


@pytest.mark.parametrize("reason", REASONS)
def test_every_skip_reason_is_in_the_readmes_table(reason):
    # A user who meets a reason in the report looks it up in the skip-reason table.
    assert f"| `{reason}` |" in README, f"README's table of skip reasons lacks `{reason}`"
