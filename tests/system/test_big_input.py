"""Hostile input beyond tests/test_bad_input.py: sizes measured on the real process, shapes
that are valid JSON yet absurd, and SQL-looking user names and text through every command.

- A 50 MB single line, made at test time, in Markdown and in JSONL: rejected with its size,
  the lines around it kept, and the child's peak allocations (tracemalloc) no higher than
  importing a two-line file, give or take a few MiB: the line was never held whole.
- Markdown with 100k bullets: imported, every record accounted for and traced to its line.
- JSON nested deeply *inside* otherwise good items (a message's content, an export's sources):
  the item is skipped or kept, its neighbours are kept, nothing raises.
- SQL- and FTS-looking user names and text: every command, every filter; stored verbatim,
  tenants kept apart, the schema intact.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run
from corpus import EN_WORDS, ZH_WORDS
from helpers import check_report, integrity

CLI_TIMEOUT_S = 120
MIB = 1024 * 1024


# `memctl` that writes the peak of its Python allocations (tracemalloc, in bytes) from the
# start of the command on to $MEMCTL_TEST_PEAK at exit. The classifier's dictionaries are
# loaded first, as a big import does before forking its workers: they dwarf everything else
# (peak RSS is reached loading them, and would hide a 50 MB buffer freed before), and loading
# them under tracemalloc takes a quarter of a minute. Not the child's rusage either: on Linux
# it carries the forking test process's own high-water mark across exec.
_MEASURED_MEMCTL = """
import atexit, os, sys, tracemalloc

from memctl.classify import classify
from memctl.cli import main

classify("预热 warm up")
tracemalloc.start()
atexit.register(
    lambda: open(os.environ["MEMCTL_TEST_PEAK"], "w").write(str(tracemalloc.get_traced_memory()[1]))
)
sys.argv[0] = "memctl"
main()
"""


def _memctl(*args: str | Path, cwd: Path) -> tuple[int, str, str]:
    """`memctl ARGS` in a child: (exit code, stdout, stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "memctl", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,  # a hang fails the test instead of the whole run
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _measured(*args: str | Path, cwd: Path) -> tuple[int, str, str, int]:
    """Like _memctl, and the peak bytes its command allocated."""
    peak = cwd / "peak"
    peak.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURED_MEMCTL, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "MEMCTL_TEST_PEAK": str(peak)},
    )
    return proc.returncode, proc.stdout, proc.stderr, int(peak.read_text())


# -- a 50 MB line --------------------------------------------------------------------------

LINE_BYTES = 50_000_000


