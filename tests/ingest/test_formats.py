"""The formats of issue 13, one fixture each under fixtures/formats/: OpenClaw transcript copies,
Claude Code auto-memory topic files, the Codex session index, hermes profile memories and
"JSONL" files of Python reprs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memctl.copies import COPY_OF_IMPORTED
from memctl.ingest import frontmatter
from memctl.ingest.detect import READERS, UnknownFormat, detect
from memctl.ingest.jsonl import PYTHON_REPR, read_jsonl
from memctl.ingest.markdown import read_markdown
from memctl.models import Record, Rejection

FORMATS = Path(__file__).resolve().parents[2] / "fixtures" / "formats"
SESSIONS = FORMATS / "openclaw-copies" / "agents" / "main" / "sessions"
SID = "5e1f0c3a-7b2d-4c8e-9f10-2a3b4c5d6e7f"
ORIGINAL = SESSIONS / f"{SID}.jsonl"
CHECKPOINT = SESSIONS / f"{SID}.checkpoint.0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e.jsonl"
BACKUP = SESSIONS / f"{SID}.jsonl.full_backup"
DELETED = SESSIONS / "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl.deleted.2026-04-02T09-15-00.000Z"
MEMORY = FORMATS / "claude-memory" / "projects" / "-home-lin-code-shop" / "memory"
NOT_USER = "not user-authored"


def counts(report):
    return {
        Path(f["path"]).name: (f["records"], f["added"], f["skipped"]) for f in report["by_file"]
    }


# --- OpenClaw copies ------------------------------------------------------------------------


def test_copies_count_shared_records_as_already_imported_and_read_the_new_ones(import_json, run):
    report = import_json(SESSIONS)
    # The original is read first although its checkpoint sorts before it.
    assert [Path(f["path"]).name for f in report["by_file"]][:1] == [ORIGINAL.name]
    assert counts(report) == {
        ORIGINAL.name: (4, 2, 2),  # two user facts, two assistant replies
        CHECKPOINT.name: (2, 0, 2),  # a subset: nothing new
        BACKUP.name: (6, 1, 5),  # a superset: the four shared, one new fact, its reply
        DELETED.name: (2, 1, 1),  # no other copy of this session: read as a transcript
    }
    assert report["skipped_by_reason"] == {COPY_OF_IMPORTED: 6, NOT_USER: 4}
    listed = run("list", "--tsv").stdout.splitlines()[1:]
    assert [row.split("\t")[-1] for row in listed] == [
        "周三下午固定开组会", "我不喜欢在早上开会", "周报每周五中午前发给王经理",
        "我的工位在 5 楼东区",
    ]  # fmt: skip
    assert import_json(SESSIONS)["added"] == 0


def test_a_copy_imported_later_skips_what_the_store_holds(tree, import_json):
    import_json(ORIGINAL)
    report = import_json(BACKUP)
    # The stored user facts are copies; replies were never stored, so they are judged again.
    assert report["skipped_by_reason"] == {COPY_OF_IMPORTED: 2, NOT_USER: 3}
    assert report["added"] == 1


def test_the_same_message_in_another_session_is_not_a_copy(tree, import_json):
    other = BACKUP.read_text(encoding="utf-8").replace(SID, "11111111-2222-4333-8444-555555555555")
    root = tree({f"{SID}.jsonl": ORIGINAL.read_text(encoding="utf-8"),
                 f"{SID}-other.jsonl.full_backup": other})  # fmt: skip
    report = import_json(root)
    assert COPY_OF_IMPORTED not in report["skipped_by_reason"]
    assert report["skipped_by_reason"]["exact duplicate"] == 2


def test_checkpoint_session_id_comes_from_the_name() -> None:
    from memctl.ingest.jsonl import session_from_name

    assert session_from_name(CHECKPOINT) == SID
    assert session_from_name(BACKUP) == SID
    assert detect(CHECKPOINT) == detect(BACKUP) == detect(DELETED) == "jsonl"


# --- Claude Code auto-memory topic files ----------------------------------------------------


def test_topic_file_front_matter_is_the_records_section_and_layer_hint() -> None:
    records = [r for r in read_markdown(MEMORY / "feedback_testing.md") if isinstance(r, Record)]
    assert [(r.line, r.section, r.layer_hint) for r in records] == [
        (7, "Testing policy — how the user wants tests run in this repo", "feedback"),
        (9, "Testing policy — how the user wants tests run in this repo", "feedback"),
    ]
    quoted = [r for r in read_markdown(MEMORY / "project_release.md") if isinstance(r, Record)]
    assert [r.section for r in quoted] == ["Release freeze — merge freeze for the mobile release"]


def test_topic_file_type_bounds_the_stored_layer(import_json, query):
    import_json(MEMORY)
    rows = dict(query(
        "SELECT s.path, e.layer FROM sources s JOIN entries e ON e.id = s.entry_id"
    ))  # fmt: skip
    # A `type: user` file is about the user: profile, whatever the words alone suggest.
    assert rows[str(MEMORY / "user_role.md")] == "profile"
    assert rows[str(MEMORY / "reference_dashboards.md")] == "procedural"
    sections = query("SELECT section FROM sources WHERE path LIKE '%user_role.md'")
    assert sections == [("Role — who the user is at work",)]


def test_a_topic_files_dated_line_and_open_task_keep_their_own_hint(tmp_path: Path) -> None:
    """The file's type and what a line's own form says are both kept: a dated line still
    weighs as dated, an unchecked box still reads as a task, inside a typed topic file."""
    path = tmp_path / "project_backup.md"
    path.write_text(
        "---\nname: Backups\ndescription: the NAS backups\ntype: project\n---\n\n"
        "- 2026-11-22 backup restore test passed\n- [ ] rotate the offsite disk\n"
        "- Snapshots run nightly at 02:00\n",
        encoding="utf-8",
    )
    records = [r for r in read_markdown(path) if isinstance(r, Record)]
    hints = [r.layer_hint for r in records]
    assert [frontmatter.has(h, "dated_line") for h in hints] == [True, False, False]
    assert [frontmatter.has(h, "open_task") for h in hints] == [False, True, False]
    assert all(frontmatter.has(h, "project") for h in hints)
    assert frontmatter.apply_hint("procedural", hints[1]) == "episodic"
    assert frontmatter.apply_hint("profile", hints[2]) == "procedural"


@pytest.mark.parametrize(
    ("layer", "hint", "stored"),
    [
        ("procedural", "user", "profile"),
        ("relationship", "user", "relationship"),
        ("boundary", "feedback", "boundary"),
        ("profile", "feedback", "procedural"),
        ("episodic", "project", "episodic"),
        # TAXONOMY.md's layer is what the line states: the incident a feedback rule came from
        # is an event, a project's "never share the cap table" a hard limit.
        ("episodic", "feedback", "episodic"),
        ("boundary", "project", "boundary"),
        # A limit the user sets in a file about them ("never move money for him") is one too.
        ("boundary", "user", "boundary"),
        ("profile", "reference", "procedural"),
        ("profile", None, "profile"),
        ("profile", "unknown-type", "profile"),
    ],
)
def test_apply_hint(layer: str, hint: str | None, stored: str) -> None:
    assert frontmatter.apply_hint(layer, hint) == stored


def test_front_matter_parsing() -> None:
    text = "---\nname: 'A: b'\ndescription: \"x\"\ntype: User\ntags:\n  - one\n---\n"
    assert frontmatter.parse(text.splitlines()) == {
        "name": "A: b", "description": "x", "type": "User", "tags": "",
    }  # fmt: skip
    assert frontmatter.parse(["---", "name: never closed"]) == {}
    assert frontmatter.parse(["# no front matter", "type: user"]) == {}
    assert frontmatter.hint({"type": "user"}) == frontmatter.Hint(None, "user")
    assert frontmatter.hint({"name": "a skill", "description": "no type"}) is None


@given(st.lists(st.text(max_size=40), max_size=8))
def test_front_matter_parsing_never_fails(lines: list[str]) -> None:
    fields = frontmatter.parse(["---", *lines, "---"])
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in fields.items())


def test_front_matter_without_a_memory_type_changes_nothing(tree) -> None:
    root = tree({"CLAUDE.md": "---\ndescription: project rules\n---\n\n## Build\n\n- run ruff\n"})
    records = [r for r in read_markdown(root / "CLAUDE.md") if isinstance(r, Record)]
    assert [(r.text, r.section, r.layer_hint) for r in records] == [("run ruff", "Build", None)]


# --- Codex session index --------------------------------------------------------------------


def test_codex_session_index_is_unsupported_with_a_reason(import_json):
    report = import_json(FORMATS / "codex")
    assert report["records"] == 0
    assert report["unsupported"] == [{
        "path": str(FORMATS / "codex" / "session_index.jsonl"),
        "reason": "Codex session index (a thread name per session id): an index of sessions, "
        "not memories or messages",
    }]  # fmt: skip
    with pytest.raises(UnknownFormat):
        detect(FORMATS / "codex" / "session_index.jsonl")


# --- hermes profile memories ----------------------------------------------------------------


def test_hermes_profile_memories_are_hermes_entries(import_json):
    profiles = FORMATS / "hermes-profiles" / "profiles"
    report = import_json(profiles)
    assert {Path(f["path"]).parts[-3]: (f["format"], f["records"]) for f in report["by_file"]} == {
        "work": ("hermes-md", 2),
        # One entry has no "§" line; the path says it is a hermes file: one entry, not two
        # paragraphs.
        "writer": ("hermes-md", 1),
    }


def test_the_same_file_elsewhere_is_plain_markdown(tree):
    text = (FORMATS / "hermes-profiles/profiles/writer/memories/USER.md").read_text()
    root = tree({"notes/memories/USER.md": text})
    records = [r for r in READERS["markdown"](root / "notes/memories/USER.md")]
    assert [(r.format, r.line) for r in records if isinstance(r, Record)] == [
        ("markdown", 1), ("markdown", 3),
    ]  # fmt: skip


# --- Python reprs in a "JSONL" file ---------------------------------------------------------


def test_python_repr_lines_are_rejected_saying_so():
    path = FORMATS / "python-repr" / "sessions" / "repr_dump.jsonl"
    items = list(read_jsonl(path))
    rejected = [(i.line, i.reason) for i in items if isinstance(i, Rejection)]
    assert rejected == [
        (1, PYTHON_REPR),
        (2, PYTHON_REPR),
        (4, "invalid JSON: truncated line (unexpected end of data)"),
    ]
    assert "Python repr" in PYTHON_REPR
    read = [(r.line, r.text) for r in items if isinstance(r, Record)]
    assert read == [(3, "记住：我每天 7 点跑步")]


@pytest.mark.parametrize(
    "line",
    ['{"a": "it\'s fine"', '{"a": "True or None"', "{bad json}", '["x", ]'],
)
def test_broken_json_that_is_no_repr_keeps_its_json_reason(tmp_path: Path, line: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    [item] = list(read_jsonl(path))
    assert isinstance(item, Rejection)
    assert item.reason != PYTHON_REPR


def test_reclassifying_keeps_the_topic_files_hint(import_json, run):
    import_json(MEMORY)
    result = run("classify", "--dry-run", "--json")
    assert orjson.loads(result.stdout)["changed"] == 0
