"""memctl/store/fields.py: each list of fields agrees with the schema, and one function turns
a classification into an entry's fields."""

from __future__ import annotations

import sqlite3

import orjson
import pytest
from helpers import ENTRY_FIELDS, add

from memctl.classify import classify
from memctl.reclassify import reclassify
from memctl.store import Store
from memctl.store import fields as f


def _columns(table: str) -> list[str]:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    Store(conn, ":memory:")
    names = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
    conn.close()
    return names


def test_the_source_columns_are_the_sources_table_and_each_smaller_list_a_part_of_it() -> None:
    assert set(f.SOURCE_COLUMNS) == set(_columns("sources")) - {"id", "user_id"}
    assert f.SOURCE_COLUMNS[1:] == f.SOURCE_FIELDS
    assert f.SOURCE_EXPORT == (
        "path", "line", "format", "session_id", "message_id", "role", "ts", "section",
        "raw_hash", "merge_layer", "merge_score", "category", "layer_hint",
        "header",
    )  # fmt: skip
    assert set(f.SOURCE_TEXT) == set(f.SOURCE_EXPORT) - {"path", "line", "merge_score"}


def test_an_export_carries_every_entry_column_but_identity_and_merge() -> None:
    kept_out = {"id", "content", "norm_hash", "merged_into"}
    assert set(f.EXPORT_FIELDS) == set(ENTRY_FIELDS) - kept_out
    assert set(ENTRY_FIELDS) >= f.EDITABLE and f.FACT_FIELDS <= f.EDITABLE
    assert set(f.HAND_EDITABLE) <= f.EDITABLE and set(f.HAND_EDITABLE).isdisjoint(f.FACT_FIELDS)


def test_classified_row_takes_the_classification_and_what_the_caller_settled() -> None:
    c = classify("我可能要搬去杭州住了", section="MEMORY > 用户偏好")
    row = f.classified_row(c)
    assert row == {
        "realm": c.realm, "layer": c.layer, "audience": c.audience,
        "importance": c.importance, "emotional_weight": c.emotional_weight,
        "confidence": c.confidence, "expires_at": c.expires_at, "status": c.status,
        "review_reasons": orjson.dumps(list(c.reasons)).decode() if c.reasons else None,
    }  # fmt: skip
    assert set(row) <= f.EDITABLE
    settled = f.classified_row(c, realm="work", layer="episodic", status="active", reasons=[])
    assert (settled["realm"], settled["layer"], settled["status"]) == ("work", "episodic", "active")
    assert settled["review_reasons"] is None
    waiting = f.classified_row(c, reasons=["conflict: x"])
    assert orjson.loads(waiting["review_reasons"]) == ["conflict: x"]


def test_reclassify_keeps_what_use_and_decay_made_of_importance(store: Store) -> None:
    entry = add(store, "我对花生过敏", importance=0.123, confidence=0.2, emotional_weight=0.9)
    reclassify(store.for_user("alice"))
    kept = store.for_user("alice").entry(entry)
    assert (kept["importance"], kept["confidence"], kept["emotional_weight"]) == pytest.approx(
        (0.123, 0.2, 0.9)
    )
