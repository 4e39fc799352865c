"""Benchmark the whole `memctl import` (L1-L4 dedupe, classification, provenance) against the
pipeline a user would hand-write from the seeds, on the same file, in the same run.

    python tests/bench/bench_import_dedupe.py [--sizes 20000 200000] [--repeat 3]

The input is tests/corpus.py's mixed Chinese/English corpus written as a memories JSON file
(`{version: 1, exportedAt, memories: [{id, content, created_at}]}`), so record times survive.
memctl runs as a real CLI process on a fresh database; the peer (tests/bench/bench_dedupe.py's
run_peer: NFKC + sha256, datasketch MinHashLSH(0.75, 128) query-then-insert,
simhash.SimhashIndex(k=3), one executemany) runs in a child process and also reads the file.
Figures: median seconds, the memctl/peer ratio, 20k -> 200k growth, peak memory (memctl: PSS of
the process and its forked worker together, see treemem.py; the peer: its RSS).
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

import orjson

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))
from bench_dedupe import in_child, run_peer  # noqa: E402
from corpus import Rec, build  # noqa: E402
from treemem import PeakSampler  # noqa: E402


def write_corpus(records: list[Rec], path: Path) -> None:
    memories = [{"id": i, "content": r.text, "created_at": r.ts} for i, r in enumerate(records)]
    path.write_bytes(orjson.dumps({"version": 1, "exportedAt": 0, "memories": memories}))


def run_memctl(path: Path, db: Path) -> tuple[float, float, dict]:
    """(seconds, peak MiB of memctl and its worker together, report) of one `memctl import`."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memctl", "import", str(path), "--db", str(db), "--json",
         "--silent"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    with PeakSampler(proc.pid, every=0.1) as memory:
        out = proc.stdout.read() if proc.stdout else b""
        errout = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"memctl failed: {errout.decode()[-2000:]}")
    return seconds, max(memory.peak_mib, usage.ru_maxrss / 1024), orjson.loads(out)


def peer_from_file(path: Path) -> dict:
    def work(_: list[Rec]) -> dict:
        started = time.perf_counter()
        doc = orjson.loads(path.read_bytes())
        records = [Rec(m["content"], m["created_at"], 0, "") for m in doc["memories"]]
        result = run_peer(records)
        result["seconds"] = time.perf_counter() - started
        return result

    return in_child(work, [])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in opts.sizes:
            path = Path(tmp) / f"corpus{size}.json"
            write_corpus(build(size, seed=1), path)
            ours, theirs, rss, peer_rss, report = [], [], [], [], {}
            for i in range(opts.repeat):
                seconds, peak, report = run_memctl(path, Path(tmp) / f"m{size}_{i}.db")
                ours.append(seconds)
                rss.append(peak)
                peer = peer_from_file(path)
                theirs.append(peer["seconds"])
                peer_rss.append(peer["rss_mb"])
            mine, peer_s = statistics.median(ours), statistics.median(theirs)
            rows.append((size, mine, peer_s, max(rss), max(peer_rss), report))
    print(f"{'records':>8} {'memctl s':>9} {'peer s':>8} {'ratio':>6} {'memctl MiB':>11} "
          f"{'peer MiB':>9}  kept / merged by layer")  # fmt: skip
    for size, mine, peer_s, rss_max, peer_max, report in rows:
        near = {k: v for k, v in report["skipped_by_reason"].items() if k.startswith("near")}
        print(f"{size:>8} {mine:>9.2f} {peer_s:>8.2f} {mine / peer_s:>6.2f} {rss_max:>11.0f} "
              f"{peer_max:>9.0f}  added {report['added']}, exact "
              f"{report['skipped_by_reason'].get('exact duplicate', 0)}, {near}")  # fmt: skip
    if len(rows) >= 2:
        growth = rows[-1][1] / rows[0][1]
        print(
            f"growth {rows[0][0]} -> {rows[-1][0]}: x{growth:.1f} (memctl), "
            f"x{rows[-1][2] / rows[0][2]:.1f} (peer)"
        )


if __name__ == "__main__":
    main()
