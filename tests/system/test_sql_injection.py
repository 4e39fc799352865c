"""SQL- and FTS-looking user names and text through every command, every filter: stored
verbatim, tenants kept apart, the schema intact."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from helpers import integrity

# -- SQL-looking names and text through every command --------------------------------------

SQL_USERS = ["'; DROP TABLE entries; --", "' OR '1'='1", "%", "_", 'x" OR 1=1 --', "u; PRAGMA"]
SQL_TEXT = [
    "'; DROP TABLE entries; --",
    "Robert'); DROP TABLE sources;--",
    "x' OR '1'='1",
    "100% sure_thing",
    '"quoted" AND NOT OR NEAR(a b) *',
    "SELECT * FROM entries WHERE 1=1; --",
    "我住在 '; DELETE FROM supersedes; --",
]
QUERIES = [*SQL_TEXT, '"', "*", "NEAR(a b)", "AND OR NOT", "^", "content:foo", "(", "%", "_"]


def _tables(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite%'")
        return sorted(r[0] for r in rows)  # sqlite_stat1 comes with the first consolidation
    finally:
        conn.close()


@pytest.mark.slow
def test_sql_looking_users_and_text_through_every_command(
    run: Run, db_path: Path, tmp_path: Path
) -> None:
    root = tmp_path / "in"
    (root / "a_%").mkdir(parents=True)
    (root / "abc").mkdir()
    (root / "a_%" / "MEMORY.md").write_text("".join(f"- {t}\n" for t in SQL_TEXT))
    (root / "abc" / "MEMORY.md").write_text("- not under the percent folder\n")
    chat = root / "a_%" / "chat.jsonl"
    chat.write_text(
        "".join(
            json.dumps({"role": "user", "content": f"remember: {t}"}, ensure_ascii=False) + "\n"
            for t in SQL_TEXT
        )
    )
    pipeline = tmp_path / "p.toml"
    pipeline.write_text('[[steps]]\nrun = "consolidate"\n')
    assert run("import", root / "abc", "--user", "bystander").exit_code == 0
    schema = _tables(db_path)

    for user in SQL_USERS:
        result = run("import", root, "--user", user, "--json")
        assert result.exit_code == 0, result.output
        assert orjson.loads(result.stdout)["added"] == len(SQL_TEXT) + 1
        entries = orjson.loads(run("list", "--json", "--user", user).stdout)
        ids = {e["content"]: e["id"] for e in entries}
        assert set(SQL_TEXT) <= set(ids)  # verbatim
        some = ids[SQL_TEXT[0]]
        commands: list[list[Any]] = [
            ["list"],
            ["list", "--nl"],
            ["list", "--status", "active", "--layer", "profile"],
            ["list", "--realm", "real", "--audience", "public", "--limit", "2"],
            ["show", some],
            ["show", some, "--json"],
            ["history", some, "--json"],
            ["export"],
            ["review", "pending", "--json"],
            ["status", "--json"],
            ["dedupe", "--dry-run", "--json"],
            ["dedupe"],
            ["classify", "--dry-run"],
            ["classify"],
            ["edit", some, "--content", f"{SQL_TEXT[1]} (edited)"],
            ["edit", some, "--importance", "0.3", "--audience", "private"],
            ["review", "reject", some],
            ["review", "approve", some],
            ["review", "edit", some, "--content", SQL_TEXT[0]],
            ["delete", ids[SQL_TEXT[2]]],
            ["consolidate"],
            ["run", pipeline],
            *(["search", q, "--json"] for q in QUERIES),
            *(["context", "--channel", "private", "--query", q, "--json"] for q in QUERIES[:8]),
        ]
        for args in commands:
            result = run(*args) if args == ["consolidate"] else run(*args, "--user", user)
            assert result.exit_code == 0, (user, args, result.output)
            assert "Traceback" not in result.output
        # The last decision undone: the text it replaced is back.
        last = orjson.loads(run("history", some, "--json", "--user", user).stdout)["changes"][-1]
        assert run("review", "undo", last["id"], "--user", user).exit_code == 0
        shown = orjson.loads(run("show", some, "--json", "--user", user).stdout)
        assert shown["content"] == f"{SQL_TEXT[1]} (edited)"
        # The filter on a folder named with LIKE wildcards matches that folder only.
        under = orjson.loads(run("list", "--json", "--user", user, "--source", root / "a_%").stdout)
        assert "not under the percent folder" not in {e["content"] for e in under}
        assert len(under) == len(SQL_TEXT)

    assert _tables(db_path) == schema
    assert integrity(db_path) == ("ok", [])
    conn = sqlite3.connect(db_path)
    try:
        users = {r[0] for r in conn.execute("SELECT DISTINCT user_id FROM entries")}
        per_user = dict(conn.execute("SELECT user_id, count(*) FROM entries GROUP BY user_id"))
    finally:
        conn.close()
    assert users == {*SQL_USERS, "bystander"}
    assert per_user["bystander"] == 1
    # Each name sees its own entries only: "%", "_" and "' OR '1'='1" match nothing else.
    seen: set[int] = set()
    for user in SQL_USERS:
        shown = {e["id"] for e in orjson.loads(run("list", "--json", "--user", user).stdout)}
        assert len(shown) == per_user[user] == len(SQL_TEXT) + 1
        assert not shown & seen
        seen |= shown
