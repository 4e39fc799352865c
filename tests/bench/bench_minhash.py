"""MinHash LSH for dense (English) texts: memctl's own numpy code against datasketch's bulk API,
same bands x rows, same texts, same run.

    python tests/bench/bench_minhash.py [--records 20000] [--repeat 3]

Texts: the `english` shape plus one-character and word-level near copies of a fifth of them
(tests/bench/shapes.py), folded as L3 folds them. Both sides produce the candidate pairs of
64 bands x 6 rows over character bigrams; each side's candidates are then verified exactly, and
recall is measured against brute force (every pair with Jaccard >= 0.75, by a sparse product).

  own         MinHasher.band_keys + the band join of PairFinder (jaccard.py), one batch
  datasketch  MinHash.bulk(num_perm=384) -> LeanMinHash, MinHashLSH(params=(64, 6)) filled in
              one insertion_session, then one query per text (datasketch has no all-pairs join)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))
from corpus import _Writer, near_copy  # noqa: E402
from recall import BrutePairs  # noqa: E402
from shapes import _one_char, generate  # noqa: E402

from memctl.dedupe.config import DedupeConfig  # noqa: E402
from memctl.dedupe.jaccard import MinHasher, PairFinder  # noqa: E402
from memctl.dedupe.text import fold, light  # noqa: E402
from memctl.dedupe.tokens import TokenStore  # noqa: E402


def texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    w = _Writer(rng)
    base = [r.text for r in generate("english", n - n // 5, seed)]
    copies = [
        _one_char(t, rng) if rng.random() < 0.5 else near_copy(t, rng, w)
        for t in rng.sample(base, n // 5)
    ]
    out = sorted({fold(light(t)) for t in base + copies})
    rng.shuffle(out)
    return out


def run_own(folded: list[str], bands: int, rows: int) -> tuple[float, set[tuple[int, int]]]:
    tokens = TokenStore()
    tokens.put(range(len(folded)), folded)
    started = time.perf_counter()
    finder = PairFinder(tokens, 0.75, MinHasher(bands, rows), join_min=0, join_share=0.0)
    x, y, _ = finder.add(range(len(folded)))
    seconds = time.perf_counter() - started
    return seconds, set(zip(x.tolist(), y.tolist(), strict=True))


def run_datasketch(folded: list[str], bands: int, rows: int) -> tuple[float, set[tuple[int, int]]]:
    from datasketch import LeanMinHash, MinHash, MinHashLSH

    tokens = TokenStore()
    tokens.put(range(len(folded)), folded)
    grams = [[t[i : i + 2].encode() for i in range(max(1, len(t) - 1))] for t in folded]
    started = time.perf_counter()
    sketches = [LeanMinHash(m) for m in MinHash.bulk(grams, num_perm=bands * rows)]
    lsh = MinHashLSH(threshold=0.75, num_perm=bands * rows, params=(bands, rows))
    with lsh.insertion_session() as session:
        for i, m in enumerate(sketches):
            session.insert(i, m, check_duplication=False)
    pairs = {(max(i, j), min(i, j)) for i, m in enumerate(sketches) for j in lsh.query(m)
             if j != i}  # fmt: skip
    if pairs:  # exact verification, as the own join does
        x, y = np.array(sorted(pairs)).T
        keep = PairFinder(tokens, 0.75).jaccard(x, y) >= 0.75 - 1e-12
        pairs = set(zip(x[keep].tolist(), y[keep].tolist(), strict=True))
    return time.perf_counter() - started, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    config = DedupeConfig.default()
    b, r = config.lsh_bands, config.lsh_rows
    folded = texts(opts.records, seed=1)
    tokens = TokenStore()
    tokens.put(range(len(folded)), folded)
    truth_x, truth_y, _ = BrutePairs(tokens, 0.75).add(range(len(folded)))
    truth = set(zip(truth_x.tolist(), truth_y.tolist(), strict=True))
    own_s, ds_s = [], []
    for _ in range(opts.repeat):  # alternated
        seconds, own = run_own(folded, b, r)
        own_s.append(seconds)
        seconds, theirs = run_datasketch(folded, b, r)
        ds_s.append(seconds)
    own_t, ds_t = statistics.median(own_s), statistics.median(ds_s)
    print(f"{len(folded)} distinct dense texts, {len(truth)} pairs with J >= 0.75, "
          f"{b} bands x {r} rows, medians of {opts.repeat}")  # fmt: skip
    print(f"own        {own_t:7.2f} s  recall {len(own & truth) / max(len(truth), 1):.4f}  "
          f"false {len(own - truth)}")  # fmt: skip
    print(f"datasketch {ds_t:7.2f} s  recall {len(theirs & truth) / max(len(truth), 1):.4f}  "
          f"false {len(theirs - truth)}")  # fmt: skip
    print(f"datasketch / own: {ds_t / own_t:.1f}x")


if __name__ == "__main__":
    main()
