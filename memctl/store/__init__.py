"""The SQLite store. Every read and write goes through a `UserStore`, which is bound to one user.

Design rules:
- WAL mode, a generous busy timeout, and `BEGIN IMMEDIATE` for writes, so concurrent imports
  wait for each other instead of failing with "database is locked".
- One transaction per input file: a failure mid-file leaves nothing of that file behind.
- Identity is in unique indexes (entries: user + norm_hash; sources: user + path + line + raw
  hash), so a re-run after a crash or a second import converges on the same state.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memctl.errors import EntryNotFound, NoUser, StoreError, UsageError
from memctl.models import Rejection
from memctl.store.schema import migrate, up_to_date

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT_S = 60.0
_CHUNK = 500  # bound parameters per IN (...) query, well under SQLite's limit
T = TypeVar("T")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _connect(target: str, uri: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None, uri=uri)
    conn.row_factory = sqlite3.Row
    return conn


class Store:
    """An open memctl database. Use `for_user()` to read or write anything."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn = conn
        self.path = path
        if not up_to_date(conn):
            migrate(self.db)

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection (loaded on first use: ~50 ms of import)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (creating if needed) the database at `path`, migrated to the current schema."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = _connect(str(path))
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute("PRAGMA synchronous=NORMAL")
                    conn.execute("PRAGMA foreign_keys=ON")
                    # Random-order hash index inserts thrash the default 2 MB page cache.
                    conn.execute("PRAGMA cache_size=-131072")
                    return cls(conn, str(path))
                except BaseException:
                    conn.close()
                    raise
            except sqlite3.OperationalError as exc:
                # Two processes creating the same new database: switching it to WAL can
                # fail at once with "locked" instead of waiting on the busy timeout.
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                raise StoreError(f"cannot open database {path}: {exc}") from exc
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"cannot open database {path}: {exc}") from exc

    @classmethod
    def open_scratch(cls, path: Path) -> Store:
        """An in-memory copy of the database at `path` (or an empty one): for --dry-run.

        Running the real code against a throwaway copy means a dry run reports exactly what a
        real run would, and cannot touch a byte of the file.
        """
        mem = _connect(":memory:")
        mem.execute("PRAGMA foreign_keys=ON")  # checked as in the real run
        if path.exists():
            try:
                _copy(path, mem)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read database {path}: {exc}") from exc
        return cls(mem, str(path))

    def for_user(self, user_id: str) -> UserStore:
        return UserStore(self, check_user(user_id))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction, taken up front so writers queue instead of deadlocking."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.conn.execute("COMMIT")  # may refuse: a deferred foreign key left dangling
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.conn.close()


def _copy(path: Path, into: sqlite3.Connection) -> None:
    """Copy the database at `path` without creating a file beside it.

    Reading a WAL database makes SQLite create its -wal and -shm files, and a read-only
    connection cannot remove them again. With no -wal present the main file is the whole
    database, and is read as immutable (no lock, no files); if a writer appeared meanwhile
    (its -wal exists now, or the file changed under the copy) it is taken again the usual way,
    log included.
    """
    wal = path.with_name(path.name + "-wal")
    uri = path.resolve().as_uri()
    if not wal.exists():
        before = _stamp(path)
        _backup(f"{uri}?mode=ro&immutable=1", into)
        if not wal.exists() and _stamp(path) == before:
            return
    _backup(f"{uri}?mode=ro", into)


def _backup(uri: str, into: sqlite3.Connection) -> None:
    src = _connect(uri, uri=True)
    try:
        src.backup(into)
    finally:
        src.close()


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_mtime_ns, st.st_size


