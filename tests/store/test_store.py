"""The store: the schema a new database gets, migrations applied once, user scoping."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils

import memctl.store as store_module
from memctl.errors import EntryNotFound, NoUser, UsageError
from memctl.store import Store, schema
from memctl.store.schema import MIGRATIONS, current_version, migrate

TABLES = [
    "changes", "dedupe_signatures", "entries", "entries_fts", "home_lines", "import_runs", "meta",
    "personas", "rejections", "relationship_state", "runs", "sources", "supersedes",
]  # fmt: skip
ENTRY_COLUMNS = [
    ("id", "INTEGER", 0), ("user_id", "TEXT", 1), ("content", "TEXT", 1),
    ("norm_hash", "TEXT", 1), ("realm", "TEXT", 1), ("layer", "TEXT", 1), ("status", "TEXT", 1),
    ("audience", "TEXT", 1), ("importance", "REAL", 1), ("emotional_weight", "REAL", 1),
    ("expires_at", "TEXT", 0), ("confidence", "REAL", 1), ("ts", "TEXT", 0),
    ("created_at", "TEXT", 1), ("updated_at", "TEXT", 1), ("last_used_at", "TEXT", 0),
    ("merged_into", "INTEGER", 0), ("decayed_at", "TEXT", 0), ("review_reasons", "TEXT", 0),
    ("fact_key", "TEXT", 0), ("fact_value", "TEXT", 0), ("fact_certain", "INTEGER", 0),
]  # fmt: skip


@pytest.fixture
def new_db(db_path):
    Store.open(db_path).close()
    conn = sqlite3.connect(db_path)
    yield conn
    conn.close()


def _unique_indexes(conn: sqlite3.Connection, table: str) -> dict[str, list[str]]:
    found = {}
    for _seq, name, unique, *_ in conn.execute(f"PRAGMA index_list({table})"):
        if unique:
            found[name] = [row[2] for row in conn.execute(f"PRAGMA index_info({name})")]
    return found


def test_tables_of_a_new_database(new_db):
    # FTS5 keeps its index in shadow tables named after the virtual table; those are its own.
    names = [r[0] for r in new_db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'entries_fts_%'"
    )]  # fmt: skip
    assert sorted(names) == TABLES
    assert (
        new_db.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_fts'")
        .fetchone()[0]
        .startswith("CREATE VIRTUAL TABLE entries_fts USING fts5")
    )


def test_entries_columns(new_db):
    columns = [(r[1], r[2], r[3]) for r in new_db.execute("PRAGMA table_info(entries)")]
    assert columns == ENTRY_COLUMNS


def test_unique_indexes_carry_identity(new_db):
    assert _unique_indexes(new_db, "entries") == {"entries_user_hash": ["user_id", "norm_hash"]}
    assert _unique_indexes(new_db, "sources") == {
        "sources_identity": ["user_id", "path", "line", "raw_hash"]
    }
    assert list(_unique_indexes(new_db, "supersedes").values()) == [["user_id", "new_id", "old_id"]]
    assert list(_unique_indexes(new_db, "personas").values()) == [["user_id", "name"]]
    assert list(_unique_indexes(new_db, "relationship_state").values()) == [["user_id", "key"]]


def test_enum_columns_are_checked(new_db):
    new_db.execute(
        "INSERT INTO entries (user_id, content, norm_hash, created_at, updated_at) "
        "VALUES ('u', 'x', 'h', 't', 't')"
    )
    for column, value in [("realm", "dream"), ("layer", "gossip"), ("status", "deleted"),
                          ("audience", "everyone")]:  # fmt: skip
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
            new_db.execute(f"UPDATE entries SET {column} = ?", [value])


def test_wal_mode_is_on(new_db):
    assert new_db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_schema_version_is_the_latest_migration(new_db):
    latest = max(number for number, _name, _fn in MIGRATIONS)
    assert new_db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall() == [
        (str(latest),)
    ]


def test_migration_numbers_are_unique_and_start_at_one():
    numbers = sorted(number for number, _name, _fn in MIGRATIONS)
    assert numbers == list(range(1, len(numbers) + 1))


def test_opening_twice_does_not_reapply_migrations(db_path):
    Store.open(db_path).close()
    store = Store.open(db_path)  # migration 1 has plain CREATE TABLEs: re-running would raise
    assert migrate(store.db) == []
    assert current_version(store.db) == max(n for n, _, _ in MIGRATIONS)
    store.close()


def test_a_new_migration_is_applied_exactly_once(db_path, monkeypatch):
    Store.open(db_path).close()
    calls = []
    latest = max(n for n, _, _ in MIGRATIONS)

    def add_column(db: sqlite_utils.Database) -> None:
        calls.append(1)
        db.execute("ALTER TABLE personas ADD COLUMN probe TEXT")

    monkeypatch.setattr(schema, "MIGRATIONS", [*MIGRATIONS, (latest + 1, "probe", add_column)])
    for _ in range(3):
        Store.open(db_path).close()
    assert calls == [1]
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(latest + 1),
    )
    assert "probe" in [r[1] for r in conn.execute("PRAGMA table_info(personas)")]
    conn.close()


def test_a_failing_migration_leaves_the_database_as_it_was(db_path, monkeypatch):
    Store.open(db_path).close()
    latest = max(n for n, _, _ in MIGRATIONS)

    def broken(db: sqlite_utils.Database) -> None:
        db.execute("CREATE TABLE half_done (x)")
        raise sqlite3.OperationalError("boom")

    monkeypatch.setattr(schema, "MIGRATIONS", [*MIGRATIONS, (latest + 1, "broken", broken)])
    conn = sqlite3.connect(db_path, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="boom"):
        Store(conn, str(db_path))
    conn.close()
    conn = sqlite3.connect(db_path)
    assert "half_done" not in [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(latest),
    )
    conn.close()


def test_every_operation_needs_a_user(db_path):
    store = Store.open(db_path)
    with pytest.raises(NoUser):
        store.for_user("")
    store.close()


def test_a_user_store_never_sees_another_users_rows(db_path):
    store = Store.open(db_path)
    alice, bob = store.for_user("alice"), store.for_user("bob")
    with store.transaction():
        ids = alice.add_entries([{"content": "tea", "norm_hash": "s1:tea"}])
        bob_ids = bob.add_entries([{"content": "tea", "norm_hash": "s1:tea"}])
    assert ids["s1:tea"] != bob_ids["s1:tea"]
    assert [e["id"] for e in alice.entries()] == [ids["s1:tea"]]
    assert bob.entry_ids_by_hash(["s1:tea"]) == bob_ids
    assert ids == {"s1:tea": 1}
    with pytest.raises(EntryNotFound, match="no entry 1 for user 'bob'"):
        bob.entry(1)
    store.close()


def test_a_failed_transaction_is_rolled_back(db_path):
    store = Store.open(db_path)
    user = store.for_user("alice")
    with pytest.raises(RuntimeError), store.transaction():
        user.add_entries([{"content": "tea", "norm_hash": "s1:tea"}])
        raise RuntimeError("interrupted")
    assert list(user.entries()) == []
    store.close()


@pytest.mark.parametrize("scratch", [False, True], ids=["file", "dry-run copy"])
def test_a_commit_refused_for_a_dangling_reference_rolls_back(db_path, scratch):
    """Sources may be written before their entry (keys checked at commit): if the entry never
    comes, nothing is committed, the write lock is given back, and a dry run fails the same."""
    Store.open(db_path).close()
    store = Store.open_scratch(db_path) if scratch else Store.open(db_path)
    user = store.for_user("u")
    with store.transaction():
        run_id = user.start_run()
    dangling = (
        999,
        "p",
        1,
        "fmt",
        None,
        None,
        None,
        None,
        None,
        "h",
        run_id,
        "new",
        None,
        "now",
        None,
        None,
        None,
    )
    with pytest.raises(sqlite3.IntegrityError), store.transaction():
        store.conn.execute("PRAGMA defer_foreign_keys = ON")
        user.add_sources([dangling])
    assert not store.conn.in_transaction
    with store.transaction():  # usable again
        user.start_run()
    assert store.conn.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
    store.close()


def test_a_dry_run_copy_is_taken_again_if_the_file_changed_under_it(db_path, monkeypatch):
    """Another process may commit and checkpoint into the file while it is copied without
    locks: that copy could mix pages from before and after, so it is taken again, locked."""
    store = Store.open(db_path)
    with store.transaction():
        store.for_user("alice").add_entries([{"content": "tea", "norm_hash": "s1:tea"}])
    store.close()
    real_connect = store_module._connect
    opened: list[str] = []

    class Copier:
        def __init__(self, conn: sqlite3.Connection, uri: str) -> None:
            self.conn, self.uri = conn, uri

        def backup(self, target: sqlite3.Connection) -> None:
            if "immutable" in self.uri:  # a writer commits and checkpoints meanwhile
                writer = Store.open(db_path)
                with writer.transaction():
                    writer.for_user("alice").add_entries([{"content": "milk", "norm_hash": "s1:m"}])
                writer.close()
            self.conn.backup(target)

        def close(self) -> None:
            self.conn.close()

    def connect(name: str, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(name)
        conn = real_connect(name, **kwargs)
        return Copier(conn, name) if name.startswith("file:") else conn

    monkeypatch.setattr(store_module, "_connect", connect)
    scratch = Store.open_scratch(db_path)
    assert [u.split("?")[1] for u in opened if u.startswith("file:")] == [
        "mode=ro&immutable=1", "mode=ro"
    ]  # fmt: skip
    assert {e["content"] for e in scratch.for_user("alice").entries()} == {"tea", "milk"}
    scratch.close()


def test_scratch_copy_never_writes_to_the_file(db_path):
    Store.open(db_path).close()
    before = db_path.read_bytes()
    scratch = Store.open_scratch(db_path)
    with scratch.transaction():
        scratch.for_user("alice").add_entries([{"content": "tea", "norm_hash": "s1:tea"}])
    assert [e["content"] for e in scratch.for_user("alice").entries()] == ["tea"]
    scratch.close()
    assert db_path.read_bytes() == before
    store = Store.open(db_path)
    assert list(store.for_user("alice").entries()) == []
    store.close()


def test_amending_new_entries_sets_realm_and_facts_but_never_a_status(db_path):
    """amend_new writes without a change log entry: only what the import settles about
    entries it just wrote (the file's realm, the fact it implies), never a status."""
    store = Store.open(db_path)
    try:
        user = store.for_user("u")
        with store.transaction():
            ids = user.add_entries([{"content": "x", "norm_hash": "s1:x"}])
            entry_id = ids["s1:x"]
            user.entries.amend_new([{"id": entry_id, "realm": "work", "fact_key": None}])
        assert user.entry(entry_id)["realm"] == "work"
        with pytest.raises(UsageError, match="cannot amend status"), store.transaction():
            user.entries.amend_new([{"id": entry_id, "status": "archived"}])
        assert user.entry(entry_id)["status"] == "active"
    finally:
        store.close()


def test_a_logged_update_keeps_the_changed_fields_before_and_after_and_no_other(db_path):
    store = Store.open(db_path)
    alice, bob = store.for_user("alice"), store.for_user("bob")
    with store.transaction():
        ids = alice.add_entries([{"content": "tea", "norm_hash": "s1:tea", "importance": 0.7}])
        alice.entries.update(ids["s1:tea"], "edit", {"status": "superseded"}, "me", "why")
        with pytest.raises(EntryNotFound, match="no entry 1 for user 'bob'"):
            bob.entries.update(ids["s1:tea"], "edit", {"status": "archived"}, "me", None)
    (change,) = alice.log.of_entry(ids["s1:tea"])
    assert (change["before"], change["after"]) == ({"status": "active"}, {"status": "superseded"})
    assert alice.entry(ids["s1:tea"])["status"] == "superseded"
    store.close()
