"""Which reader a file gets: by its name first, then by a look at its first bytes."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from conftest import Run

from memctl.ingest.detect import FORMATS, READERS, UnknownFormat, detect

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def test_the_three_reader_families() -> None:
    assert FORMATS == ("markdown", "jsonl", "json")
    assert set(READERS) == set(FORMATS)


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("MEMORY.md", "markdown"),
        ("notes.markdown", "markdown"),
        ("page.mdx", "markdown"),
        ("HISTORY.txt", "markdown"),
        ("USER.MD", "markdown"),
        ("session.jsonl", "jsonl"),
        ("events.ndjson", "jsonl"),
        ("ROLLOUT.JSONL", "jsonl"),
        ("conversations.json", "json"),
        ("a.jsonl.reset.2026-03-21T21-28-34.840Z", "jsonl"),
        ("a.jsonl.deleted.2026-03-21T21-28-34.840Z", "jsonl"),
    ],
)
def test_by_suffix(tmp_path: Path, name: str, family: str) -> None:
    # The content would sniff as something else: the name wins.
    assert detect(write(tmp_path, name, "[not what the name says")) == family


@pytest.mark.parametrize(
    ("data", "family"),
    [
        ('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n', "jsonl"),
        ('{"type":"session","version":3,"id":"x"}', "jsonl"),
        ('{\n  "memories": []\n}\n', "json"),
        ('  \n[\n  "a",\n  "b"\n]\n', "json"),
        (codecs.BOM_UTF8 + b'{"display": "hi"}\n', "jsonl"),
        ('{"role": "user", "content": "x"}'.encode("utf-16"), "jsonl"),
        ("[1, 2]".encode("utf-16"), "json"),
    ],
    ids=["jsonl", "one-line", "document", "array", "bom", "utf16-jsonl", "utf16-json"],
)
def test_sniffing_a_file_without_a_known_suffix(
    tmp_path: Path, data: str | bytes, family: str
) -> None:
    assert detect(write(tmp_path, "export", data)) == family


def test_sniffing_a_truncated_first_object_says_json(tmp_path: Path) -> None:
    """A first line that is not a whole object cannot be JSONL; the JSON reader reports why."""
    assert detect(write(tmp_path, "dump", '{"role": "user", "content": "cut')) == "json"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "binary file"),
        ("state.db", b"SQLite format 3\x00\x10\x00", "binary file"),
        ("MEMORY.md", b"- fine\n- then a NUL \x00 byte\n", "binary file"),
        ("notes", b"just some words\n", "not a known memory or transcript format"),
        ("empty", b"", "not a known memory or transcript format"),
    ],
    ids=["jpeg", "sqlite", "nul-in-md", "plain-text", "empty"],
)
def test_unknown_formats(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    with pytest.raises(UnknownFormat, match=reason):
        detect(write(tmp_path, name, data))


def test_utf16_markdown_is_not_mistaken_for_binary(tmp_path: Path) -> None:
    assert detect(write(tmp_path, "USER.md", "- 喜欢绿茶\n".encode("utf-16"))) == "markdown"


def test_every_fixture_file_is_detected() -> None:
    found = {
        path.relative_to(FIXTURES).as_posix(): _family(path)
        for path in sorted(FIXTURES.rglob("*"))
        if path.is_file()
        and path.parts[len(FIXTURES.parts)] not in ("bad", "dedupe", "classify", "secrets", "facts")
    }
    assert found == {
        "README.md": "markdown",
        "chatgpt/conversations.json": "json",
        "claude-code/CLAUDE.md": "markdown",
        "claude-code/history.jsonl": "jsonl",
        "claude-code/projects/-home-lin-code-memctl/5d1c8e2a-3b4f-4a6d-8e9f-1a2b3c4d5e6f.jsonl": (
            "jsonl"
        ),
        "codex/history.jsonl": "jsonl",
        "codex/sessions/2026/03/05/"
        "rollout-2026-03-05T10-00-00-0199b2c3-4d5e-7f60-8a9b-0c1d2e3f4a5b.jsonl": "jsonl",
        "codex/sessions/2026/03/05/"
        "rollout-2026-03-05T11-00-00-0199b2c3-aaaa-7f60-8a9b-0c1d2e3f4a5b.jsonl": "jsonl",
        "exports/kinetaios-export.json": "json",
        "exports/notes.json": "json",
        "formats/claude-memory/projects/-home-lin-code-shop/memory/MEMORY.md": "markdown",
        "formats/claude-memory/projects/-home-lin-code-shop/memory/feedback_testing.md": (
            "markdown"
        ),
        "formats/claude-memory/projects/-home-lin-code-shop/memory/project_release.md": (
            "markdown"
        ),
        "formats/claude-memory/projects/-home-lin-code-shop/memory/reference_dashboards.md": (
            "markdown"
        ),
        "formats/claude-memory/projects/-home-lin-code-shop/memory/user_role.md": "markdown",
        "formats/codex/session_index.jsonl": (
            "unknown: Codex session index (a thread name per session id): an index of sessions, "
            "not memories or messages"
        ),
        "formats/hermes-profiles/profiles/work/memories/MEMORY.md": "markdown",
        "formats/hermes-profiles/profiles/writer/memories/USER.md": "markdown",
        "formats/openclaw-copies/agents/main/sessions/"
        "5e1f0c3a-7b2d-4c8e-9f10-2a3b4c5d6e7f.checkpoint."
        "0b9c8d7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e.jsonl": "jsonl",
        "formats/openclaw-copies/agents/main/sessions/"
        "5e1f0c3a-7b2d-4c8e-9f10-2a3b4c5d6e7f.jsonl": "jsonl",
        "formats/openclaw-copies/agents/main/sessions/"
        "5e1f0c3a-7b2d-4c8e-9f10-2a3b4c5d6e7f.jsonl.full_backup": "jsonl",
        "formats/openclaw-copies/agents/main/sessions/"
        "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl.deleted.2026-04-02T09-15-00.000Z": "jsonl",
        "formats/python-repr/sessions/repr_dump.jsonl": "jsonl",
        "hermes/memories/MEMORY.md": "markdown",
        "hermes/memories/USER.md": "markdown",
        "hermes/sessions/20260301_101500_ab12cd.jsonl": "jsonl",
        "hermes/sessions/session_20260302_090000_ef34ab.json": "json",
        "hermes/sessions/sessions.json": "json",
        "nanobot/workspace/memory/HISTORY.md": "markdown",
        "nanobot/workspace/memory/MEMORY.md": "markdown",
        "nanobot/workspace/memory/history.jsonl": "jsonl",
        "nanobot/workspace/sessions/cli_direct.jsonl": "jsonl",
        "nanobot/workspace/sessions/heartbeat.jsonl": "jsonl",
        "openclaw/agents/main/sessions/7f3c2a10-5b6e-4d21-9a8f-0c1d2e3f4a5b.jsonl": "jsonl",
        "openclaw/agents/main/sessions/"
        "c0ffee00-1234-4abc-8def-00000000abcd.jsonl.reset.2026-03-21T21-28-34.840Z": "jsonl",
        "openclaw/workspace/MEMORY.md": "markdown",
        "openclaw/workspace/memory/2026-03-22.md": "markdown",
        "picoclaw/workspace/memory/202602/20260214.md": "markdown",
        "picoclaw/workspace/memory/MEMORY.md": "markdown",
        "picoclaw/workspace/sessions/agent_main_main.json": "json",
        "picoclaw/workspace/sessions/telegram_8801.jsonl": "jsonl",
        "picoclaw/workspace/sessions/telegram_8801.meta.json": "json",
    }


def _family(path: Path) -> str:
    try:
        return detect(path)
    except UnknownFormat as exc:  # pragma: no cover - shows which file in the diff
        return f"unknown: {exc}"


@pytest.mark.parametrize("opening", ["{", "[", "  {  "])
def test_a_pretty_printed_document_named_jsonl_is_read_as_json(
    tmp_path: Path, opening: str
) -> None:
    # `memctl export -o backup.jsonl` writes an indented document: its first line alone can never
    # be a JSON line, so reading it line by line rejected every line and imported nothing.
    data = f"\n{opening}\n" + '  "memories": []\n}\n'
    assert detect(write(tmp_path, "backup.jsonl", data)) == "json"


def test_a_truncated_first_line_named_jsonl_stays_jsonl(tmp_path: Path) -> None:
    # A cut line is one bad record of a transcript: the JSONL reader rejects it and goes on.
    assert detect(write(tmp_path, "s.jsonl", '{"role": "user", "content": "cut\n{"a": 1}\n')) == (
        "jsonl"
    )


def test_export_named_jsonl_imports_again(tmp_path: Path, run: Run) -> None:
    note = write(tmp_path, "MEMORY.md", "- 用户对花生过敏\n- deploy: run make release\n")
    assert run("import", str(note)).exit_code == 0
    backup = tmp_path / "backup.jsonl"
    assert run("export", "-o", str(backup)).exit_code == 0
    result = run("import", str(backup), "--db", str(tmp_path / "restored.db"))
    assert result.exit_code == 0, result.output
    assert "2 records, 2 added, 0 skipped, 0 rejected" in result.stderr
