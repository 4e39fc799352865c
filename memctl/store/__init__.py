"""The SQLite store. Every read and write goes through a `UserStore`, which is bound to one user.

The store owns every statement: no module outside memctl/store/ writes SQL. Its parts are
named after what they keep: entries (with the logged update), sources, links (supersede),
signatures (dedupe), homes (a home's vote on its job), changelog, runs, meta (pragmas),
fields (the column lists, declared once), schema (the migrations). A `UserStore` holds one of
each bound to its user; a `Store` holds the database's own (runs, meta) and consolidation's
statements over every user (all_entries).

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
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl.errors import NoUser, StoreError, UsageError
from memctl.models import Rejection
from memctl.store.changelog import ChangeLog
from memctl.store.entries import AllEntries, Entries
from memctl.store.facts import Facts
from memctl.store.fields import SOURCE_COLUMNS
from memctl.store.homes import HomeLines
from memctl.store.links import Links
from memctl.store.meta import BUSY_TIMEOUT_S, Meta
from memctl.store.runs import ImportRuns, Runs
from memctl.store.schema import migrate, up_to_date
from memctl.store.signatures import Signatures
from memctl.store.sources import Sources
from memctl.store.util import chunks, now_iso

if TYPE_CHECKING:
    import sqlite_utils

__all__ = ["BUSY_TIMEOUT_S", "SOURCE_COLUMNS", "Store", "UserStore", "chunks", "now_iso"]


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
        self.runs = Runs(conn)
        self.meta = Meta(conn)
        self.all_entries = AllEntries(conn)  # consolidation's statements over every user

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
    """All reads and writes for one user. Nothing here can see another user's rows.

    Each table has its part, bound to the user: `entries` (with the logged `update`),
    `sources`, `links` (supersede), `signatures` (dedupe), `home_lines` (a home's vote), `log`
    (changes), `imports`.
    """

    def __init__(self, store: Store, user_id: str) -> None:
        self.store = store
        self.conn = store.conn
        self.user_id = user_id
        self.log = ChangeLog(self.conn, user_id)
        self.entries = Entries(self.conn, user_id, self.log)
        self.sources = Sources(self.conn, user_id)
        self.links = Links(self.conn, user_id)
        self.facts = Facts(self.conn, user_id)
        self.signatures = Signatures(self.conn, user_id)
        self.home_lines = HomeLines(self.conn, user_id)
        self.imports = ImportRuns(self.conn, user_id)

    # The import's names for its parts' methods (memctl.importer and memctl.supersede).

    def entry(self, entry_id: int) -> dict[str, Any]:
        return self.entries.get(entry_id)

    def entry_ids_by_hash(self, hashes: Iterable[str]) -> dict[str, int]:
        return self.entries.ids_by_hash(hashes)

    def entries_by_id(self, columns: str, ids: Iterable[int], where: str = "") -> Iterator[Any]:
        return self.entries.by_id(columns, ids, where)

    def add_entries(self, rows: Iterable[dict[str, Any]]) -> dict[str, int]:
        return self.entries.add(rows)

    def next_entry_id(self) -> int:
        return self.entries.next_id()

    def known_sources(self, path: str) -> set[tuple[int, str]]:
        return self.sources.known(path)

    def add_sources(self, rows: Iterable[Sequence[Any]]) -> None:
        self.sources.add(rows)

    def add_supersede(self, new_id: int, old_id: int, reason: str, at: str | None = None) -> None:
        self.links.add(new_id, old_id, reason, at)

    def supersedes(self, entry_id: int) -> list[dict[str, Any]]:
        return self.links.supersedes(entry_id)

    def superseded_by(self, entry_id: int) -> list[dict[str, Any]]:
        return self.links.superseded_by(entry_id)

    def start_run(self) -> int:
        return self.imports.start()

    def finish_run(self, run_id: int, counts: dict[str, int]) -> None:
        self.imports.finish(run_id, counts)

    def add_rejections(self, run_id: int, rejections: Sequence[Rejection]) -> None:
        self.imports.add_rejections(run_id, rejections)


def check_user(user_id: str) -> str:
    """The user id, if usable: non-empty and valid UTF-8."""
    if not user_id:
        raise NoUser("a user is required for every store operation")
    if not _is_utf8(user_id):
        raise UsageError(f"user name is not valid UTF-8: {user_id!r}")
    return user_id


def _is_utf8(text: str) -> bool:
    """False for text holding lone surrogates (undecodable bytes from the command line)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
