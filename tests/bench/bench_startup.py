"""Cold start of the CLI: `memctl --help` and `memctl context --query …` on a 10k-entry store.

    python tests/bench/bench_startup.py [--runs 20] [--entries 10000] [--memctl PATH]

Like hyperfine: each command runs as a fresh process, a few warm-up runs first (the full-text
index and the dictionary cache are filled on first use, as on any machine after its first
context call), then `--runs` timed runs; median, min and max wall time. The store is built by
`memctl import` of the `chinese` and `english` shapes (unique memories, so every record becomes
an entry), then `memctl consolidate` fills the full-text index. `python -c pass` is measured
too: the interpreter's own start, which no change to memctl can remove. Targets (issue 11):
--help <= 150 ms, context <= 300 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from shapes import generate, write  # noqa: E402


def timed(
    argv: list[str], runs: int, env: dict[str, str], warmup: int = 3
) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of each timed run; CPU (user + system) is what a shared, loaded
    machine distorts least."""
    times = []
    for i in range(warmup + runs):
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        errout = proc.stderr.read() if proc.stderr else b""
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        if status != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {errout.decode()[-500:]}")
        if i >= warmup:
            times.append((seconds, usage.ru_utime + usage.ru_stime))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--memctl", default=str(Path(sys.executable).with_name("memctl")))
    opts = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; {opts.runs} runs each, medians")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        db = Path(tmp) / "store.db"
        half = opts.entries // 2
        for shape, n in (("chinese", opts.entries - half), ("english", half)):
            path = Path(tmp) / f"{shape}.json"
            write(generate(shape, n, seed=1), path)
            argv = [
                opts.memctl,
                "import",
                str(path),
                "--db",
                str(db),
                "--user",
                "bench",
                "--silent",
            ]
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        # Steady state: consolidate fills the full-text index (a context call only adds a
        # bounded batch of new entries to it).
        subprocess.run([opts.memctl, "consolidate", "--db", str(db)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
        entries = subprocess.run(
            [sys.executable, "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1])"
             ".execute('select count(*) from entries').fetchone()[0])", str(db)],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "memctl --help": [opts.memctl, "--help"],
            f"memctl context ({entries} entries)": [
                opts.memctl, "context", "--channel", "work", "--query", "部署流程 weekly report",
                "--db", str(db), "--user", "bench",
            ],
        }  # fmt: skip
        for name, argv in commands.items():
            times = timed(argv, opts.runs, env)
            wall = [w * 1000 for w, _ in times]
            cpu = statistics.median(c for _, c in times) * 1000
            print(f"{name:<42} wall median {statistics.median(wall):5.0f} ms (min {min(wall):4.0f}"
                  f", max {max(wall):5.0f}), CPU median {cpu:5.0f} ms", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
