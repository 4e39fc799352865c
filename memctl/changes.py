"""The change log: every decision about an entry (review, edit, delete, supersede, merge),
who made it and when, with the fields before and after — so each one can be explained and undone
(memctl.manage.undo). The store writes it (memctl.store.changelog, and the entries' logged
update); this module says who decides.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Sequence
from typing import Any

from memctl.store import UserStore
from memctl.store.entries import Update

# The decisions a person makes: a field they set is theirs, and memctl's own judgments
# (re-classifying, a home's vote) leave it as they set it.
HUMAN = ("approve", "reject", "edit", "review-edit", "delete", "undo")

__all__ = ["HUMAN", "Update", "actor", "history", "record", "record_many", "update", "update_many"]


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
    return user.log.record(entry_id, action, before, after, who or actor(), note)


def record_many(
    user: UserStore,
    rows: Sequence[tuple[int, str, dict[str, Any], dict[str, Any], str | None]],
    who: str = "memctl",
) -> None:
    """Log many changes at once: (entry_id, action, before, after, note) each."""
    user.log.record_many(rows, who)


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
    return user.entries.update(entry_id, action, values, who or actor(), note)


def update_many(
    user: UserStore,
    action: str,
    updates: Sequence[Update],
    *,
    who: str | None = None,
    at: str | None = None,
) -> int:
    """`update` for many of this user's entries at once: (entry_id, values, note) each (see
    memctl.store.entries.Entries.update_many)."""
    return user.entries.update_many(action, updates, who or actor(), at)


def history(user: UserStore, entry_id: int) -> list[dict[str, Any]]:
    user.entry(entry_id)  # not found for another user's id
    return user.log.of_entry(entry_id)
