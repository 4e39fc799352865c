"""The schema, as an ordered list of numbered migrations applied on every open.

Each migration runs once, in order, inside a transaction; `meta.schema_version` records the last
one applied. Never edit a released migration: append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded by Store.db, only when a migration is due
    import sqlite_utils

Migration = Callable[["sqlite_utils.Database"], None]
MIGRATIONS: list[tuple[int, str, Migration]] = []


def migration(number: int, name: str) -> Callable[[Migration], Migration]:
    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((number, name, fn))
        return fn

    return register


_INITIAL = """
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


@migration(1, "initial")
def m001_initial(db: sqlite_utils.Database) -> None:
    _run_statements(db, _INITIAL)


def _run_statements(db: sqlite_utils.Database, script: str) -> None:
    """Run a multi-statement script inside the caller's transaction (executescript would commit).

    Statements are cut where SQLite says one is complete, so trigger bodies (`BEGIN …; END;`)
    and semicolons inside comments stay whole.
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            db.execute(pending)
            pending = ""
    if pending.strip() and not sqlite3.complete_statement(pending + ";"):
        raise ValueError(f"incomplete SQL in migration: {pending.strip()[:60]}")
    if pending.strip():
        db.execute(pending)


def current_version(db: sqlite_utils.Database) -> int:
    if "meta" not in db.table_names():
        return 0
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def up_to_date(conn: sqlite3.Connection) -> bool:
    """Whether every migration is applied already (read without sqlite-utils: most opens)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:  # no meta table: a new database
        return False
    return row is not None and int(row[0]) >= max(number for number, _, _ in MIGRATIONS)


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


@migration(2, "dedupe, consolidation, search and change log")
def m002_upkeep(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- A near-duplicate merged into another entry keeps its row (text recoverable) and
        -- points at the survivor; its sources are re-pointed to the survivor.
        ALTER TABLE entries ADD COLUMN merged_into INTEGER REFERENCES entries (id);
        ALTER TABLE entries ADD COLUMN decayed_at TEXT;
        CREATE INDEX entries_user_layer ON entries (user_id, status, layer, importance);
        CREATE INDEX entries_expiring ON entries (expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX entries_undecayed ON entries (decayed_at)
            WHERE last_used_at IS NULL AND status = 'active';

        -- Every consolidation or pipeline run: what it did and whether it worked.
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'skipped')),
            dry_run INTEGER NOT NULL DEFAULT 0,
            counts TEXT,
            error TEXT,
            upto_entry_id INTEGER   -- entries with a larger id are new to the next run
        );

        -- Who changed what, when: review decisions, edits, deletions, supersedes, merges.
        CREATE TABLE changes (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            entry_id INTEGER NOT NULL,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            before TEXT,            -- JSON of the changed fields before
            after TEXT,             -- JSON of the changed fields after
            note TEXT
        );
        CREATE INDEX changes_entry ON changes (user_id, entry_id);

        -- Full-text index over jieba-segmented content; rowid = entries.id. Filled lazily
        -- (by consolidate, context and search) so imports do not pay for segmentation.
        CREATE VIRTUAL TABLE entries_fts USING fts5 (body, tokenize = 'unicode61')
        """,
    )


@migration(3, "upkeep at scale: active-only full-text index, narrower partial indexes")
def m003_upkeep_indexes(db: sqlite_utils.Database) -> None:
    # Measured on 1M entries (tests/bench/bench_upkeep.py): each of these kept a consolidation
    # or a context call proportional to the whole store instead of to the live part of it.
    _run_statements(
        db,
        """
        -- The indexed entries that are active, for context retrieval: most of a big store is
        -- archived, and BM25 over all of it (then dropping what may not be injected) took
        -- 0.1-0.4 s per query. Kept in step with entries.status by the triggers below.
        CREATE VIRTUAL TABLE entries_fts_active USING fts5 (body, tokenize = 'unicode61');
        INSERT INTO entries_fts_active (rowid, body)
            SELECT f.rowid, f.body FROM entries_fts f JOIN entries e ON e.id = f.rowid
            WHERE e.status = 'active';

        -- Expire: entries already archived no longer sit in the range every run scans.
        DROP INDEX entries_expiring;
        CREATE INDEX entries_expiring ON entries (expires_at)
            WHERE expires_at IS NOT NULL AND status IN ('active', 'pending_review');
        -- Decay: created_at in the index, so entries too young to decay are skipped without
        -- reading their rows. (SQLite 3.40 does not take a partial index's WHERE as known, so
        -- the columns it tests are in the index too: that makes it covering.)
        DROP INDEX entries_undecayed;
        CREATE INDEX entries_undecayed ON entries (decayed_at, created_at, last_used_at, status)
            WHERE last_used_at IS NULL AND status = 'active';
        -- Caps: everything eviction ranks on, for active entries only, so ranking a layer
        -- reads this small index instead of every row.
        CREATE INDEX entries_active ON entries (user_id, layer, importance, last_used_at, ts,
                                                created_at, status)
            WHERE status = 'active'
        """,
    )
    db.execute(
        """
        CREATE TRIGGER entries_fts_active_leave AFTER UPDATE OF status ON entries
        WHEN old.status = 'active' AND new.status <> 'active'
        BEGIN
            DELETE FROM entries_fts_active WHERE rowid = old.id;
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER entries_fts_active_join AFTER UPDATE OF status ON entries
        WHEN new.status = 'active' AND old.status <> 'active'
        BEGIN
            INSERT OR REPLACE INTO entries_fts_active (rowid, body)
                SELECT rowid, body FROM entries_fts WHERE rowid = new.id;
        END
        """
    )
    db.execute(
        """
        CREATE TRIGGER entries_fts_forget AFTER DELETE ON entries
        BEGIN
            DELETE FROM entries_fts WHERE rowid = old.id;
            DELETE FROM entries_fts_active WHERE rowid = old.id;
        END
        """
    )


@migration(4, "classification reasons, facts for supersede chains, dedupe signatures")
def m004_facts(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- Why an entry waits for review (JSON array of human-readable reasons).
        ALTER TABLE entries ADD COLUMN review_reasons TEXT;
        -- The restraint category a transcript record matched (remember, address, diet, ...),
        -- so re-classifying later sees what import saw.
        ALTER TABLE sources ADD COLUMN category TEXT;
        -- The fact an entry states, when clear: "user|lives_in" (+ "|value" for facts that
        -- can hold several values at once) and the normalised value; a newer value for the
        -- same key supersedes the older entry.
        ALTER TABLE entries ADD COLUMN fact_key TEXT;
        ALTER TABLE entries ADD COLUMN fact_value TEXT;
        ALTER TABLE entries ADD COLUMN fact_certain INTEGER;
        CREATE INDEX entries_fact ON entries (user_id, fact_key) WHERE fact_key IS NOT NULL;
        -- Merges re-point whatever was merged into the entry merged away.
        CREATE INDEX entries_merged_into ON entries (merged_into) WHERE merged_into IS NOT NULL;

        -- Compact near-duplicate signature per surviving entry, so an import or a
        -- consolidation rebuilds the dedupe index without re-reading every text.
        CREATE TABLE dedupe_signatures (
            entry_id INTEGER PRIMARY KEY REFERENCES entries (id),
            user_id TEXT NOT NULL,
            signature BLOB NOT NULL
        );
        CREATE INDEX dedupe_signatures_user ON dedupe_signatures (user_id)
        """,
    )


