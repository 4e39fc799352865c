"""Output for pipes: read commands print whole rows when stdout is not a terminal, and
`--table` / `--csv` / `--tsv` choose a form through one helper (memctl/output.py)."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess

import pytest
from helpers import memctl_argv

LONG = "用户的部署清单：" + "先跑 make test，再看监控面板，然后通知值班同学；" * 8
MEMORY = f"- I like green tea\n- {LONG}\n- 第一行\n  第二行 continues here\n"


@pytest.fixture
def entries(tree, import_json, db_path):
    import_json(tree({"MEMORY.md": MEMORY}))
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE entries SET status = 'active', realm = 'real', layer = 'procedural', "
                     "audience = 'public'")  # fmt: skip
    conn.close()


def test_list_in_a_pipe_prints_whole_contents_unwrapped(entries, run):
    result = run("list")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "id  status  layer       realm  audience  content",
        "1   active  procedural  real   public    I like green tea",
        f"2   active  procedural  real   public    {LONG}",
        "3   active  procedural  real   public    第一行 第二行 continues here",
    ]
    assert result.stderr == "3 entries\n"


def test_list_csv_and_tsv_keep_every_value(entries, run):
    as_csv = run("list", "--csv")
    rows = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert rows[0] == ["id", "status", "layer", "realm", "audience", "content"]
    assert [r[5] for r in rows[1:]] == ["I like green tea", LONG, "第一行\n第二行 continues here"]
    as_tsv = run("list", "--tsv")
    rows = list(csv.reader(io.StringIO(as_tsv.stdout), delimiter="\t"))
    assert [r[0] for r in rows] == ["id", "1", "2", "3"]
    assert rows[2][5] == LONG


def test_table_is_shortened_for_the_eye(entries, run):
    rows = run("list", "--table").stdout
    assert LONG not in rows
    assert LONG[:20] in rows


def test_one_form_at_a_time(entries, run):
    result = run("list", "--csv", "--tsv")
    assert result.exit_code == 2
    assert "choose one of --csv / --tsv" in result.stderr


@pytest.mark.parametrize("command", [["search", "部署"], ["review", "pending"]])
def test_search_and_pending_share_the_options(entries, run, db_path, command):
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE entries SET status = 'pending_review', review_reasons = '[\"x\"]'")
    conn.close()
    result = run(*command, "--tsv")
    rows = list(csv.reader(io.StringIO(result.stdout), delimiter="\t"))
    assert LONG in [r[-1] for r in rows]


def test_real_pipe_is_not_wrapped(entries, db_path):
    """The same through a real pipe to another process, at a narrow terminal width."""
    done = subprocess.run(
        memctl_argv("list", "--db", db_path),
        capture_output=True, text=True, env={"COLUMNS": "40", "PATH": ""}, check=True,
    )  # fmt: skip
    assert f"2   active  procedural  real   public    {LONG}" in done.stdout.splitlines()
