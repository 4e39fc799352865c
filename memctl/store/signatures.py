"""Dedupe signatures (table `dedupe_signatures`): what the near-duplicate engine keeps of
each entry, so a later import compares against the store without re-reading its texts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator


class Signatures:
    """One user's dedupe signatures."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def load(self) -> Iterator[tuple[int, str | None, bytes, int | None]]:
        """(entry_id, ts, signature, merged_into) of every signed entry, by id."""
        rows = self.conn.execute(
            "SELECT s.entry_id, e.ts, s.signature, e.merged_into FROM dedupe_signatures s "
            "JOIN entries e ON e.id = s.entry_id WHERE s.user_id = ? ORDER BY s.entry_id",
            [self.user_id],
        )
        return ((r[0], r[1], r[2], r[3]) for r in rows)

    def put(self, signed: Iterable[tuple[int, bytes]]) -> None:
        """Store (entry_id, signature) pairs, replacing what an entry had. Each pair is bound
        as it comes: a signature holds its entry's folded text, and an import's last file signs
        every new entry (a list of them all was ~200 MiB of a 200k-record import's peak)."""
        user_id = self.user_id
        self.conn.executemany(
            "INSERT OR REPLACE INTO dedupe_signatures (entry_id, user_id, signature) "
            "VALUES (?, ?, ?)",
            ((entry_id, user_id, sig) for entry_id, sig in signed),
        )

    def mark(self) -> tuple[int, int, int]:
        """The highest entry id, signed entry id and change id in the store (any user's): all
        of them stay put while nothing adds, signs, merges or changes an entry. Each is the
        end of a rowid, read at once."""
        row = self.conn.execute(
            "SELECT (SELECT coalesce(max(id), 0) FROM entries), "
            "(SELECT coalesce(max(entry_id), 0) FROM dedupe_signatures), "
            "(SELECT coalesce(max(id), 0) FROM changes)"
        ).fetchone()
        return (row[0], row[1], row[2])

    def delete_of(self, entry_id: int) -> None:
        self.conn.execute(
            "DELETE FROM dedupe_signatures WHERE entry_id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )
