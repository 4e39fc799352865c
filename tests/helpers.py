"""Helpers the tests import by name (tests/conftest.py holds the fixtures, built on these).

Plain functions rather than fixtures where they are called from module-scoped fixtures,
Hypothesis tests or other helpers, which cannot take a function-scoped fixture.

- `cli(*args, input=...)`: memctl in-process, as the `run` fixture does (stdin from `input`).
- `check_report(report)`: the accounting rule on a `memctl import --json` report.
- `add(store, content, **fields)`, `ENTRY_FIELDS`: one entry through the store; its columns.
- `db_state(db)`, `state_diff(a, b)`, `integrity(db)`, `last_run(db)`: a canonical, comparable
  snapshot of what a database holds for its users, without the columns that differ between two
  correct runs (row ids, timestamps of the run, run ids); two databases that hold the same
  memories compare equal. Used by the crash, concurrency and isolation tests.
- `memctl_argv(...)`, `start_memctl(...)`: a real `memctl` subprocess, optionally killed at its
  n-th COMMIT.
- `write_big_tree(root)`: a large, deterministic input tree (Markdown memory files with
  cross-file duplicates, JSONL transcripts with broken lines) that takes a few seconds to import.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import orjson
from corpus import EN_WORDS, ZH_WORDS, spell
from typer.testing import CliRunner, Result

from memctl.cli import app
from memctl.normalise import norm_hash
from memctl.store import Store

# The terminal the CLI believes it prints to: wide, so rendered tables and help are stable.
WIDE = {"COLUMNS": "200", "LINES": "50"}


def cli(
    *args: Any,
    input: str | None = None,
    env: dict[str, str | None] | None = None,
    allow_exception: bool = False,
) -> Result:
    """Invoke the CLI in-process: `cli("import", path, "--json")`. Arguments may be Paths;
    `input` is what a person types on stdin; `env` adds to (or, with None, removes from) the
    environment.

    Typer's CliRunner keeps stdout and stderr apart (result.stdout / result.stderr). Any
    exception other than a clean exit fails the test, since a user would see a traceback;
    pass `allow_exception=True` to inspect it instead.
    """
    result = CliRunner(env=WIDE).invoke(app, [str(a) for a in args], input=input, env=env)
    if not allow_exception and not isinstance(result.exception, SystemExit | None):
        raise AssertionError(f"memctl {args} raised {result.exception!r}") from result.exception
    return result


# Columns that legitimately differ between two correct runs over the same input.
VOLATILE_COLUMNS = frozenset(
    {"id", "created_at", "updated_at", "run_id", "started_at", "finished_at", "at"}
)
# Per-run logs: a killed run leaves its own row, and every run logs its own rejections, so these
# are compared through the last run (see `last_run`), not as tables.
LOG_TABLES = frozenset({"import_runs", "rejections", "runs"})
# Columns holding an entry id, declared as a foreign key or not (changes.entry_id is not).
ENTRY_REF_COLUMNS = frozenset({"entry_id", "new_id", "old_id", "merged_into"})
# Text that mentions entries by id ("superseded by #12"): ids are rewritten to identities.
ID_TEXT_COLUMNS = frozenset(
    {
        ("changes", "note"),
        ("changes", "before"),
        ("changes", "after"),
        ("entries", "review_reasons"),
    }
)
_MENTION = re.compile(r"#(\d+)")


def db_state(
    db_path: Path, *, exclude: frozenset[str] = LOG_TABLES, drop: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """{table: Counter of rows, "counts": {table: rows}} for every table but `exclude`.

    A reference to an entry is replaced by that entry's (user_id, norm_hash), its identity, so
    the snapshot does not depend on the order ids were handed out; a foreign key to a table in
    `exclude` is dropped. `drop` names more columns to leave out ("merge_layer" when two
    concurrent runs may each have created a different entry first). Full-text indexes (virtual
    tables and their shadow tables) are derived data and left out.
    """
    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = _plain_tables(conn)
        identity = {}
        if "entries" in tables:
            rows = conn.execute("SELECT id, user_id, norm_hash FROM entries")
            identity = {r[0]: (r[1], r[2]) for r in rows}
        state: dict[str, Any] = {"counts": {}}
        for table in tables:
            if table in exclude:
                continue
            state["counts"][table] = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            refs = {r[3]: r[2] for r in conn.execute(f'PRAGMA foreign_key_list("{table}")')}
            refs.update((c, "entries") for c in ENTRY_REF_COLUMNS)
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            kept = [
                c
                for c in columns
                if c not in VOLATILE_COLUMNS | drop and refs.get(c) not in exclude
            ]
            kinds = [
                "ref"
                if refs.get(c) == "entries"
                else "text"
                if (table, c) in ID_TEXT_COLUMNS
                else ""
                for c in kept
            ]
            state[table] = Counter(
                tuple(_canonical(kind, v, identity) for kind, v in zip(kinds, row, strict=True))
                for row in conn.execute(f'SELECT {",".join(kept) or "1"} FROM "{table}"')
            )
        return state
    finally:
        conn.close()


def _canonical(kind: str, value: Any, identity: dict[int, tuple[str, str]]) -> Any:
    if kind == "ref":
        return identity.get(value, value)
    if kind == "text" and isinstance(value, str):
        return _MENTION.sub(lambda m: f"#{identity.get(int(m[1]), m[1])}", value)
    return value


def _plain_tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    virtual = [name for name, sql in rows if sql.upper().startswith("CREATE VIRTUAL TABLE")]
    return sorted(
        name
        for name, _ in rows
        if name not in virtual and not any(name.startswith(f"{v}_") for v in virtual)
    )


def state_diff(a: dict[str, Any], b: dict[str, Any], limit: int = 5) -> str:
    """A short human description of how two snapshots differ (for assertion messages)."""
    lines = []
    if a["counts"] != b["counts"]:
        lines.append(f"counts {a['counts']} != {b['counts']}")
    for table in sorted(set(a) | set(b) - {"counts"}):
        if table == "counts":
            continue
        left, right = a.get(table, Counter()), b.get(table, Counter())
        if left != right:
            only_a = list((left - right).elements())[:limit]
            only_b = list((right - left).elements())[:limit]
            lines.append(f"{table}: only in first {only_a}; only in second {only_b}")
    return "\n".join(lines) or "identical"


def integrity(db_path: Path) -> tuple[str, list[tuple[Any, ...]]]:
    """(PRAGMA integrity_check result, foreign key violations)."""
    conn = sqlite3.connect(db_path)
    try:
        check = "\n".join(r[0] for r in conn.execute("PRAGMA integrity_check"))
        violations = [tuple(r) for r in conn.execute("PRAGMA foreign_key_check")]
        return check, violations
    finally:
        conn.close()


def last_run(db_path: Path) -> tuple[dict[str, Any], list[tuple[str, int, str]]]:
    """The last import run's row and its rejections (path, line, reason), sorted."""
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        run = dict(conn.execute("SELECT * FROM import_runs ORDER BY id DESC LIMIT 1").fetchone())
        rejected = conn.execute(
            "SELECT path, line, reason FROM rejections WHERE run_id = ?", [run["id"]]
        )
        return run, sorted(tuple(r) for r in rejected)
    finally:
        conn.close()


