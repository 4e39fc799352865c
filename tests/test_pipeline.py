"""`memctl run FILE`: the shipped pipelines run; a bad file is refused, naming the key."""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Run

from memctl import pipeline

PIPELINES = Path(__file__).resolve().parents[1] / "pipelines"


def runs(db: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT kind, status FROM runs ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["nightly", "migrate"])
def test_shipped_files_load(name: str) -> None:
    spec = pipeline.load(PIPELINES / f"{name}.toml")
    assert spec.name == name
    assert [s.kind for s in spec.steps] == (
        ["consolidate"] if name == "nightly" else ["import", "consolidate"]
    )


def test_nightly_runs_on_a_temp_db(run: Run, db_path: Path, tree: Any) -> None:
    inputs = tree({"MEMORY.md": "# Memory\n\n- 喜欢拿铁\n- Uses vim keybindings\n"})
    assert run("import", inputs, "--user", "alice").exit_code == 0
    result = run("run", PIPELINES / "nightly.toml", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    out = orjson.loads(result.stdout)
    assert out["pipeline"] == "nightly"
    [step] = out["steps"]
    assert (step["step"], step["run"], step["status"], step["error"]) == (
        "steps[1]", "consolidate", "ok", None,
    )  # fmt: skip
    assert step["counts"] == {
        "expire": 0,
        "dedupe": 0,
        "supersede": 0,
        "caps": 0,
        "decay": 0,
        "index": 2,
        "optimize": 0,
    }
    assert runs(db_path) == [("pipeline:nightly", "ok")]
    human = run("run", PIPELINES / "nightly.toml")
    assert human.exit_code == 0
    assert human.stderr == (
        "steps[1] consolidate: ok "
        "(expire 0, dedupe 0, supersede 0, caps 0, decay 0, index 0, optimize 0)\n"
    )


def test_migrate_runs_with_paths_pointed_at_a_fixture(
    run: Run, db_path: Path, tree: Any, tmp_path: Path
) -> None:
    inputs = tree({
        "memories/MEMORY.md": "# Memory\n\n- 喜欢拿铁\n- 对花生过敏\n- 喜欢拿铁\n",
        "workspace/sessions/s1.jsonl": (
            '{"role": "user", "content": "记住：我女儿的生日是5月3日"}\n'
            '{"role": "assistant", "content": "好的，记住了"}\n'
        ),
    })  # fmt: skip
    raw = tomllib.loads((PIPELINES / "migrate.toml").read_text())
    assert raw["steps"][0]["paths"] == ["~/.hermes/memories", "~/.picoclaw/workspace"]
    text = (PIPELINES / "migrate.toml").read_text()
    for old, new in zip(raw["steps"][0]["paths"], ["memories", "workspace"], strict=True):
        text = text.replace(f'"{old}"', orjson.dumps(str(inputs / new)).decode())
    spec = tmp_path / "migrate.toml"
    spec.write_text(text)

    result = run("run", spec, "--user", "alice", "--json")
    assert result.exit_code == 0, result.output
    imported, consolidated = orjson.loads(result.stdout)["steps"]
    assert (imported["run"], imported["added"], imported["skipped"]) == ("import", 3, 2)
    assert consolidated["status"] == "ok"
    assert consolidated["counts"] == {"expire": 0, "caps": 0, "index": 3, "optimize": 0}
    conn = sqlite3.connect(db_path)
    users = conn.execute("SELECT user_id, count(*) FROM entries GROUP BY user_id").fetchall()
    conn.close()
    assert users == [("alice", 3)]
    assert runs(db_path) == [("pipeline:migrate", "ok")]

    again = orjson.loads(run("run", spec, "--user", "alice", "--json").stdout)
    assert again["steps"][0]["added"] == 0


def test_a_failing_step_stops_the_pipeline(run: Run, db_path: Path, tmp_path: Path) -> None:
    spec = tmp_path / "p.toml"
    spec.write_text(
        f'[[steps]]\nrun = "import"\npaths = ["{tmp_path / "missing"}"]\n\n'
        '[[steps]]\nrun = "consolidate"\n'
    )
    result = run("run", spec)
    assert result.exit_code == 1
    assert result.stderr == f"Error: no such file or directory: {tmp_path / 'missing'}\n"
    assert runs(db_path) == []  # the consolidate step never ran


BAD_FILES = [
    ("unknown top-level key", 'nmae = "x"\n[[steps]]\nrun = "consolidate"\n', "unknown key 'nmae'"),
    ("unknown step key", '[[steps]]\nrun = "consolidate"\ncap = { profile = 3 }\n',
     "steps[1].cap: not a setting of 'consolidate'"),
    ("wrong type", '[[steps]]\nrun = "consolidate"\nsteps = "expire"\n',
     "steps[1].steps: expected array, got string"),
    ("wrong type inside a table", '[[steps]]\nrun = "consolidate"\ncaps = { profile = "many" }\n',
     "steps[1].caps.profile: expected integer, got 'many'"),
    ("a boolean is not a number", '[[steps]]\nrun = "consolidate"\ncaps = { profile = true }\n',
     "steps[1].caps.profile: expected integer, got true"),
    ("unknown key inside a table", '[[steps]]\nrun = "consolidate"\n[steps.decay]\nfactr = 0.9\n',
     "steps[1].decay.factr: unknown setting"),
    ("out of range", '[[steps]]\nrun = "consolidate"\n[steps.decay]\nfactor = 1.5\n',
     "steps[1].decay.factor: must be between 0 and 1, got 1.5"),
    ("negative cap", '[[steps]]\nrun = "consolidate"\ncaps = { episodic = -1 }\n',
     "steps[1].caps.episodic: must be 0 or more, got -1"),
    ("not a layer", '[[steps]]\nrun = "consolidate"\ncaps = { dreams = 1 }\n',
     "steps[1].caps.dreams: not a layer"),
    ("unknown step kind", '[[steps]]\nrun = "dedupe"\n',
     "steps[1].run: 'dedupe' is not one of import, consolidate"),
    ("missing step kind", '[[steps]]\nsteps = ["expire"]\n',
     "steps[1].run: None is not one of import, consolidate"),
    ("unknown consolidate step", '[[steps]]\nrun = "consolidate"\nsteps = ["expire", "dream"]\n',
     "steps[1].steps: unknown step 'dream'"),
    ("second step is bad", '[[steps]]\nrun = "consolidate"\n[[steps]]\nrun = "consolidate"\n'
     'steps = ["expire", 3]\n', "steps[2].steps: expected array of strings"),
    ("no steps", 'name = "x"\n', "'steps' must be a non-empty array of tables"),
    ("steps not tables", "steps = [1, 2]\n", "steps[1] must be a table"),
    ("import without paths", '[[steps]]\nrun = "import"\n', "steps[1].paths: required"),
    ("import paths not strings", '[[steps]]\nrun = "import"\npaths = [1]\n',
     "steps[1].paths: expected array of strings"),
    ("import unknown format", '[[steps]]\nrun = "import"\npaths = ["x"]\nformat = "csv"\n',
     "steps[1].format: not one of"),
    ("name not a string", 'name = 5\n[[steps]]\nrun = "consolidate"\n',
     "name: expected string, got integer"),
    ("invalid TOML", "[[steps]\nrun = 1\n", "invalid TOML"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "message"), [c[1:] for c in BAD_FILES],
                         ids=[c[0] for c in BAD_FILES])  # fmt: skip
def test_a_bad_file_is_one_line_naming_the_key_and_nothing_runs(
    run: Run, db_path: Path, tmp_path: Path, content: str, message: str
) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(content)
    result = run("run", spec)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"Error: {spec}: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert not db_path.exists() and not Path(f"{db_path}.lock").exists()


def test_a_missing_file(run: Run, db_path: Path, tmp_path: Path) -> None:
    result = run("run", tmp_path / "nope.toml")
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path / 'nope.toml'}: No such file or directory\n"
    assert not db_path.exists()


def test_settings_from_the_file_are_used(run: Run, db_path: Path, tmp_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    conn.close()
    assert run("status").exit_code == 0  # creates the schema
    conn = sqlite3.connect(db_path)
    with conn:
        conn.executemany(
            "INSERT INTO entries (user_id, content, norm_hash, layer, importance, created_at, "
            "updated_at) VALUES ('default', ?, ?, 'episodic', ?, '2025-01-01', '2025-01-01')",
            [(f"e{i}", f"s1:{i}", i / 10) for i in range(5)],
        )
    conn.close()
    spec = tmp_path / "p.toml"
    spec.write_text('[[steps]]\nrun = "consolidate"\nsteps = ["caps"]\ncaps = { episodic = 2 }\n')
    out = orjson.loads(run("run", spec, "--json").stdout)
    assert out["steps"][0]["counts"] == {"caps": 3}
    conn = sqlite3.connect(db_path)
    active = conn.execute("SELECT content FROM entries WHERE status = 'active' ORDER BY id")
    assert [r[0] for r in active] == ["e3", "e4"]
    conn.close()
