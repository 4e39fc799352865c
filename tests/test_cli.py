"""`memctl list` and `memctl show`, and that every read stays inside one user's memory."""

from __future__ import annotations

import sqlite3

import orjson
import pytest
from helpers import ENTRY_FIELDS

from memctl.store import Store

SOURCE_FIELDS = [
    "path", "line", "format", "session_id", "message_id", "role", "ts", "section", "raw_hash",
    "run_id", "merge_layer", "merge_score", "created_at", "category", "layer_hint",
    "header",
]  # fmt: skip

MEMORY = (
    "- I like green tea\n- My sister lives in Lyon\n- [bold]not markup[/bold]\n- I LIKE GREEN TEA\n"
)


@pytest.fixture
def three(tree, import_json, db_path):
    """Entries 1 tea (active), 2 Lyon (archived), 3 markup-looking text (pending_review)."""
    root = tree({"MEMORY.md": MEMORY})
    import_json(root)
    conn = sqlite3.connect(db_path)
    with conn:
        # Fields pinned by hand, whatever the classifier chose, so the table is exact.
        conn.execute("UPDATE entries SET status = 'active', realm = 'unknown', layer = 'profile', "
                     "audience = 'public' WHERE id IN (1, 2)")  # fmt: skip
        conn.execute("UPDATE entries SET status = 'archived', layer = 'relationship' WHERE id = 2")
        conn.execute("UPDATE entries SET status = 'pending_review', audience = 'private', "
                     "realm = 'fictional', layer = 'profile' WHERE id = 3")  # fmt: skip
    conn.close()
    return root


def test_list_table(three, run):
    result = run("list", "--table")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "┏━━━━┳━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━┓",
        "┃ id ┃ status         ┃ layer        ┃ realm     ┃ audience ┃ content                 ┃",
        "┡━━━━╇━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━┩",
        "│ 1  │ active         │ profile      │ unknown   │ public   │ I like green tea        │",
        "│ 2  │ archived       │ relationship │ unknown   │ public   │ My sister lives in Lyon │",
        "│ 3  │ pending_review │ profile      │ fictional │ private  │ [bold]not markup[/bold] │",
        "└────┴────────────────┴──────────────┴───────────┴──────────┴─────────────────────────┘",
    ]
    assert result.stderr == "3 entries\n"


def test_list_table_shortens_long_content_to_one_line(tree, import_json, run):
    # A list item with a continuation line: one record of two lines.
    import_json(tree({"a.md": "- First line of a long paragraph\n  " + "word " * 40 + "\n"}))
    result = run("list", "--table")
    row = result.stdout.splitlines()[3]
    shown = "First line of a long paragraph " + ("word " * 40)
    assert f"│ {shown[:120]}… │" in row


