"""Big input measured on the real process: a line too long to hold, a file too long to read at
once, each imported in bounded memory with every record accounted for.

- A 50 MB single line, made at test time, in Markdown and in JSONL: rejected with its size,
  the lines around it kept, and the child's peak allocations (tracemalloc) no higher than
  importing a two-line file, give or take a few MiB: the line was never held whole.
- Markdown with 100k bullets: imported, every record accounted for and traced to its line.

Deep JSON inside good items is in test_bad_input.py; SQL-looking names and text in
test_sql_injection.py.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from corpus import EN_WORDS, ZH_WORDS
from helpers import check_report, memctl_argv

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
        memctl_argv(*args),
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