@migration(5, "fact values by status, so a chain's distinct values are read from the index")
def m005_fact_values(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- Whether a fact key has two values in force is read from the index alone: a legacy
        -- file restating one fact on 100k lines made every check read 100k rows.
        DROP INDEX entries_fact;
        CREATE INDEX entries_fact ON entries (user_id, fact_key, status, fact_value)
            WHERE fact_key IS NOT NULL
        """,
    )


@migration(6, "what the file said a record is (a layer hint), kept with its source")
def m006_source_layer_hint(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- A record's own marker or its file's front matter bounds its layer (an unchecked
        -- box is a task, a Claude memory file's `type`); re-classifying needs it later, when
        -- the file may be gone or its text no longer holds the marker.
        ALTER TABLE sources ADD COLUMN layer_hint TEXT
        """,
    )


@migration(7, "supersede links by the entry they replaced")
def m007_links_by_old(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- What superseded an entry, and a chain's links read whole: without it each was a
        -- scan of the user's links, per entry (a chain of 1,000 links read 1,000,000 rows).
        CREATE INDEX supersedes_old ON supersedes (user_id, old_id, new_id)
        """,
    )


@migration(8, "a table row's header, kept with its source")
def m008_source_header(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- The column names of a table row's cells: the classifier reads the row with them,
        -- and re-classifying must read it as import did, when the file may be gone.
        ALTER TABLE sources ADD COLUMN header TEXT
        """,
    )


@migration(9, "what each line said of its home's job, kept for the home's vote")
def m009_home_lines(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- A home's vote on its job (memctl.classify.home) counts every line of the home, of
        -- this import and of those before it: a rerun after a kill, or an import of the
        -- home's notes after its profile, must vote as one import of all its files does.
        -- `settled`: the vote has counted the line (0 until the import's last step runs).
        CREATE TABLE home_lines (
            entry_id INTEGER PRIMARY KEY REFERENCES entries (id),
            user_id TEXT NOT NULL,
            home TEXT,
            path TEXT,
            realm TEXT NOT NULL,
            cued INTEGER NOT NULL,
            layer TEXT NOT NULL,
            audience TEXT NOT NULL,
            fact INTEGER NOT NULL,
            by_section INTEGER NOT NULL,
            settled INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX home_lines_home ON home_lines (user_id, home, path);
        CREATE INDEX home_lines_unsettled ON home_lines (user_id, home) WHERE settled = 0
        """,
    )


@migration(10, "the names each home line introduces, kept for the home's later votes")
def m010_home_line_kin(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- The names a line's kinship words introduce (memctl.classify.kin), one per line of
        -- the text: each import's vote reads every line of a home with new lines, and cutting
        -- them all again with jieba made a two-line import into a home of 9,000 cost seconds.
        -- NULL: not known yet (a line kept before this column), found when read.
        ALTER TABLE home_lines ADD COLUMN kin TEXT
        """,
    )


@migration(11, "whether each home line's own words give a realm weight, kept for later votes")
def m011_home_line_says(db: sqlite_utils.Database) -> None:
    _run_statements(
        db,
        """
        -- Whether a cue of a line's own words gives a realm any weight (rules.says_realm): a
        -- home's vote asks it of every line of the home (a life only by its heading, a private
        -- line private only for what it holds), and matching the lexicon's cues against a
        -- home of 10,000 lines again each import cost a second. NULL: not known yet, found
        -- when a vote first needs it.
        ALTER TABLE home_lines ADD COLUMN says INTEGER
        """,
    )
