"""Stage 6, write: the file's new entries, its sources (one per accepted record, pointing at
the entry it created or repeats) and a restored export's links.

Everything that does not wait for classification is written first, while the worker
classifies; the classified entries last, chunk by chunk as they are ready. Sources may point
at entries not written yet: keys are checked at commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from memctl import merge
from memctl.classify import injection
from memctl.dedupe import Engine, Merge
from memctl.importer import classify
from memctl.importer.accept import Accepted
from memctl.importer.batch import Batch
from memctl.importer.dedupe import EXACT_DUPLICATE
from memctl.models import Record
from memctl.parallel import Shared
from memctl.store import UserStore
from memctl.store.fields import RESTORABLE, SOURCE_TEXT, SourceRow

SOURCES_AT_ONCE = 10_000  # rows written together (all of a 200k file's at once: ~40 MB of tuples)


def unclassified(store: UserStore, batch: Batch, engine: Engine | None, ids: list[int]) -> None:
    """Entries that need no classifier (restored exports, copies merged at birth), the merge
    links of the latter, and the signatures of every new entry the engine took (`ids`)."""
    store.store.meta.defer_foreign_keys()
    store.add_entries(
        entry_row(a, batch.planned[h], batch.born_merged.get(batch.planned[h]))
        for h, a in batch.new.items()
        if a.record.format == "memctl-export" or batch.planned[h] in batch.born_merged
    )
    if ids and engine is not None:
        merge.link_new(store, list(batch.born_merged.values()), engine, ids)


def sources(
    store: UserStore, batch: Batch, seen: dict[str, int], run_id: int | None, now: str
) -> None:
    """One source per fresh record, and the provenance a restored export carried; counts what
    each record came to (added, merged at birth, exact copy)."""
    # An exact copy of an entry that was merged away belongs to that entry's survivor.
    alive = merge.survivors(store, {seen[a.norm_hash] for a in batch.fresh})
    rows: list[tuple[Any, ...]] = []  # SourceRow's fields, each row a plain tuple
    export_ids: dict[Any, int] = {}
    for a in batch.fresh:
        entry_id = alive.get(seen[a.norm_hash], seen[a.norm_hash])
        created = batch.new.get(a.norm_hash) is a
        how = batch.born_merged.get(seen[a.norm_hash]) if created else None
        if how is not None:
            batch.skipped[f"near duplicate ({how.layer})"] += 1
        elif created:
            batch.added += 1
        else:
            batch.skipped[EXACT_DUPLICATE] += 1
            if a.record.ts:  # a dated copy restates the entry's text at that time
                batch.stated.setdefault(entry_id, []).append(a.record.ts)
        if len(rows) >= SOURCES_AT_ONCE:
            store.add_sources(rows)
            rows = []
        rows.append(_source_row(a, entry_id, run_id, created, now, how))
        if a.record.fields:  # a restored export's provenance (other records have no fields)
            rows.extend(_restored_sources(a.record, entry_id, run_id, now))
            if "export_id" in a.record.fields:
                export_ids[a.record.fields["export_id"]] = entry_id
    store.add_sources(rows)
    _restore_supersedes(store, batch.fresh, export_ids)


def classified(
    store: UserStore, batch: Batch, shared: Shared[classify.Job, dict[str, Any]]
) -> list[classify.home.Line]:
    """The classified entries, chunk by chunk as the worker sends them; then the file's realm
    for the lines that name none. Returns the lines as settled, for their home."""
    todo = batch.to_classify
    realms: list[classify.Settling] = []
    for start, results in shared.results():  # those merged at birth were dropped
        chunk = todo[start : start + len(results)]
        kept = [
            (a, fields)
            for a, fields in zip(chunk, results, strict=True)
            if not batch.merged_at_birth(a) and fields is not None
        ]
        realms.extend(classify.settling(batch.planned[a.norm_hash], a.content, f) for a, f in kept)
        store.add_entries(entry_row(a, batch.planned[a.norm_hash], None, f) for a, f in kept)
    return classify.settle_realms(store, realms, batch.path)


def entry_row(
    a: Accepted, entry_id: int, merged: Merge | None, classified: dict[str, Any] | None = None
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "id": entry_id, "content": a.content, "norm_hash": a.norm_hash, "ts": a.record.ts,
    }  # fmt: skip
    if merged is not None:
        # A near copy merged away at birth: kept for its text, never used, not classified;
        # linked to its survivor as it is written (that may come later in the file: keys are
        # checked at commit).
        fields.update(status="archived", merged_into=merged.into)
        return fields
    if a.record.format == "memctl-export":
        # The entry's own ts is among the restored fields (absent when it had none); the
        # record's ts falls back to created_at, right for provenance but not for the entry.
        fields["ts"] = None
        fields.update({k: v for k, v in a.record.fields.items() if k in RESTORABLE})
        # A backup keeps what was decided, but no file makes an instruction to the model
        # active: it waits in review, as it would imported any other way.
        if fields.get("status", "active") == "active" and (flags := injection.flags(a.content)):
            fields.update(status="pending_review", review_reasons=orjson.dumps(flags).decode())
    else:
        fields.update(
            classified if classified is not None else classify.classified(classify.job(a))
        )
        fields.pop(classify.REALM_CUED)
    return fields


def _source_row(
    a: Accepted, entry_id: int, run_id: int | None, created: bool, now: str, how: Merge | None
) -> tuple[Any, ...]:
    """A SourceRow's fields (SOURCE_COLUMNS) as a plain tuple: ~0.5 µs less a record on the
    main process's path than a SourceRow (0.78 µs to make)."""
    r = a.record
    layer, score = ("new", None) if created else ("exact", 1.0)
    if how is not None:
        layer, score = how.layer, round(how.score, 4)
    return (
        entry_id, r.path, r.line, r.format, r.session_id, r.message_id, r.role, r.ts, r.section,
        a.raw_hash, run_id, layer, score, now, a.category, r.layer_hint, r.header,
    )  # fmt: skip


def _restored_sources(
    record: Record, entry_id: int, run_id: int | None, now: str
) -> Iterator[SourceRow]:
    """The provenance a memctl export carried, so a backup restore keeps where facts came from."""
    for src in record.fields.get("sources", []):
        if not isinstance(src, dict) or not isinstance(src.get("path"), str):
            continue
        line = line if type(line := src.get("line")) is int else 0
        score = src.get("merge_score")
        # Text fields are restored only when they are strings (a hand-edited export must not
        # fail the file's transaction on a binding error).
        text = {k: v if isinstance(v := src.get(k), str) else None for k in SOURCE_TEXT}
        yield SourceRow(
            entry_id, src["path"], line, text["format"] or "unknown",
            text["session_id"], text["message_id"], text["role"], text["ts"],
            text["section"], text["raw_hash"] or f"restored:{entry_id}", run_id,
            text["merge_layer"] or "restored", score if type(score) in (int, float) else None,
            now, text["category"], text["layer_hint"], text["header"],
        )  # fmt: skip


def _restore_supersedes(store: UserStore, fresh: list[Accepted], ids: dict[Any, int]) -> None:
    if not ids:  # no restored export among them
        return
    for a in fresh:
        new_id = ids.get(a.record.fields.get("export_id"))
        for link in a.record.fields.get("supersedes", []):
            old = link.get("old_id") if isinstance(link, dict) else link
            if new_id is not None and type(old) in (int, str) and old in ids:
                reason = link.get("reason", "restored") if isinstance(link, dict) else "restored"
                store.add_supersede(new_id, ids[old], str(reason))
