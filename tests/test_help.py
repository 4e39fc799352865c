"""Every command explains itself: `--help` works, has a summary and an example."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command

from memctl import __version__
from memctl.cli import app

COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands if c.callback)
# Groups ("review"): typed on their own too, so their own help is checked like a command's.
GROUPS = {
    group.name: group.typer_instance.registered_callback
    for group in app.registered_groups
    if group.name and group.typer_instance and group.typer_instance.registered_callback
}
# Commands of a group ("review approve"): the name as typed, and the command itself.
SUBCOMMANDS = {
    f"{group.name} {c.name or c.callback.__name__}": c
    for group in app.registered_groups
    if group.typer_instance
    for c in group.typer_instance.registered_commands
    if c.callback
}


def test_the_command_list_is_what_we_think():
    # Guards the loop below: a command registered some other way would escape it.
    assert len(COMMANDS) == len(app.registered_commands) >= 4
    assert {"import", "list", "show", "export"} <= set(COMMANDS)
    assert {"review pending", "review approve", "review reject", "review edit",
            "review undo"} <= set(SUBCOMMANDS)  # fmt: skip
    assert set(GROUPS) == {g.name for g in app.registered_groups} == {"review"}


# `memctl review --help` prints the Typer group's `help=` (memctl/cli.py, review_app), not its
# callback's docstring: no example, and nothing says `memctl review` alone is interactive.
# Dropping `help=` there fixes it; strict, so the fix turns this red until the mark goes.


@pytest.mark.parametrize("name", [*COMMANDS, *sorted(GROUPS)])
def test_every_command_has_help_with_an_example(run, name):
    result = run(name, "--help")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert f"Usage: memctl {name} " in result.stdout
    # "Example: memctl list …" or "Example (crontab): … memctl consolidate …"
    assert re.search(rf"Example[^:\n]*:[^\n]*\bmemctl {name}\b", result.stdout)
    command = GROUPS.get(name) or next(
        c for c in app.registered_commands if (c.name or c.callback.__name__) == name
    )
    summary = (command.callback.__doc__ or "").strip().splitlines()[0]
    assert summary
    # Plain (Click) help wraps paragraphs to the terminal: compare the words, not the breaks.
    assert " ".join(summary.split()) in " ".join(result.stdout.split())


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_has_help_with_an_example(run, name):
    result = run(*name.split(), "--help")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert f"Usage: memctl {name} " in result.stdout
    assert re.search(rf"Example[^:\n]*:[^\n]*\bmemctl {name}\b", result.stdout)
    summary = (SUBCOMMANDS[name].callback.__doc__ or "").strip().splitlines()[0]
    assert summary and summary in result.stdout


@pytest.mark.parametrize("name", [*COMMANDS, *sorted(GROUPS), *sorted(SUBCOMMANDS)])
def test_every_option_has_help_text(name):
    command = get_command(app)
    for part in name.split():
        command = command.commands[part]
    options = [p for p in command.params if p.param_type_name == "option"]
    assert options
    for option in options:
        assert getattr(option, "help", None), f"{name} {option.opts} has no help"


def test_top_level_help_lists_every_command(run):
    result = run("--help")
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:", 1)[1]
    for name in [*COMMANDS, *GROUPS]:
        assert re.search(rf"^  {name}  ", listed, re.M), name


def test_db_option_shows_its_default_location(run):
    # It was written in square brackets, which rich took for markup and dropped.
    result = run("list", "--help")
    flat = " ".join(result.stdout.split())  # help is wrapped to the (test) terminal's width
    assert "SQLite database (default: ~/.local/share/memctl/memctl.db)." in flat


def test_version(run):
    result = run("--version")
    assert (result.exit_code, result.stdout) == (0, f"memctl {__version__}\n")
