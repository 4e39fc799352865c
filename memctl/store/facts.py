"""Entries by the fact they state (`fact_key`, `fact_value`): what supersede chains read."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from memctl.store.util import chunks, marks

LIVE = ("active", "pending_review")
# What a chain knows of an entry.
COLUMNS = ("id", "fact_key", "fact_value", "fact_certain", "ts", "created_at", "status")
_COLUMNS = ", ".join(COLUMNS)


class Facts:
    """One user's entries, as supersede reads them."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def live(self, key: str) -> Iterator[sqlite3.Row]:
        """The key's live entries: COLUMNS, merged_into and review_reasons."""
        return self.conn.execute(
            f"SELECT {_COLUMNS}, merged_into, review_reasons FROM entries "
            "WHERE user_id = ? AND fact_key = ? AND status IN (?, ?)",
            [self.user_id, key, *LIVE],
        )

    def by_ids(self, ids: list[int]) -> list[sqlite3.Row]:
        """COLUMNS, merged_into and review_reasons of these entries, by id."""
        found: list[sqlite3.Row] = []
        for chunk in chunks(ids):
            found += self.conn.execute(
                f"SELECT {_COLUMNS}, merged_into, review_reasons FROM entries "
                f"WHERE +user_id = ? AND id IN ({marks(chunk)}) ORDER BY id",
                [self.user_id, *chunk],
            )
        return found

    def get(self, entry_id: int) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE id = ? AND user_id = ?",
            [entry_id, self.user_id],
        ).fetchone()
        return dict(row) if row else None

    def rivals(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """The other live values of the entry's key, not merged away, by id."""
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE user_id = ? AND fact_key = ? AND id <> ? "
            "AND fact_value IS NOT ? AND status IN (?, ?) AND merged_into IS NULL ORDER BY id",
            [self.user_id, entry["fact_key"], entry["id"], entry["fact_value"], *LIVE],
        )
        return [dict(r) for r in rows]

    def values(self, key: str, statuses: tuple[str, ...]) -> set[str]:
        """The distinct values of `key` among entries in `statuses`, merged-away ones included
        (read from the index alone: migration 5)."""
        rows = self.conn.execute(
            "SELECT DISTINCT fact_value FROM entries WHERE user_id = ? AND fact_key = ? "
            f"AND status IN ({marks(statuses)})",
            [self.user_id, key, *statuses],
        )
        return {r[0] for r in rows}

    def reasons(self, entry_id: int) -> str | None:
        """The entry's review reasons as stored (a JSON array), if any."""
        row = self.conn.execute(
            "SELECT review_reasons FROM entries WHERE id = ? AND user_id = ?",
            [entry_id, self.user_id],
        ).fetchone()
        return row[0] if row else None

    def pending_naming(self, mark: str, other_than: int) -> list[tuple[int, str]]:
        """(id, review_reasons) of entries in review whose reasons name `mark`, by id."""
        rows = self.conn.execute(
            "SELECT id, review_reasons FROM entries WHERE user_id = ? "
            "AND status = 'pending_review' AND id <> ? AND instr(review_reasons, ?) > 0 "
            "ORDER BY id",
            [self.user_id, other_than, mark],
        )
        return [(r[0], r[1]) for r in rows]
