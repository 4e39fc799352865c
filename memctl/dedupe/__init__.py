"""Near-duplicate detection (layers L2–L4), one module per layer; see engine.py for the API.

template.py (L2a template folding), boilerplate.py (L2b shared prefixes/suffixes), jaccard.py
(L3 bigram Jaccard: numpy join, inverted index, MinHash bands), simhash.py (L4 SimHash),
guard.py (merge guard), unionfind.py (groups and canonicals), text.py (the text forms
compared), tokens.py (bigram sets of many texts, stored flat), keyindex.py (sorted numpy
multimaps for the indexes), config.py (memctl/data/dedupe.toml).
"""

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.engine import ALL_LAYERS, Engine, Item, Merge

__all__ = ["ALL_LAYERS", "DedupeConfig", "Engine", "Item", "Merge"]
