"""Benchmark `memctl import` (exact-dedupe path) on a generated MEMORY.md.

    python tests/bench/bench_import.py [--records 200000] [--repeat 3]

Runs the real CLI in a subprocess (cold start included) against a fresh database each time, then
a re-import of the same file, and reports medians, records/s and peak memory (PSS of memctl and
its forked worker together, tests/bench/treemem.py). The
baseline is the plain-library loop a user would write: read lines, NFKC + sha256 exact skip, one
executemany into SQLite (same run, same machine).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_memory_md import generate  # noqa: E402
from treemem import PeakSampler  # noqa: E402


def run_cli(args: list[str]) -> tuple[float, float, str]:
    """(seconds, peak MiB of memctl and its worker together, stdout) for one `memctl` run."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memctl", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    with PeakSampler(proc.pid, every=0.1) as memory:
        out, errout = proc.communicate()
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"memctl failed: {errout.decode()}")
    # Not RUSAGE_CHILDREN's ru_maxrss: it holds this process's own high-water mark (treemem.py).
    return elapsed, memory.peak_mib, out.decode()


def baseline(path: Path, db: Path) -> float:
    start = time.perf_counter()
    seen: set[str] = set()
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.startswith("- "):
            continue
        text = line[2:]
        key = hashlib.sha256(unicodedata.normalize("NFKC", text).encode()).hexdigest()
        if key not in seen:
            seen.add(key)
            rows.append((text, key))
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE m (content TEXT, hash TEXT UNIQUE)")
    with conn:
        conn.executemany("INSERT INTO m VALUES (?, ?)", rows)
    conn.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "MEMORY.md"
        src.write_text("\n".join(generate(opts.records)) + "\n", encoding="utf-8")
        first, again, base, peaks = [], [], [], []
        report = ""
        for i in range(opts.repeat):
            db = Path(tmp) / f"bench{i}.db"
            secs, peak, report = run_cli(
                ["import", str(src), "--db", str(db), "--json", "--silent"]
            )
            first.append(secs)
            peaks.append(peak)
            secs, peak, _ = run_cli(["import", str(src), "--db", str(db), "--json", "--silent"])
            again.append(secs)
            peaks.append(peak)
            base.append(baseline(src, Path(tmp) / f"base{i}.db"))
    import orjson

    counts = orjson.loads(report)
    med, med_again, med_base = (statistics.median(x) for x in (first, again, base))
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"records: {opts.records:,}  added: {counts['added']:,}  skipped: {counts['skipped']:,}")
    print(
        f"memctl import (fresh db), median of {opts.repeat}: {med:.2f} s "
        f"= {opts.records / med:,.0f} records/s (incl. process start)"
    )
    print(f"memctl import again (adds 0), median: {med_again:.2f} s")
    print(f"plain-library baseline (NFKC+sha256+executemany), median: {med_base:.2f} s")
    print(f"ratio memctl / baseline: {med / med_base:.2f}x")
    print(f"peak memory of any memctl run (PSS, with its worker): {max(peaks):.0f} MiB")


if __name__ == "__main__":
    main()
