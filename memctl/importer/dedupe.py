"""Stage 4, dedupe: L1 (a text the user already has, or a line already imported from this
path) and L2-L4 (near copies, through the engine), before anything new is written.

Near duplicates are found before the new entries are written, so one that is merged away at
birth is stored merged (text kept), its classification dropped. A restored backup is taken as
it is.
"""

from __future__ import annotations

from collections import Counter

from memctl import merge
from memctl.dedupe import Engine, Item
from memctl.importer.accept import Accepted
from memctl.importer.batch import Batch
from memctl.store import UserStore

ALREADY_IMPORTED = "already imported"
EXACT_DUPLICATE = "exact duplicate"


def exact(
    store: UserStore,
    path: str,
    accepted: list[Accepted],
    seen: dict[str, int],
    skipped: Counter[str],
) -> Batch:
    """L1: the records not imported from `path` before, and the texts among them new to the
    user (`seen`: norm_hash -> entry id, kept across the files of a run), with their ids."""
    known = store.known_sources(path)
    fresh = [a for a in accepted if (a.record.line, a.raw_hash) not in known]
    skipped[ALREADY_IMPORTED] += len(accepted) - len(fresh)
    seen.update(store.entry_ids_by_hash({a.norm_hash for a in fresh} - seen.keys()))
    new: dict[str, Accepted] = {}  # first record of each new text creates its entry
    for a in fresh:
        if a.norm_hash not in seen:
            new.setdefault(a.norm_hash, a)
    first_id = store.next_entry_id()
    planned = {h: first_id + i for i, h in enumerate(new)}
    to_classify = [a for a in new.values() if a.record.format != "memctl-export"]
    return Batch(path, fresh, new, planned, first_id, skipped, to_classify)


def near(batch: Batch, engine: Engine | None) -> list[int]:
    """L2-L4 over the new texts; returns the ids the engine now holds a signature for (no
    engine: the file has no new text to compare)."""
    items = [Item(batch.planned[a.norm_hash], a.content, a.record.ts) for a in batch.to_classify]
    batch.merges = engine.add(items) if items and engine is not None else []
    batch.born_merged = {m.dup: m for m in batch.merges if m.dup >= batch.first_id}
    return [i.id for i in items]


def replace_older(store: UserStore, batch: Batch) -> None:
    """Stored entries that a new, earlier copy replaces as canonical are merged into it."""
    merge.apply(store, [m for m in batch.merges if m.dup < batch.first_id])
