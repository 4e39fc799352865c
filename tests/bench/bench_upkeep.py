"""Benchmark upkeep on a big store: `consolidate` of 1,000 new entries, and `context`.

    python tests/bench/bench_upkeep.py [--entries 1000000] [--new 1000] [--repeat 5]
                                       [--keep DIR]

Builds a store of N entries (inserted directly with executemany: the point is the store's size,
not the import path), spread over five users, every layer, status, realm and audience, with
mixed Chinese/English text. One consolidation brings it to steady state (caps enforced, decay
done, full-text index built). Then, per repetition: add 1,000 new entries and time
`consolidate` (in-process, then via the CLI in a subprocess), and time `context` with a query
(in-process `build()`, then the CLI cold start). Prints medians and a per-step breakdown.

Targets (issue 5): consolidate ≤ 2 s, context ≤ 100 ms. `--keep DIR` keeps the steady-state
database there and reuses it on the next run (building 1M entries takes a few minutes).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memctl import consolidate, context
from memctl.normalise import norm_hash
from memctl.store import Store

USERS = [("alice", 0.4), ("bob", 0.25), ("carol", 0.15), ("dave", 0.1), ("erin", 0.1)]
LAYERS = [
    ("episodic", 0.55), ("procedural", 0.15), ("profile", 0.15),
    ("relationship", 0.05), ("persona", 0.05), ("boundary", 0.05),
]  # fmt: skip
STATUSES = [("active", 0.85), ("pending_review", 0.05), ("superseded", 0.05), ("archived", 0.05)]
REALMS = [("real", 0.7), ("work", 0.15), ("fictional", 0.1), ("unknown", 0.05)]

ZH_WHO = ["我", "老板", "妈妈", "同事小王", "团队", "室友", "女朋友", "客户", "导师", "邻居"]
ZH_WHERE = ["在公司", "在家", "在北京", "在上海的办公室", "在咖啡馆", "在健身房", "在地铁上",
            "在医院", "在机场", "在图书馆"]  # fmt: skip
ZH_DID = ["讨论了部署流程", "修复了数据库迁移的问题", "决定下周去杭州旅行", "提到对花生过敏",
          "说喜欢喝拿铁不加糖", "复盘了上线事故", "安排了周报模板", "学习了 Rust 异步编程",
          "整理了服务器监控告警", "约好周末一起爬山", "更新了简历", "看完了一部科幻电影",
          "换了新的机械键盘", "开始每天晨跑五公里", "记录了报销流程",
          "配置了 CI 流水线"]  # fmt: skip
ZH_FEEL = ["感觉很开心", "有点焦虑", "觉得效率提高了", "非常满意", "有些疲惫", "想要继续改进"]
EN_WHO = ["The user", "Alice", "My manager", "The on-call engineer", "Bob from finance",
          "The design team", "A new customer", "Our landlord"]  # fmt: skip
EN_DID = [
    "rolled back the payment service deploy",
    "prefers dark mode in every editor",
    "asked to rotate the staging database password",
    "moved the standup to 10am",
    "is allergic to shellfish",
    "wants weekly reports in Markdown",
    "upgraded Postgres to 16",
    "fixed the flaky integration test",
    "booked flights to Tokyo",
    "adopted a cat named Miso",
    "switched the CI pipeline to GitHub Actions",
    "reviewed the incident postmortem",
]
EN_WHEN = ["on Monday", "last week", "after the outage", "before the release", "this morning",
           "during the retro", "over the weekend", "at the offsite"]  # fmt: skip

QUERIES = ["部署流程出问题了怎么办", "花生过敏", "deploy rollback payment service", "周末爬山",
           "CI pipeline GitHub Actions"]  # fmt: skip
NO_MATCH = "量子纠缠 xyzzy"


def pick(rng: random.Random, table: list[tuple[str, float]]) -> str:
    return rng.choices([k for k, _ in table], weights=[w for _, w in table])[0]


def text(rng: random.Random, i: int) -> str:
    if rng.random() < 0.6:
        return (
            f"{rng.choice(ZH_WHO)}{rng.choice(ZH_WHERE)}{rng.choice(ZH_DID)}，"
            f"{rng.choice(ZH_FEEL)}（第{i}条，{1 + i % 12}月{1 + i % 28}日）。"
        )
    return f"{rng.choice(EN_WHO)} {rng.choice(EN_DID)} {rng.choice(EN_WHEN)} (note {i})."


COLUMNS = (
    "user_id", "content", "norm_hash", "realm", "layer", "status", "audience", "importance",
    "expires_at", "ts", "created_at", "updated_at",
)  # fmt: skip
INSERT = f"INSERT INTO entries ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def rows(
    n: int, start: int, now: datetime, seed: int, age_days: float
) -> Iterator[tuple[Any, ...]]:
    rng = random.Random(seed)
    for i in range(start, start + n):
        content = text(rng, i)
        when = now - timedelta(days=rng.random() * age_days)
        expires = None
        if rng.random() < 0.02:
            expires = iso(now + timedelta(days=rng.uniform(-60, 60)))
        yield (
            pick(rng, USERS), content, norm_hash(content), pick(rng, REALMS), pick(rng, LAYERS),
            pick(rng, STATUSES), "private" if rng.random() < 0.1 else "public",
            round(rng.uniform(0.1, 0.9), 2), expires, iso(when), iso(when), iso(when),
        )  # fmt: skip


def build_store(path: Path, entries: int) -> tuple[float, float]:
    """(insert seconds, first consolidation seconds)."""
    now = datetime.now(UTC)
    store = Store.open(path)
    start = time.perf_counter()
    batch = 100_000
    for first in range(0, entries, batch):
        with store.transaction():
            store.conn.executemany(
                INSERT, rows(min(batch, entries - first), first, now, first, age_days=3 * 365)
            )
        print(f"  inserted {first + batch:,}", file=sys.stderr, flush=True)
    inserted = time.perf_counter() - start
    start = time.perf_counter()
    report = consolidate.consolidate(store)
    print(f"  steady state: {report.counts}", file=sys.stderr)
    store.conn.execute("ANALYZE")  # what a long-lived store has after many PRAGMA optimize runs
    store.close()
    return inserted, time.perf_counter() - start


def add_new(path: Path, n: int, seed: int) -> None:
    store = Store.open(path)
    with store.transaction():
        store.conn.executemany(INSERT, rows(n, 10_000_000 * seed, datetime.now(UTC), seed, 0.01))
    store.close()


def cli(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"memctl {args[0]} failed: {proc.stderr.decode()}")
    return elapsed


def timed_steps(times: dict[str, list[float]]) -> None:
    """Wrap each consolidation step so its time is recorded (in-process runs only)."""

    def wrap(name: str, fn: Callable[[consolidate.RunContext], int]) -> consolidate.Step:
        def step(ctx: consolidate.RunContext) -> int:
            start = time.perf_counter()
            try:
                return fn(ctx)
            finally:
                times[name].append(time.perf_counter() - start)

        return step

    for name, fn in list(consolidate.STEPS.items()):
        consolidate.STEPS[name] = wrap(name, fn)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep/reuse the steady-state database here")
    opts = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        base = opts.keep / f"upkeep-{opts.entries}.db" if opts.keep else None
        built = ""
        if base is not None and base.exists():
            shutil.copyfile(base, db)
            built = f"reused {base}"
        else:
            print(f"building a store of {opts.entries:,} entries…", file=sys.stderr)
            inserted, first = build_store(db, opts.entries)
            built = f"insert {inserted:.1f} s, first consolidation {first:.1f} s"
            if base is not None:
                base.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(db, base)

        step_times: dict[str, list[float]] = defaultdict(list)
        timed_steps(step_times)
        rows: list[tuple[str, list[float]]] = []
        cons_in, cons_cli, idle_in, idle_cli = [], [], [], []
        for i in range(opts.repeat):
            add_new(db, opts.new, seed=2 * i + 1)
            cons_in.append(in_process(db))
            add_new(db, opts.new, seed=2 * i + 2)
            cons_cli.append(cli(["consolidate", "--db", str(db), "--json"]))
            idle_in.append(in_process(db))
            idle_cli.append(cli(["consolidate", "--db", str(db), "--json"]))
        steps = {k: v[0::2] for k, v in step_times.items()}  # the runs with new entries
        rows += [
            (f"consolidate {opts.new:,} new, in-process", cons_in),
            *((f"  step {name}", xs) for name, xs in steps.items()),
            (f"consolidate {opts.new:,} new, CLI", cons_cli),
            ("consolidate, nothing new, in-process", idle_in),
            ("consolidate, nothing new, CLI", idle_cli),
        ]

        store = Store.open(db)
        user = store.for_user("alice")
        settings = context.load_settings()
        context.build(user, "work", query="warm up", settings=settings)  # jieba's dictionary
        hits, misses, sizes = [], [], []
        for _ in range(opts.repeat):
            for q in [*QUERIES, NO_MATCH]:
                start = time.perf_counter()
                block = context.build(user, "work", query=q, settings=settings)
                (misses if q == NO_MATCH else hits).append(time.perf_counter() - start)
                sizes.append((block.fixed.tokens, block.retrieval.tokens, block.retrieval_source))
        store.close()
        ctx_cli = [
            cli(["context", "--db", str(db), "-u", "alice", "-c", "work", "-q", q, "--json"])
            for q in QUERIES[: opts.repeat]
        ]
        rows += [
            (f"context build(), in-process, {len(QUERIES)} queries", hits),
            ("context build(), in-process, no match (recent)", misses),
            ("context CLI", ctx_cli),
            ("  of which: memctl --version", [cli(["--version"]) for _ in range(opts.repeat)]),
            ("  of which: jieba dictionary load", [jieba_load() for _ in range(opts.repeat)]),
        ]
        size_mb = sum(p.stat().st_size for p in Path(tmp).glob("bench.db*")) / 2**20

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}")  # fmt: skip
    print(f"store: {opts.entries:,} entries, {size_mb:,.0f} MiB; {built}")
    print(f"{'':46} {'median':>8} {'min':>7} {'max':>7}   (ms, {opts.repeat}+ runs)")
    for label, xs in rows:
        low, mid, high = (x * 1000 for x in (min(xs), statistics.median(xs), max(xs)))
        print(f"{label:46} {mid:8.0f} {low:7.0f} {high:7.0f}")
    fixed, retrieval = max(f for f, _, _ in sizes), max(r for _, r, _ in sizes)
    sources = sorted({s for *_, s in sizes})
    print(f"context tokens: fixed ≤ {fixed}, retrieval ≤ {retrieval}; sources {sources}")


def in_process(db: Path) -> float:
    store = Store.open(db)
    start = time.perf_counter()
    consolidate.consolidate(store)
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed


def jieba_load() -> float:
    code = "import time; t = time.perf_counter(); from memctl.segment import words; words('热身');"
    code += "print(time.perf_counter() - t)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout)


if __name__ == "__main__":
    main()
