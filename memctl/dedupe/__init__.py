"""Near-duplicate detection (layers L2–L4), one module per layer; see engine.py for the API.

template.py (L2a template folding), boilerplate.py (L2b shared prefixes/suffixes), jaccard.py
(L3 bigram Jaccard: numpy join, inverted index, MinHash bands), simhash.py (L4 SimHash),
guard.py (merge guard), unionfind.py (groups and canonicals), text.py (the text forms
compared), tokens.py (bigram sets of many texts, stored flat), keyindex.py (sorted numpy
multimaps for the indexes), config.py (memctl/data/dedupe.toml).
"""

from typing import TYPE_CHECKING, Any

from memctl.dedupe.layers import ALL_LAYERS

if TYPE_CHECKING:
    from memctl.dedupe.config import DedupeConfig
    from memctl.dedupe.engine import Engine, Item, Merge

__all__ = ["ALL_LAYERS", "DedupeConfig", "Engine", "Item", "Merge"]


def __getattr__(name: str) -> Any:
    # The engine (and numpy) load when first used, not whenever a layer name is needed.
    if name == "DedupeConfig":
        from memctl.dedupe.config import DedupeConfig

        return DedupeConfig
    if name in ("Engine", "Item", "Merge"):
        from memctl.dedupe import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