def memctl_argv(*args: str | Path) -> list[str]:
    """argv for `memctl ARGS` in a subprocess, with the interpreter running the tests."""
    return [sys.executable, "-m", "memctl", *(str(a) for a in args)]


# `memctl` with a hook on every SQL statement of every connection: it counts COMMITs (written
# to $MEMCTL_TEST_COMMIT_TALLY at exit) and SIGKILLs itself as the n-th one
# ($MEMCTL_TEST_KILL_AT_COMMIT) starts, or $MEMCTL_TEST_KILL_DELAY seconds after it started,
# that is while SQLite writes it (the sqlite3 module releases the GIL during a step).
_HOOKED_MEMCTL = """
import atexit, os, signal, sqlite3, sys, threading

at = int(os.environ.get("MEMCTL_TEST_KILL_AT_COMMIT") or 0)
delay = float(os.environ.get("MEMCTL_TEST_KILL_DELAY") or 0)
tally = os.environ.get("MEMCTL_TEST_COMMIT_TALLY")
commits = 0
connect = sqlite3.connect


def kill():
    os.kill(os.getpid(), signal.SIGKILL)


def trace(sql):
    global commits
    if sql.lstrip().upper().startswith(("COMMIT", "END")):
        commits += 1
        if commits == at:
            threading.Timer(delay, kill).start() if delay else kill()


def hooked(*args, **kwargs):
    conn = connect(*args, **kwargs)
    conn.set_trace_callback(trace)
    return conn


sqlite3.connect = hooked
if tally:
    atexit.register(lambda: open(tally, "w").write(str(commits)))
sys.argv[0] = "memctl"
from memctl.cli import main

main()
"""