def test_list_json(three, run):
    result = run("list", "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    rows = orjson.loads(result.stdout)
    assert [list(r) for r in rows] == [ENTRY_FIELDS] * 3
    assert [(r["id"], r["status"], r["content"]) for r in rows] == [
        (1, "active", "I like green tea"),
        (2, "archived", "My sister lives in Lyon"),
        (3, "pending_review", "[bold]not markup[/bold]"),
    ]


def test_list_nl_is_one_object_per_line_and_matches_json(three, run):
    nl = run("list", "--nl")
    assert nl.exit_code == 0
    lines = nl.stdout.splitlines()
    assert len(lines) == 3
    assert [orjson.loads(line) for line in lines] == orjson.loads(run("list", "--json").stdout)


@pytest.mark.parametrize(
    ("args", "ids"),
    [
        (["--status", "active"], [1]),
        (["-s", "archived", "-s", "pending_review"], [2, 3]),
        (["--status", "superseded"], []),
        (["--limit", "2"], [1, 2]),
        (["-n", "1", "--status", "archived"], [2]),
        (["--limit", "0"], []),
    ],
)
def test_list_filters(three, run, args, ids):
    result = run("list", "--json", *args)
    assert result.exit_code == 0
    assert [r["id"] for r in orjson.loads(result.stdout)] == ids


def test_list_rejects_an_unknown_status(three, run):
    result = run("list", "--status", "gone")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "'gone' is not one of active, pending_review, superseded, archived" in result.stderr


def test_read_commands_never_create_a_database(run, db_path):
    for args in (["list"], ["show", "1"], ["export"], ["status"], ["search", "x"]):
        result = run(*args)
        assert result.exit_code == 1, args
        assert result.stderr.startswith("Error: no memctl database at "), args
    assert not db_path.exists()


def test_list_of_an_empty_database(run, tmp_path):
    (tmp_path / "empty").mkdir()
    assert run("import", str(tmp_path / "empty")).exit_code == 0
    result = run("list", "--json")
    assert (result.exit_code, orjson.loads(result.stdout)) == (0, [])
    table = run("list", "--table")
    assert table.stderr == "0 entries\n"
    assert len(table.stdout.splitlines()) == 4  # header box only
    assert run("list").stdout.splitlines() == ["id  status  layer  realm  audience  content"]


def test_show_json_includes_sources(three, run):
    result = run("show", "1", "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    entry = orjson.loads(result.stdout)
    assert list(entry) == [*ENTRY_FIELDS, "sources", "supersedes", "superseded_by"]
    assert entry["content"] == "I like green tea"
    path = str(three / "MEMORY.md")
    assert [list(s) for s in entry["sources"]] == [SOURCE_FIELDS] * 2
    assert [(s["path"], s["line"], s["merge_layer"], s["merge_score"]) for s in entry["sources"]] \
        == [(path, 1, "new", None), (path, 4, "exact", 1.0)]  # fmt: skip
    assert (entry["supersedes"], entry["superseded_by"]) == ([], [])


def test_show_table(three, run):
    result = run("show", "3")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id", "3"]
    assert lines[1].split() == ["content", "[bold]not", "markup[/bold]"]
    assert "status            pending_review" in result.stdout
    assert f"│ {three / 'MEMORY.md'}:3 │ markdown │" in result.stdout
    assert "new" in lines[-2]


def test_show_never_cuts_a_value_on_a_narrow_terminal(three, run, query):
    norm_hash = query("SELECT norm_hash FROM entries WHERE id = 1")[0][0]
    result = run("show", "1", env={"COLUMNS": "60"})
    assert result.exit_code == 0
    assert "…" not in result.stdout
    # Folded over lines, but every character is there.
    squashed = "".join(ch for ch in result.stdout if ch not in " \n│┃")
    assert norm_hash in squashed


def test_show_supersede_links(three, run, db_path):
    store = Store.open(db_path)
    with store.transaction():
        store.for_user("default").add_supersede(2, 1, "moved city")
    store.close()
    assert "supersedes 1: moved city" in run("show", "2").stdout
    assert "superseded by 2: moved city" in run("show", "1").stdout
    entry = orjson.loads(run("show", "1", "--json").stdout)
    assert [(s["new_id"], s["reason"]) for s in entry["superseded_by"]] == [(2, "moved city")]


def test_show_unknown_id_is_a_one_line_error(three, run):
    result = run("show", "99")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: no entry 99 for user 'default'\n"


def test_show_needs_a_numeric_id(run):
    result = run("show", "abc")
    assert result.exit_code == 2
    assert result.stdout == ""


# -- scope: one user's memory is invisible to another --------------------------------------


@pytest.fixture
def two_users(tree, import_json):
    """alice and bob import the same file; alice also has one more entry."""
    import_json(tree({"MEMORY.md": "- I like green tea\n"}), "--user", "alice")
    import_json(tree({"MEMORY.md": "- I like green tea\n"}, name="bob"), "--user", "bob")
    import_json(tree({"more.md": "- Alice plays the cello\n"}, name="a2"), "-u", "alice")


def test_identical_text_from_two_users_makes_two_entries(two_users, query):
    assert query("SELECT id, user_id, content FROM entries ORDER BY id") == [
        (1, "alice", "I like green tea"),
        (2, "bob", "I like green tea"),
        (3, "alice", "Alice plays the cello"),
    ]
    assert query("SELECT user_id, entry_id, merge_layer FROM sources ORDER BY id") == [
        ("alice", 1, "new"),
        ("bob", 2, "new"),
        ("alice", 3, "new"),
    ]


def test_list_shows_only_the_users_own_entries(two_users, run):
    alice = orjson.loads(run("list", "--json", "--user", "alice").stdout)
    bob = orjson.loads(run("list", "--nl", "-u", "bob").stdout)
    assert [e["id"] for e in alice] == [1, 3]
    assert bob["id"] == 2
    assert orjson.loads(run("list", "--json").stdout) == []  # the default user has nothing


def test_show_of_another_users_entry_is_not_found(two_users, run):
    result = run("show", "2", "--user", "alice")
    assert result.exit_code == 1
    assert result.stderr == "Error: no entry 2 for user 'alice'\n"
    assert result.stdout == ""
    assert run("show", "2", "--user", "bob").exit_code == 0


def test_show_lists_only_the_users_own_sources(two_users, run, tmp_path):
    entry = orjson.loads(run("show", "2", "--json", "-u", "bob").stdout)
    assert [s["path"] for s in entry["sources"]] == [str(tmp_path / "bob" / "MEMORY.md")]


def test_memctl_user_environment_variable(two_users, run):
    result = run("list", "--json", env={"MEMCTL_USER": "bob"})
    assert [e["id"] for e in orjson.loads(result.stdout)] == [2]
    result = run("list", "--json", "--user", "alice", env={"MEMCTL_USER": "bob"})
    assert [e["id"] for e in orjson.loads(result.stdout)] == [1, 3]  # the option wins


def test_default_user_is_default(tree, import_json, query):
    import_json(tree({"a.md": "- mine\n"}))
    assert query("SELECT user_id FROM entries") == [("default",)]
    assert query("SELECT DISTINCT user_id FROM sources") == [("default",)]
    assert query("SELECT user_id FROM import_runs") == [("default",)]


def test_an_empty_user_is_refused(run):
    result = run("list", "--user", "")
    assert result.exit_code == 1
    assert result.stderr == "Error: a user is required for every store operation\n"
