"""`memctl export`: every entry of one user, with its provenance, as one JSON document.

Shape: {"version": 1, "exportedAt": <ms>, "user": ..., "memories": [...]} — KinetAios's export
shape plus memctl's fields, so `memctl import` of the file restores the same entries.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from memctl.store import UserStore
from memctl.store.fields import SOURCE_EXPORT

EXPORT_VERSION = 1


def memories(store: UserStore, statuses: Sequence[str] = ()) -> Iterator[dict[str, Any]]:
    for entry in store.entries(statuses):
        entry["sources"] = [{k: s[k] for k in SOURCE_EXPORT} for s in store.sources(entry["id"])]
        entry["supersedes"] = [
            {"old_id": s["old_id"], "reason": s["reason"]} for s in store.supersedes(entry["id"])
        ]
        yield entry


def export_document(store: UserStore, statuses: Sequence[str] = ()) -> bytes:
    doc = {
        "version": EXPORT_VERSION,
        "exportedAt": int(time.time() * 1000),
        "user": store.user_id,
        "memories": list(memories(store, statuses)),
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
