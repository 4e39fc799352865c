"""Compatibility with real files: every sample under ../shared/samples (or $MEMCTL_SAMPLES) is
read without an exception and imported with exact accounting. Run with -s to see the summary.

The samples are not part of the repository (personal data, unclear licences); without them
these tests skip.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from memctl import copies
from memctl.copies import COPY_OF_IMPORTED
from memctl.importer import ImportReport, import_paths
from memctl.ingest import frontmatter, hermes
from memctl.ingest.detect import INDEXES, READERS, UnknownFormat, detect
from memctl.ingest.jsonl import PYTHON_REPR
from memctl.models import Record, Rejection
from memctl.store import Store


def _samples_dir() -> Path:
    if env := os.environ.get("MEMCTL_SAMPLES"):
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "samples"


SAMPLES = _samples_dir()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not SAMPLES.is_dir(),
        reason=f"sample corpus not found at {SAMPLES} (set MEMCTL_SAMPLES to run these tests)",
    ),
]

# Intentionally broken inputs (see the samples' README), with the line that breaks them.
BROKEN = {
    "claude-code/metacc_malformed_interrupted_write.jsonl": [
        (1, "invalid JSON: truncated line (unexpected end of data)")
    ],
    "claude-code/metacc_corrupt_truncated_no_newline.jsonl": [
        (1, "invalid JSON: truncated line (unexpected end of data)")
    ],
    "claude-code/metacc_corrupt_wrong_shape_array.jsonl": [
        (1, "expected a JSON object, got an array")
    ],
    # A derived excerpt whose message list ends with a "…[38 more messages omitted]" string.
    "hermes/54laowang_cli_session_log_DERIVED_excerpt.json": [(9, "message is not a JSON object")],
}
# Index and sidecar files: reported as unsupported, never guessed at.
UNSUPPORTED = {
    "hermes/54laowang_sessions_index.json",
    "nanobot/Lianghy17_sessions_index_fork_specific.json",
    "picoclaw/geoclaw_agent_main_main.meta.json",
    "picoclaw/oriana_agent_main_main.meta.json",
}


def sample_files() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    # The top-level README.md is the catalogue of the samples, not one of them.
    return sorted(
        p for p in SAMPLES.rglob("*") if p.is_file() and p.relative_to(SAMPLES) != Path("README.md")
    )


def rel(path: Path | str) -> str:
    return Path(path).relative_to(SAMPLES).as_posix()


def read(path: Path) -> list[Record | Rejection]:
    return list(READERS[detect(path)](path))


@pytest.mark.parametrize("path", sample_files(), ids=rel)
def test_every_sample_reads_without_an_exception(path: Path) -> None:
    try:
        items = read(path)
    except UnknownFormat:
        assert rel(path) in UNSUPPORTED
        return
    assert rel(path) not in UNSUPPORTED
    for item in items:
        assert item.line >= (0 if isinstance(item, Rejection) else 1)
    rejected = [(i.line, i.reason) for i in items if isinstance(i, Rejection)]
    assert rejected == BROKEN.get(rel(path), [])


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ImportReport]:
    store = Store.open(tmp_path_factory.mktemp("samples") / "samples.db")
    try:
        yield import_paths(store.for_user("samples"), sample_files())
    finally:
        store.close()


def test_import_accounts_for_every_record(report: ImportReport) -> None:
    files = {rel(f.path): f for f in report.by_file}
    assert set(files) | UNSUPPORTED == {rel(p) for p in sample_files()}
    assert {rel(u["path"]) for u in report.unsupported} == UNSUPPORTED
    for name, f in files.items():
        assert f.records == f.added + f.skipped + f.rejected, name
    assert report.records == report.added + report.skipped + len(report.rejected)
    _print_summary(report)


def test_broken_files_are_reported_with_their_lines(report: ImportReport) -> None:
    found: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for r in report.rejected:
        found[rel(r.path)].append((r.line, r.reason))
    assert dict(found) == BROKEN


def test_nothing_is_added_from_assistant_tool_or_setup_text(report: ImportReport) -> None:
    """Restraint on real transcripts: what the readers mark as not the user's never counts."""
    skipped = report.skipped_by_reason
    assert skipped["not user-authored"] > 0
    assert skipped["tool output"] > 0
    assert skipped["injected setup text"] > 0


# Facts the reader fixes were made for, checked on the real files they came from.
def _records(name: str) -> list[Record]:
    return [i for i in read(SAMPLES / name) if isinstance(i, Record)]


