"""The review queue: what waits for a person and why, grouped and filtered; approve, reject.

Every decision is a logged change (memctl.changes) — who, when, what before and after — so
each one can be explained (`memctl history ID`) and undone (`memctl review undo CHANGE`,
memctl.manage). Editing and deleting entries are memctl.manage, re-classifying
memctl.reclassify.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from memctl import manage
from memctl.classify import secrets
from memctl.ingest.textio import iter_lines
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
    return manage.decide(user, ids, "approve", {"status": "active", "review_reasons": None}, who)


def reject(user: UserStore, ids: Iterable[int], who: str | None = None) -> list[int]:
    return manage.decide(user, ids, "reject", {"status": "archived"}, who)
