"""Crash safety of `memctl import`: SIGKILL it at many points, then check the database.

Kill points are of two kinds. From outside, as a user or the OOM killer would: once the database
file exists, once the WAL has grown (a commit is being written), once half the sources rows are
in. From inside, deterministically, through a hook on the child's SQL: shortly after the middle
COMMIT of a large import started (while SQLite writes it), and as each COMMIT of a small import
starts (every transaction boundary: schema migrations, the run
row, each file, the run's end).

After every kill: `PRAGMA integrity_check` is ok, there is no dangling reference and no entry
without a source, the database holds nothing a clean run would not, and re-running the same
import reaches exactly the state of a clean, uninterrupted run on a fresh database.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import (
    BIKE_SHOP_HOME,
    check_report,
    db_state,
    integrity,
    last_run,
    start_memctl,
    state_diff,
    write_big_tree,
)

from memctl.importer import import_paths
from memctl.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")]


@dataclass
class Clean:
    inputs: Path
    state: dict[str, Any]
    report: dict[str, Any]
    rejections: list[tuple[str, int, str]]
    commits: int


def _import(inputs: Path, db: Path, **hook: Any) -> Any:
    args = ("import", inputs, "--db", db, "--user", "u", "--silent", "--json")
    return start_memctl(*args, cwd=db.parent, **hook)


def _finish(proc: Any) -> dict[str, Any]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    assert err == b""
    report: dict[str, Any] = orjson.loads(out)
    check_report(report)
    return report


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Clean:
    """The input tree (~17k records in 15 files) and what one uninterrupted import makes of it."""
    root = tmp_path_factory.mktemp("crash")
    inputs = write_big_tree(root / "in", md_files=12, bullets=1_200, jsonl_files=3, messages=800)
    db, tally = root / "clean.db", root / "commits"
    report = _finish(_import(inputs, db, tally=tally))
    # The input is what we think: many entries, broken lines, a supersede chain.
    assert report["added"] > 8_000 and report["rejected_count"] > 30
    commits = int(tally.read_text())
    assert commits >= len(report["by_file"]) + 2  # one per file, plus the run's start and end
    state = db_state(db)
    assert state["counts"]["supersedes"] >= 5
    return Clean(inputs, state, report, last_run(db)[1], commits)


# -- kills from outside: a predicate on the database path, polled --------------------------


def _db_exists(db: Path) -> bool:
    return db.exists()


def _wal_over(size: int) -> Callable[[Path], bool]:
    """The WAL has grown past `size` bytes: a commit (or a cache spill) is being written."""

    def check(db: Path) -> bool:
        try:
            return os.path.getsize(f"{db}-wal") > size
        except OSError:
            return False

    return check


def _sources_at(fraction: float, clean_sources: int) -> Callable[[Path], bool]:
    """At least `fraction` of the clean run's sources rows are committed."""
    target = max(1, int(clean_sources * fraction))
    last = {"at": 0.0}

    def check(db: Path) -> bool:
        # A query costs far more than a stat: asked every poll, it would slow the child down.
        if time.monotonic() - last["at"] < 0.005 or not os.path.exists(f"{db}-wal"):
            return False
        last["at"] = time.monotonic()
        try:
            conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=0.1)
            try:
                row = conn.execute("SELECT max(id) FROM sources").fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            return False
        return row[0] is not None and row[0] >= target

    return check


def _kill_when(proc: Any, ready: Callable[[Path], bool], db: Path) -> None:
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if ready(db):
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.0002)
    proc.communicate(timeout=30)


