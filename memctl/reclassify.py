"""Re-classify: run the classifier again over a user's live entries (after a lexicon change),
leaving what a person decided as they decided it."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson

from memctl import changes, supersede
from memctl.classify import Classification, confidential, home, scopes
from memctl.importer.classify import classify_row
from memctl.ingest import frontmatter, markdown
from memctl.store import UserStore
from memctl.store.fields import FACT_FIELDS, RECLASSIFY_KEEPS, classified_row


def reclassify(user: UserStore, *, dry_run: bool = False) -> list[dict[str, Any]]:
    """Run the classifier again over live entries (e.g. after a lexicon change).

    Returns what changes (or would). A human decision wins: a field someone set (the status
    they approved, the layer they chose) is left as they set it; superseded and archived
    entries stay as they are. Reasons a conflict added stay while the entry is pending.
    """
    decided = user.log.fields_set(changes.HUMAN)
    planned = []
    # As at import, each file is classified as one: the relatives it introduces (and the
    # clients it declares confidential) are private wherever it names them, and a line that
    # says nothing of its realm takes the one its file or its section agrees on (scope_realms).
    by_file: dict[str | None, list[tuple[dict[str, Any], dict[str, Any] | None]]] = {}
    for entry in user.entries(["active", "pending_review"]):
        first = next(iter(user.sources(entry["id"])), None)
        by_file.setdefault(first["path"] if first else None, []).append((entry, first))
    # Then, as at import, the know-how of a home that serves the user's job takes work
    # (memctl.classify.home), from the evidence of all the home's live entries.
    settled: list[tuple[dict[str, Any], dict[str, Any] | None, Classification, str]] = []
    homes: dict[str | None, home.Evidence] = {}
    kept: list[tuple[str | None, str | None, list[home.Line]]] = []  # for later imports' votes
    texts: dict[int, str] = {}
    for path, live in by_file.items():
        relatives = confidential.people(
            [entry["content"] for entry, _ in live],
            [first["section"] if first else None for _, first in live],
            path,
        )
        found = [(entry, first, _classify(entry, first, relatives)) for entry, first in live]
        realms = scopes(
            [
                (s["section"] if s else None, e["content"], c.realm, c.realm_cued)
                for e, s, c in found
            ],
            path,
        )
        lines = []
        for (entry, first, c), (scoped, by_section) in zip(found, realms, strict=True):
            layer = _layer(first, c)
            realm = home.takes_scope(scoped, layer) or c.realm
            settled.append((entry, first, c, realm))
            lines.append(_line(entry, c, layer, realm, by_section))
            texts[entry["id"]] = entry["content"]
        lines = home.with_kin(lines)
        homes.setdefault(home.home_of(path), home.Evidence()).add(path, lines)
        kept.append((home.home_of(path), path, lines))
    to_work = home.job_lines(homes, texts)
    # And a relative one file of a home introduced is family in its other files (home.Evidence).
    family = {i for evidence in homes.values() for i in evidence.family(texts)}
    # A line private only for the people its job serves is public (home.unmarked).
    public = home.unmarked(homes)
    for entry, first, c, realm in settled:
        realm = home.WORK if entry["id"] in to_work else realm
        if entry["id"] in family:
            c = dataclasses.replace(c, audience="private")
        elif entry["id"] in public:
            c = dataclasses.replace(c, audience="public")
        planned.extend(_change(entry, first, c, realm, decided))
    if dry_run:
        return planned
    with user.store.transaction():
        # A later import's vote counts these lines as they are read now (settle_homes).
        for folder, path, lines in kept:
            learnt = homes[folder].learnt
            lines = [line._replace(says=learnt.get(line.id, line.says)) for line in lines]
            user.home_lines.put(folder, path, lines, settled=True)
        for item in planned:
            was = user.entry(item["id"])["status"]
            changes.update(user, item["id"], "classify", item["after"], who="memctl")
            fact_changed = bool({"fact_key", "fact_value"} & item["after"].keys())
            supersede.settle(user, item["id"], was, fact_changed=fact_changed, who="memctl")
    return planned


def _line(
    entry: dict[str, Any], c: Classification, layer: str, realm: str, by_section: bool
) -> home.Line:
    """An entry as its file's realms settle it, for its home (as importer.classify.settling
    and settle_realms give it at import)."""
    # As at import: whether it keeps a fact about the user, in the realm its file settled.
    fact = supersede.fact_fields(entry["content"], realm)["fact_key"] is not None
    return home.Line(
        entry["id"], entry["content"], realm, c.realm_cued, layer, c.audience, fact, by_section
    )


def _layer(first: dict[str, Any] | None, c: Classification) -> str:
    """The layer, bounded by what the record or its file said it is, as at import (the hint
    kept with the source; read from the file again for sources stored before it was)."""
    path = first["path"] if first else None
    hint = first and (first["layer_hint"] or (path and frontmatter.file_hint(path)))
    return frontmatter.apply_hint(c.layer, hint or None)


def _classify(
    entry: dict[str, Any], first: dict[str, Any] | None, relatives: frozenset[str]
) -> Classification:
    # A table row is read with its header, as at import (kept with its source).
    return classify_row(
        entry["content"], first["header"] if first else None, ts=entry["ts"],
        section=first["section"] if first else None, path=first["path"] if first else None,
        category=first["category"] if first else None, relatives=relatives,
        dated=first is not None and frontmatter.has(first["layer_hint"], markdown.DATED_LINE),
    )  # fmt: skip


def _change(
    entry: dict[str, Any],
    first: dict[str, Any] | None,
    c: Classification,
    realm: str,
    decided: dict[int, set[str]],
) -> list[dict[str, Any]]:
    """What re-classifying `entry` as `c` (its realm settled to `realm`) changes, if anything."""
    layer = _layer(first, c)
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
    if not diff:
        return []
    return [{"id": entry["id"], "content": entry["content"],
             "before": {k: entry.get(k) for k in diff}, "after": diff}]  # fmt: skip
