"""`memctl consolidate`: the lock, each step, the run log, failures, dry runs and downtime."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from helpers import add, memctl_argv

from memctl import consolidate, lock, pipeline
from memctl.errors import ConfigError, Locked
from memctl.store import Store

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs flock and SIGKILL")

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ago(days: float, base: datetime = NOW) -> str:
    return iso(base - timedelta(days=days))


def entries(db: Path) -> list[tuple[Any, ...]]:
    """Every entries row, every column, in id order: a snapshot to compare."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT * FROM entries ORDER BY id").fetchall()
    finally:
        conn.close()


def field(db: Path, column: str, entry_id: int) -> Any:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT {column} FROM entries WHERE id = ?", [entry_id]).fetchone()[0]
    finally:
        conn.close()


def runs(db: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM runs ORDER BY id")]
    finally:
        conn.close()


def settings(**overrides: Any) -> consolidate.Settings:
    return consolidate.load_settings(overrides)


# -- the lock ------------------------------------------------------------------------------

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from memctl.lock import exclusive
    with exclusive(Path(sys.argv[1])):
        print("held", flush=True)
        time.sleep(120)
    """
)


@pytest.fixture
def holder(db_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the database's consolidation lock (killed at teardown)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    yield proc
    proc.kill()
    proc.wait()
    proc.stdout.close()


def test_second_run_while_locked_exits_75_with_one_line(
    store: Store, db_path: Path, holder: subprocess.Popen[str]
) -> None:
    add(store, "过期的提醒", expires_at=ago(1, datetime.now(UTC)))
    # A subprocess with a timeout: were it to wait for the lock, the holder sleeps for 120 s.
    proc = subprocess.run(
        memctl_argv("consolidate", "--db", db_path, "--json"),
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert proc.returncode == 75
    assert proc.stdout == ""
    assert proc.stderr == f"Error: another memctl run holds {db_path}.lock; try again later\n"
    assert runs(db_path) == []  # nothing recorded, least of all as ok
    assert store.conn.execute("SELECT status FROM entries").fetchall()[0][0] == "active"


def test_pipeline_run_while_locked_exits_75(
    run: Run, db_path: Path, holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    spec = tmp_path / "p.toml"
    spec.write_text('[[steps]]\nrun = "consolidate"\n')
    result = run("run", spec)
    assert result.exit_code == 75
    assert result.stderr.count("\n") == 1 and "holds" in result.stderr


def test_a_run_that_finds_the_lock_held_opens_no_database(
    run: Run, db_path: Path, holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    # The lock is taken before the store is opened: a second run creates no database (nor
    # migrates one under the run that holds it), as before the core took the lock.
    assert run("consolidate").exit_code == 75
    spec = tmp_path / "p.toml"
    spec.write_text('[[steps]]\nrun = "consolidate"\n')
    assert run("run", spec).exit_code == 75
    assert not db_path.exists()


def test_a_database_path_that_cannot_be_made_is_one_line(run: Run, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    db = tmp_path / "file" / "memctl.db"
    spec = tmp_path / "p.toml"
    spec.write_text('[[steps]]\nrun = "consolidate"\n')
    for result in (run("consolidate", "--db", db), run("run", spec, "--db", db)):
        assert result.exit_code == 1
        assert result.stderr.startswith(f"Error: cannot open database {db}: ")
        assert result.stderr.count("\n") == 1


def test_the_core_takes_the_lock_itself_not_only_the_cli(
    store: Store, db_path: Path, holder: subprocess.Popen[str], tmp_path: Path
) -> None:
    # Called as the API would, with no CLI around it: another process's lock still stops it.
    add(store, "过期的提醒", expires_at=ago(1, datetime.now(UTC)))
    with pytest.raises(Locked, match="another memctl run holds"):
        consolidate.consolidate(store)
    spec = tmp_path / "p.toml"
    spec.write_text('[[steps]]\nrun = "consolidate"\n')
    with pytest.raises(Locked):
        pipeline.run(pipeline.load(spec), store, "default")
    assert runs(db_path) == []
    assert store.conn.execute("SELECT status FROM entries").fetchall()[0][0] == "active"


def test_a_pipeline_holds_the_lock_for_its_consolidation(
    store: Store, db_path: Path, tmp_path: Path
) -> None:
    spec = tmp_path / "p.toml"
    spec.write_text('name = "p"\n[[steps]]\nrun = "consolidate"\nsteps = ["expire"]\n')
    (result,) = pipeline.run(pipeline.load(spec), store, "default")
    assert result["status"] == "ok"
    assert [(r["kind"], r["status"]) for r in runs(db_path)] == [("pipeline:p", "ok")]
    # Held by a thread, the lock is held for what that thread runs inside it, and only then.
    with lock.exclusive(db_path), lock.exclusive(db_path):
        assert lock.holder(db_path) == os.getpid()
    with lock.exclusive(db_path):
        pass


def test_the_lock_held_by_one_thread_stops_another_of_the_same_process(db_path: Path) -> None:
    # Re-entrant only within the thread that holds it: a second thread (its own store, as an
    # API caller's worker would have) is refused at once, as another process would be.
    refused: list[BaseException] = []

    def other() -> None:
        try:
            with lock.exclusive(db_path):
                pass
        except Locked as exc:
            refused.append(exc)

    with lock.exclusive(db_path):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(refused) == 1
    with lock.exclusive(db_path):  # and once released, it can be taken again
        pass


def test_lock_is_released_when_the_holder_is_killed(
    run: Run, db_path: Path, holder: subprocess.Popen[str]
) -> None:
    assert run("consolidate").exit_code == 75
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    result = run("consolidate", "--json")
    assert result.exit_code == 0, result.output
    assert [r["status"] for r in runs(db_path)] == ["ok"]


def test_a_run_left_running_by_a_killed_process_is_marked_interrupted(
    store: Store, db_path: Path
) -> None:
    # What a SIGKILLed consolidation leaves behind: its row, still 'running'.
    store.conn.execute(
        "INSERT INTO runs (kind, started_at, status) VALUES ('consolidate', ?, 'running')",
        [ago(2)],
    )
    consolidate.consolidate(store, now=NOW)
    first, second = runs(db_path)
    assert first["status"] == "error"
    assert first["error"] == "interrupted: the process ended before the run finished"
    assert first["finished_at"] is not None
    assert second["status"] == "ok"


# -- the steps -----------------------------------------------------------------------------


def test_expired_entries_are_archived(store: Store, db_path: Path) -> None:
    gone = add(store, "明天下午三点开会", expires_at=ago(1))
    pending = add(store, "pending and expired", status="pending_review", expires_at=ago(0.001))
    future = add(store, "下个月的体检", expires_at=ago(-1))
    forever = add(store, "no expiry at all")
    other_user = add(store, "bob's expired note", user="bob", expires_at=ago(3))
    report = consolidate.consolidate(store, settings(steps=["expire"]), now=NOW)
    assert report.counts == {"expire": 3}
    status = {i: field(db_path, "status", i) for i in (gone, pending, future, forever, other_user)}
    assert status == {
        gone: "archived", pending: "archived", future: "active", forever: "active",
        other_user: "archived",
    }  # fmt: skip
    assert field(db_path, "updated_at", gone) == iso(NOW)
    again = consolidate.consolidate(store, settings(steps=["expire"]), now=NOW)
    assert again.counts == {"expire": 0}


def test_caps_archive_lowest_importance_times_recency_and_never_delete(
    store: Store, db_path: Path
) -> None:
    # importance / (1 + age_days / 30): A .871, B .082, C .194, D .375, E .086, F .200
    ids = {
        name: add(store, f"episode {name}", layer="episodic", importance=imp, ts=ago(age))
        for name, imp, age in [
            ("A", 0.9, 1), ("B", 0.9, 300), ("C", 0.2, 1), ("D", 0.5, 10), ("E", 0.1, 5),
            ("F", 0.6, 60),
        ]
    }  # fmt: skip
    # Old and unimportant by ts, but used yesterday: recency comes from last_used_at first.
    ids["G"] = add(
        store, "episode G", layer="episodic", importance=0.9, ts=ago(900), last_used_at=ago(1)
    )
    # Neither counts towards the cap: not active.
    pending = add(store, "episode pending", layer="episodic", status="pending_review")
    # Other layers and other users have their own caps.
    profile = add(store, "profile fact", layer="profile", importance=0.0, ts=ago(999))
    bob = [add(store, f"bob {i}", user="bob", layer="episodic", importance=0.1) for i in range(4)]
    before = len(entries(db_path))

    report = consolidate.consolidate(
        store, settings(steps=["caps"], caps={"episodic": 4, "profile": 1}), now=NOW
    )

    assert report.counts == {"caps": 3}
    archived = {k for k, i in ids.items() if field(db_path, "status", i) == "archived"}
    assert archived == {"B", "E", "C"}
    assert len(entries(db_path)) == before  # archived, not deleted
    assert field(db_path, "status", pending) == "pending_review"
    assert field(db_path, "status", profile) == "active"
    assert [field(db_path, "status", i) for i in bob] == ["active"] * 4
    again = consolidate.consolidate(
        store, settings(steps=["caps"], caps={"episodic": 4, "profile": 1}), now=NOW
    )
    assert again.counts == {"caps": 0}


def history(run: Run, entry_id: int) -> list[dict[str, Any]]:
    result = run("history", entry_id, "--json", "--user", "alice")
    assert result.exit_code == 0, result.output
    changes: list[dict[str, Any]] = orjson.loads(result.stdout)["changes"]
    return changes


def test_an_expired_entry_is_explained_by_history_and_undo_brings_it_back(
    run: Run, store: Store, db_path: Path
) -> None:
    expires = ago(1)
    gone = add(store, "明天下午三点开会", expires_at=expires)
    pending = add(store, "pending and expired", status="pending_review", expires_at=expires)
    consolidate.consolidate(store, settings(steps=["expire"]), now=NOW)

    (change,) = history(run, gone)
    assert {k: change[k] for k in ("at", "actor", "action", "before", "after", "note")} == {
        "at": iso(NOW), "actor": "memctl", "action": "expire", "before": {"status": "active"},
        "after": {"status": "archived"}, "note": f"expired on {expires}",
    }  # fmt: skip
    assert [c["before"] for c in history(run, pending)] == [{"status": "pending_review"}]
    text = run("history", gone, "--user", "alice").stdout
    assert f"expire status: 'active' → 'archived' expired on {expires}" in " ".join(text.split())

    assert run("review", "undo", change["id"], "--user", "alice").exit_code == 0
    assert field(db_path, "status", gone) == "active"
    assert history(run, gone)[-1]["after"] == {"status": "active"}
    # The person overruled this expiry: the next runs leave the entry be, until its
    # expires_at changes.
    again = consolidate.consolidate(store, settings(steps=["expire"]), now=NOW + timedelta(1))
    assert again.counts == {"expire": 0}
    assert field(db_path, "status", gone) == "active"
    with store.transaction():
        store.conn.execute("UPDATE entries SET expires_at = ? WHERE id = ?", [ago(0.5), gone])
    later = consolidate.consolidate(store, settings(steps=["expire"]), now=NOW + timedelta(1))
    assert later.counts == {"expire": 1}
    assert field(db_path, "status", gone) == "archived"


def test_an_evicted_entry_is_explained_by_history_and_undo_brings_it_back(
    run: Run, store: Store, db_path: Path
) -> None:
    kept = add(store, "episode kept", layer="episodic", importance=0.9, ts=ago(1))
    low = add(store, "episode low", layer="episodic", importance=0.1, ts=ago(1))
    consolidate.consolidate(store, settings(steps=["caps"], caps={"episodic": 1}), now=NOW)

    assert history(run, kept) == []
    (change,) = history(run, low)
    assert {k: change[k] for k in ("at", "actor", "action", "before", "after", "note")} == {
        "at": iso(NOW), "actor": "memctl", "action": "evict", "before": {"status": "active"},
        "after": {"status": "archived"}, "note": "over the cap of 1 for layer episodic",
    }  # fmt: skip
    assert run("review", "undo", change["id"], "--user", "alice").exit_code == 0
    assert field(db_path, "status", low) == "active"
    assert field(db_path, "status", kept) == "active"
    # The person chose to keep it: the cap still holds, and the next lowest goes instead.
    again = consolidate.consolidate(store, settings(steps=["caps"], caps={"episodic": 1}), now=NOW)
    assert again.counts == {"caps": 1}
    assert (field(db_path, "status", low), field(db_path, "status", kept)) == ("active", "archived")
    assert [c["action"] for c in history(run, kept)] == ["evict"]


def test_decay_is_not_a_logged_change(store: Store, db_path: Path) -> None:
    old = add(store, "old never used", created_at=ago(60), importance=0.5)
    consolidate.consolidate(store, settings(steps=["decay"]), now=NOW)
    assert field(db_path, "importance", old) == 0.475
    assert store.conn.execute("SELECT count(*) FROM changes").fetchone()[0] == 0


class CountingConnection:
    """A connection that counts the statements sent to SQLite (execute/executemany calls)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.calls = conn, 0

    def execute(self, *args: Any) -> sqlite3.Cursor:
        self.calls += 1
        return self.conn.execute(*args)

    def executemany(self, *args: Any) -> sqlite3.Cursor:
        self.calls += 1
        return self.conn.executemany(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def test_thousands_of_expired_entries_are_archived_and_logged_in_bulk(
    store: Store, db_path: Path
) -> None:
    rows = [
        {"content": f"reminder {i}", "norm_hash": f"h{i}", "expires_at": ago(1 + i % 7)}
        for i in range(5_000)
    ]
    with store.transaction():
        store.for_user("alice").add_entries(rows)
    counted = CountingConnection(store.conn)
    store.conn = counted  # type: ignore[assignment]
    report = consolidate.consolidate(store, settings(steps=["expire"]), now=NOW)
    store.conn = counted.conn
    assert report.counts == {"expire": 5_000}
    logged = store.conn.execute(
        "SELECT count(*), count(DISTINCT entry_id) FROM changes WHERE action = 'expire'"
    ).fetchone()
    assert tuple(logged) == (5_000, 5_000)
    # A few statements per 500 entries, not a round trip (or two) per entry.
    assert counted.calls < 60


def test_decay_applies_at_most_once_per_every_days(store: Store, db_path: Path) -> None:
    old = add(store, "从没用过的旧记忆", importance=0.5, created_at=ago(60))
    used = add(store, "used last week", importance=0.5, created_at=ago(60), last_used_at=ago(7))
    young = add(store, "才十天的记忆", importance=0.5, created_at=ago(10))
    floor = add(store, "nearly forgotten", importance=0.05, created_at=ago(60))
    archived = add(store, "archived", importance=0.5, created_at=ago(60), status="archived")
    only_decay = settings(steps=["decay"])

    first = consolidate.consolidate(store, only_decay, now=NOW)
    assert first.counts == {"decay": 2}
    assert field(db_path, "importance", old) == pytest.approx(0.475)
    assert field(db_path, "decayed_at", old) == iso(NOW)
    assert field(db_path, "importance", floor) == 0.05
    for untouched in (used, young, archived):
        assert field(db_path, "importance", untouched) == 0.5
        assert field(db_path, "decayed_at", untouched) is None

    snapshot = entries(db_path)
    second = consolidate.consolidate(store, only_decay, now=NOW)
    later_that_day = consolidate.consolidate(store, only_decay, now=NOW + timedelta(hours=23))
    assert second.counts == later_that_day.counts == {"decay": 0}
    assert entries(db_path) == snapshot

    next_day = consolidate.consolidate(store, only_decay, now=NOW + timedelta(days=1))
    assert next_day.counts == {"decay": 2}
    assert field(db_path, "importance", old) == pytest.approx(0.45125)


def test_decay_is_bounded_per_run(store: Store, db_path: Path) -> None:
    ids = [add(store, f"old {i}", created_at=ago(60)) for i in range(5)]
    bounded = settings(steps=["decay"], decay={"batch": 2})
    assert [consolidate.consolidate(store, bounded, now=NOW).counts["decay"] for _ in range(4)] == [
        2, 2, 1, 0,
    ]  # fmt: skip
    assert [field(db_path, "importance", i) for i in ids] == [pytest.approx(0.475)] * 5


def test_a_second_run_changes_nothing(store: Store, db_path: Path) -> None:
    add(store, "expired", expires_at=ago(1))
    add(store, "old", created_at=ago(90))
    for i in range(6):
        add(store, f"episode {i}", layer="episodic", importance=i / 10)
    capped = settings(caps={"episodic": 3})
    first = consolidate.consolidate(store, capped, now=NOW)
    assert first.counts == {
        "expire": 1,
        "dedupe": 0,
        "supersede": 0,
        "caps": 3,
        "decay": 1,
        "index": 8,
        "optimize": 0,
    }
    snapshot = entries(db_path)
    second = consolidate.consolidate(store, capped, now=NOW)
    assert second.counts == {
        "expire": 0,
        "dedupe": 0,
        "supersede": 0,
        "caps": 0,
        "decay": 0,
        "index": 0,
        "optimize": 0,
    }
    assert entries(db_path) == snapshot


# -- failures ------------------------------------------------------------------------------


def test_a_failing_step_is_recorded_and_leaves_the_database_as_before_it(
    run: Run, store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expired = add(store, "expired", expires_at=ago(1, datetime.now(UTC)))
    kept = add(store, "still here")
    seen: dict[str, Any] = {}

    def caps_then_boom(ctx: consolidate.RunContext) -> int:
        seen["before"] = ctx.store.conn.execute("SELECT * FROM entries ORDER BY id").fetchall()
        ctx.store.conn.execute("UPDATE entries SET status = 'archived', importance = 0")
        ctx.store.conn.execute("DELETE FROM dedupe_signatures WHERE entry_id = ?", [kept])
        ctx.store.conn.execute("DELETE FROM entries WHERE id = ?", [kept])
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(consolidate.STEPS, "caps", caps_then_boom)
    result = run("consolidate", "--json")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: step caps: disk on fire\n"
    [row] = runs(db_path)
    assert row["status"] == "error"
    assert row["error"] == "step caps: disk on fire"
    assert row["finished_at"] is not None
    # the steps that did finish
    assert orjson.loads(row["counts"]) == {"expire": 1, "dedupe": 0, "supersede": 0}
    # Exactly as before the failing step: the expire step's work stays, nothing of caps.
    assert [tuple(r) for r in seen["before"]] == entries(db_path)
    assert field(db_path, "status", expired) == "archived"
    assert field(db_path, "status", kept) == "active"
    # Later steps did not run.
    assert store.conn.execute("SELECT count(*) FROM entries_fts").fetchone()[0] == 0


def test_an_unexpected_error_in_a_step_outside_a_transaction_is_recorded(
    run: Run, store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(ctx: consolidate.RunContext) -> int:
        raise sqlite3.OperationalError("database disk image is malformed")

    monkeypatch.setitem(consolidate.STEPS, "optimize", broken)
    result = run("consolidate")
    assert result.exit_code == 1
    assert result.stderr == "Error: step optimize: database disk image is malformed\n"
    assert [(r["status"], r["error"]) for r in runs(db_path)] == [
        ("error", "step optimize: database disk image is malformed")
    ]


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (ValueError("bad value\n  on line 2\n"), "step decay: bad value on line 2"),
        (KeyError(), "step decay: KeyError"),
    ],
)
def test_the_error_is_one_line(
    run: Run, store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch,
    exc: Exception, message: str,
) -> None:  # fmt: skip
    def broken(ctx: consolidate.RunContext) -> int:
        raise exc

    monkeypatch.setitem(consolidate.STEPS, "decay", broken)
    result = run("consolidate")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"
    assert runs(db_path)[0]["error"] == message


# -- dry run, JSON, the run log ------------------------------------------------------------


def test_dry_run_leaves_the_database_file_byte_identical(
    run: Run, store: Store, db_path: Path
) -> None:
    add(store, "expired", expires_at=ago(1, datetime.now(UTC)))
    add(store, "never used", created_at=ago(400, datetime.now(UTC)))
    consolidate.consolidate(store)  # a real run first, so the dry run has a log to extend
    add(store, "expired too", expires_at=ago(1, datetime.now(UTC)))
    store.close()
    before = db_path.read_bytes()
    files = sorted(db_path.parent.iterdir())

    result = run("consolidate", "--dry-run", "--json")

    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert report["dry_run"] is True and report["status"] == "ok"
    assert report["counts"]["expire"] == 1 and report["counts"]["index"] == 1
    assert db_path.read_bytes() == before
    assert sorted(db_path.parent.iterdir()) == files  # no -wal or -shm left beside it either
    assert len(runs(db_path)) == 1


def test_json_report_shape(run: Run, store: Store, db_path: Path) -> None:
    add(store, "expired", expires_at=ago(1, datetime.now(UTC)))
    result = run("consolidate", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    report = orjson.loads(result.stdout)
    assert set(report) == {"run_id", "status", "dry_run", "counts", "error", "seconds"}
    assert report["run_id"] == 1 and report["status"] == "ok" and report["error"] is None
    assert report["dry_run"] is False
    assert report["counts"] == {
        "expire": 1,
        "dedupe": 0,
        "supersede": 0,
        "caps": 0,
        "decay": 0,
        "index": 1,
        "optimize": 0,
    }
    assert isinstance(report["seconds"], float) and report["seconds"] >= 0


def test_human_summary_goes_to_stderr(run: Run, store: Store) -> None:
    result = run("consolidate")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.startswith(
        "Consolidated (run #1, ok): expire 0, dedupe 0, supersede 0, caps 0, decay 0, "
    )


def test_runs_table_rows(run: Run, store: Store, db_path: Path) -> None:
    add(store, "expired", expires_at=ago(1, datetime.now(UTC)))
    last = add(store, "another")
    assert run("consolidate").exit_code == 0
    assert run("consolidate").exit_code == 0
    first, second = runs(db_path)
    for row in (first, second):
        assert row["kind"] == "consolidate" and row["status"] == "ok" and row["dry_run"] == 0
        assert row["error"] is None
        assert row["started_at"] <= row["finished_at"]
        started = datetime.fromisoformat(row["started_at"].replace("Z", "+00:00"))
        assert abs(datetime.now(UTC) - started) < timedelta(minutes=5)
        assert row["upto_entry_id"] == last
    assert orjson.loads(first["counts"]) == {
        "expire": 1, "dedupe": 0, "supersede": 0, "caps": 0, "decay": 0, "index": 2,
        "optimize": 0,
    }  # fmt: skip
    assert orjson.loads(second["counts"]) == {
        "expire": 0, "dedupe": 0, "supersede": 0, "caps": 0, "decay": 0, "index": 0,
        "optimize": 0,
    }  # fmt: skip


def test_the_wal_is_checkpointed(run: Run, store: Store, db_path: Path) -> None:
    for i in range(50):
        add(store, f"entry {i} " + "x" * 500)
    wal = Path(f"{db_path}-wal")
    assert wal.stat().st_size > 0  # the open store keeps the WAL from being checkpointed away
    assert run("consolidate").exit_code == 0
    assert wal.stat().st_size == 0


# -- downtime --------------------------------------------------------------------------------


def test_a_run_after_downtime_does_the_work_once(store: Store, db_path: Path) -> None:
    expiring = [add(store, f"reminder {d}", expires_at=ago(-d)) for d in (1, 30, 200)]
    unused = add(store, "never used", importance=0.5, created_at=ago(40))
    consolidate.consolidate(store, now=NOW)
    assert field(db_path, "importance", unused) == pytest.approx(0.475)

    # The machine was off for a year: one run catches up with one pass, not 365 of them.
    back = NOW + timedelta(days=365)
    report = consolidate.consolidate(store, now=back)
    assert report.counts["expire"] == 3
    assert report.counts["decay"] == 1
    assert field(db_path, "importance", unused) == pytest.approx(0.475 * 0.95)
    assert {field(db_path, "status", i) for i in expiring} == {"archived"}
    snapshot = entries(db_path)
    again = consolidate.consolidate(store, now=back)
    assert again.counts == {
        "expire": 0,
        "dedupe": 0,
        "supersede": 0,
        "caps": 0,
        "decay": 0,
        "index": 0,
        "optimize": 0,
    }
    assert entries(db_path) == snapshot
    assert [r["status"] for r in runs(db_path)] == ["ok", "ok", "ok"]


def test_settings_reject_unknown_steps_and_layers() -> None:
    with pytest.raises(ConfigError, match="unknown step 'dreaming'"):
        settings(steps=["expire", "dreaming"])
    with pytest.raises(ConfigError, match=r"caps\.dreams: not a layer"):
        settings(caps={"dreams": 3})


def test_lock_file_is_beside_the_database(run: Run, db_path: Path) -> None:
    assert run("consolidate").exit_code == 0
    assert Path(f"{db_path}.lock").read_text() == f"{os.getpid()}\n"
