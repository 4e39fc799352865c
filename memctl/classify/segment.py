"""Word tokens for lexicon lookups: jieba for Chinese runs, a regex for everything else.

Lexicon words are matched against whole tokens rather than substrings, so 人设 does not fire
inside 个人设置 and 叫我 does not fire inside 叫我们. jieba runs only over CJK runs: it is the
slowest step of classification, and Latin text gains nothing from it.

`cut` is jieba's own dictionary segmentation (`lcut(text, HMM=False)`: the maximum-probability
path through the prefix dictionary) written as one loop. jieba's version builds a DAG dict and a
generator of tuples per character and costs ~4 µs a character; this one gives the same words
(tests/test_classify_segment.py checks it against jieba) about five times faster, which is what
keeps classification under 100 µs a record.
"""

from __future__ import annotations

import logging
import re
import warnings
from functools import cache, lru_cache
from math import log
from typing import Any

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Possessives and contractions split ("sister's" -> sister, s); patterns see the whole text.
_LATIN_WORD = re.compile(r"[a-z0-9]+")


@cache
def _tokenizer() -> Any:
    """A private jieba tokenizer, built once.

    Private so words memctl adds never change segmentation for other jieba users in the
    process. It starts as a copy of jieba's default dictionary, which dedupe and search load
    too: loading it a second time from disk costs 0.4 s. jieba imports pkg_resources
    (deprecated) and logs at DEBUG while it loads its dictionary; neither may reach the user,
    and pytest turns warnings into errors.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import jieba

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        tokenizer = jieba.Tokenizer()
        tokenizer.FREQ, tokenizer.total = dict(jieba.dt.FREQ), jieba.dt.total
        tokenizer.initialized = True
    return tokenizer


def add_words(words: frozenset[str]) -> None:
    """Teach the segmenter lexicon words it would otherwise split (剧本杀, 角色扮演)."""
    tokenizer = _tokenizer()
    for word in sorted(words):
        if _CJK_RUN.fullmatch(word):
            tokenizer.add_word(word)
    _cut_run.cache_clear()


def cut(run: str) -> list[str]:
    """Segment a run of CJK characters exactly as jieba's `lcut(run, HMM=False)` does."""
    return list(_cut_run(run))


# The same short runs (用户, 喜欢, a name) recur across a user's memories: remembering their
# cuts takes a third off classification (tests/bench/bench_classify.py).
@lru_cache(maxsize=1 << 16)
def _cut_run(run: str) -> tuple[str, ...]:
    tokenizer = _tokenizer()
    get = tokenizer.FREQ.get
    log_total = log(tokenizer.total)
    n = len(run)
    score = [0.0] * (n + 1)  # best log probability of run[start:]
    end = [0] * (n + 1)  # where the first word of that best path ends
    for start in range(n - 1, -1, -1):
        best: float | None = None
        stop = i = start + 1
        f = get(run[start])
        while f is not None:  # every prefix of a dictionary word is in FREQ (0 if not a word)
            if f:
                # Same arithmetic order as jieba, so float rounding breaks ties the same way.
                s = log(f) - log_total + score[i]
                # jieba takes max((score, end)): on a tie the longer word wins.
                if best is None or s >= best:
                    best, stop = s, i
            if i == n:
                break
            i += 1
            f = get(run[start:i])
        if best is None:
            best = log(get(run[start]) or 1) - log_total + score[start + 1]
        score[start] = best
        end[start] = stop
    words = []
    i = 0
    while i < n:
        words.append(run[i : end[i]])
        i = end[i]
    return tuple(words)


def fold(text: str) -> str:
    """The form lexicon patterns are written against: casefolded, typographic apostrophes plain."""
    return text.casefold().replace("\u2019", "'").replace("\u2018", "'")


class Vocabulary:
    """Words to find as whole tokens of a text (the lexicon's words).

    A CJK run can only yield a word of the vocabulary as a token if it contains it, so only
    such runs are segmented: about a third of them on tests/corpus.py's text, which halves
    classification time (tests/bench/bench_classify.py). The answer is the same as segmenting
    everything (tests/test_classify_segment.py).
    """

    def __init__(self, words: frozenset[str]) -> None:
        self.words = words
        cjk = sorted((w for w in words if _CJK_RUN.fullmatch(w)), key=len, reverse=True)
        self._cjk = re.compile("|".join(map(re.escape, cjk))) if cjk else None

    def found(self, folded: str) -> frozenset[str]:
        """The vocabulary's words that are tokens of `folded` (already folded text)."""
        found = set(_LATIN_WORD.findall(folded))
        if self._cjk is not None:
            for run in _CJK_RUN.findall(folded):
                if self._cjk.search(run):
                    found.update(_cut_run(run))
        return self.words.intersection(found)
