"""Bad input never breaks an import: good records around a bad one are kept, the bad one is
reported with path, line and reason, nothing hangs, and no input gives a traceback."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tracemalloc
from pathlib import Path

import orjson
import pytest
from conftest import Run
from helpers import memctl_argv

from memctl import importer
from memctl.store import Store, UserStore

BAD = Path(__file__).parents[2] / "fixtures" / "bad"
CLI_TIMEOUT_S = 120  # generous: only there so a hang fails the test instead of the whole run


def _contents(run, *args):
    result = run("list", "--json", *args)
    return [e["content"] for e in orjson.loads(result.stdout)]


def _memctl(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real command in a child process: the only way to prove it cannot hang or crash."""
    return subprocess.run(
        memctl_argv(*args),
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


# -- one broken line among good ones -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kept", "rejected"),
    [
        ("malformed_middle.jsonl", ["I drink oat milk", "my bike is red"],
         [(2, "invalid JSON: unexpected character, expected a JSON value")]),
        ("truncated_no_newline.jsonl", ["I work night shifts"],
         [(2, "invalid JSON: truncated line (unexpected end of data)")]),
        ("invalid_utf8.md", ["Valid line before", "Valid line after"],
         [(2, "invalid UTF-8 at byte 9")]),
        ("invalid_utf8.jsonl", ["my locker is 12", "my locker key is blue"],
         [(2, "invalid UTF-8 at byte 39")]),
        ("array_line.jsonl", ["arrays are not messages", "objects are"],
         [(2, "expected a JSON object, got an array"),
          (3, "expected a JSON object, got a string")]),
        ("not_json.json", [], [(1, "invalid JSON: invalid literal, expected 'true'")]),
    ],
)  # fmt: skip
def test_bad_lines_are_rejected_and_the_rest_imported(import_json, run, name, kept, rejected):
    path = BAD / name
    report = import_json(path)
    assert report["rejected"] == [{"path": str(path), "line": n, "reason": r} for n, r in rejected]
    assert report["added"] == len(kept)
    assert _contents(run) == kept


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("bom_utf8.md", ["First item after a BOM", "Second item"]),
        ("utf16le_bom.md", ["UTF-16 LE item", "我喜欢乌龙茶"]),
        ("utf16be_bom.md", ["UTF-16 BE item", "我喜欢普洱茶"]),
        ("crlf.md", ["CRLF item one", "CRLF item two"]),
        ("crlf.jsonl", ["CRLF line endings"]),
    ],
)
def test_encodings_and_line_endings_are_read_cleanly(import_json, run, query, name, kept):
    report = import_json(BAD / name)
    assert (report["added"], report["rejected"]) == (len(kept), [])
    assert _contents(run) == kept
    assert query(
        "SELECT count(*) FROM entries WHERE content LIKE '%' || char(13) || '%' "
        "OR content LIKE '%' || char(65279) || '%'"
    ) == [(0,)]


def test_crlf_keeps_line_numbers(import_json, query):
    import_json(BAD / "crlf.md")
    assert query("SELECT line, section FROM sources ORDER BY line") == [(2, "Notes"), (3, "Notes")]


def test_an_empty_file_is_one_file_with_no_records(import_json):
    report = import_json(BAD / "empty.md")
    assert report["by_file"] == [{"path": str(BAD / "empty.md"), "format": "-", "records": 0,
                                  "added": 0, "skipped": 0, "rejected": 0}]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("binary.png", "binary file"),
        ("nul_line.md", "binary file"),
        ("index_only.json", "JSON with no memories or messages (an index or metadata file?)"),
    ],
)
def test_unsupported_files_are_reported_not_read(import_json, name, reason):
    report = import_json(BAD / name)
    assert report["unsupported"] == [{"path": str(BAD / name), "reason": reason}]
    assert (report["files"], report["records"]) == (0, 0)


def test_a_nul_byte_line_is_rejected_when_read_as_text(import_json, run):
    report = import_json(BAD / "nul_line.md", "--format", "markdown")
    assert report["rejected"] == [
        {"path": str(BAD / "nul_line.md"), "line": 2, "reason": "NUL byte in line"}
    ]
    assert _contents(run) == ["Before the NUL", "After the NUL"]


def test_a_nul_byte_past_the_sniffed_head_only_rejects_its_line(tmp_path, import_json):
    path = tmp_path / "long.md"
    path.write_bytes(b"".join(b"- note %d\n" % i for i in range(2000)) + b"- A\x00B\n- last\n")
    report = import_json(path)
    assert report["rejected"] == [{"path": str(path), "line": 2001, "reason": "NUL byte in line"}]
    assert report["added"] == 2001


def test_sql_looking_text_and_user_names_are_stored_verbatim(import_json, run, query):
    user = "'; DROP TABLE entries; --"
    import_json(BAD / "sql_injection.md", "--user", user)
    assert _contents(run, "--user", user) == [
        "'; DROP TABLE entries; --",
        "Robert'); DROP TABLE sources;--",
    ]
    assert query("SELECT DISTINCT user_id FROM entries") == [(user,)]
    assert query("SELECT count(*) FROM sources") == [(2,)]
    shown = run("show", "1", "--user", user)
    assert shown.exit_code == 0
    assert "'; DROP TABLE entries; --" in shown.stdout


