"""The same files give the same store in every process: str hashes are salted per process
(PYTHONHASHSEED), so a decision that follows a set's order, or a hash's value, of strings
would change from run to run. Two processes with two seeds import gold homes of several shapes
and languages (English, Chinese, mixed; near copies, daily notes) and must agree on every
entry and every source; with the parallel paths forced too (chunks of 2 on two processes,
returned in whichever order timing gives)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOMES = ROOT / "tests" / "quality" / "homes"
SPLIT = ROOT / "tests" / "quality" / "split.json"
# Homes of different shapes: a Codex AGENTS.md with a near copy (a names-key borderline), an
# English OpenClaw workspace, two Chinese ones (OpenClaw, nanobot MEMORY.md + HISTORY.md).
SHAPES = ("codex-ngo-6", "openclaw-paralegal-3", "openclaw-caregiver-6", "nanobot-familyshop-9")

_DUMP = """
import json, sqlite3, sys
from pathlib import Path
import memctl.importer.accept as accepting
import memctl.parallel as parallel
from memctl.importer import import_paths
from memctl.store import Store
db, forced, paths = Path(sys.argv[1]), sys.argv[2] == "1", [Path(p) for p in sys.argv[3:]]
if forced:
    accepting.PARALLEL_MIN, parallel.CHUNK = 2, 2
store = Store.open(db)
try:
    import_paths(store.for_user("u"), paths)
finally:
    store.conn.close()
conn = sqlite3.connect(db)
text = dict(conn.execute("SELECT id, content FROM entries"))
entries = sorted(
    [c, s, text.get(m), l, r, a, e]
    for c, s, m, l, r, a, e in conn.execute(
        "SELECT content, status, merged_into, layer, realm, audience, expires_at FROM entries"
    )
)
sources = sorted(conn.execute(
    "SELECT s.path, s.line, e.content, s.merge_layer, s.merge_score "
    "FROM sources s JOIN entries e ON e.id = s.entry_id"
).fetchall())
print(json.dumps({"entries": entries, "sources": sources}))
"""


def _files(home: str) -> list[str]:
    """The home's files of the tune halves (a held-out file is read by its scorer only)."""
    split = json.loads(SPLIT.read_text(encoding="utf-8"))["files"]
    return sorted(
        str(HOMES / key.removeprefix("homes:"))
        for key, half in split.items()
        if key.startswith(f"homes:{home}/") and half.startswith("dev")
    )


def _store(tmp_path: Path, name: str, seed: int, files: list[str], forced: bool) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run(
        [sys.executable, "-c", _DUMP, str(tmp_path / f"{name}.db"), "1" if forced else "0",
         *files],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("home", SHAPES)
def test_two_hash_seeds_give_one_store(tmp_path: Path, home: str) -> None:
    files = _files(home)
    assert files
    first = _store(tmp_path, "a", 1, files, forced=False)
    assert first["entries"]
    assert _store(tmp_path, "b", 2, files, forced=False) == first
    assert _store(tmp_path, "c", 3, files, forced=True) == first
