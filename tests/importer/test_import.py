"""`memctl import` end to end: the report, provenance rows, idempotence, dry runs, errors."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import orjson
import pytest

from memctl.normalise import norm_hash

TEA = "I like green tea"

# One tree, three formats. Expected outcome per record is written next to it.
TREE = {
    "MEMORY.md": (
        "# Profile\n"
        "- I like green tea\n"  # line 2: entry 1
        "- i like GREEN tea!\n"  # 3: duplicate (case, punctuation)
        "- Ｉ　ｌｉｋｅ　ｇｒｅｅｎ　ｔｅａ。\n"  # 4: duplicate (full width)
        "- I  like\tgreen   tea\n"  # 5: duplicate (whitespace)
        "\n"
        "- My sister lives in Lyon\n"  # 7: entry 2
    ),
    "notes/2026-03-01.md": (
        "I LIKE GREEN TEA\n"  # 1: duplicate of entry 1, across files
        "\n"
        "Went hiking with Ana\n"  # 3: entry 3
    ),
    "sessions/s1.jsonl": (
        '{"role":"user","content":"remember: my cat is called Tom"}\n'  # 1: entry 4
        '{"role":"assistant","content":"Noted, your cat is Tom."}\n'  # 2: not user-authored
        '{"role":"user","content":"what is the weather today?"}\n'  # 3: not memorable
        '{"role":"user","content":"remember: \n'  # 4: rejected (truncated JSON)
    ),
}


def test_report_counts_for_a_small_tree(tree, import_json):
    root = tree(TREE)
    report = import_json(root)
    jsonl = str(root / "sessions" / "s1.jsonl")
    assert report["run_id"] == 1
    assert report["dry_run"] is False
    assert (report["files"], report["records"], report["added"]) == (3, 11, 4)
    assert (report["skipped"], report["rejected_count"]) == (6, 1)
    assert report["skipped_by_reason"] == {
        "exact duplicate": 4,
        "not user-authored": 1,
        "not memorable": 1,
    }
    assert report["rejected"] == [
        {
            "path": jsonl,
            "line": 4,
            "reason": "invalid JSON: truncated line (unexpected end of data)",
        }
    ]
    assert report["unsupported"] == []
    assert report["by_file"] == [
        {"path": str(root / "MEMORY.md"), "format": "markdown",
         "records": 5, "added": 2, "skipped": 3, "rejected": 0},
        {"path": str(root / "notes" / "2026-03-01.md"), "format": "markdown",
         "records": 2, "added": 1, "skipped": 1, "rejected": 0},
        {"path": jsonl, "format": "jsonl", "records": 4, "added": 1, "skipped": 2, "rejected": 1},
    ]  # fmt: skip


def test_entries_created_by_the_import(tree, import_json, query):
    import_json(tree(TREE))
    # Import classifies as it goes: family facts are private, a dated line is episodic.
    rows = query("SELECT id, user_id, content, layer, realm, audience, ts FROM entries ORDER BY id")
    assert rows == [
        (1, "default", TEA, "profile", "real", "public", None),
        (2, "default", "My sister lives in Lyon", "profile", "real", "private", None),
        (3, "default", "Went hiking with Ana", "episodic", "real", "public", "2026-03-01"),
        (4, "default", "my cat is called Tom", "profile", "real", "public", None),
    ]
    expected = "s1:" + hashlib.sha256(b"ilikegreentea").hexdigest()
    assert query("SELECT norm_hash FROM entries WHERE id = 1") == [(expected,)]


def test_human_summary_goes_to_stderr_and_stdout_stays_empty(tree, run):
    root = tree(TREE)
    result = run("import", root)
    assert result.exit_code == 0
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith(
        "Imported 3 files: 11 records, 4 added, 6 skipped (4 exact duplicate, "
        "1 not user-authored, 1 not memorable), 1 rejected in "
    )
    assert lines[1:] == [
        f"rejected {root / 'sessions' / 's1.jsonl'}:4: "
        "invalid JSON: truncated line (unexpected end of data)"
    ]


def test_json_report_is_the_only_thing_on_stdout(tree, run):
    result = run("import", tree(TREE), "--json")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert orjson.loads(result.stdout)["added"] == 4  # the whole of stdout parses as one document


def test_reimport_adds_nothing_and_skips_all_as_already_imported(tree, import_json, query):
    root = tree(TREE)
    import_json(root)
    again = import_json(root)
    assert (again["run_id"], again["records"], again["added"], again["skipped"]) == (2, 11, 0, 10)
    assert again["skipped_by_reason"] == {
        "already imported": 8,
        "not user-authored": 1,
        "not memorable": 1,
    }
    assert again["rejected_count"] == 1
    assert query("SELECT count(*) FROM entries") == [(4,)]
    assert query("SELECT count(*) FROM sources") == [(8,)]


def test_a_file_that_grew_only_adds_its_new_records(tree, import_json, query):
    root = tree(TREE)
    import_json(root)
    with (root / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("- I have two kids\n- I LIKE GREEN TEA\n")
    report = import_json(root / "MEMORY.md")
    assert (report["records"], report["added"], report["skipped"]) == (7, 1, 6)
    assert report["skipped_by_reason"] == {"already imported": 5, "exact duplicate": 1}
    assert query("SELECT id, content FROM entries WHERE id > 4") == [(5, "I have two kids")]
    assert query("SELECT entry_id, merge_layer FROM sources WHERE line = 9") == [(1, "exact")]


def test_duplicates_within_a_file_and_across_files_point_at_the_surviving_entry(
    tree, import_json, query
):
    root = tree(TREE)
    import_json(root)
    rows = query(
        "SELECT path, line, merge_layer, merge_score FROM sources WHERE entry_id = 1 ORDER BY id"
    )
    memory, note = str(root / "MEMORY.md"), str(root / "notes" / "2026-03-01.md")
    assert rows == [
        (memory, 2, "new", None),
        (memory, 3, "exact", 1.0),
        (memory, 4, "exact", 1.0),
        (memory, 5, "exact", 1.0),
        (note, 1, "exact", 1.0),
    ]


@pytest.mark.parametrize(
    "variant",
    ["I LIKE GREEN TEA", "Ｉ ｌｉｋｅ ｇｒｅｅｎ ｔｅａ", "I like green tea!!!",
     "I   like green\ttea", "「I like green tea」。"],
    ids=["case", "full-width", "punctuation", "whitespace", "cjk-punctuation"],
)  # fmt: skip
def test_normalisation_duplicate_against_the_store(tree, import_json, query, variant):
    import_json(tree({"a.md": f"- {TEA}\n"}))
    later = tree({"b.md": f"- {variant}\n"}, name="later")
    report = import_json(later)
    assert (report["added"], report["skipped_by_reason"]) == (0, {"exact duplicate": 1})
    assert query("SELECT content FROM entries") == [(TEA,)]
    assert query("SELECT entry_id, line, merge_layer FROM sources WHERE path = ?",
                 str(later / "b.md")) == [(1, 1, "exact")]  # fmt: skip


def test_every_accepted_record_has_exactly_one_source_row(tree, import_json, query):
    text = "remember: I am allergic to peanuts"
    line = orjson.dumps({
        "type": "user", "sessionId": "sess-1", "timestamp": "2026-03-01T10:00:00Z",
        "uuid": "u-1", "message": {"role": "user", "content": text},
    }).decode()  # fmt: skip
    root = tree({**TREE, "claude/s2.jsonl": line + "\n"})
    report = import_json(root)
    accepted = report["added"] + report["skipped_by_reason"]["exact duplicate"]
    assert query("SELECT count(*) FROM sources") == [(accepted,)] == [(9,)]
    # No record has two rows: the identity is unique per (path, line, raw_hash).
    assert query("SELECT count(*) FROM (SELECT DISTINCT path, line FROM sources)") == [(9,)]
    assert query(
        "SELECT s.path, s.line, s.format, s.role, s.ts, s.session_id, s.message_id, s.raw_hash,"
        " s.run_id, s.merge_layer, e.content FROM sources s JOIN entries e ON e.id = s.entry_id"
        " WHERE s.format = 'claude-code'"
    ) == [
        (str(root / "claude" / "s2.jsonl"), 1, "claude-code", "user", "2026-03-01T10:00:00Z",
         "sess-1", "u-1", "r1:" + hashlib.sha256(text.encode()).hexdigest(), 1, "new",
         "I am allergic to peanuts"),
    ]  # fmt: skip
    note = str(root / "notes" / "2026-03-01.md")
    assert query(
        "SELECT s.line, s.format, s.role, s.ts, s.session_id, s.section, s.run_id FROM sources s "
        "JOIN entries e ON e.id = s.entry_id WHERE s.path = ? AND e.content = ?",
        note, "Went hiking with Ana",
    ) == [(3, "markdown", None, "2026-03-01", None, None, 1)]  # fmt: skip
    assert query("SELECT section FROM sources WHERE line = 7") == [("Profile",)]
    assert query("SELECT count(*) FROM sources WHERE raw_hash IS NULL OR run_id IS NULL") == [(0,)]


def test_import_runs_and_rejections_are_recorded(tree, import_json, query):
    root = tree(TREE)
    import_json(root)
    import_json(root)
    assert query(
        "SELECT id, user_id, files, records, added, skipped, rejected, finished_at IS NOT NULL "
        "FROM import_runs ORDER BY id"
    ) == [(1, "default", 3, 11, 4, 6, 1, 1), (2, "default", 3, 11, 0, 10, 1, 1)]
    jsonl = str(root / "sessions" / "s1.jsonl")
    reason = "invalid JSON: truncated line (unexpected end of data)"
    assert query("SELECT run_id, path, line, reason FROM rejections ORDER BY id") == [
        (1, jsonl, 4, reason),
        (2, jsonl, 4, reason),
    ]


def _report_without_timing(report):
    return {k: v for k, v in report.items() if k not in ("seconds", "dry_run")}


def test_dry_run_on_a_new_database_creates_nothing_and_predicts_the_real_run(
    tree, import_json, db_path
):
    root = tree(TREE)
    preview = import_json(root, "--dry-run")
    assert preview["dry_run"] is True
    assert not db_path.exists()
    assert list(db_path.parent.glob("memctl.db*")) == []
    real = import_json(root)
    assert _report_without_timing(preview) == _report_without_timing(real)


def test_dry_run_on_an_existing_database_leaves_it_byte_identical(tree, import_json, db_path):
    import_json(tree({"first.md": f"- {TEA}\n- Something else\n"}, name="first"))
    root = tree(TREE)
    before = db_path.read_bytes()
    files_before = {p.name for p in db_path.parent.iterdir()}
    preview = import_json(root, "--dry-run")
    assert db_path.read_bytes() == before
    # Not even the -wal and -shm files SQLite makes to read a WAL database may appear.
    assert {p.name for p in db_path.parent.iterdir()} == files_before
    assert (preview["added"], preview["skipped_by_reason"]["exact duplicate"]) == (3, 5)
    real = import_json(root)
    assert _report_without_timing(preview) == _report_without_timing(real)


def test_dry_run_beside_a_live_writer_reads_its_log_and_leaves_the_files(
    tree, import_json, db_path
):
    """With a -wal in use (another process's commits not yet in the main file), the dry run
    must see what the log holds, and still add no file."""
    import_json(tree({"first.md": f"- {TEA}\n"}, name="first"))
    writer = sqlite3.connect(db_path)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute(
        "UPDATE entries SET content = 'only in the log', norm_hash = ?",
        [norm_hash("only in the log")],
    )
    writer.commit()
    again = tree({"again.md": "- only in the log\n"}, name="again")
    try:
        files = {p.name for p in db_path.parent.iterdir()}
        assert "memctl.db-wal" in files
        preview = import_json(again, "--dry-run")
        assert {p.name for p in db_path.parent.iterdir()} == files
    finally:
        writer.close()
    assert (preview["added"], preview["skipped_by_reason"]) == (0, {"exact duplicate": 1})


def test_dry_run_human_summary_says_would(tree, run):
    result = run("import", tree(TREE), "--dry-run")
    assert result.exit_code == 0
    assert result.stderr.startswith("Would import 3 files: 11 records, 4 added, ")


def test_format_option_overrides_detection(tree, import_json):
    root = tree({"notes.log": "- I keep a log\n"})
    detected = import_json(root)
    assert detected["files"] == 0
    assert detected["unsupported"] == [{
        "path": str(root / "notes.log"),
        "reason": "not a known memory or transcript format (no .md/.jsonl/.json name)",
    }]  # fmt: skip
    forced = import_json(root, "--format", "markdown")
    assert (forced["files"], forced["added"]) == (1, 1)
    assert forced["by_file"][0]["format"] == "markdown"
    assert forced["unsupported"] == []


def test_format_option_rejects_an_unknown_reader(tree, run, db_path):
    result = run("import", tree(TREE), "--format", "yaml")
    assert result.exit_code == 2
    assert "'yaml' is not one of markdown, jsonl, json" in result.stderr
    assert not db_path.exists()


@pytest.mark.parametrize("as_json", [False, True])
def test_strict_exits_3_when_something_was_rejected(tree, run, as_json):
    flags = ["--json"] if as_json else []
    result = run("import", tree(TREE), "--strict", *flags)
    assert result.exit_code == 3
    if as_json:
        assert orjson.loads(result.stdout)["rejected_count"] == 1


def test_strict_exits_0_when_nothing_was_rejected(tree, run):
    result = run("import", tree({"MEMORY.md": TREE["MEMORY.md"]}), "--strict")
    assert result.exit_code == 0


def test_a_missing_path_is_one_line_error_and_nothing_is_imported(tree, run, tmp_path, query):
    missing = tmp_path / "nope"
    result = run("import", tree(TREE), missing)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"Error: no such file or directory: {missing}\n"
    assert query("SELECT count(*) FROM entries") == [(0,)]
    assert query("SELECT count(*) FROM import_runs") == [(0,)]


def _unusable_databases(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "afile").write_text("not a directory\n")
    (tmp_path / "garbage.db").write_bytes(b"this is not SQLite\n" * 64)
    (tmp_path / "adir.db").mkdir()
    return {
        "parent-is-a-file": tmp_path / "afile" / "x.db",
        "not-a-database": tmp_path / "garbage.db",
        "a-directory": tmp_path / "adir.db",
        "proc": Path("/proc/x/y.db"),
    }


@pytest.mark.parametrize("case", ["parent-is-a-file", "not-a-database", "a-directory", "proc"])
@pytest.mark.parametrize("command", ["import", "list", "export", "show"])
def test_an_unusable_database_is_a_one_line_error(tree, run, tmp_path, case, command):
    db = _unusable_databases(tmp_path)[case]
    args = {"import": ["import", tree(TREE)], "show": ["show", "1"]}.get(command, [command])
    result = run(*args, "--db", db)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert str(db) in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


def test_db_option_and_env_choose_the_database(tree, import_json, tmp_path, db_path, run):
    other = tmp_path / "deep" / "dir" / "other.db"
    import_json(tree(TREE), "--db", other)
    assert other.exists()
    assert not db_path.exists()
    result = run("list", "--json", env={"MEMCTL_DB": str(other)})
    assert [e["id"] for e in orjson.loads(result.stdout)] == [1, 2, 3, 4]


def test_hidden_files_and_directories_are_left_out(tree, import_json):
    root = tree({"a.md": "- visible\n", ".hidden.md": "- no\n", ".git/x.md": "- no\n"})
    report = import_json(root)
    assert [f["path"] for f in report["by_file"]] == [str(root / "a.md")]
    assert report["added"] == 1


def test_relative_paths_are_stored_absolute(tree, import_json, query, monkeypatch):
    root = tree({"a.md": "- from a relative path\n"})
    monkeypatch.chdir(root.parent)
    import_json(Path(root.name) / "a.md")
    assert query("SELECT path FROM sources") == [(os.path.join(root, "a.md"),)]


def test_entry_ids_follow_input_order(tree, import_json, run):
    # Dated and undated bullets carry different columns; ids must still follow the file.
    root = tree({"MEMORY.md": "- fact A\n- 2026-02-01: went to Paris\n- fact B\n"})
    import_json(root)
    rows = orjson.loads(run("list", "--json").stdout)
    assert [(r["id"], r["content"], r["layer"]) for r in rows] == [
        (1, "fact A", "procedural"),  # no evidence: a working agent's default layer
        (2, "went to Paris", "episodic"),
        (3, "fact B", "procedural"),
    ]


def _notes(root: Path) -> Path:
    """Daily notes of one changing fact, files not in date order, with dated copies (a fact
    restated) and an earlier copy of a stored note (a stored entry merged into a new one)."""
    import random

    rng = random.Random(4)
    days = list(range(120))
    rng.shuffle(days)
    cities = ["北京", "上海", "杭州", "成都", "深圳", "南京"]
    used: list[str] = []
    for n, day in enumerate(days):
        date = f"2025-{1 + day // 28:02d}-{1 + day % 28:02d}"
        place = f"{rng.choice(cities)}{rng.choice('东西南北中')}{rng.choice('一二三四五六')}区"
        lines = [f"# {date}", "", f"- 我住在{place}"]
        if n % 9 == 0 and used:
            lines.append(f"- 我住在{rng.choice(used)}")  # restated, with this note's date
        used.append(place)
        if n % 13 == 0:
            lines.append("- 周末常去西湖边跑步，跑完喝一杯美式咖啡")  # copies across notes
        (root / f"note-{n:03d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_chains_kept_across_files_decide_as_chains_read_for_each_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memctl import importer
    from memctl.store import Store

    (tmp_path / "notes").mkdir()
    notes = _notes(tmp_path / "notes")

    def state(db: Path) -> list[list[tuple]]:
        conn = sqlite3.connect(db)
        try:
            return [
                conn.execute(sql).fetchall()
                for sql in (
                    "SELECT id, status, fact_value, ts FROM entries ORDER BY id",
                    "SELECT new_id, old_id, reason FROM supersedes ORDER BY new_id, old_id",
                    "SELECT entry_id, action, before, after, note FROM changes ORDER BY id",
                )
            ]
        finally:
            conn.close()

    def imported(db: Path) -> list[list[tuple]]:
        store = Store.open(db)
        try:
            importer.import_paths(store.for_user("u"), [notes])
        finally:
            store.close()
        return state(db)

    kept = imported(tmp_path / "kept.db")
    monkeypatch.setattr(importer.Run, "current", lambda self: False)  # chains read anew
    fresh = imported(tmp_path / "fresh.db")
    assert sum(status == "superseded" for _, status, _, _ in fresh[0]) > 30
    assert kept == fresh


def test_no_record_is_held_while_the_homes_are_settled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last file's records are not kept past it: settle_homes reads every line of the
    homes again, the peak of a big import's end."""
    import gc

    from memctl import importer
    from memctl.models import Record
    from memctl.store import Store

    notes = tmp_path / "MEMORY.md"
    notes.write_text("".join(f"- the user's note number {i} is about tea\n" for i in range(50)))
    alive: list[int] = []
    settle = importer.classify.settle_homes

    def counting(store: object, homes: object) -> None:
        alive.append(sum(isinstance(o, Record) for o in gc.get_objects()))
        settle(store, homes)  # type: ignore[arg-type]

    monkeypatch.setattr(importer.classify, "settle_homes", counting)
    store = Store.open(tmp_path / "m.db")
    try:
        report = importer.import_paths(store.for_user("u"), [notes])
    finally:
        store.close()
    assert report.records == 50
    assert alive == [0]


def test_a_small_import_does_not_trim_the_heap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """malloc_trim is for what a big import frees; a cron job's few lines pay nothing for it."""
    from memctl import importer
    from memctl.store import Store

    notes = tmp_path / "MEMORY.md"
    notes.write_text("- the user drinks green tea\n- the user lives in Leeds\n")
    calls: list[int] = []
    monkeypatch.setattr(importer, "give_back", lambda: calls.append(1))
    store = Store.open(tmp_path / "m.db")
    try:
        report = importer.import_paths(store.for_user("u"), [notes])
    finally:
        store.close()
    assert report.records == 2
    assert calls == []