# -- sizes and shapes that could exhaust memory or the stack ---------------------------------


def test_a_9_mb_single_line_is_rejected_as_too_long(tmp_path, import_json, run):
    path = tmp_path / "huge.md"
    with path.open("wb") as f:
        f.write(b"- before\n- " + b"x" * 9_000_000 + b"\n- after\n")
    report = import_json(path)
    assert report["rejected"] == [
        {"path": str(path), "line": 2, "reason": "line too long (9,000,003 bytes, limit 8 MiB)"}
    ]
    assert _contents(run) == ["before", "after"]


@pytest.mark.parametrize("suffix", ["md", "jsonl"])
def test_reading_a_huge_line_uses_bounded_memory(tmp_path, db_path, suffix):
    path = tmp_path / f"huge.{suffix}"
    with path.open("wb") as f:
        for _ in range(40):
            f.write(b"y" * 1_000_000)  # one 40 MB line, no newline at all
    store = Store.open(db_path)
    tracemalloc.start()
    try:
        report = importer.import_paths(store.for_user("u"), [path])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        store.close()
    assert [r.reason for r in report.rejected] == ["line too long (40,000,000 bytes, limit 8 MiB)"]
    assert peak < 24 * 2**20  # the 8 MiB cap plus overhead, not the 40 MB line


def test_a_long_line_under_the_cap_is_rejected_as_too_long_a_record(tmp_path, import_json):
    path = tmp_path / "long.md"
    path.write_text("- " + "z" * 30_000 + "\n- fine\n")
    report = import_json(path)
    assert report["rejected"] == [
        {
            "path": str(path),
            "line": 1,
            "reason": "record too long (30,000 characters, limit 20,000)",
        }
    ]
    assert report["added"] == 1  # fmt: skip


@pytest.mark.parametrize(
    ("name", "content", "line"),
    [
        ("deep.json", "[" * 100_000, 1),
        ("deep_closed.json", "[" * 100_000 + "]" * 100_000, 1),
        ("deep.jsonl", '{"role":"user","content":"remember: ok"}\n' + "[" * 100_000 + "\n", 2),
        ("deep_object.jsonl", '{"a":' * 100_000 + "1" + "}" * 100_000 + "\n", 1),
    ],
)
def test_deeply_nested_json_is_rejected_without_recursion_error(
    tmp_path, run, import_json, name, content, line
):
    path = tmp_path / name
    path.write_text(content)
    report = import_json(path)
    assert report["rejected"] == [
        {"path": str(path), "line": line, "reason": "invalid JSON: depth limit exceeded"}
    ]


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


# -- things in the file system that are not plain files -------------------------------------


def test_a_fifo_in_a_directory_is_reported_and_never_opened(tmp_path, db_path):
    root = tmp_path / "in"
    root.mkdir()
    (root / "a.md").write_text("- next to a fifo\n")
    os.mkfifo(root / "pipe.md")  # opening it for reading would block forever
    result = _memctl("import", root, "--json")
    assert result.returncode == 0, result.stderr
    report = orjson.loads(result.stdout)
    assert report["unsupported"] == [
        {"path": str(root / "pipe.md"), "reason": "not a regular file"}
    ]
    assert report["added"] == 1


