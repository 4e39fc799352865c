"""Crash safety of `memctl consolidate` and `memctl dedupe`: SIGKILL them mid-run, then check.

The database holds a restored backup (a memctl export, which import takes as it is): near
duplicates nobody has merged yet, entries past their expiry, layers over their caps, entries old
enough to decay, and nothing in the full-text index, so every consolidation step has work to do.

Each kill, through the COMMIT hook of helpers (as the n-th COMMIT starts, or a moment
after it started, while SQLite writes it), is followed by: `PRAGMA integrity_check` ok, no
dangling reference, the lock free again, and a re-run that reaches exactly the state of one
uninterrupted run. A consolidation killed mid-run is on record as interrupted once the next
run starts; before that, `memctl status` warns that its process is gone.
"""

from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from corpus import EN_WORDS, ZH_WORDS
from helpers import db_state, integrity, start_memctl, state_diff

from memctl import consolidate, lock, merge, segment
from memctl.importer import import_paths
from memctl.store import Store

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="needs flock and SIGKILL"),
]

# When the n-th COMMIT of a run starts is a different moment from one run to the next: a
# consolidation that was killed leaves decay's own time behind, not the clean run's.
RUN_TIMES = frozenset({"decayed_at"})
GROUPS = 400  # near-duplicate pairs in the backup: 800 entries, one full-text index batch


def backup(groups: int) -> bytes:
    """A memctl export with near-duplicate pairs and entries for every consolidation step."""
    rng = random.Random(5)
    memories: list[dict[str, Any]] = []
    for g in range(groups):
        if g % 2:
            words = " ".join(rng.sample(EN_WORDS, 5))
            pair = (f"Things to keep: {words}", f"Things to keep safe: {words}")
        else:
            words = "".join(rng.sample(ZH_WORDS, 8))
            pair = (f"记得收好{words}", f"记得要收好{words}")
        fields: dict[str, Any] = {
            "status": "active",
            "realm": "real",
            "audience": "public",
            "layer": ("episodic", "persona", "procedural")[g % 3],  # persona is capped at 50
            "importance": round(rng.random(), 3),
        }
        if g % 4:
            fields["created_at"] = "2020-01-01T00:00:00.000Z"  # old enough to decay
        if g % 7 == 0:
            fields["expires_at"] = "2021-01-01T00:00:00.000Z"
        for text in pair:
            memories.append({"id": len(memories) + 1, "content": text, **fields})
    return orjson.dumps({"version": 1, "exportedAt": 0, "user": "u", "memories": memories})


@dataclass
class Base:
    db: Path
    state: dict[str, Any]
    consolidated: dict[str, Any]  # after one uninterrupted consolidation
    commits: int  # COMMITs of that consolidation
    deduped: dict[str, Any]  # after one uninterrupted `memctl dedupe`


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    root = tmp_path_factory.mktemp("crash-upkeep")
    doc = root / "backup.json"
    doc.write_bytes(backup(GROUPS))
    db = root / "base.db"
    store = Store.open(db)
    try:
        report = import_paths(store.for_user("u"), [doc])
    finally:
        store.close()
    assert report.added == 2 * GROUPS
    state = db_state(db)

    # The first process to segment text writes jieba's dictionary cache, one COMMIT more than
    # every later run: written now, so the count below is every run's.
    segment.words("预热")
    clean, tally = root / "consolidated.db", root / "commits"
    shutil.copyfile(db, clean)
    proc = start_memctl("consolidate", "--db", clean, "--json", cwd=root, tally=tally)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    counts = orjson.loads(out)["counts"]
    # Every step has work: this is what a kill can interrupt.
    assert all(counts[step] > 50 for step in ("expire", "dedupe", "caps", "decay", "index"))

    deduped = root / "deduped.db"
    shutil.copyfile(db, deduped)
    assert _dedupe_in_process(deduped)["merged"] > 300
    return Base(
        db, state, db_state(clean, drop=RUN_TIMES), int(tally.read_text()), db_state(deduped)
    )


def _copy(base: Base, tmp_path: Path, name: str) -> Path:
    db = tmp_path / name
    shutil.copyfile(base.db, db)
    return db


def _consolidate(db: Path, **hook: Any) -> Any:
    return start_memctl("consolidate", "--db", db, "--json", cwd=db.parent, **hook)


def _dedupe(db: Path, **hook: Any) -> Any:
    return start_memctl("dedupe", "--db", db, "--user", "u", "--json", cwd=db.parent, **hook)


def _dedupe_in_process(db: Path) -> dict[str, Any]:
    store = Store.open(db)
    try:
        return merge.dedupe_user(store.for_user("u"))
    finally:
        store.close()


def _sound(db: Path, base: Base) -> None:
    """Intact, nothing dangling, and no entry lost (upkeep archives; it never deletes)."""
    assert integrity(db) == ("ok", [])
    assert db_state(db)["counts"]["entries"] == base.state["counts"]["entries"]
    assert db_state(db)["counts"]["sources"] == base.state["counts"]["sources"]


def _runs(db: Path) -> list[tuple[str, str | None]]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(r) for r in conn.execute("SELECT status, error FROM runs ORDER BY id")]
    finally:
        conn.close()


