"""The consolidation steps that reuse the dedupe engine and the supersede rules."""

from __future__ import annotations

from datetime import UTC, datetime

from memctl import consolidate
from memctl.normalise import norm_hash
from memctl.store import Store


def _add(store: Store, content: str, **fields) -> int:
    row = {"content": content, "norm_hash": norm_hash(content), "realm": "real", **fields}
    with store.transaction():
        return store.for_user("alice").add_entries([row])[row["norm_hash"]]


def test_new_unsigned_entries_are_deduped_once(db_path):
    store = Store.open(db_path)
    first = _add(store, "用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖也不加奶。")
    copy = _add(store, "用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖不加奶。")
    other = _add(store, "会员卡号尾号 1037，在星巴克办的。")
    report = consolidate.consolidate(store)
    assert report.counts["dedupe"] == 1
    row = store.conn.execute("SELECT merged_into, status FROM entries WHERE id = ?", [copy])
    assert tuple(row.fetchone()) == (first, "archived")
    signed = store.conn.execute("SELECT count(*) FROM dedupe_signatures").fetchone()[0]
    assert signed == 3 and other
    assert consolidate.consolidate(store).counts["dedupe"] == 0
    store.close()


def test_facts_of_new_entries_are_rechecked(db_path):
    store = Store.open(db_path)
    old = _add(store, "我住在上海", fact_key="user|lives_in", fact_value="上海", fact_certain=1,
               ts="2026-01-01")  # fmt: skip
    new = _add(store, "我搬家了，现在住在北京", fact_key="user|lives_in", fact_value="北京",
               fact_certain=1, ts="2026-03-01")  # fmt: skip
    report = consolidate.consolidate(store, now=datetime(2026, 4, 1, tzinfo=UTC))
    assert report.counts["supersede"] == 1
    status = dict(store.conn.execute("SELECT id, status FROM entries").fetchall())
    assert (status[old], status[new]) == ("superseded", "active")
    assert consolidate.consolidate(store).counts["supersede"] == 0
    store.close()
