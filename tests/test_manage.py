"""Entry management end to end: `memctl list` filters, `edit`, `delete` (soft and --hard) and
`history` (the supersede chain both ways, and every change)."""

from __future__ import annotations

import json
import sqlite3

import orjson
import pytest

from memctl import cli
from memctl.normalise import norm_hash

# id: (content, status, layer, realm, audience). The dimensions are pinned with SQL after the
# import, so these tests are about the filters, not about what the classifier thinks.
KNOWN = {
    1: ("我住在上海", "active", "profile", "real", "public"),
    2: ("我对花生过敏", "active", "profile", "real", "private"),
    3: ("回答问题时请先给结论再解释", "pending_review", "procedural", "real", "public"),
    4: ("绝对不要在工作群里提我的病情", "active", "boundary", "real", "private"),
    5: ("在这个故事里，你扮演的角色是一名剑客", "active", "persona", "fictional", "public"),
    6: ("去医院复查了血压", "archived", "episodic", "real", "private"),
    7: ("叫我小王", "active", "relationship", "real", "public"),
}


@pytest.fixture
def root(tree, import_json, db_path):
    root = tree({
        "MEMORY.md": "".join(f"- {KNOWN[i][0]}\n" for i in range(1, 6)),
        "memory/2026-02-01.md": "- 去医院复查了血压\n",
        "memory-old/notes.md": "- 这一条属于 bob\n",
        "sessions/chat.jsonl": json.dumps(
            {"role": "user", "content": "记住：叫我小王", "created_at": "2026-03-01T08:00:00Z"},
            ensure_ascii=False,
        ) + "\n",
    })  # fmt: skip
    import_json(root / "MEMORY.md", root / "memory", root / "sessions")
    import_json(root / "memory-old", "--user", "bob")
    conn = sqlite3.connect(db_path)
    with conn:
        for entry_id, (content, status, layer, realm, audience) in KNOWN.items():
            cur = conn.execute(
                "UPDATE entries SET status = ?, layer = ?, realm = ?, audience = ? "
                "WHERE id = ? AND content = ? AND user_id = 'default'",
                [status, layer, realm, audience, entry_id, content],
            )
            assert cur.rowcount == 1, (entry_id, content)
    conn.close()
    return root


def listed(run, *args) -> list[int]:
    result = run("list", "--json", *args)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return [e["id"] for e in orjson.loads(result.stdout)]


def one_line_error(result, code: int, message: str) -> None:
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    assert result.stderr == f"Error: {message}\n"


def table_rows(query):
    return query("SELECT * FROM entries ORDER BY id"), query("SELECT * FROM sources ORDER BY id")


# --- list ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "ids"),
    [
        ((), [1, 2, 3, 4, 5, 6, 7]),
        (("--status", "active"), [1, 2, 4, 5, 7]),
        (("--status", "pending_review", "--status", "archived"), [3, 6]),
        (("--layer", "profile"), [1, 2]),
        (("-l", "boundary", "-l", "persona"), [4, 5]),
        (("--realm", "fictional"), [5]),
        (("--realm", "real"), [1, 2, 3, 4, 6, 7]),
        (("--audience", "private"), [2, 4, 6]),
        (("--audience", "public"), [1, 3, 5, 7]),
        # combined
        (("--status", "active", "--audience", "private"), [2, 4]),
        (("--status", "active", "--audience", "private", "--layer", "boundary"), [4]),
        (("--realm", "real", "--audience", "public", "--status", "active"), [1, 7]),
        (("--layer", "episodic", "--status", "active"), []),
        (("--limit", "2", "--audience", "private"), [2, 4]),
    ],
)
def test_list_filters(root, run, args, ids):
    assert listed(run, *args) == ids


def test_list_by_source_file_and_directory(root, run):
    assert listed(run, "--source", root / "MEMORY.md") == [1, 2, 3, 4, 5]
    assert listed(run, "--source", root / "memory") == [6]
    assert listed(run, "--source", f"{root / 'memory'}/") == [6]
    assert listed(run, "--source", root / "sessions") == [7]
    assert listed(run, "--source", root / "sessions" / "chat.jsonl") == [7]
    assert listed(run, "--source", root) == [1, 2, 3, 4, 5, 6, 7]
    # A sibling whose name merely starts the same is not under it; bob's file is not ours.
    assert listed(run, "--source", root / "mem") == []
    assert listed(run, "--source", root / "memory-old") == []
    assert listed(run, "--source", root / "nowhere") == []