class UserStore:
    """All reads and writes for one user. Nothing here can see another user's rows."""

    def __init__(self, store: Store, user_id: str) -> None:
        self.store = store
        self.conn = store.conn
        self.user_id = user_id

    # -- import support ------------------------------------------------------------------

    def entry_ids_by_hash(self, hashes: Iterable[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        for chunk in chunks(list(hashes)):
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                f"SELECT norm_hash, id FROM entries WHERE user_id = ? AND norm_hash IN ({marks})",
                [self.user_id, *chunk],
            )
            found.update((r[0], r[1]) for r in rows)
        return found

    def entries_by_id(self, columns: str, ids: Iterable[int], where: str = "") -> Iterator[Any]:
        """`columns` of this user's entries among `ids` (and matching `where`), a few queries
        for any number of ids. "+user_id" makes SQLite look each id up directly instead of
        scanning the user's index (4.4 s against 0.13 s for 200k ids)."""
        for chunk in chunks(list(dict.fromkeys(ids))):
            yield from self.conn.execute(
                f"SELECT {columns} FROM entries WHERE +user_id = ? {where} "
                f"AND id IN ({','.join('?' * len(chunk))})",
                [self.user_id, *chunk],
            )

    def known_sources(self, path: str) -> set[tuple[int, str]]:
        """(line, raw_hash) of every record already imported from `path`."""
        rows = self.conn.execute(
            "SELECT line, raw_hash FROM sources WHERE user_id = ? AND path = ?",
            [self.user_id, path],
        )
        return {(r[0], r[1]) for r in rows}

    def add_entries(self, rows: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Insert new entries (batched by column set); return norm_hash -> id for all of them.

        A hash the user already has is left alone (a concurrent import got there first) and its
        existing id is returned, so callers never create a second entry for the same text.
        Call inside `Store.transaction()`: ids are handed out from max(id) under its lock.
        """
        now = now_iso()
        # Ids follow the input order (or are given, from next_entry_id()). Left to SQLite they
        # would follow the batches, and a dated note between two facts (one more column) would
        # be numbered after both.
        next_id = self.next_entry_id()
        groups: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        ids: dict[str, int] = {}
        for offset, fields in enumerate(rows):
            row = {"id": next_id + offset, "created_at": now, "updated_at": now, **fields}
            groups.setdefault(tuple(row), []).append((self.user_id, *row.values()))
            ids.setdefault(row["norm_hash"], row["id"])
        before = self.conn.total_changes
        for cols, values in groups.items():
            sql = (
                f"INSERT INTO entries (user_id, {','.join(cols)}) "
                f"VALUES (?, {','.join('?' * len(cols))}) "
                "ON CONFLICT (user_id, norm_hash) DO NOTHING"
            )
            self.conn.executemany(sql, values)
        if self.conn.total_changes - before == len(ids):
            return ids  # every row went in (the usual case): no need to look them up
        return self.entry_ids_by_hash(ids)

    def next_entry_id(self) -> int:
        """The id the next new entry gets (stable while the caller holds the transaction)."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0])

    def add_rejections(self, run_id: int, rejections: Sequence[Rejection]) -> None:
        self.conn.executemany(
            "INSERT INTO rejections (run_id, user_id, path, line, reason) VALUES (?, ?, ?, ?, ?)",
            [(run_id, self.user_id, r.path, r.line, r.reason) for r in rejections],
        )

    def add_sources(self, rows: Iterable[Sequence[Any]]) -> None:
        """Insert sources rows, each a tuple in SOURCE_COLUMNS order; known ones are ignored."""
        # Hot path: a raw executemany of tuples is ~4x faster than Table.insert_all for 200k
        # rows (tests/bench/bench_import.py); the schema itself is managed by migrations.
        self.conn.executemany(_INSERT_SOURCE, ((self.user_id, *r) for r in rows))

    def add_supersede(self, new_id: int, old_id: int, reason: str, at: str | None = None) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO supersedes (user_id, new_id, old_id, reason, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [self.user_id, new_id, old_id, reason, at or now_iso()],
        )

    def start_run(self) -> int:
        cur = self.conn.execute(
            "INSERT INTO import_runs (user_id, started_at) VALUES (?, ?)", [self.user_id, now_iso()]
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(self, run_id: int, counts: dict[str, int]) -> None:
        self.conn.execute(
            "UPDATE import_runs SET finished_at = ?, files = ?, records = ?, added = ?, "
            "skipped = ?, rejected = ? WHERE id = ? AND user_id = ?",
            [
                now_iso(),
                counts["files"],
                counts["records"],
                counts["added"],
                counts["skipped"],
                counts["rejected"],
                run_id,
                self.user_id,
            ],
        )

    # -- reads ---------------------------------------------------------------------------

    def entries(
        self,
        statuses: Sequence[str] = (),
        limit: int | None = None,
        *,
        layers: Sequence[str] = (),
        realms: Sequence[str] = (),
        audiences: Sequence[str] = (),
        source: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """This user's entries in id order, filtered; `source` keeps those with a source
        whose path is `source` or lies under it."""
        sql = "SELECT * FROM entries WHERE user_id = ?"
        params: list[Any] = [self.user_id]
        for column, values in (("status", statuses), ("layer", layers), ("realm", realms),
                               ("audience", audiences)):  # fmt: skip
            if values:
                sql += f" AND {column} IN ({','.join('?' * len(values))})"
                params += list(values)
        if source is not None:
            sql += (
                " AND id IN (SELECT entry_id FROM sources WHERE user_id = ? "
                "AND (path = ? OR substr(path, 1, length(?)) = ?))"
            )
            prefix = source.rstrip("/") + "/"
            params += [self.user_id, source, prefix, prefix]
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        for row in self.conn.execute(sql, params):
            yield _entry_dict(row)

    def entry(self, entry_id: int) -> dict[str, Any]:
        row = self.conn.execute(
            "SELECT * FROM entries WHERE id = ? AND user_id = ?", [entry_id, self.user_id]
        ).fetchone()
        if row is None:
            raise EntryNotFound(f"no entry {entry_id} for user {self.user_id!r}")
        return _entry_dict(row)

    def sources(self, entry_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT path, line, format, session_id, message_id, role, ts, section, raw_hash, "
            "run_id, merge_layer, merge_score, created_at, category FROM sources "
            "WHERE entry_id = ? AND user_id = ? ORDER BY id",
            [entry_id, self.user_id],
        )
        return [dict(r) for r in rows]

    def supersedes(self, entry_id: int) -> list[dict[str, Any]]:
        """The entries this one replaced."""
        rows = self.conn.execute(
            "SELECT old_id, reason, created_at FROM supersedes WHERE new_id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )
        return [dict(r) for r in rows]

    def superseded_by(self, entry_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT new_id, reason, created_at FROM supersedes WHERE old_id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )
        return [dict(r) for r in rows]


SOURCE_COLUMNS = (
    "entry_id", "path", "line", "format", "session_id", "message_id", "role", "ts", "section",
    "raw_hash", "run_id", "merge_layer", "merge_score", "created_at", "category",
)  # fmt: skip
_INSERT_SOURCE = (
    f"INSERT OR IGNORE INTO sources (user_id, {', '.join(SOURCE_COLUMNS)}) "
    f"VALUES (?{', ?' * len(SOURCE_COLUMNS)})"
)


def check_user(user_id: str) -> str:
    """The user id, if usable: non-empty and valid UTF-8."""
    if not user_id:
        raise NoUser("a user is required for every store operation")
    if not _is_utf8(user_id):
        raise UsageError(f"user name is not valid UTF-8: {user_id!r}")
    return user_id


def _entry_dict(row: sqlite3.Row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys() if k != "user_id"}  # noqa: SIM118 (Row has no iter)


def _is_utf8(text: str) -> bool:
    """False for text holding lone surrogates (undecodable bytes from the command line)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def chunks(items: Sequence[T]) -> Iterator[Sequence[T]]:
    """`items` in slices small enough for one IN (...) query."""
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]
