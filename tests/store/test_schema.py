"""Upgrading: a database made at each earlier schema version, holding rows, opened by today's Store.

Each old database is built by the numbered migrations themselves (memctl.store.schema), stopped
at version k, and given a row or two in every table it has. Opening it with the current Store
must keep every row with every value it had, fill what later migrations derive (the active
full-text index from the full one), and end with exactly the schema a new database gets.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from memctl.store import Store, schema
from memctl.store.schema import MIGRATIONS, current_version

LATEST = max(number for number, _name, _fn in MIGRATIONS)
T0 = "2025-01-02T03:04:05.000Z"

# Representative rows, with every column today's schema has; an old database gets the columns
# it has. Two entries (one active, one archived and merged into the first), each table's
# references pointing at them.
ROWS: dict[str, list[dict[str, Any]]] = {
    "entries": [
        {"id": 1, "user_id": "alice", "content": "我住在北京", "norm_hash": "s1:aa",
         "realm": "real", "layer": "profile", "status": "active", "audience": "private",
         "importance": 0.8, "emotional_weight": 0.1, "expires_at": None, "confidence": 0.9,
         "ts": "2025-01-01", "created_at": T0, "updated_at": T0, "last_used_at": T0,
         "merged_into": None, "decayed_at": T0, "review_reasons": None,
         "fact_key": "user|lives_in", "fact_value": "北京", "fact_certain": 1},
        {"id": 2, "user_id": "alice", "content": "我住在 北京", "norm_hash": "s1:bb",
         "realm": "real", "layer": "episodic", "status": "archived", "audience": "public",
         "importance": 0.3, "emotional_weight": 0.0, "expires_at": "2025-02-01T00:00:00.000Z",
         "confidence": 0.5, "ts": None, "created_at": T0, "updated_at": T0,
         "last_used_at": None, "merged_into": 1, "decayed_at": None,
         "review_reasons": '["conflict"]', "fact_key": None, "fact_value": None,
         "fact_certain": None},
    ],
    "import_runs": [
        {"id": 1, "user_id": "alice", "started_at": T0, "finished_at": T0, "files": 1,
         "records": 3, "added": 2, "skipped": 0, "rejected": 1},
    ],
    "sources": [
        {"id": 1, "entry_id": 1, "user_id": "alice", "path": "/m/MEMORY.md", "line": 3,
         "format": "markdown", "session_id": None, "message_id": None, "role": None,
         "ts": "2025-01-01", "section": "About me", "raw_hash": "r1:cc", "run_id": 1,
         "merge_layer": "new", "merge_score": None, "created_at": T0, "category": None,
         "layer_hint": None, "header": None},
        {"id": 2, "entry_id": 1, "user_id": "alice", "path": "/m/s.jsonl", "line": 7,
         "format": "jsonl", "session_id": "s-1", "message_id": "m-7", "role": "user",
         "ts": T0, "section": None, "raw_hash": "r1:dd", "run_id": 1,
         "merge_layer": "jaccard", "merge_score": 0.8, "created_at": T0, "category": "remember",
         "layer_hint": "open_task", "header": "Name | Role"},
    ],
    "rejections": [
        {"id": 1, "run_id": 1, "user_id": "alice", "path": "/m/s.jsonl", "line": 9,
         "reason": "invalid JSON"},
    ],
    "supersedes": [
        {"id": 1, "user_id": "alice", "new_id": 1, "old_id": 2, "reason": "lives_in",
         "created_at": T0},
    ],
    "relationship_state": [
        {"user_id": "alice", "key": "address_as", "value": "老板", "updated_at": T0},
    ],
    "personas": [
        {"id": 1, "user_id": "alice", "name": "小满", "content": "说话直接", "created_at": T0,
         "updated_at": T0},
    ],
    "runs": [
        {"id": 1, "kind": "consolidate", "started_at": T0, "finished_at": T0, "status": "ok",
         "dry_run": 0, "counts": '{"expire": 1}', "error": None, "upto_entry_id": 2},
    ],
    "changes": [
        {"id": 1, "user_id": "alice", "entry_id": 2, "at": T0, "actor": "ed",
         "action": "merge:jaccard", "before": '{"status": "active"}',
         "after": '{"status": "archived", "merged_into": 1}', "note": "near duplicate"},
    ],
    "dedupe_signatures": [
        {"entry_id": 1, "user_id": "alice", "signature": b"\x00\x01sig"},
    ],
    "home_lines": [
        {"entry_id": 1, "user_id": "alice", "home": "/m", "path": "/m/USER.md", "realm": "real",
         "cued": 1, "layer": "profile", "audience": "private", "fact": 1, "by_section": 0,
         "kin": "Brenna", "says": 1, "settled": 1},
    ],
}  # fmt: skip


def build_old(path: Path, version: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, list]:
    """A database at `version`, by the real migrations, holding ROWS (the columns it has).
    Returns what was inserted, per table: the rows to find again after the upgrade."""
    db = sqlite_utils.Database(sqlite3.connect(path, isolation_level=None))
    with monkeypatch.context() as patch:
        patch.setattr(schema, "MIGRATIONS", [m for m in MIGRATIONS if m[0] <= version])
        schema.migrate(db)
    assert current_version(db) == version
    inserted: dict[str, list] = {}
    for table, rows in ROWS.items():
        if table not in db.table_names():
            continue
        columns = [c.name for c in db[table].columns]
        kept = [{c: row[c] for c in columns} for row in rows]
        db.conn.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            [tuple(r.values()) for r in kept],
        )
        inserted[table] = kept
    if "entries_fts" in db.table_names():
        db.execute("INSERT INTO entries_fts (rowid, body) VALUES (1, '我 住在 北京')")
        db.execute("INSERT INTO entries_fts (rowid, body) VALUES (2, '我 住在 北京')")
    if "entries_fts_active" in db.table_names():  # the index sync fills both, active only
        db.execute("INSERT INTO entries_fts_active (rowid, body) VALUES (1, '我 住在 北京')")
    db.conn.close()
    return inserted


def schema_of(path: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        master = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
        return [*master, ("schema_version", *version)]
    finally:
        conn.close()


def rows_of(path: Path, table: str, columns: list[str]) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(f"SELECT {', '.join(columns)} FROM {table}")]
    finally:
        conn.close()


def test_every_table_with_rows_is_covered() -> None:
    """A table a new migration adds needs representative rows here, or upgrading it is untested."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    Store(conn, ":memory:")
    plain = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' "
        "AND name NOT LIKE 'entries_fts%'"
    )}  # fmt: skip
    conn.close()
    assert plain - {"meta"} == set(ROWS)


