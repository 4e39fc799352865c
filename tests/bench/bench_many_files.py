"""Many small files: does an import's cost grow with the files, not their square?

    python tests/bench/bench_many_files.py [--files 1000 4000] [--repeat 2] [--seed 1]
                                           [--change 0.02] [--shuffle] [--distinct]

A workspace of daily notes (memory/YYYY-MM-DD.md), each with a few lines: a restated fact
with a counter (one template family gaining a member per file), a fact whose value changes
now and then (one supersede chain gaining a link per change), and a line of its own. Each
file is imported in its own transaction, so whatever a file's stage re-reads (a family, a
chain, the known lines of a path) shows up here as growth faster than the files. `--change`:
how often the fact changes (1: a new value in every note); `--shuffle`: the notes' file names
are not in date order, so values arrive out of order and slot into the chain; `--distinct`:
a changed value is one never said before (no exact copies restating an old one: the chain
only grows; `--change 1 --shuffle --distinct` is issue 11's quadratic walk). Printed:
median seconds of `memctl import` per size, and the growth between sizes.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_import_dedupe import run_memctl  # noqa: E402

CITIES = ("北京", "上海", "杭州", "成都", "深圳", "南京", "武汉", "西安")


def workspace(
    root: Path, files: int, seed: int, change: float, shuffle: bool, distinct: bool = False
) -> None:
    rng = random.Random(seed)
    (root / "memory").mkdir(parents=True)
    city = CITIES[0]
    names = list(range(files))
    if shuffle:
        rng.shuffle(names)
    for n in range(files):
        day = date(2020, 1, 1) + timedelta(days=n)
        if rng.random() < change:
            city = f"{rng.choice(CITIES)}{n if distinct else rng.randint(1, 99)}区"
        lines = [
            f"# {day.isoformat()}",
            "",
            f"- 同步日志：第{n}批记录已写入本地缓存，耗时 {rng.randint(10, 999)} ms",
            f"- 我住在{city}",
            f"- 今天和同事讨论了需求 {rng.randint(0, 10**6)} 的排期，{rng.choice(CITIES)}见",
        ]
        name = f"{day.isoformat()}.md" if not shuffle else f"note-{names[n]:06d}.md"
        (root / "memory" / name).write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--change", type=float, default=0.02)
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--distinct", action="store_true", help="every changed value new")
    args = parser.parse_args()
    print(f"# {platform.machine()}, {platform.python_version()}, medians of {args.repeat}, "
          f"change {args.change}, shuffle {args.shuffle}, distinct {args.distinct}")  # fmt: skip
    print("| files | seconds | growth | peak MiB | added | superseded |")
    print("|---:|---:|---:|---:|---:|---:|")
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for files in args.files:
            root = Path(tmp) / f"w{files}"
            workspace(root, files, args.seed, args.change, args.shuffle, args.distinct)
            runs = [run_memctl(root, Path(tmp) / f"w{files}-{i}.db") for i in range(args.repeat)]
            seconds = statistics.median(r[0] for r in runs)
            mib = statistics.median(r[1] for r in runs)
            report = runs[0][2]
            first = first or (files, seconds)
            growth = f"×{seconds / first[1]:.1f} for ×{files / first[0]:.0f}"
            print(f"| {files:,} | {seconds:.2f} | {growth} | {mib:.0f} | {report['added']:,} "
                  f"| {report['superseded']:,} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
