"""memctl.store.fts: the full-text index's statements, upkeep store-wide, queries per user."""

from __future__ import annotations

from pathlib import Path

from helpers import add

from memctl.store import Store
from memctl.store.fts import ACTIVE, ALL, Dictionary, Index, UserIndex


def rowids(store: Store, table: str) -> set[int]:
    return {r[0] for r in store.conn.execute(f"SELECT rowid FROM {table}")}


def test_add_indexes_a_batch_and_moves_upto(store: Store) -> None:
    active = add(store, "部署一")
    pending = add(store, "部署二", status="pending_review")
    index = Index(store)
    assert index.upto() == 0
    rows = index.unindexed(0, 10)
    assert rows == [(active, "部署一"), (pending, "部署二")]
    with store.transaction():
        index.add(0, [(active, "部署 一"), (pending, "部署 二")])
    assert index.upto() == pending
    assert index.unindexed(index.upto(), 10) == []
    assert rowids(store, ALL) == {active, pending}
    assert rowids(store, ACTIVE) == {active}


def test_clear_empties_both_tables_and_records_the_scheme(store: Store) -> None:
    entry = add(store, "部署一")
    index = Index(store)
    with store.transaction():
        index.add(0, [(entry, "部署")])
        index.clear("test-scheme/1")
    assert (index.upto(), index.scheme()) == (0, "test-scheme/1")
    assert rowids(store, ALL) == rowids(store, ACTIVE) == set()


def test_a_user_index_sees_its_own_entries_only(store: Store) -> None:
    mine = add(store, "部署流程", layer="procedural")
    theirs = add(store, "部署流程 bob", user="bob", layer="procedural")
    with store.transaction():
        Index(store).add(0, [(mine, "部署 流程"), (theirs, "部署 流程 bob")])
    alice = UserIndex(store.for_user("alice"))
    bob = UserIndex(store.for_user("bob"))
    assert [r["id"] for r in alice.search('"部署"', {}, 10)] == [mine]
    assert [r["id"] for r in bob.search('"部署"', {}, 10, active_only=True)] == [theirs]
    assert alice.search('"部署"', {"layer": ("profile",)}, 10) == []


def test_a_written_dictionary_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "dict.sqlite"
    Dictionary.write(str(path), {"北": 5, "北京": 9, "北京烤": 0}, 14)
    saved = Dictionary.open(path)
    assert (saved.total, saved.longest) == (14, 3)
    assert saved.frequencies(["北京", "北京烤", "南京"]) == {"北京": 9, "北京烤": 0}