OUTSIDE: dict[str, Callable[[Clean], Callable[[Path], bool]]] = {
    "db-created": lambda _c: _db_exists,
    "wal-growing": lambda _c: _wal_over(256 * 1024),
    "half-the-sources": lambda c: _sources_at(0.5, c.state["counts"]["sources"]),
}
# Inside: (which COMMIT, seconds after it starts; 0 = just before it runs).
INSIDE: dict[str, Callable[[Clean], tuple[int, float]]] = {
    "during-middle-commit": lambda c: (c.commits // 2, 0.0005),
}


@pytest.mark.parametrize("point", [*OUTSIDE, *INSIDE])
def test_rerun_after_sigkill_reaches_the_clean_state(
    point: str, clean: Clean, tmp_path: Path
) -> None:
    db = tmp_path / "killed.db"
    if point in OUTSIDE:
        proc = _import(clean.inputs, db)
        _kill_when(proc, OUTSIDE[point](clean), db)
    else:
        at, delay = INSIDE[point](clean)
        proc = _import(clean.inputs, db, kill_at_commit=at, kill_delay=delay)
        proc.communicate(timeout=120)
    # A kill that came too late would test nothing.
    assert proc.returncode == -signal.SIGKILL, f"import finished before the {point} kill"
    _check_killed(db, clean)
    _check_rerun(db, clean)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Clean:
    """A few hundred records in five files: cheap enough to kill at every one of its COMMITs."""
    root = tmp_path_factory.mktemp("crash-small")
    inputs = write_big_tree(root / "in", md_files=4, bullets=60, jsonl_files=1, messages=200)
    db, tally = root / "clean.db", root / "commits"
    report = _finish(_import(inputs, db, tally=tally))
    assert report["added"] > 150 and report["rejected_count"] > 0
    state = db_state(db)
    assert state["counts"]["supersedes"] >= 3
    return Clean(inputs, state, report, last_run(db)[1], int(tally.read_text()))


def test_kill_before_each_commit_then_rerun(small: Clean, tmp_path: Path) -> None:
    """Every transaction boundary, so a write split over two transactions cannot hide."""
    for at in range(1, small.commits + 1):
        db = tmp_path / f"killed-{at}.db"
        proc = _import(small.inputs, db, kill_at_commit=at)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL, f"import finished before COMMIT {at}"
        _check_killed(db, small)
        _check_rerun(db, small, in_process=True)


def _check_killed(db: Path, clean: Clean) -> None:
    """Sound, and nothing but a part of what a clean run writes."""
    if not db.exists():
        return
    check, dangling = integrity(db)
    assert check == "ok"
    assert dangling == []
    partial = db_state(db)
    # Sources and supersede links are only ever added; an entry's status may still change (a
    # later file supersedes it), so entries are compared by identity.
    for table in ("sources", "supersedes"):
        extra = list((partial.get(table, Counter()) - clean.state[table]).elements())
        assert extra == [], f"{table} holds rows a clean run does not: {extra[:3]}"
    known = {_identity(row) for row in clean.state["entries"]}
    extra = [row for row in partial.get("entries", ()) if _identity(row) not in known]
    assert extra == [], f"entries a clean run does not make: {extra[:3]}"
    if "sources" in partial:
        assert _entries_without_sources(db) == 0


def _check_rerun(db: Path, clean: Clean, in_process: bool = False) -> None:
    if in_process:  # the same import without a process start: the exhaustive test runs it often
        store = Store.open(db)
        try:
            report = import_paths(store.for_user("u"), [clean.inputs]).as_dict()
        finally:
            store.close()
        check_report(report)
    else:
        report = _finish(_import(clean.inputs, db))
    assert report["records"] == clean.report["records"]
    assert report["rejected_count"] == clean.report["rejected_count"]
    again = db_state(db)
    assert again == clean.state, state_diff(again, clean.state)
    # The re-run's own log is complete: it lists every rejection a clean run lists.
    run, rejections = last_run(db)
    assert run["finished_at"] is not None
    assert rejections == clean.rejections
    # The killed run is on record as unfinished, never as a finished run with partial counts.
    assert _finished_runs(db) == [run["id"]]


def _identity(entry: tuple[Any, ...]) -> tuple[Any, ...]:
    user_id, _content, norm_hash = entry[:3]  # db_state keeps the table's column order
    return user_id, norm_hash


def _finished_runs(db: Path) -> list[int]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT id FROM import_runs WHERE finished_at IS NOT NULL")
        return [r[0] for r in rows]
    finally:
        conn.close()


def _entries_without_sources(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(
            conn.execute(
                "SELECT count(*) FROM entries e WHERE NOT EXISTS "
                "(SELECT 1 FROM sources s WHERE s.entry_id = e.id)"
            ).fetchone()[0]
        )
    finally:
        conn.close()


# The vote of a home's job (memctl.classify.home) is settled after the import's last file; a
# rerun after a kill between the files classifies only what the killed run had not committed,
# so the vote must count the home's lines already stored (importer.classify.settle_homes).


def test_a_rerun_after_a_kill_between_a_homes_files_settles_its_job_vote(
    tree: Callable[..., Path], tmp_path: Path
) -> None:
    """Killed at each commit, then rerun: the clean state. The rerun's vote counts the note
    the killed run committed (before table home_lines, 3 of its lines stayed real where the
    clean import makes them work)."""
    inputs = tree(BIKE_SHOP_HOME)
    # The first memctl process of a session writes the search dictionary's cache (one commit
    # more): counted here, the killed runs would never reach their last commit.
    _finish(_import(inputs, tmp_path / "warm.db"))
    db, tally = tmp_path / "clean.db", tmp_path / "commits"
    report = _finish(_import(inputs, db, tally=tally))
    clean = Clean(inputs, db_state(db), report, last_run(db)[1], int(tally.read_text()))
    for at in range(1, clean.commits + 1):
        killed = tmp_path / f"killed-{at}.db"
        proc = _import(inputs, killed, kill_at_commit=at)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        _check_rerun(killed, clean)
