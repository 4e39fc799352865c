"""Benchmark the whole `memctl import` (L1-L4 dedupe, classification, provenance) against the
pipeline a user would hand-write from the seeds, on the same file, in the same run, for every
input shape of tests/bench/shapes.py.

    python tests/bench/bench_import_dedupe.py [--shapes mix fact ...] [--sizes 20000 200000]
                                              [--repeat 2] [--seed 1] [--recall]

Each shape is written as a memories JSON file (`{version: 1, exportedAt, memories: [...]}`), so
record times survive. memctl runs as a real CLI process on a fresh database; the peer
(tests/bench/bench_dedupe.py's run_peer: NFKC + sha256, datasketch MinHashLSH(0.75, 128)
query-then-insert, simhash.SimhashIndex(k=3), one executemany) runs in a child process and also
reads the file. The two alternate, `--repeat` times each. Figures: median seconds, the
memctl/peer ratio, growth from the smallest to the largest size, peak memory (memctl: PSS of the
process tree, i.e. with its forked worker, see treemem.py; the peer: its RSS). `--recall` also
checks, at the smallest size, that the engine's groups equal brute force (recall.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import signal
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
from corpus import Rec  # noqa: E402
from shapes import SHAPES, SamplesMissing, generate, write  # noqa: E402
from treemem import PeakSampler, descendants  # noqa: E402


class TimedOut(Exception):
    """memctl ran past --timeout and was stopped."""


def run_memctl(
    path: Path, db: Path, timeout: float | None = None, python: str = sys.executable
) -> tuple[float, float, dict]:
    """(seconds, peak MiB of memctl and its worker together, report) of one `memctl import`;
    TimedOut past `timeout` seconds (the process and its worker are killed)."""
    out_path, err_path = db.with_name(db.name + ".out"), db.with_name(db.name + ".err")
    started = time.perf_counter()
    with out_path.open("wb") as out, err_path.open("wb") as errout:
        proc = subprocess.Popen(
            [python, "-m", "memctl", "import", str(path.resolve()), "--db", str(db.resolve()),
             "--json", "--silent"],
            stdout=out, stderr=errout,
            # Not from the current directory: `-m` puts it first on sys.path, so run from a
            # checkout, the other build (bench_ab.py) would import this checkout's memctl.
            cwd=db.parent,
        )  # fmt: skip
    with PeakSampler(proc.pid, every=0.1) as memory:
        while True:
            pid, status = os.waitpid(proc.pid, os.WNOHANG)
            if pid:
                break
            if timeout is not None and time.perf_counter() - started > timeout:
                for child in [proc.pid, *descendants(proc.pid)]:
                    with contextlib.suppress(OSError):
                        os.kill(child, signal.SIGKILL)
                os.waitpid(proc.pid, 0)
                raise TimedOut
            time.sleep(0.05)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"memctl failed: {err_path.read_text()[-2000:]}")
    # Not wait4's ru_maxrss: it holds this process's own high-water mark (treemem.py).
    return seconds, memory.peak_mib, orjson.loads(out_path.read_bytes())


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="stop a memctl run after this many seconds (reported as >T)",
    )
    parser.add_argument(
        "--recall",
        action="store_true",
        help="check the engine's groups against brute force at the first size",
    )
    opts = parser.parse_args()
    machine = f"{platform.machine()}, {os.cpu_count()} cores"
    print(f"machine: {machine}, Python {platform.python_version()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in opts.shapes:
            for size in opts.sizes:
                try:
                    records = generate(shape, size, opts.seed)
                except SamplesMissing as exc:
                    print(f"{shape}: skipped ({exc})", flush=True)
                    break
                path = Path(tmp) / f"{shape}{size}.json"
                write(records, path)
                if opts.recall and size == opts.sizes[0]:
                    from recall import check

                    print(f"{shape} {size}: {check(records)}", flush=True)
                del records
                ours, theirs, pss, peer_rss, report = [], [], [], [], {}
                for i in range(opts.repeat):  # alternated: both see the same machine load
                    db = Path(tmp) / f"m{i}.db"
                    try:
                        seconds, peak, report = run_memctl(path, db, opts.timeout)
                    except TimedOut:
                        seconds, peak, report = float("inf"), float("nan"), {}
                    for leftover in Path(tmp).glob(f"m{i}.db*"):
                        leftover.unlink()
                    ours.append(seconds)
                    pss.append(peak)
                    peer = peer_from_file(path)
                    theirs.append(peer["seconds"])
                    peer_rss.append(peer["rss_mb"])
                path.unlink()
                mine, peer_s = statistics.median(ours), statistics.median(theirs)
                rows.append(
                    (
                        shape,
                        size,
                        mine,
                        peer_s,
                        max(pss, key=lambda v: -1 if v != v else v),
                        max(peer_rss),
                        report,
                    )
                )
                print(f"{shape} {size}: memctl {sorted(round(x, 2) for x in ours)} s, "
                      f"peer {sorted(round(x, 2) for x in theirs)} s", flush=True)  # fmt: skip
    print("\n| shape | records | memctl s | peer s | ratio | growth memctl / peer "
          "| memctl PSS MiB | peer RSS MiB | added | merged near |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    first: dict[str, tuple[float, float]] = {}
    for shape, size, mine, peer_s, pss_max, peer_max, report in rows:
        if not report or mine == float("inf"):  # (the median run) timed out
            print(f"| {shape} | {size:,} | >{opts.timeout:.0f} | {peer_s:.2f} | "
                  f">{opts.timeout / peer_s:.1f} | | | {peer_max:,.0f} | | |")  # fmt: skip
            continue
        near = sum(v for k, v in report["skipped_by_reason"].items() if k.startswith("near"))
        base = first.setdefault(shape, (mine, peer_s))
        grown = base != (mine, peer_s)
        growth = f"×{mine / base[0]:.1f} / ×{peer_s / base[1]:.1f}" if grown else ""
        print(f"| {shape} | {size:,} | {mine:.2f} | {peer_s:.2f} | {mine / peer_s:.2f} | "
              f"{growth} | {pss_max:,.0f} | {peer_max:,.0f} | {report['added']:,} | "
              f"{near:,} |")  # fmt: skip


if __name__ == "__main__":
    main()
