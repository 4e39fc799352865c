"""`memctl status`: counts for one user, runs, size, and warnings for failed, stale or no runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from helpers import add

from memctl import consolidate
from memctl.store import Store

NEVER = "consolidation has never completed on this database"


def status_json(run: Run, *args: str) -> dict[str, Any]:
    result = run("status", "--user", "alice", "--json", *args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    info: dict[str, Any] = orjson.loads(result.stdout)
    return info


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def add_run(store: Store, status: str, finished: datetime | None, error: str | None = None) -> None:
    store.conn.execute(
        "INSERT INTO runs (kind, started_at, finished_at, status, counts, error) "
        "VALUES ('consolidate', ?, ?, ?, '{}', ?)",
        [iso((finished or datetime.now(UTC)) - timedelta(seconds=1)),
         iso(finished) if finished else None, status, error],
    )  # fmt: skip


@pytest.fixture
def populated(store: Store) -> Store:
    """alice: 7 entries over every status and several layers/realms; bob: 3 more."""
    for content, fields in [
        ("喜欢拿铁", {"layer": "profile", "realm": "real"}),
        ("Alice's birthday is 3 May", {"layer": "profile", "realm": "real", "audience": "private"}),
        ("上周去了杭州", {"layer": "episodic", "realm": "real"}),
        ("deploy: run make release", {"layer": "procedural", "realm": "work"}),
        ("剧情：她是精灵公主", {"layer": "persona", "realm": "fictional",
                                "status": "pending_review"}),
        ("old address", {"layer": "profile", "status": "superseded"}),
        ("expired reminder", {"layer": "episodic", "status": "archived"}),
    ]:  # fmt: skip
        add(store, content, **fields)
    for i in range(3):
        add(store, f"bob {i}", user="bob", layer="boundary", status="pending_review")
    return store


def test_counts_are_for_the_given_user_only(run: Run, populated: Store, db_path: Path) -> None:
    info = status_json(run)
    assert info["user"] == "alice"
    assert info["database"] == str(db_path)
    assert info["entries"] == 7
    assert info["by_status"] == {"active": 4, "archived": 1, "pending_review": 1, "superseded": 1}
    assert info["by_layer"] == {"episodic": 2, "persona": 1, "procedural": 1, "profile": 3}
    assert info["by_realm"] == {"fictional": 1, "real": 3, "unknown": 2, "work": 1}
    assert info["by_audience"] == {"private": 1, "public": 6}
    assert info["pending_review"] == 1
    bob = orjson.loads(run("status", "--user", "bob", "--json").stdout)
    assert (bob["entries"], bob["pending_review"], bob["by_layer"]) == (3, 3, {"boundary": 3})


def test_json_shape(run: Run, populated: Store) -> None:
    info = status_json(run)
    assert set(info) == {
        "user", "database", "size_bytes", "entries", "by_status", "by_layer", "by_realm",
        "by_audience", "pending_review", "runs", "imports", "warnings",
    }  # fmt: skip


def test_size_is_the_database_and_its_wal(run: Run, populated: Store, db_path: Path) -> None:
    info = status_json(run)
    files = [db_path, Path(f"{db_path}-wal")]
    assert info["size_bytes"] == sum(p.stat().st_size for p in files if p.exists())
    assert info["size_bytes"] > 0


def test_never_run_warns(run: Run, populated: Store) -> None:
    info = status_json(run)
    assert info["runs"] == []
    assert info["warnings"] == [NEVER]


def test_after_a_good_run_no_warning_and_the_run_is_listed(run: Run, populated: Store) -> None:
    assert run("consolidate").exit_code == 0
    info = status_json(run)
    assert info["warnings"] == []
    [last] = info["runs"]
    assert (last["id"], last["kind"], last["status"], last["error"]) == (
        1, "consolidate", "ok", None,
    )  # fmt: skip
    assert last["counts"] == {
        "expire": 0,
        "dedupe": 0,
        "supersede": 0,
        "caps": 0,
        "decay": 0,
        "index": 10,
        "optimize": 0,
    }
    assert last["started_at"] <= last["finished_at"]


def test_last_run_failed_warns(run: Run, populated: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("consolidate").exit_code == 0

    def boom(ctx: consolidate.RunContext) -> int:
        raise RuntimeError("no space left on device")

    monkeypatch.setitem(consolidate.STEPS, "decay", boom)
    assert run("consolidate").exit_code == 1
    info = status_json(run)
    assert [r["status"] for r in info["runs"]] == ["error", "ok"]
    assert info["warnings"] == ["last run #2 failed: step decay: no space left on device"]
    human = run("status", "--user", "alice")
    assert "warning: last run #2 failed: step decay: no space left on device" in human.stderr
    assert "warning" not in human.stdout


def test_stale_last_success_warns(run: Run, populated: Store) -> None:
    stale_hours = consolidate.load_settings().stale_hours
    old = datetime.now(UTC) - timedelta(hours=stale_hours + 1)
    add_run(populated, "ok", old)
    info = status_json(run)
    assert info["warnings"] == [f"last successful consolidation is stale ({iso(old)})"]


def test_recent_success_is_not_stale(run: Run, populated: Store) -> None:
    stale_hours = consolidate.load_settings().stale_hours
    add_run(populated, "ok", datetime.now(UTC) - timedelta(hours=stale_hours - 1))
    assert status_json(run)["warnings"] == []


def test_a_failure_and_never_a_success_warns_twice(run: Run, populated: Store) -> None:
    add_run(populated, "error", datetime.now(UTC), "step caps: boom")
    assert status_json(run)["warnings"] == ["last run #1 failed: step caps: boom", NEVER]


def test_a_run_whose_process_died_warns(run: Run, populated: Store, db_path: Path) -> None:
    add_run(populated, "ok", datetime.now(UTC))
    add_run(populated, "running", None)
    # The lock file names a process that no longer exists.
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    Path(f"{db_path}.lock").write_text(child.stdout)
    assert status_json(run)["warnings"] == [
        "run #2 did not finish: its process is gone (the next run marks it failed)"
    ]


def test_a_run_in_progress_does_not_warn(run: Run, populated: Store, db_path: Path) -> None:
    add_run(populated, "ok", datetime.now(UTC))
    add_run(populated, "running", None)
    holder = textwrap.dedent(
        """
        import sys, time
        from pathlib import Path
        from memctl.lock import exclusive
        with exclusive(Path(sys.argv[1])):
            print("held", flush=True)
            time.sleep(120)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        info = status_json(run)
        assert info["warnings"] == []
        assert info["runs"][0]["status"] == "running"
    finally:
        proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_human_output(run: Run, populated: Store, db_path: Path) -> None:
    assert run("consolidate").exit_code == 0
    result = run("status", "--user", "alice")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    size = db_path.stat().st_size + (
        Path(f"{db_path}-wal").stat().st_size if Path(f"{db_path}-wal").exists() else 0
    )
    assert lines[0] == f"{db_path} {size:,} bytes"
    assert lines[1] == "user alice: 7 entries, 1 pending review"
    assert lines[2] == "  status: active 4, archived 1, pending_review 1, superseded 1"
    assert lines[3] == "  layer: episodic 2, persona 1, procedural 1, profile 3"
    assert "expire 0, dedupe 0, supersede 0, caps 0, decay 0, index 10, optimize 0" in result.stdout
    assert result.stderr == ""


def test_a_live_lock_holder_without_a_running_run_does_not_warn(
    run: Run, populated: Store, db_path: Path
) -> None:
    add_run(populated, "ok", datetime.now(UTC))
    Path(f"{db_path}.lock").write_text(f"{os.getpid()}\n")
    assert status_json(run)["warnings"] == []


def test_human_output_lists_the_imports(run: Run, tmp_path: Path) -> None:
    # A user who has only imported must see that import, not an empty table of runs.
    note = tmp_path / "MEMORY.md"
    note.write_text("- 用户喜欢拿铁\n- deploy: run make release\n", encoding="utf-8")
    assert run("import", str(note), "--user", "alice").exit_code == 0
    result = run("status", "--user", "alice")
    assert result.exit_code == 0, result.output
    assert "recent imports" in result.stdout
    row = next(line for line in result.stdout.splitlines() if "│ 1 " in line)
    assert "1 files" in row and "2 records" in row and "2 added" in row
    assert "recent runs" not in result.stdout  # no consolidation yet: the warning says so
    assert NEVER in result.stderr