def _huge_markdown(path: Path) -> int:
    with path.open("wb") as f:
        f.write(b"- before the flood\n- ")
        for _ in range(LINE_BYTES // 1_000_000):
            f.write(b"x" * 1_000_000)
        f.write(b"\n- after the flood\n")
    return LINE_BYTES + 3  # "- " and the line break


def _huge_jsonl(path: Path) -> int:
    with path.open("wb") as f:
        f.write(b'{"role": "user", "content": "remember: before the flood"}\n')
        head = b'{"role": "user", "content": "remember: '
        f.write(head)
        chunk = "我".encode() * 333_333  # non-ASCII: 3 bytes a character
        for _ in range(LINE_BYTES // len(chunk)):
            f.write(chunk)
        f.write(b'"}\n{"role": "user", "content": "remember: after the flood"}\n')
        size = len(head) + (LINE_BYTES // len(chunk)) * len(chunk) + 3
    return size


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> int:
    """The peak allocations of importing a two-line file."""
    root = tmp_path_factory.mktemp("baseline")
    (root / "small.md").write_text("- before the flood\n- after the flood\n")
    code, _, err, peak = _measured("import", root / "small.md", "--db", root / "s.db", cwd=root)
    assert code == 0, err
    return peak


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "write"), [("huge.md", _huge_markdown), ("huge.jsonl", _huge_jsonl)]
)
def test_a_50_mb_line_is_rejected_in_bounded_memory(
    tmp_path: Path, baseline: int, name: str, write: Any
) -> None:
    path = tmp_path / name
    size = write(path)
    code, out, err, peak = _measured(
        "import", path, "--db", tmp_path / "h.db", "--json", cwd=tmp_path
    )
    assert (code, err) == (0, "")
    report = orjson.loads(out)
    check_report(report)
    assert report["rejected"] == [
        {"path": str(path), "line": 2, "reason": f"line too long ({size:,} bytes, limit 8 MiB)"}
    ]
    assert report["added"] == 2
    # Reading at most the 8 MiB cap (about 16 MiB with its copy), then skipping in 1 MiB
    # steps. Holding the line instead would add 50 MB to 90 MB.
    assert peak - baseline < 24 * MIB, f"peak {peak / MIB:.0f} MiB vs {baseline / MIB:.0f}"


@pytest.mark.slow
def test_a_long_utf16_line_is_rejected_and_its_neighbours_kept(tmp_path: Path) -> None:
    """UTF-16 files are read a piece at a time like UTF-8 ones: the line is over the limit."""
    path = tmp_path / "huge16.md"
    text = "- before the flood\n- " + "y" * 8_000_000 + "\n- after the flood\n"  # 16 MB
    path.write_bytes(text.encode("utf-16"))
    code, out, err = _memctl("import", path, "--db", tmp_path / "h.db", "--json", cwd=tmp_path)
    assert (code, err) == (0, "")
    report = orjson.loads(out)
    assert report["rejected"] == [
        {
            "path": str(path),
            "line": 2,
            "reason": "line too long (16,000,004 bytes, limit 8 MiB)",
        }
    ]
    assert report["added"] == 2


# -- 100k bullets --------------------------------------------------------------------------

BULLETS = 100_000


def _bullets(path: Path) -> dict[str, set[int]]:
    """100k top-level bullets of 2,000 texts (dashed and starred, CJK and English), every 1000th
    empty and every 1000th punctuation only; returns the line numbers of each kind. (Nested
    items belong to their parent item: tests/test_markdown.py.)"""
    lines = ["# Many", ""]
    kinds: dict[str, set[int]] = {"text": set(), "blank": set(), "punctuation": set()}
    for i in range(BULLETS):
        k = i % 2000
        if i % 1000 == 999:
            kind, line = "blank", "- "
        elif i % 1000 == 998:
            kind, line = "punctuation", "- !!! ..."
        elif k % 2:
            words = " ".join(EN_WORDS[(k // 26**j) % 26] for j in range(3))
            kind, line = "text", f"- {words} {ZH_WORDS[k % 50]}{ZH_WORDS[(k // 7) % 50]}"
        else:
            zh = "".join(ZH_WORDS[(k // d) % 50] for d in (1, 3, 11))
            kind, line = "text", f"* {zh}的笔记 {EN_WORDS[k % 26]}"
        lines.append(line)
        kinds[kind].add(len(lines))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return kinds


@pytest.mark.slow
def test_100k_bullets_are_imported_and_every_one_accounted_for(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    kinds = _bullets(path)
    db = tmp_path / "many.db"
    code, out, err = _memctl("import", path, "--db", db, "--json", cwd=tmp_path)
    assert (code, err) == (0, "")
    report = orjson.loads(out)
    check_report(report)
    # A bullet with nothing after its marker is no record; every other bullet is one.
    assert report["records"] == BULLETS - len(kinds["blank"])
    assert report["rejected"] == []
    assert report["skipped_by_reason"]["empty"] == len(kinds["punctuation"])
    assert 1_900 < report["added"] <= 2_000
    conn = sqlite3.connect(db)
    try:
        lines = [r[0] for r in conn.execute("SELECT line FROM sources ORDER BY line")]
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        conn.close()
    # Each text bullet is traced to its own line: a sources row, whatever entry it joined.
    assert lines == sorted(kinds["text"])
    assert entries == report["added"] + report["skipped_by_reason"].get(
        "near duplicate (jaccard)", 0
    )
    # Again: all of it known, nothing added.
    code, out, err = _memctl("import", path, "--db", db, "--json", cwd=tmp_path)
    again = orjson.loads(out)
    assert (code, again["added"], again["skipped_by_reason"]) == (
        0,
        0,
        {"already imported": len(kinds["text"]), "empty": len(kinds["punctuation"])},
    )


# -- deep JSON inside good items -----------------------------------------------------------

DEPTH = 1000  # under orjson's own limit (1024), so the parse succeeds and the readers walk it


def _deep(leaf: str = "", depth: int = DEPTH) -> str:
    return "[" * depth + leaf + "]" * depth


def test_100k_deep_json_inside_a_good_item(tmp_path: Path, run: Run) -> None:
    """Past the parser's depth limit: a .jsonl loses that line only; a .json document is one
    parse, so it is rejected whole, with the reason (test_bad_input has bare brackets)."""
    deep = _deep("1", 100_000)
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        '{"role": "user", "content": "remember: I like oat milk"}\n'
        '{"role": "user", "content": "remember: buried", "meta": ' + deep + "}\n"
        '{"role": "user", "content": "remember: the last line"}\n'
    )
    doc = tmp_path / "backup.json"
    doc.write_text(
        '{"version": 1, "exportedAt": 0, "user": "u", "memories": [{"id": 1, "content": '
        '"kept memory"}, {"id": 2, "content": "deep", "supersedes": ' + deep + "}]}"
    )
    result = run("import", chat, doc, "--json")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    reason = "invalid JSON: depth limit exceeded"
    assert report["rejected"] == [
        {"path": str(chat), "line": 2, "reason": reason},
        {"path": str(doc), "line": 1, "reason": reason},
    ]
    contents = [e["content"] for e in orjson.loads(run("list", "--json").stdout)]
    assert contents == ["I like oat milk", "the last line"]


def test_deep_json_inside_a_message_skips_only_that_message(tmp_path: Path, run: Run) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [
        '{"role": "user", "content": "remember: I like oat milk"}',
        '{"role": "user", "content": ' + _deep('"remember: buried"') + "}",
        '{"role": "user", "content": "remember: my bike is red", "meta": ' + _deep() + "}",
        '{"role": "user", "content": [{"type": "text", "text": ' + _deep('"x"') + "}]}",
        '{"role": "user", "content": "remember: the last line"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    result = run("import", path, "--json")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert (report["records"], report["added"], report["rejected"]) == (5, 3, [])
    assert report["skipped_by_reason"] == {"no text content": 2}
    contents = [e["content"] for e in orjson.loads(run("list", "--json").stdout)]
    assert contents == ["I like oat milk", "my bike is red", "the last line"]


def test_a_bare_list_with_one_deep_item_is_reported_not_guessed(tmp_path: Path, run: Run) -> None:
    """Without the `memories` key, only a list whose every item has text content is read as
    memories; otherwise the whole file is reported (not silently half read)."""
    path = tmp_path / "list.json"
    path.write_text('[{"content": "plain memory"}, {"content": ' + _deep('"deep"') + "}]")
    report = orjson.loads(run("import", path, "--json").stdout)
    assert report["unsupported"] == [
        {"path": str(path), "reason": "JSON array of objects with no memories or messages"}
    ]


@pytest.mark.parametrize(
    ("doc", "kept"),
    [
        (
            '{"messages": [{"role": "user", "content": "remember: in a session"}, '
            '{"role": "user", "content": ' + _deep('"remember: buried"') + "}]}",
            ["in a session"],
        ),
        (
            '{"version": 1, "exportedAt": 0, "user": "u", "memories": [{"id": 1, "content": '
            '"kept memory", "sources": ' + _deep() + ', "supersedes": ' + _deep("1") + "}, "
            '{"id": 2, "content": "next memory", "supersedes": [' + _deep("1") + "]}]}",
            ["kept memory", "next memory"],
        ),
        (
            '{"version": 1, "memories": [{"content": "plain memory"}, {"content": '
            + _deep('"deep"')
            + "}]}",
            ["plain memory"],
        ),
    ],
    ids=["session", "memctl-export", "memories"],
)
def test_deep_json_inside_a_document_keeps_the_rest(
    tmp_path: Path, run: Run, doc: str, kept: list[str]
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(doc)
    result = run("import", path, "--json")
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert report["added"] == len(kept)
    assert [e["content"] for e in orjson.loads(run("list", "--json").stdout)] == kept


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
