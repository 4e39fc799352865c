"""`memctl consolidate` against itself, and against an import running at the same time.

A second consolidation while one runs exits 75 at once with one line and records nothing. An
import started during a consolidation waits for each of its transactions and succeeds: no
"database is locked", no traceback, every record accounted for, and the store ends as after
a serial run (consolidate then import, or import then consolidate: both end the same).

The database is the restored backup of test_crash_upkeep (work for every consolidation step);
the import adds other memories of the same user (facts with a supersede chain, broken lines).
Where the two orders may differ only in how far the lazily filled full-text index has got, the
index is brought up to date before comparing: it is derived data.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import check_report, db_state, integrity, start_memctl, state_diff
from helpers import write_big_tree as big_tree

from memctl import consolidate, lock, search
from memctl.errors import EXIT_LOCKED
from memctl.importer import import_paths
from memctl.store import Store
from system.test_crash_upkeep import RUN_TIMES, backup

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="needs flock")]

REPEATS = 1  # each of the two ways to overlap; raise to hunt for a rare interleaving


@dataclass
class Setup:
    base: Path  # the backup restored, never consolidated
    inputs: Path  # what the concurrent import reads
    serial: dict[str, Any]  # the final state of either serial order


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    root = tmp_path_factory.mktemp("concurrency-upkeep")
    doc = root / "backup.json"
    doc.write_bytes(backup(400))
    base = root / "base.db"
    store = Store.open(base)
    try:
        import_paths(store.for_user("u"), [doc])
    finally:
        store.close()
    inputs = big_tree(
        root / "in", md_files=6, bullets=150, jsonl_files=1, messages=120, first_item=10**9
    )
    serial = {}
    for order in ("consolidate-import", "import-consolidate"):
        db = root / f"{order}.db"
        shutil.copyfile(base, db)
        for step in order.split("-"):
            proc = _consolidate(db) if step == "consolidate" else _import(db, inputs)
            _finished(proc, step)
        serial[order] = _settled(db)
    one, other = serial.values()
    assert one == other, state_diff(one, other)
    assert one["counts"]["entries"] > 1_500 and one["counts"]["supersedes"] >= 5
    return Setup(base, inputs, one)


def _consolidate(db: Path) -> subprocess.Popen[bytes]:
    return start_memctl("consolidate", "--db", db, "--json", cwd=db.parent)


def _import(db: Path, inputs: Path) -> subprocess.Popen[bytes]:
    args = ("import", inputs, "--db", db, "--user", "u", "--silent", "--json")
    return start_memctl(*args, cwd=db.parent)


def _finished(proc: subprocess.Popen[bytes], what: str) -> dict[str, Any]:
    """Exit 0, JSON on stdout, nothing on stderr; the import's accounting holds."""
    out, err = proc.communicate(timeout=120)
    text = err.decode(errors="replace")
    assert "locked" not in text.lower() and "Traceback" not in text, text
    assert (proc.returncode, text) == (0, ""), what
    report: dict[str, Any] = orjson.loads(out)
    if what == "import":
        check_report(report)
    else:
        assert report["status"] == "ok"
    return report


def _settled(db: Path) -> dict[str, Any]:
    """The state, with the full-text index (derived, filled lazily) brought up to date."""
    store = Store.open(db)
    try:
        search.sync(store)
    finally:
        store.close()
    return db_state(db, drop=RUN_TIMES)


