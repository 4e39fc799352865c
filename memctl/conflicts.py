"""Supersede chains: when a fact changes, the older entry is superseded, never deleted.

An entry whose text states a clear fact (memctl.classify.facts: subject, predicate, value)
carries `fact_key`/`fact_value`. A different value under the same key for the same user means
the fact changed: the entry with the later time (the record's own `ts`, else when it was
imported; ties go to the later entry) stays, the other becomes `superseded`, and the pair is
kept in `supersedes` with the reason. A hedged new value ("可能要搬去…") does not supersede: it
waits in review instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from memctl import changes
from memctl.store import UserStore

LIVE = ("active", "pending_review")


def _when(entry: dict[str, Any]) -> tuple[str, int]:
    return (str(entry["ts"] or entry["created_at"] or ""), int(entry["id"]))


def resolve(user: UserStore, entry_ids: Iterable[int], who: str = "memctl") -> dict[str, int]:
    """Check each entry's fact against the user's other live entries; returns counts."""
    counts = {"superseded": 0, "review": 0}
    for entry_id in entry_ids:
        entry = dict(
            user.conn.execute(
                "SELECT id, fact_key, fact_value, fact_certain, ts, created_at, status "
                "FROM entries WHERE id = ? AND user_id = ?",
                [entry_id, user.user_id],
            ).fetchone()
            or {}
        )
        if not entry.get("fact_key") or entry["status"] not in LIVE:
            continue
        rivals = user.conn.execute(
            "SELECT id, fact_key, fact_value, fact_certain, ts, created_at, status FROM entries "
            f"WHERE user_id = ? AND fact_key = ? AND id <> ? AND status IN {LIVE} "
            "AND merged_into IS NULL",
            [user.user_id, entry["fact_key"], entry_id],
        ).fetchall()
        for rival in map(dict, rivals):
            if rival["fact_value"] == entry["fact_value"]:
                continue
            newer, older = (entry, rival) if _when(entry) > _when(rival) else (rival, entry)
            predicate = str(entry["fact_key"]).split("|")[1]
            if not newer["fact_certain"]:
                reason = (
                    f"uncertain change of {predicate}: "
                    f"'{older['fact_value']}' (#{older['id']}) → '{newer['fact_value']}'"
                )
                _hold_for_review(user, newer["id"], reason, who)
                counts["review"] += 1
                continue
            reason = f"{predicate}: '{older['fact_value']}' → '{newer['fact_value']}'"
            user.add_supersede(newer["id"], older["id"], reason, newer["ts"])
            changes.update(user, older["id"], "supersede", {"status": "superseded"}, who=who,
                           note=f"superseded by #{newer['id']}: {reason}")  # fmt: skip
            counts["superseded"] += 1
            if older is entry:
                break  # this entry is out; its other rivals are judged against the newer one
    return counts


def _hold_for_review(user: UserStore, entry_id: int, reason: str, who: str) -> None:
    row = user.conn.execute(
        "SELECT review_reasons FROM entries WHERE id = ? AND user_id = ?", [entry_id, user.user_id]
    ).fetchone()
    reasons = orjson.loads(row[0]) if row and row[0] else []
    if reason not in reasons:
        values = {"status": "pending_review", "review_reasons": _json([*reasons, reason])}
        changes.update(user, entry_id, "review", values, who=who, note=reason)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()
