"""Where the dedupe engine's memory and time go, on one input shape, in one fresh process.

    python tests/bench/engine_mem.py SHAPE SIZE [--seed 1] [--trace]
    python tests/bench/engine_mem.py --ab OTHER_PYTHON --shapes english boilerplate --size 50000

Runs `Engine().add(all records)` as an import of one file does (one batch). Without --trace:
seconds of add() and its peak resident memory above what the process held before it (VmHWM -
VmRSS, both since exec), and the merges' digest, so two builds can be compared. With --trace
(tracemalloc, which numpy reports its buffers to; slower): the peak above the start of each
phase of add(), and what the engine keeps afterwards, structure by structure.

--ab runs this script under this interpreter (A) and OTHER_PYTHON (B) in turn, per shape, and
prints seconds, peak MiB and whether the merges are the same.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from shapes import SHAPES, generate  # noqa: E402

MiB = 1 << 20


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class _Phases:
    """Peak traced memory of nested calls, each above the traced memory at its start."""

    def __init__(self) -> None:
        import tracemalloc

        self.tm = tracemalloc
        self.stack: list[list[int]] = []  # [start, peak]
        self.found: dict[str, tuple[int, float]] = {}  # name -> (peak above start, seconds)

    def wrap(self, owner: type, name: str, label: str) -> None:
        original = getattr(owner, name)
        phases = self

        def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
            phases.enter()
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                seconds = time.perf_counter() - started
                start, peak = phases.leave()
                old = phases.found.get(label, (0, 0.0))
                phases.found[label] = (max(old[0], peak - start), old[1] + seconds)

        setattr(owner, name, wrapped)

    def enter(self) -> None:
        current, peak = self.tm.get_traced_memory()
        for frame in self.stack:
            frame[1] = max(frame[1], peak)
        self.tm.reset_peak()
        self.stack.append([current, current])

    def leave(self) -> tuple[int, int]:
        _, peak = self.tm.get_traced_memory()
        frame = self.stack.pop()
        frame[1] = max(frame[1], peak)
        for outer in self.stack:
            outer[1] = max(outer[1], frame[1])
        self.tm.reset_peak()
        return frame[0], frame[1]


def _nbytes(value: object) -> int:
    """Bytes of numpy arrays and Python containers reachable from value (shallow for str)."""
    import numpy as np

    seen: set[int] = set()
    total = 0
    todo = [value]
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, np.ndarray):
            total += v.nbytes if v.base is None else 0
        elif isinstance(v, dict):
            total += sys.getsizeof(v)
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += sys.getsizeof(v)
            todo.extend(v)
        elif isinstance(v, (str, bytes, int, float, bytearray)) or v is None:
            total += sys.getsizeof(v) if v is not None else 0
        elif hasattr(v, "__array_interface__") or type(v).__name__ == "array":
            total += sys.getsizeof(v)
        elif hasattr(v, "__dict__") or hasattr(v, "__slots__"):
            attrs = getattr(v, "__dict__", None) or {
                s: getattr(v, s) for s in getattr(v, "__slots__", ()) if hasattr(v, s)
            }
            todo.extend(attrs.values())
    return total


def run(shape: str, size: int, seed: int, trace: bool) -> None:
    from memctl.dedupe import Engine, Item

    records = generate(shape, size, seed)
    items = [Item(i + 1, r.text, r.ts) for i, r in enumerate(records)]
    del records
    engine = Engine()
    phases = None
    if trace:
        from memctl.dedupe import engine as engine_module
        from memctl.dedupe import jaccard, tokens

        phases = _Phases()
        e = engine_module.Engine
        for owner, name, label in (
            (e, "add", "add (whole)"),
            (e, "_fold_templates", "template folding"),
            (e, "_find_boilerplate", "boilerplate search"),
            (tokens.TokenStore, "put", "bigram sets (TokenStore.put)"),
            (e, "_jaccard_layer", "L3 Jaccard layer"),
            (jaccard.PairFinder, "_found", "  candidates (PairFinder._found)"),
            (jaccard.MinHasher, "band_keys", "  LSH band keys"),
            (jaccard, "_prefix_join", "  prefix join"),
            (jaccard, "_band_join", "  band join"),
            (jaccard, "_Bound", "  bitmaps (_Bound)"),
            (e, "_join_candidates", "  joining candidates"),
            (e, "_simhash_layer", "L4 SimHash layer"),
            (e, "_take_merges", "merges out"),
        ):
            phases.wrap(owner, name, label)
        phases.tm.start()
    rss = _status_kib("VmRSS")
    started = time.perf_counter()
    merges = engine.add(items)
    seconds = time.perf_counter() - started
    peak = (_status_kib("VmHWM") - rss) / 1024
    digest = hashlib.sha256(
        repr(sorted((m.dup, m.into, m.layer, m.score, m.why) for m in merges)).encode()
    ).hexdigest()[:12]
    print(f"{shape}\t{size}\t{seconds:.2f}\t{peak:.0f}\t{len(merges)}\t{digest}", flush=True)
    if phases is None:
        return
    print(f"\n# {shape} {size:,}: peak traced MiB above each phase's start (seconds, traced)")
    for label, (above, secs) in phases.found.items():
        print(f"{label:36s} {above / MiB:8.1f} MiB {secs:7.2f} s")
    del merges
    print("\n# kept by the engine after add() (MiB)")
    kept = {
        "texts (referenced, not the engine's)": engine._texts,
        "folded texts": engine._folded,
        "ids, row map": (engine._ids, engine._row),
        "template keys, guard keys": (engine._tkey, engine._guard),
        "cores, whole guards": (engine._core, engine._guard_full, engine._names_full),
        "simhash fingerprints": engine._simhash,
        "exact map (core text -> row)": engine._exact,
        "template families": engine._families,
        "boilerplate index": engine._boilerplate,
        "token store (bigram sets)": engine._tokens,
        "L3 PairFinder (seq, slots, bands, postings)": {
            k: v for k, v in vars(engine._jaccard).items() if k != "tokens" and k != "hasher"
        },
        "L4 floor PairFinder": {
            k: v for k, v in vars(engine._floor).items() if k != "tokens" and k != "hasher"
        },
        "SimHash index": engine._prints,
        "union-find": engine._groups,
    }
    for label, value in kept.items():
        print(f"{label:44s} {_nbytes(value) / MiB:8.1f}")
    current, _ = phases.tm.get_traced_memory()
    print(f"{'traced now, items included':44s} {current / MiB:8.1f}")


def ab(other: str, shapes: list[str], size: int, seed: int, repeat: int) -> None:
    me = Path(__file__).resolve()
    print(f"# engine alone, size {size:,}; A = {sys.executable}, B = {other}")
    print("| shape | A s | B s | A/B | A MiB | B MiB | same merges |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for shape in shapes:
        runs: dict[str, list[list[str]]] = {"A": [], "B": []}
        for i in range(repeat):
            # Alternated, the first of each pair in turn: on a loaded machine the first
            # process of a pair ran up to 1.4x slower, whichever build it was.
            pair = [("A", sys.executable), ("B", other)]
            for name, python in pair if i % 2 == 0 else pair[::-1]:
                out = subprocess.run(
                    [python, str(me), shape, str(size), "--seed", str(seed)],
                    capture_output=True, text=True, check=True, cwd="/",
                ).stdout.split("\t")  # fmt: skip
                runs[name].append(out)
        a = sorted(float(r[2]) for r in runs["A"])[len(runs["A"]) // 2]
        b = sorted(float(r[2]) for r in runs["B"])[len(runs["B"]) // 2]
        ma = sorted(float(r[3]) for r in runs["A"])[len(runs["A"]) // 2]
        mb = sorted(float(r[3]) for r in runs["B"])[len(runs["B"]) // 2]
        same = {r[5].strip() for r in runs["A"] + runs["B"]}
        print(f"| {shape} | {a:.2f} | {b:.2f} | {a / b:.2f} | {ma:.0f} | {mb:.0f} | "
              f"{'yes' if len(same) == 1 else 'NO'} |", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", nargs="?", choices=sorted(SHAPES))
    parser.add_argument("size", nargs="?", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--ab", metavar="OTHER_PYTHON")
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=["english"])
    parser.add_argument("--size", dest="ab_size", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if args.ab:
        ab(args.ab, args.shapes, args.ab_size, args.seed, args.repeat)
    elif args.shape:
        run(args.shape, args.size, args.seed, args.trace)
    else:
        parser.error("give a SHAPE (and SIZE), or --ab OTHER_PYTHON")


if __name__ == "__main__":
    main()
