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


def words(text: str) -> list[str]:
    """Search terms of `text`, lower-cased: jieba's search-mode cut, punctuation dropped."""
    return [w.lower() for w in _jieba().cut_for_search(text) if _WORD.fullmatch(w)]
