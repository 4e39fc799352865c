"""Shared test setup: every test gets its own database under tmp_path, no user from the
environment, and a wide terminal so rendered tables and help are stable.

Fixtures: `run` (the CLI in-process, stdin as `input=`), `import_json` (an import's checked
report), `query` (rows of SQL on the test database), `tree` (input files), `store`, `db_path`.
Functions the tests import by name live in helpers.py. Layout: tests/<package>/ for memctl's
subpackages (classify, dedupe, ingest, store), tests/test_<module>.py for its top-level modules
and commands, tests/system/ for properties of the whole program, tests/quality/ for the gold
set, tests/bench/ for benchmarks (not collected).

Hypothesis runs with one of two profiles: `ci` (every property test's own example count, the
full run) when $CI is true, `dev` (at most DEV_EXAMPLES each, for a quick local loop)
otherwise; $HYPOTHESIS_PROFILE names one explicitly.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import WIDE, check_report, cli
from hypothesis import settings
from typer.testing import Result

from memctl.store import Store

DEV_EXAMPLES = 20
settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=DEV_EXAMPLES, deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or (
    "ci" if os.environ.get("CI", "").lower() in ("true", "1") else "dev"
)
settings.load_profile(PROFILE)


def pytest_report_header() -> str:
    return f"hypothesis profile: {PROFILE}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `dev`, cap the example count of property tests that set their own (an explicit
    @settings(max_examples=...) outranks any profile). Their count stands under `ci`."""
    if PROFILE != "dev":
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)  # where @given reads it
        if own is not None and own.max_examples > DEV_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(own, max_examples=DEV_EXAMPLES)


Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _isolated(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes ~/.local/share or ~/.cache, or picks up the developer's
    MEMCTL_USER. The cache (a copy of jieba's dictionary) is shared by the session's tests."""
    monkeypatch.setenv("MEMCTL_DB", str(tmp_path / "memctl.db"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.delenv("MEMCTL_USER", raising=False)
    for key, value in WIDE.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The file-backed database every command uses by default (via MEMCTL_DB)."""
    return tmp_path / "memctl.db"


@pytest.fixture
def run() -> Run:
    """Invoke the CLI in-process: `run("import", path, "--json")`, `run("review", input="a\\n")`.

    See helpers.cli: Paths as arguments, `input` on stdin, `env` on top of the test's; a
    traceback fails the test unless `allow_exception=True`.
    """
    return cli


@pytest.fixture
def import_json(run: Run) -> Callable[..., dict[str, Any]]:
    """`memctl import ARGS --json`, checked (exit 0, JSON only on stdout, nothing on stderr,
    the accounting rule of helpers.check_report), and returned parsed."""

    def invoke(*args: Any, exit_code: int = 0) -> dict[str, Any]:
        result = run("import", *args, "--json")
        assert result.exit_code == exit_code, result.output
        assert result.stderr == ""
        report: dict[str, Any] = orjson.loads(result.stdout)
        check_report(report)
        return report

    return invoke


@pytest.fixture
def query(db_path: Path) -> Callable[..., list[tuple[Any, ...]]]:
    """Rows of one SQL query against the test database, read through a fresh connection."""

    def select(sql: str, *params: Any) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(db_path)
        try:
            return [tuple(row) for row in conn.execute(sql, params)]
        finally:
            conn.close()

    return select


@pytest.fixture
def tree(tmp_path: Path) -> Callable[..., Path]:
    """Build input files from {relative path: content} under tmp_path/name; returns that dir.

    str content is written as UTF-8 exactly as given (no newline translation); bytes as is.
    """

    def build(files: dict[str, str | bytes], name: str = "in") -> Path:
        root = tmp_path / name
        root.mkdir(exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return root

    return build


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    """The test database, opened (and migrated) through memctl's own store."""
    opened = Store.open(db_path)
    yield opened
    opened.close()