def start_memctl(
    *args: str | Path,
    cwd: Path,
    kill_at_commit: int = 0,
    kill_delay: float = 0.0,
    tally: Path | None = None,
) -> subprocess.Popen[bytes]:
    """`memctl ARGS` in a subprocess, stdout and stderr piped.

    Run from `cwd` (not the checkout: `python -m` would put it first on sys.path). With
    `kill_at_commit` or `tally`, through the COMMIT hook above.
    """
    if not (kill_at_commit or tally):
        argv = memctl_argv(*args)
    else:
        argv = [sys.executable, "-c", _HOOKED_MEMCTL, *(str(a) for a in args)]
    env = dict(os.environ)
    env.update(
        MEMCTL_TEST_KILL_AT_COMMIT=str(kill_at_commit),
        MEMCTL_TEST_KILL_DELAY=str(kill_delay),
        MEMCTL_TEST_COMMIT_TALLY=str(tally or ""),
    )
    return subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def check_report(report: dict[str, Any]) -> None:
    """The accounting rule on a `memctl import --json` report, overall and per file: every
    record is added, skipped (with a reason) or rejected (listed), and the files add up."""
    assert report["records"] == report["added"] + report["skipped"] + report["rejected_count"]
    assert report["skipped"] == sum(report["skipped_by_reason"].values())
    assert report["rejected_count"] == len(report["rejected"])
    assert report["files"] == len(report["by_file"])
    for f in report["by_file"]:
        assert f["records"] == f["added"] + f["skipped"] + f["rejected"], f
    for key in ("records", "added", "skipped", "rejected"):
        assert (
            sum(f[key] for f in report["by_file"])
            == report["rejected_count" if key == "rejected" else key]
        )


# -- a big input tree -------------------------------------------------------------------------

# No line about the assistant: persona is a capped layer, and the upkeep concurrency test
# needs an import that leaves what consolidate does unchanged (either order, one state).
_ZH = ["用户喜欢咖啡", "老板讨厌周会", "团队常用飞书文档", "项目计划迁移到 Rust", "我们每天晨跑"]
_EN = ["The user prefers dark mode", "Alice dislikes long meetings", "We use the Postgres cluster",
       "My manager reviews weekly reports", "The team wants to learn Rust"]  # fmt: skip


# A different text for every file (up to 24): a repeated text would be a restatement, which
# moves links, and the crash tests count on a clean run only ever adding them.
_LIVES_IN = [
    f"I live in {c}" if n % 2 == 0 else f"我住在{c}"
    for n, c in enumerate(
        ["Paris", "上海", "Lyon", "北京", "Berlin", "杭州", "Madrid", "成都", "Vienna", "深圳",
         "Prague", "南京", "Oslo", "武汉", "Dublin", "西安", "Lisbon", "厦门", "Zurich", "苏州",
         "Athens", "青岛", "Warsaw", "长沙"]
    )
]  # fmt: skip
_EDITOR = [
    template.format(editor)
    for template in ("My editor is {}", "I use {} for code", "Editor: {}")
    for editor in ("vim", "Emacs", "Helix", "Neovim", "VS Code", "Zed", "Sublime Text", "nano")
]


def _day(n: int) -> str:
    return (date(2026, 1, 1) + timedelta(days=n)).isoformat()


def _fact(rng: random.Random, n: int) -> str:
    # Words spelled from n's digits, so facts differ in their words and not only in a number:
    # numbered copies of one sentence would rightly fold into one template family.
    if n % 2:
        return f"{rng.choice(_ZH)}，{spell(ZH_WORDS, n, 6, '')}，编号 {n}。"
    return f"{rng.choice(_EN)}: {spell(EN_WORDS, n, 6, ' ')} (item {n})."


