"""What the Jaccard join does once per pair, however many bands or tokens find the pair.

Near copies agree on most of their LSH bands, so the band join meets each of their pairs once
for every band they share (samples at 100k: 5.6M bitmap checks for 0.3M distinct pairs). The
pairs found must stay those of brute force; the work per pair must not grow with the bands.
"""

from __future__ import annotations

import random

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.jaccard import MinHasher, PairFinder
from memctl.dedupe.tokens import TokenStore

from .test_layers import bigrams, brute_force_pairs

CONFIG = DedupeConfig.default()
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def english_clusters(clusters: int, copies: int, seed: int) -> list[str]:
    """`clusters` sentences of Latin letters, each with `copies` copies that change one letter."""
    rng = random.Random(seed)
    texts = []
    for _ in range(clusters):
        words = ("".join(rng.choices(LETTERS, k=rng.randint(3, 8))) for _ in range(8))
        base = " ".join(words)
        for _ in range(copies):
            at = rng.randrange(len(base))
            texts.append(base[:at] + rng.choice("xyzq") + base[at + 1 :])
    rng.shuffle(texts)
    return texts


def test_band_join_checks_each_pair_once_and_finds_what_brute_force_finds() -> None:
    clusters, copies = 30, 40  # runs of fewer than _CROWDED sets: the band join's pair path
    texts = english_clusters(clusters, copies, seed=3)
    tokens = TokenStore()
    tokens.put(range(len(texts)), texts)
    finder = PairFinder(tokens, 0.75, MinHasher(CONFIG.lsh_bands, CONFIG.lsh_rows), 0, 0.0)
    assert tokens.dense(range(len(texts))).all()  # every set goes through the bands
    x, y, _ = finder.add(range(len(texts)))
    expected = brute_force_pairs([bigrams(t) for t in texts], 0.75)
    assert set(zip(x.tolist(), y.tolist(), strict=True)) == expected
    within = clusters * copies * (copies - 1) // 2
    assert len(expected) > within // 2
    # Checked once each (and a chance collision of two clusters at most once more): checked
    # in every band that found it, a pair of copies was checked ~20 times.
    print(f"\n{len(expected)} pairs, {finder.candidates} bitmap checks")
    assert finder.candidates < 1.5 * within