@pytest.mark.parametrize("version", range(1, LATEST))
def test_an_old_database_with_rows_upgrades_to_the_current_schema(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / f"v{version}.db"
    inserted = build_old(old, version, monkeypatch)
    assert inserted["entries"] and inserted["sources"]

    store = Store.open(old)
    alice = store.for_user("alice")
    assert alice.entry(1)["content"] == "我住在北京"
    store.close()

    for table, rows in inserted.items():
        assert rows_of(old, table, list(rows[0])) == rows, table
    new = tmp_path / "new.db"
    Store.open(new).close()
    assert schema_of(old) == schema_of(new)
    assert rows_of(old, "meta", ["value"]) == [{"value": str(LATEST)}]
    if version >= 2:
        # The active-only index (migration 3) holds the indexed entries that are active, and
        # its triggers follow status changes made after the upgrade.
        assert rows_of(old, "entries_fts_active", ["rowid"]) == [{"rowid": 1}]
        store = Store.open(old)
        with store.transaction():
            store.conn.execute("UPDATE entries SET status = 'active' WHERE id = 2")
            store.conn.execute("UPDATE entries SET status = 'archived' WHERE id = 1")
        store.close()
        assert rows_of(old, "entries_fts_active", ["rowid"]) == [{"rowid": 2}]


def test_an_upgraded_database_takes_new_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only readable: the upgraded store is written to as a new one is."""
    old = tmp_path / "v1.db"
    build_old(old, 1, monkeypatch)
    store = Store.open(old)
    row = {"content": "新的记忆", "norm_hash": "s1:ee", "fact_key": "user|likes|茶"}
    with store.transaction():
        ids = store.for_user("alice").add_entries([row])
    assert ids == {"s1:ee": 3}
    assert store.for_user("alice").entry(3)["fact_key"] == "user|likes|茶"
    store.close()
