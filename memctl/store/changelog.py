"""The change log (table `changes`): every decision about an entry, who made it and when,
with the fields before and after. Written by the entries' logged update, read by history,
undo, re-classify and consolidation (which does not redo what a person undid)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from memctl.errors import EntryNotFound
from memctl.store.util import chunks, marks, now_iso

_INSERT = (
    "INSERT INTO changes (user_id, entry_id, at, actor, action, before, after, note) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
# A change to log: (entry_id, action, before, after, note).
Logged = tuple[int, str, dict[str, Any], dict[str, Any], str | None]


def _json(value: dict[str, Any]) -> str:
    return orjson.dumps(value).decode()


class ChangeLog:
    """One user's change log."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def record(self, entry_id: int, action: str, before: dict[str, Any],
               after: dict[str, Any], who: str, note: str | None = None) -> int:  # fmt: skip
        """Log one change (caller holds the transaction); returns the change id."""
        cur = self.conn.execute(
            _INSERT,
            [self.user_id, entry_id, now_iso(), who, action, _json(before), _json(after), note],
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def record_many(self, rows: Iterable[Logged], who: str, at: str | None = None) -> None:
        """Log many changes at once, all at `at` (default now)."""
        when = at or now_iso()
        self.conn.executemany(
            _INSERT,
            [(self.user_id, entry_id, when, who, action, _json(before), _json(after), note)
             for entry_id, action, before, after, note in rows],
        )  # fmt: skip

    def of_entry(self, entry_id: int) -> list[dict[str, Any]]:
        """Every change to the entry, oldest first, before and after as dicts."""
        rows = self.conn.execute(
            "SELECT id, at, actor, action, before, after, note FROM changes "
            "WHERE user_id = ? AND entry_id = ? ORDER BY id",
            [self.user_id, entry_id],
        )
        return [
            {**dict(r), "before": orjson.loads(r["before"] or "{}"),
             "after": orjson.loads(r["after"] or "{}")}
            for r in rows
        ]  # fmt: skip

    def get(self, change_id: int) -> dict[str, Any]:
        """One change: entry_id, action and `before` (a dict)."""
        row = self.conn.execute(
            "SELECT entry_id, action, before FROM changes WHERE id = ? AND user_id = ?",
            [change_id, self.user_id],
        ).fetchone()
        if row is None:
            raise EntryNotFound(f"no change {change_id} for user {self.user_id!r}")
        before = orjson.loads(row["before"] or "{}")
        return {"entry_id": int(row["entry_id"]), "action": row["action"], "before": before}

    def fields_set(self, actions: Sequence[str]) -> dict[int, set[str]]:
        """entry id -> the fields changes of these actions set on it."""
        found: dict[int, set[str]] = {}
        for entry_id, after in self.conn.execute(
            "SELECT entry_id, after FROM changes WHERE user_id = ? "
            f"AND action IN ({marks(actions)})",
            [self.user_id, *actions],
        ):
            found.setdefault(entry_id, set()).update(orjson.loads(after or "{}"))
        return found

    def logged(self, action: str, ids: Sequence[int]) -> set[int]:
        """Which of `ids` have a change of this action."""
        found: set[int] = set()
        for chunk in chunks(ids):
            found.update(r[0] for r in self.conn.execute(
                "SELECT entry_id FROM changes WHERE user_id = ? AND action = ? "
                f"AND entry_id IN ({marks(chunk)})",
                [self.user_id, action, *chunk],
            ))  # fmt: skip
        return found

    def last_before(self, entry_id: int, action: str) -> dict[str, Any]:
        """What the entry's latest change of `action` found before it ({} if none)."""
        row = self.conn.execute(
            "SELECT before FROM changes WHERE user_id = ? AND entry_id = ? AND action = ? "
            "ORDER BY id DESC LIMIT 1",
            [self.user_id, entry_id, action],
        ).fetchone()
        return orjson.loads(row[0]) if row and row[0] else {}
