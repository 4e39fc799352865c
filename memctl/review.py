"""The review queue and entry management: approve, reject, edit, delete, history, re-classify.

Every decision is a logged change (memctl.changes) — who, when, what before and after — so
each one can be explained (`memctl history ID`) and undone (`memctl review undo CHANGE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from memctl import changes, search, supersede
from memctl.classify import Classification, classify, file_realm, secrets
from memctl.errors import EntryNotFound, UsageError
from memctl.ingest import frontmatter
from memctl.ingest.textio import iter_lines
from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES
from memctl.normalise import norm_hash, normalise
from memctl.store import UserStore


def pending(user: UserStore, reasons: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Entries waiting for review, oldest first, with why each waits and its sources;
    `reasons`: only those with a reason of these kinds (see `reason_kind`)."""
    rows = select(user, reasons=reasons)
    for entry in rows:
        entry["sources"] = user.sources(entry["id"])
    return rows


NO_REASON = "no reason given"


def reason_kind(reason: str) -> str:
    """What a review reason is about: its text up to the first ':' or ' (' — "low confidence
    (0.42)" → "low confidence", "conflict: lives_in …" → "conflict"."""
    cut = min((i for mark in (":", "：", " (") if (i := reason.find(mark)) > 0), default=None)
    return reason[:cut].strip() or NO_REASON


def _kinds(entry: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(reason_kind(r) for r in entry["reasons"])) or [NO_REASON]


