"""Two builds of memctl on the same inputs, alternated: is a change slower?

    python tests/bench/bench_ab.py OTHER_PYTHON [--shapes mix pinned ...] [--size 20000]
                                   [--repeat 3] [--seed 1]

OTHER_PYTHON is the interpreter of another checkout's venv (e.g. a worktree of the commit
before a refactor: `git worktree add --detach ../old <commit>` and `pip install -e ../old`).
Each shape of tests/bench/shapes.py is written once; `memctl import` of this checkout (A) and
of the other (B) run on it in turn, each on a fresh database, `--repeat` times. Printed: median
seconds, CPU seconds (user + system of the import and its worker: steadier than wall time on a
loaded machine) and peak MiB (PSS of the process tree) of each, and the A/B ratios.
"""

from __future__ import annotations

import argparse
import platform
import resource
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))
from bench_import_dedupe import run_memctl  # noqa: E402
from shapes import SHAPES, SamplesMissing, generate, write  # noqa: E402


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", help="python of the other build")
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"# {platform.machine()}, {platform.python_version()}, size {args.size:,}, "
          f"medians of {args.repeat}; A = {sys.executable}, B = {args.other}")  # fmt: skip
    print("| shape | A s | B s | A/B | A cpu s | B cpu s | A/B cpu | A MiB | B MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            try:
                records = generate(shape, args.size, args.seed)
            except SamplesMissing as exc:
                print(f"| {shape} | skipped: {exc} |")
                continue
            src = Path(tmp) / f"{shape}.json"
            write(records, src)
            runs: dict[str, list[tuple[float, float, float]]] = {"A": [], "B": []}
            for i in range(args.repeat):
                for name, python in (("A", sys.executable), ("B", args.other)):
                    db = Path(tmp) / f"{shape}-{name}-{i}.db"
                    before = _cpu()
                    seconds, mib, _ = run_memctl(src, db, python=python)
                    runs[name].append((seconds, _cpu() - before, mib))
            a, b = (statistics.median(r[0] for r in runs[n]) for n in "AB")
            ca, cb = (statistics.median(r[1] for r in runs[n]) for n in "AB")
            ma, mb = (statistics.median(r[2] for r in runs[n]) for n in "AB")
            print(f"| {shape} | {a:.2f} | {b:.2f} | {a / b:.2f} | {ca:.2f} | {cb:.2f} | "
                  f"{ca / cb:.2f} | {ma:.0f} | {mb:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