def test_list_by_source_combined_and_relative(root, run, monkeypatch):
    assert listed(run, "--source", root / "MEMORY.md", "--audience", "private") == [2, 4]
    assert listed(run, "--source", root, "--status", "archived") == [6]
    monkeypatch.chdir(root)
    assert listed(run, "--source", "memory") == [6]
    assert listed(run, "--source", "./sessions/chat.jsonl") == [7]


def test_list_is_per_user(root, run):
    assert [e["content"] for e in orjson.loads(run("list", "--json", "-u", "bob").stdout)] == [
        "这一条属于 bob"
    ]
    assert listed(run, "--user", "bob", "--source", root / "MEMORY.md") == []


def test_list_table_and_nl(root, run):
    table = run("list", "--audience", "private", "--status", "active", "--table")
    assert table.exit_code == 0
    assert table.stderr == "2 entries\n"
    rows = [line for line in table.stdout.splitlines() if line.startswith("│")]
    assert [[cell.strip() for cell in row.split("│")[1:-1]] for row in rows] == [
        ["2", "active", "profile", "real", "private", "我对花生过敏"],
        ["4", "active", "boundary", "real", "private", "绝对不要在工作群里提我的病情"],
    ]
    nl = run("list", "--nl", "--realm", "fictional")
    assert [orjson.loads(line)["id"] for line in nl.stdout.splitlines()] == [5]


@pytest.mark.parametrize(
    ("option", "value"),
    [("--status", "done"), ("--layer", "facts"), ("--realm", "dream"), ("--audience", "team")],
)
def test_list_rejects_unknown_values(root, run, option, value):
    result = run("list", option, value)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert f"'{value}' is not one of" in result.stderr


# --- edit ------------------------------------------------------------------------------------


def test_edit_fields_is_logged(root, run, query):
    result = run(
        "edit", "1", "--layer", "relationship", "--audience", "private", "--importance", "0.9",
        env={"MEMCTL_ACTOR": "ed"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (change,) = query("SELECT id FROM changes WHERE action = 'edit'")[0]
    assert result.stderr == f"edited 1 (change {change})\n"
    assert query("SELECT layer, audience, importance FROM entries WHERE id = 1") == [
        ("relationship", "private", 0.9)
    ]
    ((actor, before, after),) = query("SELECT actor, before, after FROM changes WHERE id = ?",
                                      change)  # fmt: skip
    assert actor == "ed"
    assert orjson.loads(after) == {
        "layer": "relationship",
        "audience": "private",
        "importance": 0.9,
    }
    assert orjson.loads(before)["layer"] == "profile"
    assert orjson.loads(before)["audience"] == "public"


def test_edit_content_updates_hash_and_fact(root, run, query):
    result = run("edit", "1", "--content", "我住在杭州")
    assert result.exit_code == 0, result.output
    assert query("SELECT content, norm_hash, fact_key, fact_value FROM entries WHERE id = 1") == [
        ("我住在杭州", norm_hash("我住在杭州"), "user|lives_in", "杭州")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--layer", "facts"),
         "layer must be one of persona, profile, relationship, episodic, procedural, boundary"),
        (("--realm", "dream"), "realm must be one of real, fictional, work, unknown"),
        (("--audience", "team"), "audience must be one of public, private"),
        (("--status", "done"),
         "status must be one of active, pending_review, superseded, archived"),
        (("--importance", "1.5"), "importance must be between 0 and 1"),
        (("--importance", "-0.1"), "importance must be between 0 and 1"),
        (("--content", "   "), "the new content is empty"),
        ((), "nothing to change"),
        (("--layer", "profile"), "nothing to change"),
    ],
)  # fmt: skip
def test_edit_bad_values(root, run, query, args, message):
    before = table_rows(query)
    result = run("edit", "1", *args)
    one_line_error(result, 2, message)
    assert table_rows(query) == before
    assert query("SELECT count(*) FROM changes") == [(0,)]


def test_edit_importance_that_is_not_a_number(root, run):
    result = run("edit", "1", "--importance", "high")
    assert result.exit_code == 2
    assert "Invalid value for '--importance'" in result.stderr  # typer's own check


