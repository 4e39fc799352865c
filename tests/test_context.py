"""`memctl context`: budgets, token counting, channel rules, retrieval, touch, output, marker."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from helpers import add

from memctl import CONTEXT_MARKER, context, search
from memctl.context import count_tokens
from memctl.store import Store


def ids(block: dict[str, Any]) -> list[int]:
    return [e["id"] for e in block["entries"]]


def context_json(run: Run, *args: Any, user: str = "alice") -> dict[str, Any]:
    result = run("context", "--user", user, "--json", *args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    out: dict[str, Any] = orjson.loads(result.stdout)
    return out


def used_ids(out: dict[str, Any]) -> set[int]:
    return set(ids(out["fixed"])) | set(ids(out["retrieval"]))


# -- token counting --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("，。！？ …", 0),  # punctuation and spaces are free
        ("你好", 2),  # each CJK character is 1
        ("ひらがな", 4),  # kana
        ("안녕", 2),  # hangul
        ("hello", 2),  # one word is 1.3, rounded up
        ("hello world", 3),  # 2.6 -> 3
        ("one two three four five six seven eight nine ten", 13),  # 13.0 exactly
        ("don't", 3),  # a word is a run of letters/digits: don + t
        ("2025-06-01", 4),  # three numbers: 3.9 -> 4
        ("我喜欢 Rust 和 Python", 7),  # 4 CJK + ceil(2.6)
        ("- 喜欢拿铁", 4),
        (CONTEXT_MARKER, 3),  # <!-- memctl:context --> has two words
    ],
)
def test_count_tokens(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


# -- budgets ---------------------------------------------------------------------------------


def split(markdown: str, retrieval_heading: str = "## 相关记忆") -> tuple[str, str]:
    head, sep, tail = markdown.partition(retrieval_heading + "\n")
    return head, sep + tail


@pytest.fixture
def crowded(store: Store) -> Store:
    """Far more than fits: 40 long entries per fixed layer, 200 long matching retrieval ones."""
    for layer in ("boundary", "persona", "relationship", "profile"):
        for i in range(40):
            add(store, f"{layer} {i}：" + "用户非常在意这个细节并且反复强调过" * 3, layer=layer,
                importance=round(0.3 + i / 100, 2))  # fmt: skip
    for i in range(200):
        add(store, f"部署流程第{i}步：" + "先检查数据库迁移再滚动重启服务 deploy carefully " * 3,
            layer="episodic" if i % 2 else "procedural")  # fmt: skip
    return store


def test_budgets_are_hard_and_retrieval_never_eats_the_fixed_block(
    run: Run, crowded: Store
) -> None:
    with_query = context_json(run, "--channel", "work", "--query", "部署流程 deploy", "--no-touch")
    without = context_json(run, "--channel", "work", "--no-touch")

    for out in (with_query, without):
        assert out["fixed"]["budget"] == 500 and out["retrieval"]["budget"] == 700
        assert 450 <= out["fixed"]["tokens"] <= 500  # filled, never over
        assert 600 <= out["retrieval"]["tokens"] <= 700
        assert out["tokens"] == out["fixed"]["tokens"] + out["retrieval"]["tokens"]
        fixed_text, retrieval_text = split(out["markdown"])
        # Recounted from the emitted text, not trusted from the report.
        assert count_tokens(fixed_text) <= 500
        assert count_tokens(retrieval_text) <= 700
    assert with_query["retrieval"]["source"] == "search"
    assert without["retrieval"]["source"] == "recent"
    # The same fixed block whatever retrieval brings.
    assert with_query["fixed"] == without["fixed"]


def test_fixed_block_takes_the_most_important_first_in_layer_order(store: Store) -> None:
    low = add(store, "喜欢绿茶", layer="profile", importance=0.2)
    high = add(store, "对花生过敏", layer="profile", importance=0.9)
    boundary = add(store, "不要在群聊里提我的病史", layer="boundary")
    persona = add(store, "你叫小满，说话简短", layer="persona")
    relation = add(store, "我们认识三年了", layer="relationship")
    block = context.build(store.for_user("alice"), "work", touch=False)
    assert [e["id"] for e in block.fixed.entries] == [boundary, persona, relation, high, low]
    assert block.markdown() == (
        f"{CONTEXT_MARKER}\n"
        "## 边界（绝不要做）\n- 不要在群聊里提我的病史\n"
        "## 你的人设\n- 你叫小满，说话简短\n"
        "## 我们的关系\n- 我们认识三年了\n"
        "## 关于用户\n- 对花生过敏\n- 喜欢绿茶\n"
    )


def test_an_entry_too_big_for_the_budget_is_skipped_not_cut(store: Store) -> None:
    huge = add(store, "长" * 600, layer="profile", importance=0.9)
    small = add(store, "喜欢拿铁", layer="profile", importance=0.1)
    block = context.build(store.for_user("alice"), "work", touch=False)
    assert [e["id"] for e in block.fixed.entries] == [small]
    assert huge not in [e["id"] for e in block.retrieval.entries]


def test_a_small_retrieval_budget_does_not_change_the_fixed_block(crowded: Store) -> None:
    user = crowded.for_user("alice")
    normal = context.build(user, "work", query="部署", touch=False)
    tight = context.build(
        user, "work", query="部署", touch=False,
        settings=context.load_settings(overrides={"budget": {"retrieval": 30}}),
    )  # fmt: skip
    assert tight.retrieval.tokens <= 30
    assert tight.retrieval.entries == []  # no entry is that short: nothing, rather than a cut one
    assert tight.fixed.entries == normal.fixed.entries


# -- channel rules ---------------------------------------------------------------------------


@pytest.fixture
def mixed(store: Store) -> dict[str, int]:
    """One entry per rule, all mentioning 咖啡 so retrieval would find every one of them."""
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    made = {
        "public": add(store, "咖啡：喜欢拿铁", layer="profile"),
        "private": add(store, "咖啡：医生说少喝", layer="profile", audience="private"),
        "fictional": add(store, "咖啡：精灵公主只喝花蜜咖啡", layer="persona", realm="fictional"),
        "pending": add(store, "咖啡：也许喜欢美式", layer="profile", status="pending_review"),
        "superseded": add(store, "咖啡：以前喜欢摩卡", layer="profile", status="superseded"),
        "archived": add(store, "咖啡：旧的咖啡店地址", layer="profile", status="archived"),
        "expired": add(store, "咖啡：今天下午约了咖啡", layer="profile", expires_at=past),
        "merged": add(store, "咖啡：喜欢拿铁和燕麦奶", layer="profile"),
        "ep_public": add(store, "上周一起去喝咖啡", layer="episodic"),
        "ep_private": add(store, "在咖啡馆聊了离婚的事", layer="episodic", audience="private"),
        "ep_fictional": add(store, "剧情里在咖啡馆决斗", layer="episodic", realm="fictional"),
        "ep_archived": add(store, "去年的咖啡展", layer="episodic", status="archived"),
        "ep_pending": add(store, "可能去咖啡课", layer="procedural", status="pending_review"),
        "bob": add(store, "bob 的咖啡", user="bob", layer="profile"),
        "bob_ep": add(store, "bob 喝咖啡", user="bob", layer="episodic"),
    }
    store.conn.execute(
        "UPDATE entries SET merged_into = ? WHERE id = ?", [made["public"], made["merged"]]
    )
    return made


def visible(made: dict[str, int], out: dict[str, Any]) -> set[str]:
    seen = used_ids(out)
    return {name for name, i in made.items() if i in seen}


@pytest.mark.parametrize("query", [("--query", "咖啡"), ()], ids=["search", "recent"])
@pytest.mark.parametrize(
    ("channel", "expected"),
    [
        ("work", {"public", "ep_public"}),
        ("some-group", {"public", "ep_public"}),  # not configured: public, not role-play
        ("private", {"public", "private", "ep_public", "ep_private"}),
        ("dm", {"public", "private", "ep_public", "ep_private"}),
        ("roleplay", {"public", "fictional", "ep_public", "ep_fictional"}),
    ],
)
def test_channel_rules(
    run: Run, mixed: dict[str, int], channel: str, expected: set[str], query: tuple[str, ...]
) -> None:
    out = context_json(run, "--channel", channel, *query, "--no-touch")
    assert visible(mixed, out) == expected
    assert out["channel"]["name"] == channel


def test_channel_settings_come_from_config(run: Run, mixed: dict[str, int], tmp_path: Path) -> None:
    config = tmp_path / "context.toml"
    config.write_text("[channels.some-group]\nprivate = true\nroleplay = true\n")
    out = context_json(run, "--channel", "some-group", "--config", config, "--no-touch")
    assert visible(mixed, out) == {
        "public", "private", "fictional", "ep_public", "ep_private", "ep_fictional",
    }  # fmt: skip
    assert out["channel"] == {"name": "some-group", "private": True, "roleplay": True}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[budget]\nfixed = "lots"\n', "budget.fixed: expected integer, got 'lots'"),
        ("[budget]\nfixed = 1.5\n", "budget.fixed: expected integer, got 1.5"),
        ("[budget]\nfxed = 100\n", "budget.fxed: unknown setting"),
        ("[budget]\nretrieval = -1\n", "budget.retrieval: must be 0 or more, got -1"),
        ('[channels.group]\nprivate = "yes"\n',
         "channels.group.private: expected boolean, got 'yes'"),
        ("[channels.work]\nroleplay = 1\n", "channels.work.roleplay: expected boolean, got 1"),
        ("[channels.group]\nprivte = true\n", "channels.group.privte: unknown setting"),
        ("channels = 3\n", "channels: expected table, got integer"),
        ("[headings]\nprofile = 3\n", "headings.profile: expected string, got 3"),
        ("[budget\n", "invalid TOML"),
    ],
)  # fmt: skip
def test_a_bad_config_is_one_line_naming_the_key(
    run: Run, store: Store, tmp_path: Path, content: str, message: str
) -> None:
    config = tmp_path / "context.toml"
    config.write_text(content)
    result = run("context", "--channel", "work", "--config", config)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"Error: {config}: {message}")
    assert result.stderr.count("\n") == 1


def test_a_missing_config(run: Run, store: Store, tmp_path: Path) -> None:
    result = run("context", "--channel", "work", "--config", tmp_path / "nope.toml")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'nope.toml'}: No such file or directory\n"


# -- retrieval -------------------------------------------------------------------------------


@pytest.fixture
def memories(store: Store) -> dict[str, int]:
    return {
        "deploy_ep": add(store, "上周五我们讨论了部署流程，决定改用蓝绿发布", layer="episodic",
                         ts="2025-05-02"),
        "deploy_proc": add(store, "部署步骤：先跑数据库迁移，再滚动重启服务", layer="procedural",
                           ts="2025-04-01"),
        "hike": add(store, "周末和室友去香山爬山", layer="episodic", ts="2025-05-20"),
        "rotate": add(store, "To rotate the staging database password, run vault rotate staging",
                      layer="procedural", ts="2025-03-01"),
        "cat": add(store, "Alice adopted a cat named Miso", layer="episodic", ts="2025-05-25"),
        "profile": add(store, "用户的部署流程偏好：周五不发布", layer="profile"),
    }  # fmt: skip


def test_retrieval_finds_relevant_chinese_entries(run: Run, memories: dict[str, int]) -> None:
    out = context_json(run, "--channel", "work", "--query", "部署流程该怎么走？", "--no-touch")
    assert out["retrieval"]["source"] == "search"
    assert ids(out["retrieval"]) == [memories["deploy_ep"], memories["deploy_proc"]]
    assert memories["profile"] in ids(out["fixed"])  # profile is never retrieval


def test_retrieval_finds_relevant_english_entries(run: Run, memories: dict[str, int]) -> None:
    out = context_json(run, "--channel", "work", "-q", "how do I rotate the DB password?",
                       "--no-touch")  # fmt: skip
    assert out["retrieval"]["source"] == "search"
    assert ids(out["retrieval"]) == [memories["rotate"]]


def test_nothing_matches_falls_back_to_the_most_recent(
    store: Store, memories: dict[str, int]
) -> None:
    settings = context.load_settings(overrides={"budget": {"recent": 2}})
    user = store.for_user("alice")
    for query in ("量子纠缠", "xyzzy", "", "？！", None):
        block = context.build(user, "work", query=query, settings=settings, touch=False)
        assert block.retrieval_source == "recent"
        assert [e["id"] for e in block.retrieval.entries] == [memories["cat"], memories["hike"]]


def test_no_retrieval_entries_at_all(store: Store) -> None:
    add(store, "喜欢拿铁", layer="profile")
    block = context.build(store.for_user("alice"), "work", query="拿铁", touch=False)
    assert block.retrieval_source == "none"
    assert block.retrieval.entries == [] and block.retrieval.tokens == 0
    assert block.markdown() == f"{CONTEXT_MARKER}\n## 关于用户\n- 喜欢拿铁\n"


def test_context_indexes_a_bounded_number_of_new_entries(store: Store) -> None:
    # After a big import, the agent's next turn must not wait for the whole index: consolidate
    # (from cron) indexes the rest.
    made = [add(store, f"部署记录 {i}", layer="episodic") for i in range(5)]
    settings = context.load_settings(overrides={"index": {"per_call": 2}})
    block = context.build(store.for_user("alice"), "work", query="部署", settings=settings)
    assert {e["id"] for e in block.retrieval.entries} == set(made[:2])
    upto = store.conn.execute("SELECT value FROM meta WHERE key = 'fts_upto'").fetchone()[0]
    assert upto == str(made[1])


def test_a_busy_writer_does_not_hold_up_the_context(store: Store, db_path: Path) -> None:
    # An import holds the write lock for a whole file; the agent's next turn must not wait
    # for it (60 s busy timeout), only skip its bookkeeping: indexing new entries, touching.
    indexed = add(store, "部署记录一", layer="episodic")
    search.sync(store)
    fresh = add(store, "部署记录二", layer="episodic")
    writer = sqlite3.connect(db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        settings = context.load_settings(overrides={"writes": {"wait_ms": 50}})
        block = context.build(store.for_user("alice"), "work", query="部署", settings=settings)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert [e["id"] for e in block.retrieval.entries] == [indexed]  # not yet indexed: fresh
    assert fresh not in [e["id"] for e in block.retrieval.entries]
    assert (
        store.conn.execute(
            "SELECT count(*) FROM entries WHERE last_used_at IS NOT NULL"
        ).fetchone()[0]
        == 0
    )
    # Once the writer is gone, the next call does both.
    block = context.build(store.for_user("alice"), "work", query="部署")
    assert {e["id"] for e in block.retrieval.entries} == {indexed, fresh}


def test_another_users_entries_are_never_used(run: Run, mixed: dict[str, int]) -> None:
    out = context_json(run, "--channel", "private", "--query", "bob 咖啡", "--no-touch")
    assert {mixed["bob"], mixed["bob_ep"]}.isdisjoint(used_ids(out))
    bob = context_json(run, "--channel", "private", "--query", "咖啡", "--no-touch", user="bob")
    assert used_ids(bob) == {mixed["bob"], mixed["bob_ep"]}


# -- --from-session --------------------------------------------------------------------------


def transcript(path: Path, messages: list[tuple[str, str]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"role": r, "content": c}) + b"\n" for r, c in messages))
    return path


def test_query_from_session_is_the_last_user_messages(tmp_path: Path) -> None:
    path = transcript(tmp_path / "s.jsonl", [
        ("user", "第一条"), ("assistant", "好的"), ("user", "第二条"), ("user", "第三条"),
        ("assistant", "爬山的事我记得"), ("user", f"{CONTEXT_MARKER}\n## 关于用户\n- 喜欢拿铁"),
        ("user", "第四条"),
    ])  # fmt: skip
    assert context.query_from_session(path) == "第二条\n第三条\n第四条"
    assert context.query_from_session(path, messages=1) == "第四条"
    assert context.query_from_session(path, max_chars=5) == "条\n第四条"


def test_from_session_drives_retrieval(run: Run, memories: dict[str, int], tmp_path: Path) -> None:
    path = transcript(tmp_path / "s.jsonl", [
        ("user", "早上好"), ("assistant", "要不要周末去爬山？"),
        ("user", "今天要上线，部署流程是什么"),
    ])  # fmt: skip
    out = context_json(run, "--channel", "work", "--from-session", path, "--no-touch")
    assert out["query"] == "早上好\n今天要上线，部署流程是什么"
    assert ids(out["retrieval"]) == [memories["deploy_ep"], memories["deploy_proc"]]


def test_from_session_missing_file_is_one_line(run: Run, store: Store, tmp_path: Path) -> None:
    result = run("context", "--channel", "work", "--from-session", tmp_path / "nope.jsonl")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: --from-session ")
    assert result.stderr.count("\n") == 1


# -- touch -----------------------------------------------------------------------------------


def last_used(query: Callable[..., list[tuple[Any, ...]]]) -> dict[int, str | None]:
    return dict(query("SELECT id, last_used_at FROM entries"))  # type: ignore[arg-type]


def test_used_entries_are_touched(
    run: Run, memories: dict[str, int], query: Callable[..., list[tuple[Any, ...]]]
) -> None:
    before = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    out = context_json(run, "--channel", "work", "--query", "部署流程")
    used = used_ids(out)
    assert used == {memories["deploy_ep"], memories["deploy_proc"], memories["profile"]}
    stamps = last_used(query)
    assert {i for i, at in stamps.items() if at is not None} == used
    assert all(before <= stamps[i] for i in used)  # type: ignore[operator]


def test_no_touch_changes_nothing(run: Run, memories: dict[str, int], db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    snapshot = conn.execute("SELECT * FROM entries ORDER BY id").fetchall()
    context_json(run, "--channel", "work", "--query", "部署流程", "--no-touch")
    assert conn.execute("SELECT * FROM entries ORDER BY id").fetchall() == snapshot
    conn.close()


# -- output ----------------------------------------------------------------------------------


def test_markdown_output_starts_with_the_marker(run: Run, memories: dict[str, int]) -> None:
    result = run("context", "--user", "alice", "--channel", "work", "--query", "爬山")
    assert result.exit_code == 0
    assert result.stdout == (
        f"{CONTEXT_MARKER}\n## 关于用户\n- 用户的部署流程偏好：周五不发布\n"
        "## 相关记忆\n- 周末和室友去香山爬山\n"
    )
    assert result.stderr == "fixed 21/500 tokens, retrieval 14/700 (search)\n"


def test_json_shape(run: Run, memories: dict[str, int]) -> None:
    out = context_json(run, "--channel", "work", "--query", "爬山", "--no-touch")
    assert set(out) == {"channel", "query", "fixed", "retrieval", "tokens", "markdown"}
    assert out["channel"] == {"name": "work", "private": False, "roleplay": False}
    assert out["query"] == "爬山"
    assert out["fixed"] == {
        "tokens": 21, "budget": 500,
        "entries": [{"id": memories["profile"], "layer": "profile",
                     "content": "用户的部署流程偏好：周五不发布"}],
    }  # fmt: skip
    assert out["retrieval"] == {
        "tokens": 14, "budget": 700, "source": "search",
        "entries": [
            {"id": memories["hike"], "layer": "episodic", "content": "周末和室友去香山爬山"}
        ],
        "dropped": [],  # everything relevant fitted
    }  # fmt: skip
    assert out["tokens"] == 35
    assert out["markdown"].startswith(CONTEXT_MARKER + "\n")


def test_an_emitted_block_is_never_imported_back(
    run: Run, memories: dict[str, int], tmp_path: Path,
    import_json: Callable[..., dict[str, Any]],
) -> None:  # fmt: skip
    add_fact = run("context", "--user", "alice", "--channel", "work", "--no-touch")
    block = add_fact.stdout + "记住：我对花生过敏\n"
    assert block.startswith(CONTEXT_MARKER)
    # The agent's runtime pasted the block into the user's turn; the transcript kept it.
    looped = transcript(tmp_path / "looped.jsonl", [("user", block), ("assistant", "好的")])
    report = import_json(looped, "--user", "alice")
    assert report["added"] == 0
    assert report["skipped_by_reason"] == {"memctl injected context": 1, "not user-authored": 1}
    # The same text without the marker would have been kept: the guard is what stops it.
    control = transcript(
        tmp_path / "control.jsonl",
        [("user", block.replace(CONTEXT_MARKER, "")), ("assistant", "好的")],
    )
    assert import_json(control, "--user", "alice")["added"] == 1  # fmt: skip


# -- unsure layers -----------------------------------------------------------------------------


def test_an_unsure_fixed_layer_goes_to_retrieval_not_the_fixed_block(
    run: Run, store: Store, tmp_path: Path
) -> None:
    floor = context.load_settings().fixed_min_confidence
    assert 0 < floor < 1
    sure = add(store, "茶：喜欢正山小种", layer="profile", confidence=floor)
    unsure = add(store, "茶：大概是乌龙", layer="profile", confidence=floor - 0.01)
    boundary = add(store, "茶：从不推荐奶茶店", layer="boundary", confidence=0.1)
    for query in (("--query", "茶"), ()):
        out = context_json(run, "--channel", "private", *query, "--no-touch")
        assert ids(out["fixed"]) == [sure], query
        assert set(ids(out["retrieval"])) == {unsure, boundary}, query
    # The floor is a setting: at 0 every fixed-layer entry is in the fixed block again.
    config = tmp_path / "context.toml"
    config.write_text("[fixed]\nmin_confidence = 0.0\n")
    out = context_json(run, "--channel", "private", "--config", config, "--no-touch")
    assert set(ids(out["fixed"])) == {sure, unsure, boundary}
    assert ids(out["retrieval"]) == []
