"""Benchmark supersede chains: one fact key stated with many different dated values in one
import (one `resolve` over all of them, as for one transcript or legacy file), the new
in-memory chains against the algorithm they replaced (tests/supersede_reference.py), in the
same run. Checks both give the same result, prints medians.

    python tests/bench/bench_supersede.py [--sorted 10000] [--shuffled 5000] [--files 2000]
                                          [--kept 2000 4000 8000] [--repeat 2] [--new-only]

The third case resolves one value at a time (one daily note each), in shuffled order, each
call reading the chain anew; the fourth (`--kept`, new algorithm only: the old one has no
kept chains) likewise but keeping the chain from call to call, as an import keeps it from
file to file: each value slots into a chain of all the earlier ones, so a walk down it link
by link made the case quadratic (issue 11: 18.8 s at 2k, 281 s at 8k). Printed for it too:
how many times a chain's links were read (`_Chain.olds_of`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import supersede_reference  # noqa: E402
from chain_inputs import dated_values, fill, outcome  # noqa: E402

from memctl import supersede  # noqa: E402
from memctl.store import Store  # noqa: E402


def timed(path: Path, resolve, ids: list[int], per_file: bool, kept: bool = False) -> float:
    store = Store.open(path)
    try:
        user = store.for_user("alice")
        if not per_file:
            started = time.perf_counter()
            with store.transaction():
                resolve(user, ids)
            return time.perf_counter() - started
        # One daily note each: an entry exists only once its file is imported, so they are
        # all set aside (archived) first and brought in one at a time.
        with store.transaction():
            store.conn.execute("UPDATE entries SET status = 'archived'")
        chains: supersede.Chains = {}
        started = time.perf_counter()
        with store.transaction():  # (a commit each would time the disk)
            for entry_id in ids:
                store.conn.execute("UPDATE entries SET status = 'active' WHERE id = ?", [entry_id])
                if kept:
                    resolve(user, [entry_id], chains=chains)
                else:
                    resolve(user, [entry_id])
        return time.perf_counter() - started
    finally:
        store.close()


def case(
    name: str, n: int, shuffled: bool, repeat: int, skip_old: bool, per_file: bool = False
) -> None:
    rows = dated_values(n, seed=3, shuffled=shuffled)
    times: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            results = {}
            for label, resolve in (
                ("new", supersede.resolve),
                ("old", supersede_reference.resolve),
            ):
                if label == "old" and skip_old:
                    continue
                path = Path(tmp) / f"{label}.db"
                ids = fill(path, rows)
                times[label].append(timed(path, resolve, ids, per_file))
                results[label] = outcome(path)
            if "old" in results:
                assert results["old"] == results["new"], f"{name}: results differ"
    line = f"{name:<28} n={n:<6}"
    for label in ("old", "new"):
        if times[label]:
            line += f" {label} median {statistics.median(times[label]):8.3f} s"
    if times["old"]:
        line += f"  ({statistics.median(times['old']) / statistics.median(times['new']):.0f}x)"
    print(line, flush=True)


def kept_case(n: int, repeat: int) -> None:
    """One value a call, shuffled, the chain kept from call to call (new algorithm only)."""
    rows = dated_values(n, seed=3, shuffled=True)
    times, cpu, reads = [], [], 0
    olds_of = supersede._Chain.olds_of

    def counted(self, entry):  # type: ignore[no-untyped-def]
        nonlocal reads
        reads += 1
        return olds_of(self, entry)

    supersede._Chain.olds_of = counted  # type: ignore[method-assign]
    try:
        for _ in range(repeat):
            reads = 0
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "kept.db"
                ids = fill(path, rows)
                started = time.process_time()
                times.append(timed(path, supersede.resolve, ids, True, kept=True))
                cpu.append(time.process_time() - started)
                superseded = sum(s == "superseded" for _, s in outcome(path)["entries"])
    finally:
        supersede._Chain.olds_of = olds_of  # type: ignore[method-assign]
    assert superseded == n - 1, superseded  # one value current, every other one superseded
    name = "one key, a file each, kept"
    print(
        f"{name:<28} n={n:<6} new median {statistics.median(times):8.3f} s "
        f"(CPU {statistics.median(cpu):.3f} s; {reads:,} link reads a run)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sorted", type=int, default=10_000)
    parser.add_argument("--shuffled", type=int, default=5_000)
    parser.add_argument("--files", type=int, default=2_000, help="values, one file each")
    parser.add_argument(
        "--kept",
        type=int,
        nargs="*",
        default=[2_000],
        help="values, one call each, the chain kept between calls",
    )
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--new-only", action="store_true", help="skip the old algorithm")
    args = parser.parse_args()
    case("one key, in time order", args.sorted, False, args.repeat, args.new_only)
    case("one key, shuffled", args.shuffled, True, args.repeat, args.new_only)
    case("one key, a file each, shuffled", args.files, True, args.repeat, args.new_only, True)
    for n in args.kept:
        kept_case(n, args.repeat)


if __name__ == "__main__":
    main()
