"""Near-duplicate merging against the store: build the engine for a user, apply its merges.

A merged-away entry is never deleted: it keeps its row (text recoverable), gets
`merged_into` = the survivor and status `archived`, and its sources are re-pointed to the
survivor with the layer and score that merged them. Entries merged into it earlier follow it.
Each merge is also a logged change, whose note says why (`memctl history ID`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from memctl import changes
from memctl.dedupe import ALL_LAYERS, DedupeConfig, Engine, Item, Merge
from memctl.store import UserStore
from memctl.store.entries import LIVE


def engine_for(
    user: UserStore, config: DedupeConfig | None = None, layers: Collection[str] = ALL_LAYERS
) -> Engine:
    """An engine holding the user's stored entries (from their signatures, not their texts)."""
    return Engine.load(user.signatures.load(), lambda ids: _texts(user, ids), config, layers)


def _texts(user: UserStore, ids: Sequence[int]) -> dict[int, str]:
    return {r[0]: r[1] for r in user.entries_by_id("id, content", ids)}


def add(user: UserStore, engine: Engine, entries: Iterable[dict[str, Any]]) -> list[Merge]:
    """Dedupe new entries (dicts with id, content, ts) and apply the merges (caller holds the
    transaction); signatures of the new entries are stored for later runs."""
    items = [Item(e["id"], e["content"], e["ts"]) for e in entries]
    if not items:
        return []
    merges = engine.add(items)
    apply(user, merges)
    user.signatures.put((i.id, engine.signature(i.id)) for i in items)
    return merges


def link_new(
    user: UserStore, born_merged: Sequence[Merge], engine: Engine, ids: Sequence[int]
) -> None:
    """Record merges of entries that were written already merged and linked to their
    survivor (the import's fast path): a change each; and store every new entry's signature."""
    changes.record_many(
        user,
        [(m.dup, f"merge:{m.layer}", {}, {"merged_into": m.into, "status": "archived"}, m.why)
         for m in born_merged],
    )  # fmt: skip
    user.signatures.put((i, engine.signature(i)) for i in ids)


def apply(user: UserStore, merges: Sequence[Merge], who: str = "memctl") -> Counter[str]:
    """Write merges to the store (caller holds the transaction); returns merges per layer."""
    per_layer: Counter[str] = Counter()
    for m in merges:
        status = next(iter(user.entries.by_id("status", [m.dup])), None)
        if status is None:
            continue
        values: dict[str, Any] = {"merged_into": m.into}
        if status[0] in LIVE:
            values["status"] = "archived"
        changes.update(user, m.dup, f"merge:{m.layer}", values, who=who, note=m.why)
        user.entries.follow_merge(m.dup, m.into)
        user.sources.merge(m.dup, m.into, m.layer, round(m.score, 4))
        per_layer[m.layer] += 1
    return per_layer


def survivors(user: UserStore, ids: Iterable[int]) -> dict[int, int]:
    """id -> the entry it now lives in (itself unless merged away)."""
    return {r[0]: r[1] or r[0] for r in user.entries_by_id("id, merged_into", ids)}


def dedupe_user(
    user: UserStore,
    config: DedupeConfig | None = None,
    layers: Collection[str] = ALL_LAYERS,
    *,
    dry_run: bool = False,
) -> dict[str, Any]:
    """`memctl dedupe`: every live entry of the user through a fresh engine; apply unless dry."""
    entries = user.entries.live_unmerged()
    engine = Engine(config, layers)
    merges = engine.add([Item(e["id"], e["content"], e["ts"]) for e in entries])
    if not dry_run:
        with user.store.transaction():
            apply(user, merges)
            user.signatures.put((e["id"], engine.signature(e["id"])) for e in entries)
    text = {e["id"]: e["content"] for e in entries}
    groups: dict[str, list[dict[str, Any]]] = {}
    for m in merges:
        groups.setdefault(m.layer, []).append(
            {"dup": m.dup, "into": m.into, "score": round(m.score, 4), "why": m.why,
             "dup_content": text.get(m.dup), "into_content": text.get(m.into)}
        )  # fmt: skip
    return {
        "dry_run": dry_run,
        "entries": len(entries),
        "merged": len(merges),
        "by_layer": {layer: len(v) for layer, v in groups.items()},
        "merges": groups,
        "stats": engine.stats(),
    }
