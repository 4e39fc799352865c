"""Sources (table `sources`): one row per accepted input record, the entry it created or
was merged into; identity is user + path + line + raw hash."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from memctl.store.fields import SOURCE_COLUMNS, SOURCE_FIELDS

_INSERT = (
    f"INSERT OR IGNORE INTO sources (user_id, {', '.join(SOURCE_COLUMNS)}) "
    f"VALUES (?{', ?' * len(SOURCE_COLUMNS)})"
)
_SELECT = f"SELECT {', '.join(SOURCE_FIELDS)} FROM sources"


class Sources:
    """One user's sources. Calling it lists an entry's (see `__call__`)."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def __call__(self, entry_id: int) -> list[dict[str, Any]]:
        """The entry's sources (SOURCE_FIELDS each), in the order they were added."""
        rows = self.conn.execute(
            f"{_SELECT} WHERE entry_id = ? AND user_id = ? ORDER BY id", [entry_id, self.user_id]
        )
        return [dict(r) for r in rows]

    def add(self, rows: Iterable[Sequence[Any]]) -> None:
        """Insert sources rows, each a tuple in SOURCE_COLUMNS order; known ones are ignored."""
        # Hot path: a raw executemany of tuples is ~4x faster than Table.insert_all for 200k
        # rows (tests/bench/bench_import.py); the schema itself is managed by migrations.
        self.conn.executemany(_INSERT, ((self.user_id, *r) for r in rows))

    def known(self, path: str) -> set[tuple[int, str]]:
        """(line, raw_hash) of every record already imported from `path`."""
        rows = self.conn.execute(
            "SELECT line, raw_hash FROM sources WHERE user_id = ? AND path = ?",
            [self.user_id, path],
        )
        return {(r[0], r[1]) for r in rows}

    def find(self, path: str, line: int, raw_hash: str) -> dict[str, Any] | None:
        """entry_id and merge_layer of the source with this identity, if stored."""
        row = self.conn.execute(
            "SELECT entry_id, merge_layer FROM sources "
            "WHERE user_id = ? AND path = ? AND line = ? AND raw_hash = ?",
            [self.user_id, path, line, raw_hash],
        ).fetchone()
        return None if row is None else dict(row)

    def last_line(self, path: str) -> int:
        """The largest line stored for `path` (0 for none)."""
        row = self.conn.execute(
            "SELECT MAX(line) FROM sources WHERE user_id = ? AND path = ?", [self.user_id, path]
        ).fetchone()
        return int(row[0] or 0)

    def sections_of_new(self, path: str) -> dict[int, str | None]:
        """The heading path of each entry the records of `path` created (not those they merged
        into an older entry)."""
        rows = self.conn.execute(
            "SELECT entry_id, section FROM sources"
            " WHERE user_id = ? AND path = ? AND merge_layer = 'new'",
            (self.user_id, path),
        )
        return dict(rows.fetchall())

    def of_session(self, session: str) -> list[tuple[str | None, str | None, str | None, str]]:
        """(message_id, role, ts, raw_hash) of every source of the transcript session."""
        rows = self.conn.execute(
            "SELECT message_id, role, ts, raw_hash FROM sources "
            "WHERE user_id = ? AND session_id = ?",
            (self.user_id, session),
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def merge(self, dup: int, into: int, layer: str, score: float) -> None:
        """The sources of `dup` go to `into`; those that created it (or matched it exactly)
        now say which layer merged it, and how close it was."""
        self.conn.execute(
            "UPDATE sources SET merge_layer = ?, merge_score = ? "
            "WHERE entry_id = ? AND user_id = ? AND merge_layer IN ('new', 'exact')",
            [layer, score, dup, self.user_id],
        )
        self.conn.execute(
            "UPDATE sources SET entry_id = ? WHERE entry_id = ? AND user_id = ?",
            [into, dup, self.user_id],
        )

    def delete_of(self, entry_id: int) -> None:
        self.conn.execute(
            "DELETE FROM sources WHERE entry_id = ? AND user_id = ?", [entry_id, self.user_id]
        )