def write_big_tree(
    root: Path,
    *,
    md_files: int = 20,
    bullets: int = 20_000,
    jsonl_files: int = 4,
    messages: int = 5_000,
    seed: int = 7,
    pool_seed: int | None = None,
    shared: int = 3_000,
    first_item: int = 0,
    transcript_share: float = 0.3,
    facts: bool = True,
) -> Path:
    """Markdown memory files and JSONL transcripts under `root`; returns `root`.

    30% of Markdown bullets repeat a fact from a pool of `shared` ones (exact duplicates within
    and across files; two trees with the same `pool_seed` share those lines), the rest are facts
    of their own, numbered from `first_item` (give two trees far-apart values to keep them
    disjoint). Transcripts alternate user "remember: …" messages (`transcript_share` of them
    from the pool) and assistant replies; every 97th line is broken JSON, every 89th an array.
    With `facts`, each Markdown file and transcript also says where the user lives and which
    editor they use, a different value each time: a supersede chain across the files.
    """
    pool_seed = seed if pool_seed is None else pool_seed
    pool_rng = random.Random(pool_seed)
    # Numbered apart from every tree's own facts, and from other pools.
    pool = [_fact(pool_rng, 10**12 * (pool_seed + 1) + n) for n in range(shared)]
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for f in range(md_files):
        lines = [f"# Memory {f}", ""]
        for i in range(bullets):
            if i % 2000 == 0:
                lines += ["", f"## Section {i // 2000}", ""]
            if rng.random() < 0.3:
                text = rng.choice(pool)
            else:
                text = _fact(rng, first_item + f * bullets + i)
            lines.append(f"- {text}")
            if facts and i == bullets // 2:
                # Dated: only the records' own times order two values of a fact.
                lines += [f"- {_day(f)}: {_LIVES_IN[f % len(_LIVES_IN)]}",
                          f"- {_day(f)}: {_EDITOR[f % len(_EDITOR)]}"]  # fmt: skip
        (root / f"memory-{f:02d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sessions = root / "sessions"
    sessions.mkdir(exist_ok=True)
    for f in range(jsonl_files):
        out = []
        for i in range(1, messages + 1):
            if facts and i == messages // 2 + 1:
                fact = _LIVES_IN[(md_files + f) % len(_LIVES_IN)]
                said = f"{_day(md_files + f)}T12:00:00Z"
                message = {"role": "user", "content": f"remember: {fact}", "created_at": said}
                out.append(orjson.dumps(message))
            elif i % 97 == 0:
                out.append(b'{"role": "user", "content": "remember: broken')
            elif i % 89 == 0:
                out.append(b"[1, 2, 3]")
            elif i % 2:
                own = _fact(rng, first_item + 10**7 + f * 10**5 + i)
                fact = rng.choice(pool) if rng.random() < transcript_share else own
                out.append(orjson.dumps({"role": "user", "content": f"remember: {fact}"}))
            else:
                out.append(orjson.dumps({"role": "assistant", "content": f"Noted ({i})."}))
        (sessions / f"s{f}.jsonl").write_bytes(b"\n".join(out) + b"\n")
    return root


def add(store: Store, content: str, user: str = "alice", **fields: Any) -> int:
    """Insert one entry with explicit fields through the store; returns its id."""
    row = {"content": content, "norm_hash": norm_hash(content), **fields}
    with store.transaction():
        return store.for_user(user).add_entries([row])[row["norm_hash"]]


def _entry_fields() -> list[str]:
    """Every entries column but user_id, in schema order: what a reader of entries gets."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    Store(conn, ":memory:")
    names = [row[1] for row in conn.execute("PRAGMA table_info(entries)") if row[1] != "user_id"]
    conn.close()
    return names


ENTRY_FIELDS = _entry_fields()


def skips(tmp_path: Path, body: str, name: str = "SOUL.md") -> dict[str, str | None]:
    """Each record of a Markdown file written from `body`: the reason accepting skips it, or
    None when it is kept."""
    from memctl.importer.accept import accept
    from memctl.ingest.markdown import read_markdown
    from memctl.models import Record

    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    out: dict[str, str | None] = {}
    for r in read_markdown(path):
        assert isinstance(r, Record)
        verdict = accept(r)
        out[r.text] = verdict if isinstance(verdict, str) else None
    return out


# A home whose USER.md states the job and whose note holds the job's rules, one about its
# customers worded with a private life, and one line of that life (memctl.classify.home).
BIKE_SHOP_JOB = "# USER.md\n\n## Context\n\nWorks at Fernhill Cycles as a bike mechanic.\n"
BIKE_SHOP_NOTE = (
    "# 2026-11-02\n\n## Notes\n\n"
    "- Repair tickets are numbered and taped to the saddle\n"
    "- Fernhill parts lists are exported as PDF every Friday\n"
    "- Customers get a text when the bike is ready\n"
    "- The rota is posted on Mondays\n"
    "- Never mention my divorce or my kids to customers\n"
    "- Mum's birthday dinner is booked every March\n"
)
BIKE_SHOP_HOME = {"ws/USER.md": BIKE_SHOP_JOB, "ws/memory/2026-11-02.md": BIKE_SHOP_NOTE}
