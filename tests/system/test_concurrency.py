"""Two `memctl import` processes on one database at once.

Both must exit 0 without "database is locked" or a traceback, account for every record, and leave
the state a serial run leaves. Each scenario runs on a fresh database (the two processes race to
create the schema) and on an existing one whose write lock the test holds until both processes
are waiting for it, so their imports surely overlap.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import (
    check_report,
    db_state,
    integrity,
    start_memctl,
    state_diff,
    write_big_tree,
)

from memctl.store import Store

# Which of two concurrent runs creates an entry, and so which source is "new", is a race when
# both read the same text from different files; the serial baseline cannot predict it.
ORDER_DEPENDENT = frozenset({"merge_layer", "merge_score"})
pytestmark = pytest.mark.slow

REPEATS = 2
SMALL = {"md_files": 6, "bullets": 400, "jsonl_files": 2, "messages": 300, "transcript_share": 0}


@dataclass
class Scenario:
    first: list[Path]
    second: list[Path]
    drop: frozenset[str]
    serial: dict[str, Any]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Scenario]:
    root = tmp_path_factory.mktemp("concurrency")
    x = write_big_tree(root / "x", seed=1, **SMALL)
    # Only x states facts (where the user lives...): which of two concurrent runs states a
    # changed fact last decides which entry supersedes which, so y and z must not change them.
    y = write_big_tree(root / "y", seed=2, first_item=10**9, facts=False, **SMALL)  # disjoint
    z = write_big_tree(  # repeats lines of x's pool
        root / "z", seed=3, pool_seed=1, first_item=2 * 10**9, facts=False, **SMALL
    )
    # The serial baselines: x first, then the second run's inputs (x again adds nothing).
    base = root / "serial-x.db"
    _serial(base, [x])
    for other in (y, z):
        shutil.copyfile(base, root / f"serial-x-{other.name}.db")
        _serial(root / f"serial-x-{other.name}.db", [other])
    built = {
        "different": Scenario([x], [y], frozenset(), db_state(root / "serial-x-y.db")),
        # Files are imported in sorted order, so whichever process gets there first, each file's
        # records are committed in the serial order: nothing is order-dependent.
        "same-files": Scenario([x], [x], frozenset(), db_state(base)),
        "shared-lines": Scenario(
            [x], [x, z], ORDER_DEPENDENT, db_state(root / "serial-x-z.db", drop=ORDER_DEPENDENT)
        ),
    }
    assert built["different"].serial["counts"]["entries"] > 3_000  # the inputs are what we think
    return built


def _serial(db: Path, paths: list[Path]) -> None:
    proc = _start(db, paths)
    _check(proc, *proc.communicate(timeout=120))


def _start(db: Path, paths: list[Path]) -> subprocess.Popen[bytes]:
    args = ("import", *paths, "--db", db, "--user", "u", "--silent", "--json")
    return start_memctl(*args, cwd=db.parent)


def _check(proc: subprocess.Popen[bytes], out: bytes, err: bytes) -> dict[str, Any]:
    text = err.decode(errors="replace")
    assert "locked" not in text.lower()
    assert "Traceback" not in text
    assert proc.returncode == 0, text
    assert err == b""
    report: dict[str, Any] = orjson.loads(out)
    check_report(report)
    return report


def _run_both(db: Path, case: Scenario, gated: bool) -> list[dict[str, Any]]:
    lock = None
    if gated:
        Store.open(db).close()  # schema in place, so both go straight to their first write
        lock = sqlite3.connect(db, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
    procs = [_start(db, case.first), _start(db, case.second)]
    if lock is not None:
        for proc in procs:
            _wait_until_open(proc, Path(f"{db}-wal"))
        assert all(p.poll() is None for p in procs), "an import finished while the db was locked"
        lock.execute("COMMIT")
        lock.close()
    return [_check(p, *p.communicate(timeout=120)) for p in procs]


def _wait_until_open(proc: subprocess.Popen[bytes], path: Path, timeout: float = 10) -> None:
    """Until `proc` has `path` open: it has opened the database and now queues for the lock."""
    fds = Path(f"/proc/{proc.pid}/fd")
    if not fds.is_dir():  # no procfs: give it a startup's time instead
        time.sleep(1.0)
        return
    target = os.path.realpath(path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if any(os.readlink(fd) == target for fd in fds.iterdir()):
                return
        except OSError:
            pass  # an fd closed while we looked
        time.sleep(0.01)


@pytest.mark.parametrize("gated", [False, True], ids=["fresh-db", "both-waiting"])
@pytest.mark.parametrize("name", ["different", "same-files", "shared-lines"])
def test_two_imports_at_once_equal_a_serial_run(
    name: str, gated: bool, scenarios: dict[str, Scenario], tmp_path: Path
) -> None:
    case = scenarios[name]
    for attempt in range(REPEATS):
        db = tmp_path / f"run{attempt}.db"
        reports = _run_both(db, case, gated)
        assert integrity(db) == ("ok", [])
        state = db_state(db, drop=case.drop)
        assert state == case.serial, state_diff(state, case.serial)
        # Each entry was created by exactly one of the two runs, and each of its other sources
        # is an exact duplicate: the runs' reports add up to what the database holds.
        assert sum(r["added"] for r in reports) == state["counts"]["entries"]
        exact = sum(r["skipped_by_reason"].get("exact duplicate", 0) for r in reports)
        assert exact + state["counts"]["entries"] == state["counts"]["sources"]
        assert _merge_layers_per_entry(db) == {("new",): state["counts"]["entries"]}


def _merge_layers_per_entry(db: Path) -> Counter[tuple[str, ...]]:
    """How many entries have each multiset of 'new' sources: exactly one is what we expect."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT e.id, count(s.id) FROM entries e "
            "LEFT JOIN sources s ON s.entry_id = e.id AND s.merge_layer = 'new' GROUP BY e.id"
        )
        return Counter(("new",) * n if n else ("none",) for _, n in rows)
    finally:
        conn.close()
