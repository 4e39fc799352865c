"""Word segmentation for search: jieba for Chinese, plain word runs for everything else."""

from __future__ import annotations

import logging
import re
from functools import cache

_WORD = re.compile(r"\w+")


@cache
def _jieba():  # type: ignore[no-untyped-def]
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


# Changes whenever words() would cut the same text differently: the index is then rebuilt.
SCHEME = "jieba-search-nohmm/1"


def words(text: str) -> list[str]:
    """Search terms of `text`, lower-cased: jieba's search-mode cut, punctuation dropped.

    Dictionary words only (no HMM): the HMM glues unknown characters to their neighbours
    depending on context ("拿铁要燕麦奶" -> "拿铁要"), so a query would cut "拿铁" one way and
    the stored text another, and miss it. Without it, unknown words fall apart into single
    characters the same way everywhere.
    """
    return [w.lower() for w in _jieba().cut_for_search(text, HMM=False) if _WORD.fullmatch(w)]
