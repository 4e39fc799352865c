"""The full-text index's statements (the rules that drive them are memctl/search.py's).

Two FTS5 tables, rowid = entries.id: `entries_fts` holds every indexed entry, whatever its
status; `entries_fts_active` only the active ones (triggers on entries.status and on deletes
keep it in step: see schema.py). `meta.fts_upto` is the highest entry id indexed so far and
`meta.fts_scheme` the segmenter the bodies were cut with. The index is filled by entry id for
every user at once (`Index`, store-wide, as the schema is); it is queried for one user at a
time (`UserIndex`).

Also here: the statements of the on-disk copy of jieba's dictionary that memctl/segment.py
keeps for query words (`Dictionary`), an SQLite file of its own in the user's cache directory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memctl.store import Store, UserStore

ALL = "entries_fts"
ACTIVE = "entries_fts_active"
_BATCH = 500  # bound parameters per IN (...) query, well under SQLite's limit


class Index:
    """Upkeep of the index. Writes must run inside `Store.transaction()`."""

    def __init__(self, store: Store) -> None:
        self.conn = store.conn

    def scheme(self) -> str | None:
        """The segmenter the indexed bodies were cut with (None: never filled)."""
        return _meta(self.conn, "fts_scheme")

    def upto(self) -> int:
        """The highest entry id indexed so far."""
        return int(_meta(self.conn, "fts_upto") or 0)

    def unindexed(self, after: int, limit: int) -> list[tuple[int, str]]:
        """(id, content) of the first `limit` entries past id `after`, in id order."""
        rows = self.conn.execute(
            "SELECT id, content FROM entries WHERE id > ? ORDER BY id LIMIT ?", [after, limit]
        )
        return [(r[0], r[1]) for r in rows]

    def add(self, after: int, bodies: Sequence[tuple[int, str]]) -> None:
        """Index the entries that follow id `after` (= `upto()`): (id, segmented body) in id
        order; `upto()` moves to the last. The active table takes those active now (a later
        change of status is the triggers')."""
        self.conn.executemany(f"INSERT OR REPLACE INTO {ALL} (rowid, body) VALUES (?, ?)", bodies)
        self.conn.execute(
            f"INSERT OR REPLACE INTO {ACTIVE} (rowid, body) "
            f"SELECT f.rowid, f.body FROM {ALL} f JOIN entries e ON e.id = f.rowid "
            "WHERE f.rowid > ? AND f.rowid <= ? AND e.status = 'active'",
            [after, bodies[-1][0]],
        )
        _set_meta(self.conn, "fts_upto", str(bodies[-1][0]))

    def replace(self, entry_id: int, body: str) -> None:
        """Give an indexed entry a new body (its content changed)."""
        self.conn.execute(
            f"INSERT OR REPLACE INTO {ALL} (rowid, body) VALUES (?, ?)", [entry_id, body]
        )
        self.conn.execute(
            f"INSERT OR REPLACE INTO {ACTIVE} (rowid, body) "
            "SELECT id, ? FROM entries WHERE id = ? AND status = 'active'",
            [body, entry_id],
        )

    def clear(self, scheme: str) -> None:
        """Empty both tables, to be refilled from the first entry with bodies cut by `scheme`."""
        self.conn.execute(f"DELETE FROM {ALL}")
        self.conn.execute(f"DELETE FROM {ACTIVE}")
        _set_meta(self.conn, "fts_upto", "0")
        _set_meta(self.conn, "fts_scheme", scheme)


class UserIndex:
    """Queries of the index, for one user's entries only."""

    def __init__(self, user: UserStore) -> None:
        self.conn = user.conn
        self.user_id = user.user_id

    def search(
        self,
        expression: str,
        filters: Mapping[str, Sequence[str]],
        limit: int,
        *,
        active_only: bool = False,
    ) -> list[sqlite3.Row]:
        """Entries matching the FTS5 `expression`, best first (BM25, as `score`), each with
        one of the given values of every column named in `filters`. `active_only`: read the
        small table of active entries (the caller filters status = 'active' too)."""
        table = ACTIVE if active_only else ALL
        sql = (
            f"SELECT e.*, bm25({table}) AS score FROM {table} "
            f"JOIN entries e ON e.id = {table}.rowid "
            f"WHERE {table} MATCH ? AND e.user_id = ?"
        )
        params: list[Any] = [expression, self.user_id]
        for column, values in filters.items():
            if values:
                sql += f" AND e.{column} IN ({','.join('?' * len(values))})"
                params += values
        sql += " ORDER BY score LIMIT ?"
        params.append(limit)
        return self.conn.execute(sql, params).fetchall()


class Dictionary:
    """jieba's prefix dictionary (word or word prefix -> frequency) in an SQLite file."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        self.total = int(meta["total"])
        self.longest = int(meta["longest"])

    @classmethod
    def open(cls, path: Path) -> Dictionary:
        """The copy at `path`, read-only (sqlite3.Error, KeyError or ValueError: unusable)."""
        return cls(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True))

    def frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """The entries for those of `words` the dictionary has."""
        found: dict[str, int] = {}
        for i in range(0, len(words), _BATCH):
            part = words[i : i + _BATCH]
            rows = self.conn.execute(
                f"SELECT word, freq FROM freq WHERE word IN ({','.join('?' * len(part))})", part
            )
            found.update(rows)
        return found

    @staticmethod
    def write(path: str, freq: dict[str, int], total: int) -> None:
        """Write a dictionary into the new file `path`, committed and closed."""
        conn = sqlite3.connect(path)
        try:
            with conn:
                conn.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, freq INT) WITHOUT ROWID")
                conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                conn.executemany("INSERT INTO freq VALUES (?, ?)", freq.items())
                longest = max(map(len, freq), default=1)
                conn.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("total", str(total)), ("longest", str(longest))],
                )
        finally:
            conn.close()


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )
