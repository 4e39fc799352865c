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

from memctl.errors import EntryNotFound, UsageError
from memctl.store import UserStore, now_iso

_EDITABLE = {
    "content", "norm_hash", "status", "realm", "layer", "audience", "importance",
    "emotional_weight", "expires_at", "confidence", "review_reasons", "merged_into",
    "fact_key", "fact_value", "fact_certain", "ts",
}  # fmt: skip
# One entry's part of a bulk update: (entry_id, {field: new value}, note).
Update = tuple[int, dict[str, Any], str | None]


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


def update_many(
    user: UserStore,
    action: str,
    updates: Sequence[Update],
    *,
    who: str | None = None,
    at: str | None = None,
) -> int:
    """`update` for many of this user's entries at once: (entry_id, values, note) each.

    The fields before are read, the entries updated and the changes logged a few statements per
    500 entries (executemany), so archiving tens of thousands costs no round trip each.
    `at` (default now) is both the entries' updated_at and the changes' time. Caller holds the
    transaction; an id that is not this user's raises EntryNotFound (roll the transaction back).
    """
    by_fields: dict[tuple[str, ...], list[Update]] = {}
    for item in updates:
        by_fields.setdefault(tuple(item[1]), []).append(item)
    at, who = at or now_iso(), who or actor()
    for fields, items in by_fields.items():
        bad = set(fields) - _EDITABLE
        if bad:
            raise UsageError(f"cannot change {sorted(bad)[0]}")
        columns = ", ".join(("id", *fields))
        before = {r[0]: dict(zip(fields, r[1:], strict=True))
                  for r in user.entries_by_id(columns, [i for i, _, _ in items])}  # fmt: skip
        missing = next((i for i, _, _ in items if i not in before), None)
        if missing is not None:
            raise EntryNotFound(f"no entry {missing} for user {user.user_id!r}")
        sets = ", ".join(f"{k} = ?" for k in fields)
        user.conn.executemany(
            f"UPDATE entries SET {sets}, updated_at = ? WHERE id = ? AND user_id = ?",
            [(*values.values(), at, i, user.user_id) for i, values, _ in items],
        )
        user.conn.executemany(
            "INSERT INTO changes (user_id, entry_id, at, actor, action, before, after, note) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(user.user_id, i, at, who, action, orjson.dumps(before[i]).decode(),
              orjson.dumps(values).decode(), note) for i, values, note in items],
        )  # fmt: skip
    return len(updates)


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
