"""Re-classify: run the classifier again over a user's live entries (after a lexicon change),
leaving what a person decided as they decided it."""

from __future__ import annotations

from typing import Any

import orjson

from memctl import changes, supersede
from memctl.classify import classify, kin, scope_realms
from memctl.ingest import frontmatter
from memctl.store import UserStore
from memctl.store.fields import FACT_FIELDS, RECLASSIFY_KEEPS, classified_row

# Decisions a person made; the fields they set are theirs, and re-classifying leaves them be.
_HUMAN = ("approve", "reject", "edit", "review-edit", "delete", "undo")


def reclassify(user: UserStore, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """Run the classifier again over live entries (e.g. after a lexicon change).

    Returns what changes (or would). A human decision wins: a field someone set (the status
    they approved, the layer they chose) is left as they set it; superseded and archived
    entries stay as they are. Reasons a conflict added stay while the entry is pending.
    """
    decided = user.log.fields_set(_HUMAN)
    planned = []
    classified = []
    live = [
        (e, next(iter(user.sources(e["id"])), None))
        for e in user.entries(["active", "pending_review"])
    ]
    # As at import, the relatives a file introduces are family wherever it names them.
    texts: dict[str | None, list[str]] = {}
    for entry, first in live:
        texts.setdefault(first["path"] if first else None, []).append(entry["content"])
    relatives = {p: kin.names(ts) for p, ts in texts.items()}
    for entry, first in live:
        c = classify(
            entry["content"], ts=entry["ts"],
            section=first["section"] if first else None, path=first["path"] if first else None,
            category=first["category"] if first else None,
            relatives=relatives[first["path"] if first else None],
        )  # fmt: skip
        classified.append((entry, first, c))
    # As at import, a line that says nothing of its realm takes the one its file or its
    # section agrees on (scope_realms).
    by_file: dict[str | None, list[int]] = {}
    for n, (_, first, _) in enumerate(classified):
        by_file.setdefault(first["path"] if first else None, []).append(n)
    settled: dict[int, str | None] = {}
    for p, ns in by_file.items():
        scoped = [(classified[n][0]["content"], classified[n][1], classified[n][2]) for n in ns]
        found = scope_realms(
            [(s["section"] if s else None, text, c.realm, c.realm_cued) for text, s, c in scoped], p
        )
        settled.update(zip(ns, found, strict=True))
    for n, (entry, first, c) in enumerate(classified):
        path = first["path"] if first else None
        realm = settled[n] or c.realm
        # What the record or its file said it is bounds the layer, as at import (the hint
        # kept with the source; read from the file again for sources stored before it was).
        hint = first and (first["layer_hint"] or (path and frontmatter.file_hint(path)))
        layer = frontmatter.apply_hint(c.layer, hint or None)
        reasons, status = list(c.reasons), c.status
        if entry["review_reasons"]:
            kept = [r for r in orjson.loads(entry["review_reasons"])
                    if supersede.is_conflict_reason(r) and r not in reasons]  # fmt: skip
            # Two values waiting for a person to say which is current wait whatever the text.
            if status == "pending_review" or supersede.holds_back(kept):
                reasons, status = reasons + kept, "pending_review"
        row = classified_row(c, realm=realm, layer=layer, status=status, reasons=reasons)
        new = {k: v for k, v in row.items() if k not in RECLASSIFY_KEEPS}
        new.update(supersede.fact_fields(entry["content"], realm))
        # Facts are derived from the text, never chosen: they follow the lexicon even then.
        mine = decided.get(entry["id"], set()) - FACT_FIELDS
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
