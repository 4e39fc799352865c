"""Supersede links (table `supersedes`): a newer entry replaced an older one, and why."""

from __future__ import annotations

import sqlite3
from typing import Any

from memctl.store.facts import COLUMNS
from memctl.store.util import now_iso

_OLD = ", ".join("e." + c for c in COLUMNS)


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

    def remove(self, new_id: int, old_id: int) -> None:
        self.conn.execute(
            "DELETE FROM supersedes WHERE user_id = ? AND new_id = ? AND old_id = ?",
            [self.user_id, new_id, old_id],
        )

    def remove_to(self, old_id: int) -> None:
        """Every link that supersedes `old_id`."""
        self.conn.execute(
            "DELETE FROM supersedes WHERE user_id = ? AND old_id = ?", [self.user_id, old_id]
        )

    def move(self, new_id: int, old_id: int, to: int, reason: str, at: str) -> None:
        """The link new_id -> old_id now starts at `to` (an entry that came in between)."""
        self.conn.execute(
            "UPDATE OR REPLACE supersedes SET new_id = ?, reason = ?, created_at = ? "
            "WHERE user_id = ? AND new_id = ? AND old_id = ?",
            [to, reason, at, self.user_id, new_id, old_id],
        )

    def superseded_olds(self, new_id: int) -> list[int]:
        """The ids `new_id` supersedes that are still superseded, by id."""
        rows = self.conn.execute(
            "SELECT e.id FROM supersedes s JOIN entries e "
            "ON e.id = s.old_id AND e.user_id = s.user_id "
            "WHERE s.user_id = ? AND s.new_id = ? AND e.status = 'superseded' ORDER BY e.id",
            [self.user_id, new_id],
        )
        return [r[0] for r in rows]

    def olds_in_key(self, entry_id: int, key: str) -> list[dict[str, Any]]:
        """The entries `entry_id` supersedes in its own chain (same key, still superseded)."""
        rows = self.conn.execute(
            f"SELECT {_OLD} FROM supersedes s JOIN entries e "
            "ON e.id = s.old_id AND e.user_id = s.user_id "
            "WHERE s.user_id = ? AND s.new_id = ? AND e.fact_key = ? AND e.status = 'superseded' "
            "ORDER BY e.id",
            [self.user_id, entry_id, key],
        )
        return [dict(r) for r in rows]

    def below(self, key: str, new_id: int | None = None) -> list[dict[str, Any]]:
        """Links below entries of `key` (all of them, or `new_id`'s): each old entry's COLUMNS,
        merged_into and review_reasons, with the `new_id` that supersedes it; by old id."""
        one = new_id is not None
        rows = self.conn.execute(
            f"SELECT s.new_id, {_OLD}, e.merged_into, e.review_reasons "
            # One entry's links: from its links (CROSS JOIN keeps that order), not from every
            # entry of the key, which made each step down a long chain read all of it.
            f"FROM supersedes s {'CROSS ' if one else ''}JOIN entries e "
            "ON e.id = s.old_id AND e.user_id = s.user_id "
            "WHERE s.user_id = ? AND e.fact_key = ? AND e.status = 'superseded' "
            f"{'AND s.new_id = ? ' if one else ''}ORDER BY e.id",
            [self.user_id, key, *([new_id] if one else [])],
        )
        return [dict(r) for r in rows]
