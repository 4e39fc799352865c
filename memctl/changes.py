"""The change log: every decision about an entry (review, edit, delete, supersede, merge),
who made it and when, with the fields before and after — so each one can be explained and undone
(memctl.review.undo).
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Sequence
from typing import Any

import orjson

from memctl.errors import UsageError
from memctl.store import UserStore, now_iso

_EDITABLE = {
    "content", "norm_hash", "status", "realm", "layer", "audience", "importance",
    "emotional_weight", "expires_at", "confidence", "review_reasons", "merged_into",
    "fact_key", "fact_value", "fact_certain", "ts",
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


def record_many(
    user: UserStore,
    rows: Sequence[tuple[int, str, dict[str, Any], dict[str, Any], str | None]],
    who: str = "memctl",
) -> None:
    """Log many changes at once: (entry_id, action, before, after, note) each."""
    at = now_iso()
    user.conn.executemany(
        "INSERT INTO changes (user_id, entry_id, at, actor, action, before, after, note) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (user.user_id, entry_id, at, who, action, orjson.dumps(before).decode(),
             orjson.dumps(after).decode(), note)
            for entry_id, action, before, after, note in rows
        ],
    )  # fmt: skip


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
