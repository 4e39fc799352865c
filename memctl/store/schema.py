"""The schema, as an ordered list of numbered migrations applied on every open.

Each migration runs once, in order, inside a transaction; `meta.schema_version` records the last
one applied. Never edit a released migration: append a new one.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]
MIGRATIONS: list[tuple[int, str, Migration]] = []


def migration(number: int, name: str) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((number, name, fn))
        return fn

    return register


@migration(1, "initial")
def m001_initial(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        CREATE TABLE IF NOT EXISTS meta (
            key TEXT PRIMARY KEY,
            value TEXT
        );
        CREATE TABLE entries (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            content TEXT NOT NULL,
            norm_hash TEXT NOT NULL,
            realm TEXT NOT NULL DEFAULT 'unknown'
                CHECK (realm IN ('real', 'fictional', 'work', 'unknown')),
            layer TEXT NOT NULL DEFAULT 'profile'
                CHECK (layer IN ('persona', 'profile', 'relationship', 'episodic',
                                 'procedural', 'boundary')),
            status TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'pending_review', 'superseded', 'archived')),
            audience TEXT NOT NULL DEFAULT 'public' CHECK (audience IN ('public', 'private')),
            importance REAL NOT NULL DEFAULT 0.5,
            emotional_weight REAL NOT NULL DEFAULT 0.0,
            expires_at TEXT,
            confidence REAL NOT NULL DEFAULT 0.5,
            ts TEXT,                -- the record's own time (note date, message time), if known
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            last_used_at TEXT
        );
        CREATE UNIQUE INDEX entries_user_hash ON entries (user_id, norm_hash);
        CREATE INDEX entries_user_status ON entries (user_id, status);

        CREATE TABLE import_runs (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            files INTEGER NOT NULL DEFAULT 0,
            records INTEGER NOT NULL DEFAULT 0,
            added INTEGER NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0,
            rejected INTEGER NOT NULL DEFAULT 0
        );

        -- One row per accepted input record: the entry it created or was merged into.
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            entry_id INTEGER NOT NULL REFERENCES entries (id),
            user_id TEXT NOT NULL,
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            format TEXT NOT NULL,
            session_id TEXT,
            message_id TEXT,
            role TEXT,
            ts TEXT,
            section TEXT,
            raw_hash TEXT NOT NULL,
            run_id INTEGER REFERENCES import_runs (id),
            merge_layer TEXT NOT NULL,   -- 'new' (created the entry) or the dedupe layer
            merge_score REAL,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX sources_identity ON sources (user_id, path, line, raw_hash);
        CREATE INDEX sources_entry ON sources (entry_id);

        -- Input items that could not be imported, per run: where and why.
        CREATE TABLE rejections (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES import_runs (id),
            user_id TEXT NOT NULL,
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE INDEX rejections_run ON rejections (run_id);

        CREATE TABLE supersedes (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            new_id INTEGER NOT NULL REFERENCES entries (id),
            old_id INTEGER NOT NULL REFERENCES entries (id),
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (user_id, new_id, old_id)
        );

        CREATE TABLE relationship_state (
            user_id TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, key)
        );

        CREATE TABLE personas (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (user_id, name)
        );
        """
    )


def _run_statements(db: sqlite_utils.Database, script: str) -> None:
    """Run a multi-statement script inside the caller's transaction (executescript would commit)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def current_version(db: sqlite_utils.Database) -> int:
    if "meta" not in db.table_names():
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite_utils.Database) -> list[int]:
    """Apply every migration newer than the database; return the numbers applied."""
    applied = []
    for number, _name, fn in sorted(MIGRATIONS):
        if number <= current_version(db):
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under the write lock: another process may have just migrated.
            if number > current_version(db):
                fn(db)
                db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [str(number)],
                )
                applied.append(number)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return applied
