"""Entry management: edit an entry, delete it, show its history, undo a change.

Every change is logged (memctl.changes) — who, when, what before and after — so each one can
be explained (`memctl history ID`) and undone (`memctl review undo CHANGE`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memctl import changes, search, supersede
from memctl.classify import secrets
from memctl.errors import UsageError
from memctl.normalise import norm_hash, normalise
from memctl.store import UserStore
from memctl.store.fields import HAND_EDITABLE


def decide(
    user: UserStore, ids: Iterable[int], action: str, values: dict[str, Any], who: str | None
) -> list[int]:
    """Apply one decision to several entries, all or none (an unknown id aborts them all)."""
    done = []
    with user.store.transaction():
        for entry_id in ids:
            was = user.entry(entry_id)["status"]
            done.append(changes.update(user, entry_id, action, values, who=who))
            supersede.settle(user, entry_id, was, decided=action == "approve", who=who)
    return done


def edit(
    user: UserStore,
    entry_id: int,
    *,
    content: str | None = None,
    who: str | None = None,
    action: str = "edit",
    approve: bool = False,
    **fields: Any,
) -> int:
    """Change an entry's text and/or fields (and approve it, if asked) in one logged change."""
    values: dict[str, Any] = {}
    for key, value in fields.items():
        if value is None:
            continue
        allowed = HAND_EDITABLE.get(key)
        if allowed is None:
            raise UsageError(f"cannot edit {key}")
        if isinstance(allowed, type):
            if allowed is float and not 0.0 <= float(value) <= 1.0:
                raise UsageError(f"{key} must be between 0 and 1")
            values[key] = allowed(value)
        elif value not in allowed:
            raise UsageError(f"{key} must be one of {', '.join(allowed)}")
        else:
            values[key] = value
    if approve:
        values.update(status="active", review_reasons=None)
    with user.store.transaction():
        entry = user.entry(entry_id)
        if content is not None:
            # A credential typed into an edit is kept out of the store like an imported one.
            content = secrets.redact(content.strip())[0]
            if not normalise(content):
                raise UsageError("the new content is empty")
            digest = norm_hash(content)
            other = user.entry_ids_by_hash([digest]).get(digest)
            if other is not None and other != entry_id:
                raise UsageError(f"entry {other} already has this text")
            values.update(content=content, norm_hash=digest)
        if "content" in values or "realm" in values:
            # The fact follows the text: a corrected city must not keep the old one's chain.
            facts = supersede.fact_fields(
                values.get("content", entry["content"]), values.get("realm", entry["realm"])
            )
            values.update({k: v for k, v in facts.items() if entry[k] != v})
        values = {k: v for k, v in values.items() if entry[k] != v}
        if not values:
            raise UsageError("nothing to change")
        change = changes.update(user, entry_id, action, values, who=who)
        if content is not None:
            search.reindex(user.store, entry_id, content)
        supersede.settle(user, entry_id, entry["status"], fact_changed="fact_key" in values
                         or "fact_value" in values, decided=approve, who=who)  # fmt: skip
    return change


def delete(user: UserStore, entry_id: int, *, hard: bool = False, who: str | None = None) -> int:
    """Soft: archive (reversible). Hard: remove the entry, its sources, links and index row.
    Returns the change logged."""
    if not hard:
        return decide(user, [entry_id], "delete", {"status": "archived"}, who)[0]
    with user.store.transaction():
        user.entry(entry_id)  # not found for another user's id
        # Out of every chain first, so what it superseded is reinstated (or re-linked past it).
        user.entries.retire(entry_id)
        supersede.release(user, entry_id, who)
        user.sources.delete_of(entry_id)
        user.links.delete_of(entry_id)
        user.signatures.delete_of(entry_id)
        user.home_lines.delete_of(entry_id)
        user.entries.remove(entry_id)
        return changes.record(user, entry_id, "hard-delete", {}, {}, who=who)


def undo(user: UserStore, change_id: int, who: str | None = None) -> int:
    """Restore what a change altered (logged as a change itself); returns the entry id."""
    with user.store.transaction():
        row = user.log.get(change_id)
        entry_id, before = row["entry_id"], row["before"]
        if not before:
            raise UsageError(f"change {change_id} ({row['action']}) has nothing to undo")
        entry = user.entry(entry_id)
        if "norm_hash" in before:
            other = user.entry_ids_by_hash([before["norm_hash"]]).get(before["norm_hash"])
            if other is not None and other != entry_id:
                raise UsageError(f"entry {other} now has the text change {change_id} replaced")
        changes.update(user, entry_id, "undo", before, who=who, note=f"undo of change {change_id}")
        if "content" in before:
            search.reindex(user.store, entry_id, before["content"])
        if row["action"] == "supersede":
            # The person says this was no change of fact: the link goes, and both stay.
            supersede.unlink(user, entry_id)
        elif row["action"] == "restate":
            supersede.unrestate(user, entry_id, who)
        else:
            fact_changed = "fact_key" in before or "fact_value" in before
            supersede.settle(user, entry_id, entry["status"], fact_changed=fact_changed, who=who)
    return entry_id


def history(user: UserStore, entry_id: int) -> dict[str, Any]:
    """The entry's supersede chain (both ways, transitively) and every change to it."""
    chain: list[dict[str, Any]] = []
    seen = {entry_id}
    todo = [entry_id]
    while todo:
        current = todo.pop()
        links = [("supersedes", r["old_id"], r) for r in user.supersedes(current)]
        links += [("superseded_by", r["new_id"], r) for r in user.superseded_by(current)]
        for kind, other, row in links:
            chain.append({"entry": current, kind: other, "reason": row["reason"],
                          "at": row["created_at"]})  # fmt: skip
            if other not in seen:
                seen.add(other)
                todo.append(other)
    entries = {i: user.entry(i) for i in sorted(seen)}
    return {
        "entry": entries[entry_id],
        "chain": chain,
        "related": [
            {"id": i, "status": e["status"], "content": e["content"], "ts": e["ts"]}
            for i, e in entries.items()
            if i != entry_id
        ],
        "changes": changes.history(user, entry_id),
    }