def test_a_fifo_given_directly_is_reported_and_never_opened(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = _memctl("import", fifo)
    assert result.returncode == 0, result.stderr
    assert f"unsupported {fifo}: not a regular file" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_symlink_loop_in_a_directory_is_not_followed(tmp_path, import_json):
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.md").write_text("- inside a looped tree\n")
    (root / "sub" / "up").symlink_to(root)  # a directory cycle
    (root / "self.md").symlink_to(root / "self.md")  # a link to itself
    report = import_json(root)
    assert [f["path"] for f in report["by_file"]] == [str(root / "sub" / "a.md")]
    assert report["unsupported"] == [
        {"path": str(root / "self.md"), "reason": "Too many levels of symbolic links"}
    ]


def test_a_dangling_symlink_is_reported(tmp_path, import_json):
    link = tmp_path / "in" / "gone.md"
    link.parent.mkdir()
    link.symlink_to(tmp_path / "nowhere.md")
    report = import_json(link.parent)
    assert report["unsupported"] == [{"path": str(link), "reason": "No such file or directory"}]


def test_a_file_name_that_is_not_utf8_is_reported_not_a_crash(tmp_path, import_json):
    root = tmp_path / "in"
    root.mkdir()
    (root / "ok.md").write_text("- a fine file\n")
    with open(os.path.join(os.fsencode(root), b"\xff\xfe.md"), "wb") as f:
        f.write(b"- in a badly named file\n")
    report = import_json(root)
    assert report["added"] == 1
    assert report["unsupported"] == [
        {"path": f"{root}/\\xff\\xfe.md", "reason": "file name is not valid UTF-8"}
    ]


# -- a memctl export edited by hand ---------------------------------------------------------


def test_bad_fields_in_an_export_reject_that_memory_only(tmp_path, import_json, run):
    doc = {"version": 1, "user": "x", "memories": [
        {"id": 1, "content": "good one", "status": "archived"},
        {"id": 2, "content": "bad status", "status": "bogus"},
        {"id": 3, "content": "bad importance", "importance": "high"},
        {"id": 4, "content": "bad ts", "ts": {"at": 1}},
        {"id": [5], "content": "unhashable id"},
        {"id": 6, "content": "odd links", "supersedes": [[1], {"old_id": [1]}, 1, "x"],
         "sources": "not a list"},
        {"id": 7, "content": "bool weight", "emotional_weight": True},
        7, None,
    ]}  # fmt: skip
    path = tmp_path / "edited.json"
    path.write_bytes(orjson.dumps(doc))
    report = import_json(path)
    assert report["rejected"] == [
        {"path": str(path), "line": 2, "reason": "invalid status in export: 'bogus'"},
        {"path": str(path), "line": 3, "reason": "invalid importance in export: 'high'"},
        {"path": str(path), "line": 4, "reason": "invalid ts in export: {'at': 1}"},
        {"path": str(path), "line": 5, "reason": "invalid id in export: [5]"},
        {"path": str(path), "line": 7, "reason": "invalid emotional_weight in export: True"},
        {"path": str(path), "line": 8, "reason": "memory without a text 'content'"},
        {"path": str(path), "line": 9, "reason": "memory without a text 'content'"},
    ]
    entries = orjson.loads(run("list", "--json").stdout)
    assert [(e["content"], e["status"]) for e in entries] == [
        ("good one", "archived"),
        ("odd links", "active"),
    ]
    links = orjson.loads(run("show", "2", "--json").stdout)["supersedes"]
    assert [(link["old_id"], link["reason"]) for link in links] == [(1, "restored")]


# -- failure half way -----------------------------------------------------------------------


def test_a_failure_in_the_middle_leaves_no_half_imported_file(tree, run, query, monkeypatch):
    root = tree({"a.md": "- from a\n- also from a\n", "b.md": "- from b\n- from a\n"})
    real_add_sources = UserStore.add_sources
    calls = []

    def failing(self, rows):
        calls.append(1)
        if len(calls) == 2:
            raise sqlite3.OperationalError("disk I/O error")
        return real_add_sources(self, rows)

    monkeypatch.setattr(UserStore, "add_sources", failing)
    result = run("import", root)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].endswith(": disk I/O error")
    assert query("SELECT content FROM entries ORDER BY id") == [("from a",), ("also from a",)]
    assert query("SELECT DISTINCT path FROM sources") == [(str(root / "a.md"),)]

    # A re-run after the crash reaches the state of a clean run.
    monkeypatch.setattr(UserStore, "add_sources", real_add_sources)
    report = orjson.loads(run("import", root, "--json").stdout)
    assert (report["added"], report["skipped_by_reason"]) == (
        1, {"already imported": 2, "exact duplicate": 1},
    )  # fmt: skip
    assert query("SELECT content FROM entries ORDER BY id") == [
        ("from a",), ("also from a",), ("from b",),
    ]  # fmt: skip
    assert query("SELECT count(*) FROM sources") == [(4,)]


# -- the whole lot at once, as a user would run it -------------------------------------------


@pytest.mark.slow
def test_no_traceback_for_any_of_it(tmp_path):
    root = tmp_path / "everything"
    shutil.copytree(BAD, root, ignore=shutil.ignore_patterns("README.md"))
    (root / "deep.json").write_text("[" * 100_000)
    (root / "huge.jsonl").write_bytes(b'{"role":"user","content":"' + b"q" * 9_000_000 + b'"}\n')
    os.mkfifo(root / "pipe.md")
    (root / "loop").symlink_to(root)
    db = tmp_path / "all.db"
    for fmt in ([], ["--format", "markdown"], ["--format", "jsonl"], ["--format", "json"]):
        for mode in ([], ["--json"], ["--dry-run"]):
            result = _memctl("import", root, "--db", db, *fmt, *mode)
            assert result.returncode == 0, result.stderr
            assert "Traceback" not in result.stderr + result.stdout
    result = _memctl("import", root, "--db", db, "--strict")
    assert result.returncode == 3
    for command in (["list"], ["list", "--nl"], ["show", "1"], ["export"]):
        result = _memctl(*command, "--db", db)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("command", [["list"], ["import", BAD / "crlf.md"], ["export"]])
def test_a_user_name_that_is_not_utf8_is_a_usage_error(run, db_path, command):
    result = run(*command, "--user", os.fsdecode(b"al\xffce"))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "Error: user name is not valid UTF-8: 'al\\udcffce'\n"