@contextmanager
def _write_locked(db: Path) -> Iterator[None]:
    """Hold the database's write lock: whatever starts now queues behind it."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("COMMIT")
    finally:
        conn.close()


def _until(predicate: Any, proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, f"exited early: {proc.communicate()}"
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def _holds_lock(db: Path, proc: subprocess.Popen[bytes]) -> bool:
    return lock.holder(db) == proc.pid


def _has_open(proc: subprocess.Popen[bytes], path: Path) -> bool:
    """Whether `proc` has `path` open (it opened the database and now queues for the lock)."""
    target = os.path.realpath(path)
    try:
        fds = list(Path(f"/proc/{proc.pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == target:
                return True
        except OSError:
            pass  # closed while we looked
    return False


def _runs(db: Path) -> list[tuple[str, str | None]]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(r) for r in conn.execute("SELECT status, error FROM runs ORDER BY id")]
    finally:
        conn.close()


def _spans(db: Path) -> list[tuple[str, str]]:
    """(started, finished) of the last consolidation and of the last import."""
    conn = sqlite3.connect(db)
    try:
        return [
            conn.execute(f"SELECT started_at, finished_at FROM {t} ORDER BY id DESC").fetchone()
            for t in ("runs", "import_runs")
        ]
    finally:
        conn.close()


# -- consolidate against itself --------------------------------------------------------------


@pytest.mark.parametrize(
    "second",
    [["consolidate"], ["consolidate", "--json"], ["run", "PIPELINE"]],
    ids=["consolidate", "consolidate-json", "pipeline"],
)
def test_a_second_consolidation_exits_75_at_once(
    setup: Setup, tmp_path: Path, second: list[str]
) -> None:
    db = tmp_path / "m.db"
    shutil.copyfile(setup.base, db)
    pipeline = tmp_path / "p.toml"
    pipeline.write_text('[[steps]]\nrun = "consolidate"\n')
    with _write_locked(db):
        first = _consolidate(db)
        # It holds the consolidation lock and waits for the write lock we hold.
        _until(lambda: _holds_lock(db, first), first)
        args = [str(pipeline) if a == "PIPELINE" else a for a in second]
        other = subprocess.run(
            [sys.executable, "-m", "memctl", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
        )
        # "At once": it is done while the first still waits.
        assert first.poll() is None
    assert other.returncode == EXIT_LOCKED
    assert other.stdout == ""
    assert other.stderr == f"Error: another memctl run holds {db}.lock; try again later\n"
    _finished(first, "consolidate")
    assert _runs(db) == [("ok", None)]  # the refused run recorded nothing
    assert integrity(db) == ("ok", [])


# -- an import during a consolidation --------------------------------------------------------

# Another writer: takes the write lock if it can within 0.2 s and holds it for half a second.
_WRITER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], timeout=0.2, isolation_level=None)
try:
    conn.execute("BEGIN IMMEDIATE")
except sqlite3.OperationalError:
    print("busy", flush=True)
    sys.exit()
conn.execute("INSERT INTO meta (key, value) VALUES ('another writer', '1')")
print("held", flush=True)
time.sleep(0.5)
conn.execute("COMMIT")
"""


def test_the_optimize_step_waits_for_another_writer(
    setup: Setup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ANALYZE writes. Begun as a read, its write would fail at once ("database is locked")
    rather than wait, while an import holds the lock: the step must take the lock up front."""
    db = tmp_path / "o.db"
    shutil.copyfile(setup.base, db)
    real = consolidate.STEPS["optimize"]
    writer: list[str] = []

    def contended(ctx: consolidate.RunContext) -> int:
        # The writer comes just as the step starts: it holds the lock, or the step already does.
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(db)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        writer.append(proc.stdout.readline().strip())
        try:
            return real(ctx)
        finally:
            proc.communicate(timeout=10)

    monkeypatch.setitem(consolidate.STEPS, "optimize", contended)
    store = Store.open(db)
    try:
        report = consolidate.consolidate(store)
    finally:
        store.close()
    assert report.status == "ok", report.error
    assert writer in (["held"], ["busy"])


@pytest.mark.parametrize("gated", [True, False], ids=["both-queued", "import-mid-run"])
def test_an_import_during_a_consolidation_waits_and_ends_as_a_serial_order(
    setup: Setup, tmp_path: Path, gated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for attempt in range(REPEATS):
        db = tmp_path / f"run{attempt}.db"
        shutil.copyfile(setup.base, db)
        if gated:
            # Both start, open the database and queue behind our write lock, so their
            # transactions interleave from the first one on.
            with _write_locked(db):
                cons = _consolidate(db)
                _until(lambda d=db, c=cons: _holds_lock(d, c), cons)
                imp = _import(db, setup.inputs)
                _until(lambda d=db, i=imp: _has_open(i, Path(f"{d}-wal")), imp)
        else:
            # The consolidation finds no copy of jieba's dictionary in its cache folder and
            # loads jieba's own cache (~0.5 s, between two of its transactions): from
            # memctl's copies (~0.2 s) it ran its transactions back to back, all before the
            # import's first one, and the two did not overlap.
            with monkeypatch.context() as env:
                env.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache{attempt}"))
                cons = _consolidate(db)
            _until(lambda d=db, c=cons: _holds_lock(d, c), cons)
            imp = _import(db, setup.inputs)  # the consolidation is under way
        report = _finished(imp, "import")
        _finished(cons, "consolidate")
        assert integrity(db) == ("ok", [])
        assert report["added"] > 500 and report["rejected_count"] > 0
        assert _runs(db) == [("ok", None)]
        # They did run at the same time: each started before the other finished.
        (cons_start, cons_end), (imp_start, imp_end) = _spans(db)
        assert imp_start < cons_end and cons_start < imp_end
        state = _settled(db)
        assert state == setup.serial, state_diff(state, setup.serial)
