"""`memctl search`: FTS5 over jieba-segmented text, every status by default, one user only."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from conftest import Run
from helpers import add
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl import search
from memctl.store import Store


@pytest.fixture
def made(store: Store) -> dict[str, int]:
    return {
        "deploy": add(store, "上周五我们讨论了部署流程，决定改用蓝绿发布", layer="episodic"),
        "deploy_old": add(store, "旧的部署流程：手动拷贝文件", layer="procedural",
                          status="superseded"),
        "deploy_pending": add(store, "也许部署要加审批", status="pending_review"),
        "deploy_archived": add(store, "部署脚本放在 ops 仓库", layer="procedural",
                               status="archived"),
        "coffee": add(store, "喜欢拿铁，不加糖", layer="profile"),
        "english": add(store, "Deploy the payment service with make release", layer="procedural"),
        "bob": add(store, "bob 的部署流程", user="bob", layer="procedural"),
    }  # fmt: skip


def found(run: Run, *args: Any, user: str = "alice") -> list[int]:
    result = run("search", *args, "--user", user, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return [row["id"] for row in orjson.loads(result.stdout)]


def test_every_status_by_default(run: Run, made: dict[str, int]) -> None:
    assert set(found(run, "部署")) == {
        made["deploy"], made["deploy_old"], made["deploy_pending"], made["deploy_archived"],
    }  # fmt: skip


def test_status_and_layer_filters(run: Run, made: dict[str, int]) -> None:
    assert found(run, "部署", "--status", "active") == [made["deploy"]]
    assert set(found(run, "部署", "-s", "superseded", "-s", "archived")) == {
        made["deploy_old"], made["deploy_archived"],
    }  # fmt: skip
    assert set(found(run, "部署", "--layer", "procedural")) == {
        made["deploy_old"], made["deploy_archived"],
    }  # fmt: skip
    assert found(run, "部署", "--layer", "procedural", "--status", "archived") == [
        made["deploy_archived"]
    ]


def test_bad_filters_are_usage_errors(run: Run, made: dict[str, int]) -> None:
    for option, value in (("--status", "gone"), ("--layer", "dreams")):
        result = run("search", "部署", option, value)
        assert result.exit_code == 2
        assert repr(value) in result.stderr


def test_chinese_is_segmented_with_jieba(run: Run, made: dict[str, int]) -> None:
    # Words inside a sentence with no spaces, and the parts of a compound word.
    assert found(run, "蓝绿发布") == [made["deploy"]]
    assert found(run, "拿铁") == [made["coffee"]]
    assert found(run, "流程", "-s", "active") == [made["deploy"]]
    assert found(run, "量子纠缠") == []


def test_english_is_case_insensitive(run: Run, made: dict[str, int]) -> None:
    assert found(run, "PAYMENT service") == [made["english"]]


def test_best_match_first(run: Run, store: Store) -> None:
    once = add(store, "部署 一次")
    thrice = add(store, "部署 部署 部署")
    assert found(run, "部署") == [thrice, once]


def test_another_users_entries_are_never_returned(run: Run, made: dict[str, int]) -> None:
    assert made["bob"] not in found(run, "bob 部署流程")
    assert found(run, "部署流程", user="bob") == [made["bob"]]
    assert found(run, "部署", user="carol") == []


@pytest.mark.parametrize(
    "query",
    ['"', '""', "'", "*", "部署*", "NEAR", "NEAR(部署 流程)", "(", ")", "((部署",
     "'; DROP TABLE entries; --",
     "a AND", "OR", "NOT 部署", "body:部署", "^部署", "-部署", "+", "{部署 流程}", "\\", "%", "_",
     "\x00", "   ", ""],
)  # fmt: skip
def test_fts_syntax_in_the_query_never_errors(
    run: Run, made: dict[str, int], store: Store, query: str
) -> None:
    result = run("search", "--json", "--user", "alice", "--", query)
    assert result.exit_code == 0, result.output
    ids = [row["id"] for row in orjson.loads(result.stdout)]
    # Only entries that really contain one of the query's words; and the syntax around a word
    # does not hide it ("部署*", "NOT 部署", "{部署 流程}": each finds the deploy entries).
    deploy = {made["deploy"], made["deploy_old"], made["deploy_pending"], made["deploy_archived"]}
    assert set(ids) <= deploy | {made["english"]}
    assert set(ids) >= (deploy if "部署" in query else set())
    assert store.conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 7


def test_syntax_characters_are_dropped_not_interpreted(run: Run, made: dict[str, int]) -> None:
    assert found(run, "NOT 部署", "-s", "active") == [made["deploy"]]  # NOT is a word here
    assert set(found(run, '"部署" OR "拿铁"', "-s", "active")) == {made["deploy"], made["coffee"]}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=40))
def test_any_text_is_a_safe_query(store: Store, query: str) -> None:
    entry = add(store, "部署流程 deploy")
    add(store, "部署流程 deploy", user="bob")  # same text, another user: never found
    search.sync(store)
    alice = store.for_user("alice")
    assert {row["id"] for row in search.search(alice, query)} <= {entry}
    # Whatever the text holds, it does not stop a word of the entry beside it from matching.
    assert [row["id"] for row in search.search(alice, f"{query} deploy")] == [entry]


def test_json_rows_are_entries_with_a_score(run: Run, made: dict[str, int]) -> None:
    result = run("search", "拿铁", "--user", "alice", "--json")
    [row] = orjson.loads(result.stdout)
    assert row["id"] == made["coffee"] and row["content"] == "喜欢拿铁，不加糖"
    assert row["status"] == "active" and row["layer"] == "profile"
    assert "user_id" not in row
    assert isinstance(row["score"], float) and row["score"] < 0  # bm25: lower is better


def test_human_output(run: Run, made: dict[str, int]) -> None:
    result = run("search", "拿铁", "--user", "alice")
    assert result.exit_code == 0
    assert "喜欢拿铁，不加糖" in result.stdout
    assert result.stderr == "1 results\n"


def test_segmentation_does_not_depend_on_context(run: Run, store: Store) -> None:
    # With jieba's HMM, "拿铁要燕麦奶" became one unknown word "拿铁要", so "拿铁" missed it.
    entry = add(store, "拿铁要燕麦奶")
    assert found(run, "拿铁") == [entry]


def test_an_index_built_by_another_segmenter_is_rebuilt(run: Run, store: Store) -> None:
    entry = add(store, "喜欢拿铁")
    assert found(run, "拿铁") == [entry]
    with store.transaction():
        store.conn.execute("UPDATE entries_fts SET body = 'stale' WHERE rowid = ?", [entry])
        store.conn.execute("UPDATE meta SET value = 'old' WHERE key = 'fts_scheme'")
    assert found(run, "拿铁") == [entry]
    assert found(run, "stale") == []


def test_a_bounded_sync_never_starts_a_rebuild(store: Store) -> None:
    entry = add(store, "喜欢拿铁")
    search.sync(store)
    store.conn.execute("UPDATE meta SET value = 'old' WHERE key = 'fts_scheme'")
    add(store, "喜欢美式")
    assert search.sync(store, limit=100) == 0
    assert fts_ids(store, search.ALL) == {entry}
    assert search.sync(store) == 2


def test_the_index_follows_new_entries(run: Run, store: Store) -> None:
    assert found(run, "拿铁") == []
    first = add(store, "喜欢拿铁")
    assert found(run, "拿铁") == [first]
    second = add(store, "拿铁要燕麦奶")
    assert set(found(run, "拿铁")) == {first, second}
    assert store.conn.execute("SELECT value FROM meta WHERE key = 'fts_upto'").fetchone()[0] == (
        str(second)
    )


def test_reindex_after_an_edit(store: Store) -> None:
    entry = add(store, "喜欢拿铁")
    search.sync(store)
    with store.transaction():
        store.conn.execute("UPDATE entries SET content = '喜欢美式' WHERE id = ?", [entry])
        search.reindex(store, entry, "喜欢美式")
    user = store.for_user("alice")
    assert [r["id"] for r in search.search(user, "美式")] == [entry]
    assert search.search(user, "拿铁") == []


def fts_ids(store: Store, table: str) -> set[int]:
    return {r[0] for r in store.conn.execute(f"SELECT rowid FROM {table}")}


def test_the_active_index_follows_status_changes(store: Store) -> None:
    active = add(store, "部署一")
    pending = add(store, "部署二", status="pending_review")
    archived = add(store, "部署三", status="archived")
    search.sync(store)
    assert fts_ids(store, search.ALL) == {active, pending, archived}
    assert fts_ids(store, search.ACTIVE) == {active}
    with store.transaction():
        store.conn.execute("UPDATE entries SET status = 'active' WHERE id = ?", [pending])
        store.conn.execute("UPDATE entries SET status = 'archived' WHERE id = ?", [active])
        store.conn.execute("UPDATE entries SET importance = 0.9 WHERE id = ?", [pending])
    assert fts_ids(store, search.ACTIVE) == {pending}
    user = store.for_user("alice")
    assert [r["id"] for r in search.search(user, "部署", statuses=("active",))] == [pending]
    with store.transaction():
        store.conn.execute("UPDATE entries SET content = '上线二' WHERE id = ?", [pending])
        search.reindex(store, pending, "上线二")
    assert [r["id"] for r in search.search(user, "上线", statuses=("active",))] == [pending]
    assert search.search(user, "部署", statuses=("active",)) == []
    with store.transaction():
        store.conn.execute("DELETE FROM entries WHERE id IN (?, ?)", [pending, archived])
    assert fts_ids(store, search.ALL) == {active}
    assert fts_ids(store, search.ACTIVE) == set()


def test_entries_changed_before_they_are_indexed(store: Store) -> None:
    entry = add(store, "部署流程")
    with store.transaction():
        store.conn.execute("UPDATE entries SET status = 'archived' WHERE id = ?", [entry])
    search.sync(store)
    assert fts_ids(store, search.ACTIVE) == set()
    with store.transaction():
        store.conn.execute("UPDATE entries SET status = 'active' WHERE id = ?", [entry])
    assert fts_ids(store, search.ACTIVE) == {entry}


def test_search_on_its_own_indexes_what_was_added_since(store: Store) -> None:
    """The core keeps its own index current: a caller need not sync before it searches."""
    user = store.for_user("alice")
    assert search.search(user, "拿铁") == []
    entry = add(store, "喜欢拿铁")
    assert [r["id"] for r in search.search(user, "拿铁")] == [entry]