def _rerun_in_process(db: Path) -> consolidate.RunReport:
    """What the next `memctl consolidate` does, without a process start per kill point."""
    with lock.exclusive(db):  # raises Locked were the killed run's lock still held
        store = Store.open(db)
        try:
            return consolidate.consolidate(store)
        finally:
            store.close()


# -- consolidate -----------------------------------------------------------------------------


def test_consolidate_killed_at_each_commit_then_rerun(base: Base, tmp_path: Path, run: Run) -> None:
    assert base.commits >= 8  # the run's row, each step, the index batch, the run's end
    for at in range(1, base.commits + 1):
        db = _copy(base, tmp_path, f"killed-{at}.db")
        proc = _consolidate(db, kill_at_commit=at)
        proc.communicate(timeout=120)
        assert proc.returncode == -signal.SIGKILL, f"consolidate finished before COMMIT {at}"
        _sound(db, base)
        left = _runs(db)
        # Its row is written by the first COMMIT, and marked done by the last.
        assert left == ([] if at == 1 else [("running", None)]), at
        if left:
            status = orjson.loads(run("status", "--db", db, "--user", "u", "--json").stdout)
            gone = "run #1 did not finish: its process is gone (the next run marks it failed)"
            assert gone in status["warnings"]
        report = _rerun_in_process(db)
        assert report.status == "ok"
        again = db_state(db, drop=RUN_TIMES)
        assert again == base.consolidated, f"after a kill at COMMIT {at}:\n" + state_diff(
            again, base.consolidated
        )
        interrupted = [("error", consolidate.INTERRUPTED)] if left else []
        assert _runs(db) == [*interrupted, ("ok", None)]


@pytest.mark.parametrize(
    ("at", "delay"),
    [(3, 0.0005), (3, 0.005), (-1, 0.0005), (-1, 0.02)],  # 3: the dedupe step's, -1: the last
    ids=["mid-run-writing", "mid-run-after", "run-end-writing", "checkpoint"],
)
def test_consolidate_killed_while_writing_then_cli_rerun(
    base: Base, tmp_path: Path, at: int, delay: float
) -> None:
    """Killed as SQLite writes a COMMIT (or just after, in the next step or the checkpoint);
    then the real command: the lock is free, it exits 0, and the store is as a clean run's."""
    db = _copy(base, tmp_path, "killed.db")
    at = base.commits if at == -1 else at
    proc = _consolidate(db, kill_at_commit=at, kill_delay=delay)
    proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the timer fired; nothing was interrupted")
    assert proc.returncode == -signal.SIGKILL
    _sound(db, base)
    assert _runs(db)[0][0] in ("running", "ok")

    again = _consolidate(db)
    out, err = again.communicate(timeout=120)
    assert (again.returncode, err) == (0, b""), err.decode()
    assert orjson.loads(out)["status"] == "ok"
    state = db_state(db, drop=RUN_TIMES)
    assert state == base.consolidated, state_diff(state, base.consolidated)
    runs = _runs(db)
    assert runs[-1] == ("ok", None)
    assert all(r in (("ok", None), ("error", consolidate.INTERRUPTED)) for r in runs)
    assert len(runs) == 2


# -- dedupe ----------------------------------------------------------------------------------


@pytest.mark.parametrize("delay", [0.0, 0.0005, 0.002], ids=["commit-starts", "writing", "late"])
def test_dedupe_killed_mid_run_is_all_or_nothing_and_reruns_clean(
    base: Base, tmp_path: Path, delay: float
) -> None:
    db = _copy(base, tmp_path, "killed.db")
    proc = _dedupe(db, kill_at_commit=1, kill_delay=delay)
    proc.communicate(timeout=120)
    if delay == 0.0:
        assert proc.returncode == -signal.SIGKILL
    elif proc.returncode == 0:
        pytest.skip("dedupe finished before the timer fired; nothing was interrupted")
    assert proc.returncode == -signal.SIGKILL
    _sound(db, base)
    # One transaction: either none of the merges is in, or all of them.
    partial = db_state(db)
    assert partial in (base.state, base.deduped), state_diff(partial, base.state)
    if delay == 0.0:
        assert partial == base.state

    merged = _dedupe_in_process(db)["merged"]
    assert merged == 0 if partial == base.deduped else merged > 300
    again = db_state(db)
    assert again == base.deduped, state_diff(again, base.deduped)

    if delay == 0.0:  # nothing holds a lock or a write transaction: consolidate exits 0
        done = _consolidate(db)
        out, err = done.communicate(timeout=120)
        assert (done.returncode, err) == (0, b""), err.decode()
        assert integrity(db) == ("ok", [])


def test_dedupe_rerun_after_an_uninterrupted_run_finds_nothing(base: Base, tmp_path: Path) -> None:
    """The control for the test above: the clean state is a fixed point, so a re-run that
    reaches it proves the kill lost and doubled nothing."""
    db = _copy(base, tmp_path, "twice.db")
    assert _dedupe_in_process(db)["merged"] > 300
    assert _dedupe_in_process(db)["merged"] == 0
    assert db_state(db) == base.deduped