def groups(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries grouped by the kind of their reasons, biggest group first: `{reason, count,
    ids}`. An entry held back for two kinds of reason is in both groups."""
    by_kind: dict[str, list[int]] = {}
    for entry in entries:
        for kind in _kinds(entry):
            by_kind.setdefault(kind, []).append(entry["id"])
    ordered = sorted(by_kind.items(), key=lambda item: (-len(item[1]), item[0]))
    return [{"reason": kind, "count": len(ids), "ids": ids} for kind, ids in ordered]


def select(
    user: UserStore,
    *,
    reasons: Sequence[str] = (),
    layers: Sequence[str] = (),
    realms: Sequence[str] = (),
    source: str | None = None,
    statuses: Sequence[str] = ("pending_review",),
) -> list[dict[str, Any]]:
    """Entries a decision by filter applies to, in id order, each with its `reasons`.
    `reasons` are kinds of reason (or whole reasons); `source` a path or a folder."""
    rows = []
    for entry in user.entries(statuses, layers=layers, realms=realms, source=source):
        entry["reasons"] = orjson.loads(entry["review_reasons"]) if entry["review_reasons"] else []
        if reasons and not any(k in reasons for k in [*_kinds(entry), *entry["reasons"]]):
            continue
        rows.append(entry)
    return rows


# Formats whose `line` is an item's position in a JSON document, not a line of the file.
_POSITIONAL = {"session-json", "chatgpt", "memctl-export", "memories-json", "json-strings"}


def source_lines(
    path: str, line: int, fmt: str, around: int = 2
) -> tuple[list[tuple[int, str]], str | None]:
    """The lines of a source file around `line` (credentials in them redacted, as in the
    store), or why there are none to show."""
    if fmt in _POSITIONAL:
        return [], None
    file = Path(path)
    if not file.is_file():
        return [], f"{path} no longer exists"
    shown: list[tuple[int, str]] = []
    try:
        for item in iter_lines(file):
            if isinstance(item, tuple):
                number, text = item
                if number > line + around:
                    break
                if number >= line - around:
                    shown.append((number, secrets.redact(text)[0]))
    except OSError as exc:
        return [], f"cannot read {path}: {exc.strerror}"
    if not any(number == line for number, _ in shown):
        return [], f"{path} has no line {line} any more (it changed since the import)"
    return shown, None


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
            was = user.entry(entry_id)["status"]
            done.append(changes.update(user, entry_id, action, values, who=who))
            supersede.settle(user, entry_id, was, decided=action == "approve", who=who)
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
    approve: bool = False,
    **fields: Any,
) -> int:
    """Change an entry's text and/or fields (and approve it, if asked) in one logged change."""
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
        return _decide(user, [entry_id], "delete", {"status": "archived"}, who)[0]
    with user.store.transaction():
        user.entry(entry_id)  # not found for another user's id
        # Out of every chain first, so what it superseded is reinstated (or re-linked past it).
        user.conn.execute(
            "UPDATE entries SET status = 'archived' WHERE id = ? AND user_id = ?",
            [entry_id, user.user_id],
        )
        supersede.release(user, entry_id, who)
        params = [entry_id, user.user_id]
        for sql in (
            "DELETE FROM sources WHERE entry_id = ? AND user_id = ?",
            "DELETE FROM supersedes WHERE (new_id = ?1 OR old_id = ?1) AND user_id = ?2",
            "DELETE FROM dedupe_signatures WHERE entry_id = ? AND user_id = ?",
            "UPDATE entries SET merged_into = NULL WHERE merged_into = ? AND user_id = ?",
            "DELETE FROM entries WHERE id = ? AND user_id = ?",
        ):
            user.conn.execute(sql, params)
        return changes.record(user, entry_id, "hard-delete", {}, {}, who=who)


def undo(user: UserStore, change_id: int, who: str | None = None) -> int:
    """Restore what a change altered (logged as a change itself); returns the entry id."""
    with user.store.transaction():
        row = user.conn.execute(
            "SELECT entry_id, action, before FROM changes WHERE id = ? AND user_id = ?",
            [change_id, user.user_id],
        ).fetchone()
        if row is None:
            raise EntryNotFound(f"no change {change_id} for user {user.user_id!r}")
        entry_id, before = int(row["entry_id"]), orjson.loads(row["before"] or "{}")
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


# Decisions a person made; the fields they set are theirs, and re-classifying leaves them be.
_HUMAN = ("approve", "reject", "edit", "review-edit", "delete", "undo")
_FACT_FIELDS = {"fact_key", "fact_value", "fact_certain"}


def reclassify(user: UserStore, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """Run the classifier again over live entries (e.g. after a lexicon change).

    Returns what changes (or would). A human decision wins: a field someone set (the status
    they approved, the layer they chose) is left as they set it; superseded and archived
    entries stay as they are. Reasons a conflict added stay while the entry is pending.
    """
    decided: dict[int, set[str]] = {}
    for entry_id, after in user.conn.execute(
        f"SELECT entry_id, after FROM changes WHERE user_id = ? "
        f"AND action IN ({','.join('?' * len(_HUMAN))})",
        [user.user_id, *_HUMAN],
    ):
        decided.setdefault(entry_id, set()).update(orjson.loads(after or "{}"))
    planned = []
    classified = []
    for entry in user.entries(["active", "pending_review"]):
        first = next(iter(user.sources(entry["id"])), None)
        c = classify(
            entry["content"], ts=entry["ts"],
            section=first["section"] if first else None, path=first["path"] if first else None,
            category=first["category"] if first else None,
        )  # fmt: skip
        classified.append((entry, first["path"] if first else None, c))
    # As at import, a line that says nothing of its realm takes the one its file agrees on.
    by_file: dict[str | None, list[Classification]] = {}
    for _, path, c in classified:
        by_file.setdefault(path, []).append(c)
    realms = {p: file_realm((c.realm, c.realm_cued) for c in cs) for p, cs in by_file.items()}
    for entry, path, c in classified:
        realm = realms[path] if not c.realm_cued and realms[path] else c.realm
        # What the source file says its records are bounds the layer, as at import.
        layer = frontmatter.apply_hint(c.layer, frontmatter.file_hint(path) if path else None)
        reasons, status = list(c.reasons), c.status
        if entry["review_reasons"]:
            kept = [r for r in orjson.loads(entry["review_reasons"])
                    if supersede.is_conflict_reason(r) and r not in reasons]  # fmt: skip
            # Two values waiting for a person to say which is current wait whatever the text.
            if status == "pending_review" or supersede.holds_back(kept):
                reasons, status = reasons + kept, "pending_review"
        new = {
            "realm": realm, "layer": layer, "audience": c.audience, "expires_at": c.expires_at,
            "status": status,
            "review_reasons": orjson.dumps(reasons).decode() if reasons else None,
            **supersede.fact_fields(entry["content"], realm),
        }  # fmt: skip
        # Facts are derived from the text, never chosen: they follow the lexicon even then.
        mine = decided.get(entry["id"], set()) - _FACT_FIELDS
        if "status" in mine:
            mine = mine | {"review_reasons"}  # they go with the status a person chose
        diff = {k: v for k, v in new.items() if k not in mine and entry.get(k) != v}
        if diff:
            planned.append({"id": entry["id"], "content": entry["content"],
                            "before": {k: entry.get(k) for k in diff}, "after": diff})  # fmt: skip
    if not dry_run and planned:
        with user.store.transaction():
            for item in planned:
                was = user.entry(item["id"])["status"]
                changes.update(user, item["id"], "classify", item["after"], who="memctl")
                fact_changed = bool({"fact_key", "fact_value"} & item["after"].keys())
                supersede.settle(user, item["id"], was, fact_changed=fact_changed, who="memctl")
    return planned