@pytest.mark.parametrize("text", ["我对花生过敏", "  我对花生过敏。 "])
def test_edit_content_colliding_with_another_entry(root, run, query, text):
    before = table_rows(query)
    result = run("edit", "1", "--content", text)
    one_line_error(result, 2, "entry 2 already has this text")
    assert table_rows(query) == before


def test_edit_unknown_or_another_users_entry(root, run, query):
    (bobs,) = query("SELECT id FROM entries WHERE user_id = 'bob'")[0]
    before = table_rows(query)
    one_line_error(run("edit", "99", "--layer", "boundary"), 1, "no entry 99 for user 'default'")
    one_line_error(
        run("edit", str(bobs), "--layer", "boundary"), 1, f"no entry {bobs} for user 'default'"
    )
    assert table_rows(query) == before


def test_edit_can_be_undone(root, run, query):
    before = query("SELECT content, norm_hash, layer, fact_value FROM entries WHERE id = 1")
    run("edit", "1", "--content", "我住在杭州", "--layer", "episodic")
    (change,) = query("SELECT id FROM changes WHERE action = 'edit'")[0]
    assert run("review", "undo", str(change)).exit_code == 0
    assert query("SELECT content, norm_hash, layer, fact_value FROM entries WHERE id = 1") == before


def test_undo_of_an_edit_whose_old_text_was_taken_since(root, run, query):
    run("edit", "1", "--content", "我住在杭州")
    (change,) = query("SELECT id FROM changes WHERE action = 'edit'")[0]
    run("edit", "7", "--content", "我住在上海")  # entry 7 now holds entry 1's old text
    before = table_rows(query)
    one_line_error(
        run("review", "undo", str(change)), 2, f"entry 7 now has the text change {change} replaced"
    )
    assert table_rows(query) == before


# --- delete ----------------------------------------------------------------------------------


def test_soft_delete_archives_and_can_be_undone(root, run, query):
    result = run("delete", "2", env={"MEMCTL_ACTOR": "dee"})
    assert (result.exit_code, result.stderr) == (0, "archived 2\n")
    assert query("SELECT status FROM entries WHERE id = 2") == [("archived",)]
    assert query("SELECT count(*) FROM sources WHERE entry_id = 2") == [(1,)]
    ((change, actor, before, after),) = query(
        "SELECT id, actor, before, after FROM changes WHERE action = 'delete'"
    )
    assert (actor, orjson.loads(before), orjson.loads(after)) == (
        "dee", {"status": "active"}, {"status": "archived"}
    )  # fmt: skip
    assert run("review", "undo", str(change)).exit_code == 0
    assert query("SELECT status FROM entries WHERE id = 2") == [("active",)]


def test_hard_delete_without_yes_or_terminal_is_refused(root, run, query):
    before = table_rows(query), query("SELECT * FROM changes")
    result = run("delete", "2", "--hard")
    one_line_error(result, 1, "not confirmed (use --yes to skip the question)")
    assert (table_rows(query), query("SELECT * FROM changes")) == before


@pytest.mark.parametrize(("answer", "gone"), [("n\n", False), ("\n", False), ("y\n", True)])
def test_hard_delete_asks_on_a_terminal(root, run, query, monkeypatch, answer, gone):
    monkeypatch.setattr(cli, "_on_terminal", lambda: True)
    result = run("delete", "2", "--hard", input=answer)
    assert "Remove entry 2 ('我对花生过敏') and its sources for good?" in result.stderr
    assert result.exit_code == (0 if gone else 1)
    assert query("SELECT count(*) FROM entries WHERE id = 2") == [(0 if gone else 1,)]


def test_hard_delete_with_yes_removes_entry_sources_and_links(tree, import_json, run, query):
    import_json(tree({"memory/2026-01-01.md": "- 我住在上海\n",
                      "memory/2026-02-01.md": "- 我搬到了杭州\n",
                      "memory/2026-03-01.md": "- 我搬到了北京\n"}))  # fmt: skip
    result = run("delete", "2", "--hard", "--yes", env={"MEMCTL_ACTOR": "dee"})
    assert (result.exit_code, result.stderr) == (0, "removed 2\n")
    assert query("SELECT id, status FROM entries ORDER BY id") == [(1, "superseded"), (3, "active")]
    assert query("SELECT entry_id FROM sources ORDER BY id") == [(1,), (3,)]
    # No link mentions the removed entry; 上海 is still known to be superseded, by 北京 now.
    assert query("SELECT new_id, old_id, reason FROM supersedes") == [
        (3, 1, "lives_in: '上海' → '北京'")
    ]
    assert query("SELECT entry_id, actor FROM changes WHERE action = 'hard-delete'") == [(2, "dee")]
    one_line_error(run("history", "2"), 1, "no entry 2 for user 'default'")
    one_line_error(run("review", "undo", str(_last_change(query))), 2,
                   f"change {_last_change(query)} (hard-delete) has nothing to undo")  # fmt: skip


