"""The fields of an entry and of a source, each list declared once.

Export writes them, restore reads them back, edit and review check them, the store writes
them; a new column is added here and nowhere else. `classified_row` is the one place an
entry's fields are taken from a classification (import and re-classify).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES

if TYPE_CHECKING:
    from memctl.classify import Classification

# An entry's fields an export carries beside its id and content, and a restore takes back.
EXPORT_FIELDS = (
    "realm", "layer", "status", "audience", "importance", "emotional_weight", "expires_at",
    "confidence", "ts", "created_at", "updated_at", "last_used_at", "decayed_at",
    "review_reasons", "fact_key", "fact_value", "fact_certain",
)  # fmt: skip
RESTORABLE = frozenset(EXPORT_FIELDS)

# What the logged update may change (memctl.changes): never the id, the user or the times the
# store keeps itself.
EDITABLE = frozenset({
    "content", "norm_hash", "status", "realm", "layer", "audience", "importance",
    "emotional_weight", "expires_at", "confidence", "review_reasons", "merged_into",
    "fact_key", "fact_value", "fact_certain", "ts",
})  # fmt: skip

# What a person may set by hand (`memctl edit`, `review edit`): its allowed values, or the
# type its value is converted to (floats in [0, 1]).
HAND_EDITABLE: dict[str, Sequence[str] | type] = {
    "status": STATUSES, "layer": LAYERS, "realm": REALMS, "audience": AUDIENCES,
    "importance": float, "emotional_weight": float, "confidence": float, "expires_at": str,
}  # fmt: skip

# The fact an entry states: derived from its text, never chosen by a person.
FACT_FIELDS = frozenset({"fact_key", "fact_value", "fact_certain"})


class SourceRow(NamedTuple):
    """A `sources` row after user_id, in the order the store's insert binds it (a tuple
    keeps executemany fast)."""

    entry_id: int
    path: str
    line: int
    format: str
    session_id: str | None
    message_id: str | None
    role: str | None
    ts: str | None
    section: str | None
    raw_hash: str
    run_id: int | None
    merge_layer: str
    merge_score: float | None
    created_at: str
    category: str | None
    layer_hint: str | None
    header: str | None  # a table row's column names (Record.header)


SOURCE_COLUMNS: tuple[str, ...] = SourceRow._fields
# What `show` and review list of a source (its entry is known from the context).
SOURCE_FIELDS = SOURCE_COLUMNS[1:]
# What an export keeps of a source: not the run or the time of this database's import.
SOURCE_EXPORT = tuple(k for k in SOURCE_FIELDS if k not in ("run_id", "created_at"))
# The exported source fields that are text (a restore takes each only if it is a string).
SOURCE_TEXT = tuple(k for k in SOURCE_EXPORT if k not in ("path", "line", "merge_score"))

# What the classifier decides about an entry that re-classifying leaves as it is: importance
# is lowered by use and decay once stored, and the weights are those the entry was born with.
RECLASSIFY_KEEPS = frozenset({"importance", "emotional_weight", "confidence"})


def classified_row(
    c: Classification,
    *,
    realm: str | None = None,
    layer: str | None = None,
    status: str | None = None,
    reasons: Sequence[str] | None = None,
) -> dict[str, Any]:
    """An entry's fields from its classification; `realm`, `layer`, `status` and `reasons`
    replace the classifier's when the caller settled them otherwise (the file's realm, the
    front matter's layer, a conflict still waiting)."""
    why = list(c.reasons if reasons is None else reasons)
    return {
        "realm": c.realm if realm is None else realm,
        "layer": c.layer if layer is None else layer,
        "audience": c.audience,
        "importance": c.importance,
        "emotional_weight": c.emotional_weight,
        "confidence": c.confidence,
        "expires_at": c.expires_at,
        "status": c.status if status is None else status,
        "review_reasons": orjson.dumps(why).decode() if why else None,
    }
