"""The review queue and entry management: approve, reject, edit, delete, history, re-classify.

Every decision is a logged change (memctl.changes) — who, when, what before and after — so
each one can be explained (`memctl history ID`) and undone (`memctl review undo CHANGE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from memctl import changes, search
from memctl.classify import classify
from memctl.errors import UsageError
from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES
from memctl.normalise import norm_hash, normalise
from memctl.store import UserStore


def pending(user: UserStore) -> list[dict[str, Any]]:
    """Entries waiting for review, oldest first, with why each waits and its sources."""
    rows = []
    for entry in user.entries(["pending_review"]):
        entry["reasons"] = orjson.loads(entry["review_reasons"]) if entry["review_reasons"] else []
        entry["sources"] = user.sources(entry["id"])
        rows.append(entry)
    return rows


def approve(user: UserStore, ids: Iterable[int], who: str | None = None) -> list[int]:
    return _decide(user, ids, "approve", {"status": "active", "review_reasons": None}, who)


def reject(user: UserStore, ids: Iterable[int], who: str | None = None) -> list[int]:
    return _decide(user, ids, "reject", {"status": "archived"}, who)


def _decide(
    user: UserStore, ids: Iterable[int], action: str, values: dict[str, Any], who: str | None
) -> list[int]:
    """Apply one decision to several entries, all or none (an unknown id aborts them all)."""
    done = []
    with user.store.transaction():
        for entry_id in ids:
            done.append(changes.update(user, entry_id, action, values, who=who))
    return done


_FIELDS: dict[str, Sequence[str] | type] = {
    "status": STATUSES, "layer": LAYERS, "realm": REALMS, "audience": AUDIENCES,
    "importance": float, "emotional_weight": float, "confidence": float, "expires_at": str,
}  # fmt: skip


def edit(
    user: UserStore,
    entry_id: int,
    *,
    content: str | None = None,
    who: str | None = None,
    action: str = "edit",
    **fields: Any,
) -> int:
    """Change an entry's text and/or fields; returns the change id."""
    values: dict[str, Any] = {}
    for key, value in fields.items():
        if value is None:
            continue
        allowed = _FIELDS.get(key)
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
    with user.store.transaction():
        if content is not None:
            content = content.strip()
            if not normalise(content):
                raise UsageError("the new content is empty")
            digest = norm_hash(content)
            other = user.entry_ids_by_hash([digest]).get(digest)
            if other is not None and other != entry_id:
                raise UsageError(f"entry {other} already has this text")
            values.update(content=content, norm_hash=digest)
        if not values:
            raise UsageError("nothing to change")
        change = changes.update(user, entry_id, action, values, who=who)
        if content is not None:
            search.reindex(user.store, entry_id, content)
    return change


def delete(user: UserStore, entry_id: int, *, hard: bool = False, who: str | None = None) -> None:
    """Soft: archive (reversible). Hard: remove the entry, its sources, links and index row."""
    if not hard:
        _decide(user, [entry_id], "delete", {"status": "archived"}, who)
        return
    with user.store.transaction():
        user.entry(entry_id)  # not found for another user's id
        params = [entry_id, user.user_id]
        for sql in (
            "DELETE FROM sources WHERE entry_id = ? AND user_id = ?",
            "DELETE FROM supersedes WHERE (new_id = ?1 OR old_id = ?1) AND user_id = ?2",
            "DELETE FROM dedupe_signatures WHERE entry_id = ? AND user_id = ?",
            "UPDATE entries SET merged_into = NULL WHERE merged_into = ? AND user_id = ?",
            "DELETE FROM entries WHERE id = ? AND user_id = ?",
        ):
            user.conn.execute(sql, params)
        changes.record(user, entry_id, "hard-delete", {}, {}, who=who)


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


def reclassify(user: UserStore, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """Run the classifier again over live entries (e.g. after a lexicon change).

    Returns what changes (or would). A human decision wins: an entry someone approved,
    rejected or edited keeps its status; superseded and archived entries stay as they are.
    """
    decided = {
        r[0]
        for r in user.conn.execute(
            "SELECT DISTINCT entry_id FROM changes WHERE user_id = ? "
            "AND action IN ('approve', 'reject', 'edit', 'undo')",
            [user.user_id],
        )
    }
    planned = []
    for entry in user.entries(["active", "pending_review"]):
        first = next(iter(user.sources(entry["id"])), None)
        c = classify(
            entry["content"], ts=entry["ts"],
            section=first["section"] if first else None, path=first["path"] if first else None,
            category=first["category"] if first else None,
        )  # fmt: skip
        new = {"realm": c.realm, "layer": c.layer, "audience": c.audience,
               "expires_at": c.expires_at}  # fmt: skip
        if entry["id"] not in decided:
            new["status"] = c.status
            new["review_reasons"] = orjson.dumps(list(c.reasons)).decode() if c.reasons else None
        diff = {k: v for k, v in new.items() if entry.get(k) != v}
        if diff:
            planned.append({"id": entry["id"], "content": entry["content"],
                            "before": {k: entry.get(k) for k in diff}, "after": diff})  # fmt: skip
    if not dry_run and planned:
        with user.store.transaction():
            for item in planned:
                changes.update(user, item["id"], "classify", item["after"], who="memctl")
    return planned
