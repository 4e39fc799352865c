"""The change log: every decision about an entry (review, edit, delete, supersede, merge),
who made it and when, with the fields before and after — so each one can be explained and undone.
"""

from __future__ import annotations

import getpass
import os
from typing import Any

import orjson

from memctl.errors import EntryNotFound, UsageError
from memctl.store import UserStore, now_iso

_EDITABLE = {
    "content", "norm_hash", "status", "realm", "layer", "audience", "importance",
    "emotional_weight", "expires_at", "confidence", "review_reasons", "merged_into",
}  # fmt: skip


def actor() -> str:
    """Who is deciding: $MEMCTL_ACTOR, else the login name."""
    if name := os.environ.get("MEMCTL_ACTOR"):
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def record(
    user: UserStore,
    entry_id: int,
    action: str,
    before: dict[str, Any],
    after: dict[str, Any],
    *,
    who: str | None = None,
    note: str | None = None,
) -> int:
    """Log one change (caller holds the transaction); returns the change id."""
    cur = user.conn.execute(
        "INSERT INTO changes (user_id, entry_id, at, actor, action, before, after, note) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            user.user_id,
            entry_id,
            now_iso(),
            who or actor(),
            action,
            orjson.dumps(before).decode(),
            orjson.dumps(after).decode(),
            note,
        ],
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def update(
    user: UserStore,
    entry_id: int,
    action: str,
    values: dict[str, Any],
    *,
    who: str | None = None,
    note: str | None = None,
) -> int:
    """Change fields of one of this user's entries and log it (caller holds the transaction)."""
    bad = set(values) - _EDITABLE
    if bad:
        raise UsageError(f"cannot change {sorted(bad)[0]}")
    entry = user.entry(entry_id)
    before = {k: entry.get(k) for k in values}
    sets = ", ".join(f"{k} = ?" for k in values)
    user.conn.execute(
        f"UPDATE entries SET {sets}, updated_at = ? WHERE id = ? AND user_id = ?",
        [*values.values(), now_iso(), entry_id, user.user_id],
    )
    return record(user, entry_id, action, before, values, who=who, note=note)


def history(user: UserStore, entry_id: int) -> list[dict[str, Any]]:
    user.entry(entry_id)  # not found for another user's id
    rows = user.conn.execute(
        "SELECT id, at, actor, action, before, after, note FROM changes "
        "WHERE user_id = ? AND entry_id = ? ORDER BY id",
        [user.user_id, entry_id],
    )
    return [
        {
            **dict(r),
            "before": orjson.loads(r["before"] or "{}"),
            "after": orjson.loads(r["after"] or "{}"),
        }
        for r in rows
    ]


def undo(user: UserStore, change_id: int) -> int:
    """Restore the fields a change altered (itself logged as a change); returns the entry id."""
    row = user.conn.execute(
        "SELECT entry_id, action, before FROM changes WHERE id = ? AND user_id = ?",
        [change_id, user.user_id],
    ).fetchone()
    if row is None:
        raise EntryNotFound(f"no change {change_id} for user {user.user_id!r}")
    before = orjson.loads(row["before"] or "{}")
    if not before:
        raise UsageError(f"change {change_id} ({row['action']}) has nothing to undo")
    update(user, row["entry_id"], "undo", before, note=f"undo of change {change_id}")
    return int(row["entry_id"])
