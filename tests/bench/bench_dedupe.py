"""Benchmark the near-duplicate engine against the pipeline a user would hand-write.

    python tests/bench/bench_dedupe.py [--sizes 20000 200000] [--repeat 3]

Corpora come from tests/corpus.py (mixed Chinese/English memories, many exact, normalised,
near and long-edited copies, template noise, pinned-preamble records). Each run is a fresh
child process (fork), so peak RSS is per run (it includes the corpus held by the parent).

  engine  memctl.dedupe.Engine().add(all records): template folding, boilerplate, bigram
          Jaccard (prefix filter + LSH), SimHash, guard, union-find
  peer    NFKC + sha256 exact skip, datasketch.MinHashLSH(threshold=0.75, num_perm=128) on
          character bigrams (query, then insert), simhash.SimhashIndex(k=3), one executemany
          into SQLite

Also reported: datasketch's default bands/rows for t = 0.75 and how many true pairs with
Jaccard in [0.75, 0.80) they miss; jieba's first-use dictionary load time; merges per layer.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import platform
import random
import resource
import sqlite3
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1]))
from corpus import Rec, build  # noqa: E402

from memctl.dedupe.engine import Engine, Item  # noqa: E402


def run_engine(records: list[Rec]) -> dict[str, Any]:
    from memctl.dedupe.simhash import Tokenizer

    Tokenizer.words("预热")  # jieba's load is reported on its own, below
    engine = Engine()
    items = [Item(i, r.text, r.ts) for i, r in enumerate(records)]
    started = time.perf_counter()
    merges = engine.add(items)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "kept": len(items) - len(merges), "stats": engine.stats()}


def run_peer(records: list[Rec]) -> dict[str, Any]:
    from datasketch import MinHash, MinHashLSH
    from simhash import Simhash, SimhashIndex

    started = time.perf_counter()
    seen: set[str] = set()
    lsh = MinHashLSH(threshold=0.75, num_perm=128)
    near = SimhashIndex([], k=3)
    rows = []
    for i, r in enumerate(records):
        norm = unicodedata.normalize("NFKC", r.text).casefold()
        norm = "".join(ch for ch in norm if ch.isalnum())
        digest = hashlib.sha256(norm.encode()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        m = MinHash(num_perm=128)
        m.update_batch([norm[j : j + 2].encode() for j in range(max(1, len(norm) - 1))])
        if lsh.query(m):
            continue
        lsh.insert(str(i), m)
        fingerprint = Simhash(norm)
        if near.get_near_dups(fingerprint):
            continue
        near.add(str(i), fingerprint)
        rows.append((i, r.text, r.ts))
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE entries (id INTEGER PRIMARY KEY, content TEXT, ts TEXT)")
    db.executemany("INSERT INTO entries VALUES (?, ?, ?)", rows)
    db.commit()
    return {"seconds": time.perf_counter() - started, "kept": len(rows), "stats": {}}


def in_child(fn: Callable[[list[Rec]], dict[str, Any]], records: list[Rec]) -> dict[str, Any]:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()

    def target() -> None:
        result = fn(records)
        result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        queue.put(result)

    child = ctx.Process(target=target)
    child.start()
    result = queue.get()
    child.join()
    return result


def jieba_load_seconds() -> float:
    def measure(_: list[Rec]) -> dict[str, Any]:
        from memctl.dedupe.simhash import Tokenizer

        Tokenizer.words("第一次")
        return {"seconds": Tokenizer.load_seconds or 0.0}

    return in_child(measure, [])["seconds"]


def datasketch_defaults(records: list[Rec], sample: int = 2000) -> str:
    """How many true pairs with Jaccard in [0.75, 0.80) datasketch's default LSH misses."""
    from datasketch import MinHash, MinHashLSH

    from memctl.dedupe.config import DedupeConfig
    from memctl.dedupe.jaccard import JaccardIndex
    from memctl.dedupe.text import fold, light

    config = DedupeConfig.default()
    texts = [fold(light(r.text)) for r in records]
    unique = sorted(set(texts))
    sets = [{t[i : i + 2] for i in range(max(1, len(t) - 1))} for t in unique]
    ints = [{(ord(g[0]) << 21) | (ord(g[1]) if len(g) > 1 else 0x1FFFFF) for g in s} for s in sets]
    index = JaccardIndex(0.75, config.rerank_growth, config.lsh_bands, config.lsh_rows)
    pairs = [(a, b) for a, b, score in index.add(list(enumerate(ints))) if score < 0.80]
    random.Random(0).shuffle(pairs)
    pairs = pairs[:sample]
    probe = MinHashLSH(threshold=0.75, num_perm=128)
    b, r = probe.b, probe.r

    def minhash(s: set[str]) -> MinHash:
        m = MinHash(num_perm=128)
        m.update_batch([g.encode() for g in s])
        return m

    missed = 0
    for a, c in pairs:
        lsh = MinHashLSH(threshold=0.75, num_perm=128)
        lsh.insert("a", minhash(sets[a]))
        missed += not lsh.query(minhash(sets[c]))
    theory = 1 - (1 - 0.75**r) ** b
    return (
        f"datasketch MinHashLSH(threshold=0.75, num_perm=128) uses b={b} bands x r={r} rows: "
        f"P(candidate | J=0.75) = {theory:.2f}; of {len(pairs)} true pairs with J in "
        f"[0.75, 0.80), it missed {missed} ({missed / max(len(pairs), 1):.0%}). "
        f"memctl: {config.lsh_bands} x {config.lsh_rows} for dense-dense pairs "
        f"(P = {1 - (1 - 0.75**config.lsh_rows) ** config.lsh_bands:.6f}), exact elsewhere."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {mp.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"jieba first-use dictionary load: {jieba_load_seconds():.2f} s (once per process)")
    table = []
    for n in args.sizes:
        records = build(n, seed=1)
        engine = [in_child(run_engine, records) for _ in range(args.repeat)]
        peer = [in_child(run_peer, records) for _ in range(args.repeat)]
        e = statistics.median(r["seconds"] for r in engine)
        p = statistics.median(r["seconds"] for r in peer)
        stats = engine[0]["stats"]
        layers = {k: v for k, v in stats.items() if k.endswith("_merges")}
        rss = (max(r["rss_mb"] for r in engine), max(r["rss_mb"] for r in peer))
        table.append((len(records), e, p, *rss, engine[0]["kept"], peer[0]["kept"]))
        print(f"{len(records):>8} records: merges by layer {layers}; blocked by guard "
              f"{stats.get('jaccard_blocked_by_guard', 0)} (L3) "
              f"{stats.get('simhash_blocked_by_guard', 0)} (L4); "
              f"L3 candidates {stats['jaccard_candidates']}, verified {stats['jaccard_verified']}",
              flush=True)  # fmt: skip
        if n == args.sizes[0]:
            print(datasketch_defaults(records), flush=True)
    print(f"\n{'records':>8} {'engine s':>9} {'peer s':>8} {'ratio':>6} {'engine MB':>10} "
          f"{'peer MB':>8} {'engine kept':>12} {'peer kept':>10}")  # fmt: skip
    for n, e, p, erss, prss, ekept, pkept in table:
        print(f"{n:>8} {e:>9.2f} {p:>8.2f} {e / p:>6.2f} {erss:>10.0f} {prss:>8.0f} "
              f"{ekept:>12} {pkept:>10}")  # fmt: skip
    if len(table) > 1:
        (n0, e0, p0, *_), (n1, e1, p1, *_) = table[0], table[-1]
        print(f"\nscaling {n0} -> {n1} records: engine x{e1 / e0:.1f}, peer x{p1 / p0:.1f} "
              f"(medians of {args.repeat})")  # fmt: skip


if __name__ == "__main__":
    main()
