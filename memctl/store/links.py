"""Supersede links (table `supersedes`): a newer entry replaced an older one, and why."""

from __future__ import annotations

import sqlite3
from typing import Any

from memctl.store.util import now_iso


class Links:
    """One user's supersede links."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def add(self, new_id: int, old_id: int, reason: str, at: str | None = None) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO supersedes (user_id, new_id, old_id, reason, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            [self.user_id, new_id, old_id, reason, at or now_iso()],
        )

    def supersedes(self, entry_id: int) -> list[dict[str, Any]]:
        """The entries this one replaced: old_id, reason, created_at."""
        rows = self.conn.execute(
            "SELECT old_id, reason, created_at FROM supersedes WHERE new_id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )
        return [dict(r) for r in rows]

    def superseded_by(self, entry_id: int) -> list[dict[str, Any]]:
        """The entries that replaced this one: new_id, reason, created_at."""
        rows = self.conn.execute(
            "SELECT new_id, reason, created_at FROM supersedes WHERE old_id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )
        return [dict(r) for r in rows]

    def delete_of(self, entry_id: int) -> None:
        """Every link to or from the entry."""
        self.conn.execute(
            "DELETE FROM supersedes WHERE (new_id = ?1 OR old_id = ?1) AND user_id = ?2",
            [entry_id, self.user_id],
        )