def test_openclaw_user_text_without_its_channel_envelope() -> None:
    name = "openclaw/zhipuclaw_session_c3d447e0.jsonl.reset.2026-03-21T21-28-34.840Z"
    users = [(r.line, r.skip, r.text) for r in _records(name) if r.role == "user"]
    assert users == [(5, "injected setup text", users[0][2]), (13, None, "用中文说")]


def test_codex_event_only_rollout_yields_its_messages() -> None:
    recs = _records("codex/ccrider_subagent_v2.jsonl")
    assert [(r.line, r.role, r.text) for r in recs] == [
        (4, "user", "Update the dependency pins"),
        (5, "assistant", "Updated the pins and the lockfile."),
    ]


def test_nanobot_heartbeat_prompts_are_injected() -> None:
    recs = _records("nanobot/Lianghy17_session_heartbeat_user_only.jsonl")
    assert [(r.line, r.skip) for r in recs] == [(n, "injected setup text") for n in (2, 3, 4)]


def test_dated_table_rows_lose_their_cell_separator() -> None:
    recs = _records("memory-md/openclaw_zh_MEMORY_large.md")
    assert [r for r in recs if r.text.startswith("|")] == []
    dated = [r for r in recs if r.line == 155]
    assert [(r.ts, r.text) for r in dated] == [("2026-02-13", "三模型协同系统部署")]


def _print_summary(report: ImportReport) -> None:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for f in report.by_file:
        rows[f.format].update(files=1, records=f.records, added=f.added, skipped=f.skipped,
                              rejected=f.rejected)  # fmt: skip
    rows["(unsupported)"].update(files=len(report.unsupported))
    cols = ("files", "records", "added", "skipped", "rejected")
    print(f"\nsamples: {SAMPLES}")
    print(f"{'format':<16}" + "".join(f"{c:>10}" for c in cols))
    for fmt in sorted(rows):
        print(f"{fmt:<16}" + "".join(f"{rows[fmt][c]:>10}" for c in cols))
    total = sum(rows.values(), Counter())
    print(f"{'total':<16}" + "".join(f"{total[c]:>10}" for c in cols))
    print(
        "skipped by reason: "
        + ", ".join(f"{k} {v}" for k, v in report.skipped_by_reason.most_common())
    )
    kinds = Counter(k for f in sample_files() if (k := file_kind(f)))
    kinds["Python-repr lines"] = sum(r.reason == PYTHON_REPR for r in report.rejected)
    kinds["copied records"] = report.skipped_by_reason[COPY_OF_IMPORTED]
    print("kinds: " + ", ".join(f"{k} {kinds[k]}" for k in (*KINDS, *LINE_KINDS)))


# The kinds of file issue 13 added readers or reasons for, counted in the summary.
KINDS = ("transcript copy", "auto-memory topic", "hermes profile memory", "session index")
LINE_KINDS = ("Python-repr lines", "copied records")


def file_kind(path: Path) -> str | None:
    """Which of KINDS a file is, by the project's own rules."""
    if copies.is_copy(path):
        return KINDS[0]
    if path.suffix == ".md":
        head = path.read_text(encoding="utf-8", errors="replace").splitlines()[:20]
        if frontmatter.hint(frontmatter.parse(head)):
            return KINDS[1]
    if hermes.is_memory_file(path) and "profiles" in path.parts:
        return KINDS[2]
    if path.name.lower() in INDEXES:
        return KINDS[3]
    return None


@pytest.mark.parametrize(
    "folder", sorted(p.name for p in SAMPLES.iterdir() if p.is_dir()) if SAMPLES.is_dir() else []
)
def test_each_agent_home_leaves_at_most_a_tenth_pending_each_with_a_reason(
    folder: str, tmp_path: Path
) -> None:
    """Issue 10: memories the agent was already using stay in use; what waits has a reason."""
    store = Store.open(tmp_path / "home.db")
    try:
        import_paths(store.for_user("home"), [SAMPLES / folder])
        rows = store.conn.execute(
            "SELECT status, review_reasons FROM entries WHERE merged_into IS NULL"
        ).fetchall()
    finally:
        store.close()
    pending = [reasons for status, reasons in rows if status == "pending_review"]
    assert len(pending) <= 0.10 * len(rows), (folder, len(pending), len(rows))
    assert all(reasons and orjson.loads(reasons) for reasons in pending)
