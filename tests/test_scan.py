"""`memctl scan`, `memctl import --scan` and hidden folders, on a home laid out like a real one:
agents in dot-folders (fixtures copied to where each agent keeps them), a dot-folder of no
agent, a `.git` inside a workspace, and a memory file at the top of the home."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from memctl import scan

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORMATS = FIXTURES / "formats"

LAYOUT = {  # fixture folder -> where it lives in a home
    "openclaw": ".openclaw",
    "formats/openclaw-copies": ".openclaw",
    "claude-code": ".claude",
    "formats/claude-memory": ".claude",
    "codex": ".codex",
    "formats/codex": ".codex",
    "hermes": ".hermes",
    "formats/hermes-profiles": ".hermes",
    "nanobot": ".nanobot",
    "picoclaw": ".picoclaw",
}
AGENTS = ["openclaw", "openclaw", "claude-code", "codex", "hermes", "nanobot", "picoclaw",
          "memory-files"]  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    for source, target in LAYOUT.items():
        shutil.copytree(FIXTURES / source, root / target, dirs_exist_ok=True)
    # A second OpenClaw profile, a workspace per agent, and a git folder in a workspace.
    (root / ".openclaw-dev/workspace-serve").mkdir(parents=True)
    (root / ".openclaw-dev/workspace-serve/MEMORY.md").write_text("- 端口 8080 留给预览服务\n")
    (root / ".openclaw/workspace/.git").mkdir()
    (root / ".openclaw/workspace/.git/HEAD").write_text("ref: refs/heads/main\n")
    (root / ".cache/pip").mkdir(parents=True)
    (root / ".cache/pip/selfcheck.json").write_text("{}")
    (root / "CLAUDE.md").write_text("- 回答先给结论\n")
    return root


def scanned(run, home: Path) -> list[dict]:
    result = run("scan", "--home", home, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return orjson.loads(result.stdout)["agents"]


def test_scan_lists_every_agent_with_what_it_would_import(run, home, db_path):
    agents = scanned(run, home)
    assert [a["agent"] for a in agents] == AGENTS
    by_home = {Path(a["home"]).name or "~": a for a in agents}
    assert sorted(by_home) == sorted(
        [".openclaw", ".openclaw-dev", ".claude", ".codex", ".hermes", ".nanobot", ".picoclaw",
         "home"]
    )  # fmt: skip
    claude = by_home[".claude"]
    assert claude["paths"] == [
        str(home / ".claude/projects/-home-lin-code-memctl"),
        str(home / ".claude/projects/-home-lin-code-shop"),
        str(home / ".claude/CLAUDE.md"),
        str(home / ".claude/history.jsonl"),
    ]
    # 5 memory files (MEMORY.md and four topic files) + the session; CLAUDE.md; history.jsonl.
    assert claude["files"] == 8
    assert set(claude["records_by_format"]) == {"claude-code", "claude-history", "markdown"}
    codex = by_home[".codex"]
    assert codex["records_by_format"] == {"codex": 6, "codex-history": 2}
    assert codex["files"] == 3  # the session index is not among the paths scan lists
    hermes = by_home[".hermes"]
    assert str(home / ".hermes/profiles/work/memories") in hermes["paths"]
    assert hermes["records_by_format"]["hermes-md"] == 12  # 9 + the profiles' 2 + 1
    assert by_home[".openclaw"]["hidden_skipped"] == [
        {"path": str(home / ".openclaw/workspace/.git"), "files": 1}
    ]
    assert by_home[".openclaw-dev"]["records_by_format"] == {"markdown": 1}
    assert by_home["home"]["paths"] == [str(home / "CLAUDE.md")]
    assert not db_path.exists()  # scan writes nothing


def test_scan_table_in_a_pipe_is_one_line_per_home(run, home):
    result = run("scan", "--home", home)
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["agent", "home", "files", "records", "by", "format", "rejected",
                                "unsupported", "hidden"]  # fmt: skip
    assert [line.split("  ")[0] for line in lines[1:]] == [
        "OpenClaw", "OpenClaw", "Claude Code", "Codex", "hermes", "nanobot", "picoclaw",
        "memory files",
    ]  # fmt: skip
    assert result.stderr == "8 agent homes; import them with memctl import --scan\n"


def test_import_scan_imports_every_agent_home(run, import_json, home):
    agents = scanned(run, home)
    report = import_json("--scan", "--home", home)
    read_from = {Path(f["path"]).relative_to(home).parts[0] for f in report["by_file"]}
    assert read_from == {".openclaw", ".openclaw-dev", ".claude", ".codex", ".hermes",
                         ".nanobot", ".picoclaw", "CLAUDE.md"}  # fmt: skip
    # What scan counted is what the import read.
    assert report["records"] == sum(a["records"] + a["rejected"] for a in agents)
    assert report["added"] > 0
    assert report["warnings"] == []
    again = import_json("--scan", "--home", home)
    assert again["added"] == 0


def test_import_of_the_home_names_the_hidden_folders_it_skipped(run, home):
    result = run("import", home)
    assert result.exit_code == 0
    err = result.stderr.splitlines()
    assert err[0].startswith("Imported 1 files: 1 records")
    hidden = [line for line in err if line.startswith("left out")]
    assert hidden == [
        "left out 8 hidden folders: "
        + ", ".join(
            f"{home / name} ({n} file{'s' if n > 1 else ''})"
            for name, n in [
                (".cache", 1),
                (".claude", 8),
                (".codex", 4),
                (".hermes", 7),
                (".nanobot", 5),
                (".openclaw", 9),
                (".openclaw-dev", 1),
                (".picoclaw", 5),
            ]
        )  # fmt: skip
        + "; --hidden reads them"
    ]


def test_an_import_that_finds_nothing_says_why(run, import_json, home):
    (home / "CLAUDE.md").unlink()
    result = run("import", home)
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1] == (
        "0 records: 8 hidden folders were skipped (.cache: 1 file, .claude: 8 files, "
        ".codex: 4 files, …); use --hidden or memctl import --scan"
    )
    report = import_json(home)
    assert report["records"] == 0
    assert report["warnings"] == [result.stderr.splitlines()[-1]]
    assert [h["path"] for h in report["hidden_skipped"]][:2] == [
        str(home / ".cache"), str(home / ".claude"),
    ]  # fmt: skip


def test_empty_folder_says_no_files(import_json, tmp_path):
    (tmp_path / "empty").mkdir()
    assert import_json(tmp_path / "empty")["warnings"] == ["0 records: no files found"]


def test_hidden_reads_hidden_folders(import_json, home):
    report = import_json(home, "--hidden")
    assert report["hidden_skipped"] == []
    paths = {f["path"] for f in report["by_file"]}
    assert str(home / ".hermes/profiles/work/memories/MEMORY.md") in paths
    # Read, not guessed: what is in no known format is reported.
    unsupported = {u["path"] for u in report["unsupported"]}
    assert str(home / ".openclaw/workspace/.git/HEAD") in unsupported
    assert str(home / ".codex/session_index.jsonl") in unsupported


def test_scan_and_paths_are_exclusive(run, home):
    assert run("import", home, "--scan").exit_code == 2
    assert run("import").exit_code == 2
    wrong = run("import", home, "--home", home)
    assert (wrong.exit_code, wrong.stdout) == (2, "")
    assert "goes with --scan" in wrong.stderr


def test_an_agents_environment_variable_moves_its_home(home, tmp_path, monkeypatch):
    moved = tmp_path / "elsewhere"
    shutil.move(home / ".codex", moved)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(moved))
    found = {f.agent: f.home for f in scan.find()}
    assert found["codex"] == str(moved)
    # An explicit --home is a backup or another machine: the variables are not about it.
    assert "codex" not in {f.agent for f in scan.find(home)}


def test_every_agent_in_the_data_file_has_a_label_and_paths():
    assert [a.name for a in scan.agents()] == [
        "openclaw", "claude-code", "codex", "hermes", "nanobot", "picoclaw", "memory-files",
    ]  # fmt: skip
    assert all(a.label and a.paths and a.homes for a in scan.agents())
