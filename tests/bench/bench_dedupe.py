"""Benchmark the near-duplicate engine against the pipeline a user would hand-write.

    python tests/bench/bench_dedupe.py [--sizes 20000 200000] [--repeat 3]

Corpora come from tests/corpus.py (mixed Chinese/English memories, many exact, normalised,
near and long-edited copies, template noise, pinned-preamble records). Each run is a fresh
child process (fork), so peak RSS is per run (it includes the corpus held by the parent).

  engine  memctl.dedupe.Engine().add(all records): template folding, boilerplate, bigram
          Jaccard (numpy prefix-filter join + LSH for English), SimHash, guard, union-find
  peer    NFKC + sha256 exact skip, datasketch.MinHashLSH(threshold=0.75, num_perm=128) on
          character bigrams (query, then insert), simhash.SimhashIndex(k=3), one executemany
          into SQLite

Also reported: datasketch's default bands/rows for t = 0.75 and how many true pairs with
Jaccard in [0.75, 0.80) they miss; jieba's first-use dictionary load time; merges per layer;
and the incremental path: an engine rebuilt from the stored signatures of the largest corpus
taking 1,000 new records in batches of 50 (what an import of small files does).
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
        start = resident_mb()  # the forked child starts holding the parent's corpus
        result = fn(records)
        result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        result["rss_start_mb"] = start
        queue.put(result)

    child = ctx.Process(target=target)
    child.start()
    result = queue.get()
    child.join()
    return result


def resident_mb() -> float:
    """This process's resident memory now (Linux; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * resource.getpagesize() / 2**20


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
    from memctl.dedupe.jaccard import MinHasher, PairFinder
    from memctl.dedupe.text import fold, light
    from memctl.dedupe.tokens import TokenStore

    config = DedupeConfig.default()
    unique = sorted({fold(light(r.text)) for r in records})
    sets = [{t[i : i + 2] for i in range(max(1, len(t) - 1))} for t in unique]
    tokens = TokenStore()
    tokens.put(range(len(unique)), unique)
    index = PairFinder(tokens, 0.75, MinHasher(config.lsh_bands, config.lsh_rows))
    x, y, scores = index.add(range(len(unique)))
    pairs = [(a, b) for a, b, j in zip(x.tolist(), y.tolist(), scores.tolist(), strict=True)
             if j < 0.80]  # fmt: skip
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
        f"memctl: {config.lsh_bands} x {config.lsh_rows} for pairs of two English records "
        f"(P = {1 - (1 - 0.75**config.lsh_rows) ** config.lsh_bands:.6f}), exact elsewhere."
    )


def run_incremental(records: list[Rec]) -> dict[str, Any]:
    """Rebuild an engine from the signatures of all but the last 1,000 records, then add
    those in batches of 50 (the inverted-index path)."""
    from memctl.dedupe.simhash import Tokenizer

    Tokenizer.words("预热")
    old, new = records[:-1000], records[-1000:]
    first = Engine()
    first.add([Item(i, r.text, r.ts) for i, r in enumerate(old)])
    rows = [(i, r.ts, first.signature(i), first.canonical(i)) for i, r in enumerate(old)]
    texts = {i: r.text for i, r in enumerate(old)}
    del first
    started = time.perf_counter()
    engine = Engine.load(rows, lambda ids: {i: texts[i] for i in ids})
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    for start in range(0, len(new), 50):
        engine.add([Item(len(old) + start + j, r.text, r.ts)
                    for j, r in enumerate(new[start : start + 50])])  # fmt: skip
    return {"load": loaded, "seconds": time.perf_counter() - started}


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
        engine, peer = [], []
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            engine.append(in_child(run_engine, records))
            peer.append(in_child(run_peer, records))
        e = statistics.median(r["seconds"] for r in engine)
        p = statistics.median(r["seconds"] for r in peer)
        stats = engine[0]["stats"]
        layers = {k[: -len("_merges")]: v for k, v in stats.items() if k.endswith("_merges")}
        rss = (max(r["rss_mb"] for r in engine), max(r["rss_mb"] for r in peer))
        grown = [max(r["rss_mb"] - r["rss_start_mb"] for r in rs) for rs in (engine, peer)]
        table.append((len(records), e, p, *rss, *grown, engine[0]["kept"], peer[0]["kept"]))
        runs = [sorted(round(r["seconds"], 2) for r in rs) for rs in (engine, peer)]
        print(f"{len(records):>8} records: engine runs {runs[0]} s, peer runs {runs[1]} s\n"
              f"          merges by layer {layers}; blocked by guard "
              f"{stats.get('jaccard_blocked_by_guard', 0)} (L3) "
              f"{stats.get('simhash_blocked_by_guard', 0)} (L4); L3 candidates "
              f"{stats['jaccard_candidates']}, verified {stats['jaccard_verified']}; L4 pairs "
              f"examined {stats.get('simhash_candidates', 0)}, fingerprints "
              f"{stats.get('simhash_computed', 0)}", flush=True)  # fmt: skip
        if n == args.sizes[0]:
            print(datasketch_defaults(records), flush=True)
        if n == args.sizes[-1]:
            inc = in_child(run_incremental, records)
            print(f"          incremental: load {n - 1000} signatures {inc['load']:.2f} s, then "
                  f"1,000 records in batches of 50: {inc['seconds']:.2f} s "
                  f"(peak RSS {inc['rss_mb']:.0f} MB)", flush=True)  # fmt: skip
    # Peak RSS of the run's process, and how much of it the run itself added (the forked
    # child starts with the parent's corpus and generator state).
    print(f"\n{'records':>8} {'engine s':>9} {'peer s':>8} {'ratio':>6} {'engine MB':>10} "
          f"{'peer MB':>8} {'engine +MB':>11} {'peer +MB':>9} {'engine kept':>12} "
          f"{'peer kept':>10}")  # fmt: skip
    for n, e, p, erss, prss, egrown, pgrown, ekept, pkept in table:
        print(f"{n:>8} {e:>9.2f} {p:>8.2f} {e / p:>6.2f} {erss:>10.0f} {prss:>8.0f} "
              f"{egrown:>11.0f} {pgrown:>9.0f} {ekept:>12} {pkept:>10}")  # fmt: skip
    if len(table) > 1:
        (n0, e0, p0, *_), (n1, e1, p1, *_) = table[0], table[-1]
        print(f"\nscaling {n0} -> {n1} records: engine x{e1 / e0:.1f}, peer x{p1 / p0:.1f} "
              f"(medians of {args.repeat})")  # fmt: skip


if __name__ == "__main__":
    main()