def _last_change(query) -> int:
    return query("SELECT max(id) FROM changes")[0][0]


# Dated lines: the order of two values is known only from the records' own times.
DATED_MOVE = "- 2026-01-05 我住在上海\n- 2026-03-02 我搬家了，现在住在北京\n"


def test_hard_delete_of_the_current_value_brings_back_the_previous(tree, import_json, run, query):
    import_json(tree({"MEMORY.md": DATED_MOVE}))
    assert run("delete", "2", "--hard", "--yes").exit_code == 0
    assert query("SELECT id, status FROM entries") == [(1, "active")]
    assert query("SELECT count(*) FROM supersedes") == [(0,)]


def test_soft_delete_of_the_current_value_brings_back_the_previous(tree, import_json, run, query):
    import_json(tree({"MEMORY.md": DATED_MOVE}))
    assert run("delete", "2").exit_code == 0
    assert query("SELECT id, status FROM entries ORDER BY id") == [(1, "active"), (2, "archived")]
    (change,) = query("SELECT id FROM changes WHERE action = 'delete'")[0]
    assert run("review", "undo", str(change)).exit_code == 0
    assert query("SELECT id, status FROM entries ORDER BY id") == [
        (1, "superseded"),
        (2, "active"),
    ]
    assert query("SELECT new_id, old_id FROM supersedes") == [(2, 1)]


def test_delete_unknown_or_another_users_entry(root, run, query):
    (bobs,) = query("SELECT id FROM entries WHERE user_id = 'bob'")[0]
    before = table_rows(query)
    for args in (("99",), ("99", "--hard", "--yes"), (str(bobs),), (str(bobs), "--hard", "--yes")):
        result = run("delete", *args)
        one_line_error(result, 1, f"no entry {args[0]} for user 'default'")
    assert table_rows(query) == before


# --- history ---------------------------------------------------------------------------------


@pytest.fixture
def chain(tree, import_json):
    import_json(tree({"MEMORY.md": DATED_MOVE}))


def test_history_of_the_old_entry(chain, run):
    result = run("history", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "#1 superseded: 我住在上海"
    assert lines[1] == "  #1 superseded by #2: lives_in: '上海' → '北京'"
    assert lines[2] == "  #2 supersedes #1: lives_in: '上海' → '北京'"
    assert lines[3] == "  #2 (active): 我搬家了，现在住在北京"
    assert "supersede" in result.stdout and "'active' → 'superseded'" in result.stdout


def test_history_of_the_new_entry_and_its_changes(chain, run):
    run("edit", "2", "--importance", "0.8", env={"MEMCTL_ACTOR": "ed"})
    info = orjson.loads(run("history", "2", "--json").stdout)
    assert info["entry"]["id"] == 2
    assert [(c["entry"], c.get("supersedes"), c.get("superseded_by"), c["reason"])
            for c in info["chain"]] == [
        (2, 1, None, "lives_in: '上海' → '北京'"),
        (1, None, 2, "lives_in: '上海' → '北京'"),
    ]  # fmt: skip
    assert info["related"] == [
        {"id": 1, "status": "superseded", "content": "我住在上海", "ts": "2026-01-05"}
    ]
    (change,) = info["changes"]
    assert (change["actor"], change["action"], change["after"]) == (
        "ed",
        "edit",
        {"importance": 0.8},
    )
    assert change["before"].keys() == {"importance"}
    text = run("history", "2").stdout
    assert "#2 supersedes #1: lives_in: '上海' → '北京'" in text
    assert "importance:" in text and "→ 0.8" in text


def test_history_without_a_chain(root, run):
    info = orjson.loads(run("history", "4", "--json").stdout)
    assert (info["chain"], info["related"], info["changes"]) == ([], [], [])
