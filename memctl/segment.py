"""Text segmentation: the one place jieba is loaded, and the cuts each part of memctl needs.

- `jieba()`: jieba with its dictionary, loaded once, on first use, and quietly. Dedupe's
  SimHash features cut with it directly (memctl/dedupe/simhash.py).
- Search terms (`words`, `query_words`): jieba's search-mode cut, for the full-text index and
  its queries.
- Lexicon tokens (`cut`, `fold`, `Vocabulary`, `add_words`): whole words for classification's
  lexicon lookups, cut from a private copy of the dictionary that lexicon words are added to.

Search terms: the index side (`words`) loads jieba's whole dictionary (0.4-0.5 s, once per
process). The query side (`query_words`) runs on every `memctl context` call, where that load
was half of the command's time: it gives the same words from an on-disk copy of the dictionary
(an SQLite file in the user's cache directory, written the first time the index side loads
jieba), reading only the entries for the query's own substrings. jieba's segmentation only ever
looks up substrings of the text it cuts, so a dictionary cut down to those gives exactly the
same words.

Lexicon tokens: lexicon words are matched against whole tokens rather than substrings, so 人设
does not fire inside 个人设置 and 叫我 does not fire inside 叫我们. jieba runs only over CJK
runs: it is the slowest step of classification, and Latin text gains nothing from it. `cut` is
jieba's own dictionary segmentation (`lcut(text, HMM=False)`: the maximum-probability path
through the prefix dictionary) written as one loop. jieba's version builds a DAG dict and a
generator of tuples per character and costs ~4 µs a character; this one gives the same words
(tests/classify/test_gate.py checks it against jieba) about five times faster, which is what
keeps classification under 100 µs a record.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
import re
import sqlite3
import sys
import tempfile
import time
import warnings
from array import array
from functools import cache, lru_cache
from math import log
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

# memctl.store.fts (the dictionary copy's statements) is imported where the copy is used:
# classify and dedupe cut text here too, and need nothing of the store.
if TYPE_CHECKING:
    from memctl.store.fts import Dictionary

_WORD = re.compile(r"\w+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Possessives and contractions split ("sister's" -> sister, s); patterns see the whole text.
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_CACHE_FORMAT = 1
# Past this many characters, looking up every substring (up to 16 characters each) costs more
# than loading the whole dictionary once (~0.5 s).
_LONGEST_QUERY = 4000


# -- loading jieba ---------------------------------------------------------------------------


@cache
def _module() -> ModuleType:
    """jieba imported, its dictionary not loaded yet (the query side needs only its code).

    jieba finds its dictionary through pkg_resources when that imports, else by its own path;
    the result is the same file, but importing pkg_resources (deprecated, and absent from
    newer environments) costs ~70 ms, which a `memctl context` call would pay every time, and
    warns. jieba's source also raises SyntaxWarnings when compiled; pytest turns warnings into
    errors, and none may reach the user.
    """
    hide = "pkg_resources" not in sys.modules
    if hide:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import jieba as module
    finally:
        if hide:
            del sys.modules["pkg_resources"]
    module.setLogLevel(logging.WARNING)  # it logs at DEBUG while it loads its dictionary
    return module


@cache
def jieba() -> ModuleType:
    """jieba with its default dictionary loaded: once per process, on first use, quietly.

    From memctl's own copy of the prefix dictionary when there is one (`_read_copy`): jieba's
    cache (marshal, /tmp/jieba.cache) took ~0.5 s CPU to load, a tenth of a 20k-record
    import's, the copy ~0.2 s; the same entries, in the same order, and the same total."""
    module = _module()
    tokenizer = module.dt
    default = tokenizer.dictionary == module.DEFAULT_DICT and not tokenizer.initialized
    if default and (copy := _read_copy("prefixes")) is not None:
        (words,), (counts,), (total,) = copy
        tokenizer.FREQ, tokenizer.total = dict(zip(words, counts, strict=True)), total
        tokenizer.initialized = True
        return module
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.initialize()
    if default:
        counts = array("q", tokenizer.FREQ.values())
        _write_copy("prefixes", [list(tokenizer.FREQ)], [counts], [tokenizer.total])
    return module


def word_tags() -> dict[str, str] | None:
    """jieba.posseg's table of each dictionary word's part of speech, from memctl's copy
    (~0.1 s; jieba reads it from its dictionary's text, ~0.3 s); None: no usable copy."""
    copy = _read_copy("tags")
    return None if copy is None else dict(zip(*copy[0], strict=True))


def save_word_tags(tags: dict[str, str]) -> None:
    _write_copy("tags", [list(tags), list(tags.values())], [], [])


# The copies `_read_copy` reads, beside the dictionary's SQLite copy: lists of strings (each
# joined by newlines), lists of 64-bit integers (an array's bytes), all of one length, and
# plain values; marshalled (marshal runs no code when it loads, unlike pickle). No string
# written holds a newline (jieba reads its dictionary a line at a time; `_write_copy` checks).
_COPY_FORMAT = 1


def _copy_file(name: str) -> Path | None:
    path = _dictionary_file()
    return None if path is None else path.with_name(f"{path.stem}-{name}{_COPY_FORMAT}.bin")


Copy = tuple[list[list[str]], list["array[int]"], list[Any]]


def _read_copy(name: str) -> Copy | None:
    """The copy's lists of strings, of integers and its values; None: no usable copy."""
    path = _copy_file(name)
    if path is None:
        return None
    try:
        with open(path, "rb") as copy:
            joined, packed, values = marshal.load(copy)
        texts = [one.split("\n") for one in joined]
        numbers = [array("q") for _ in packed]
        for one, raw in zip(numbers, packed, strict=True):
            one.frombytes(raw)
    except (OSError, EOFError, ValueError, TypeError, AttributeError):
        return None  # unreadable, partial or of another layout: loaded the usual way
    if len({len(one) for one in [*texts, *numbers]}) != 1:
        return None
    return texts, numbers, list(values)


def _write_copy(
    name: str, texts: list[list[str]], numbers: list[array[int]], values: list[Any]
) -> None:
    """Write a copy for `_read_copy`; best effort (a read-only home only means no copy), and
    atomic: a concurrent reader sees all of it or nothing."""
    path = _copy_file(name)
    if path is None or not all(texts) or any("\n" in s for one in texts for s in one):
        return
    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                joined = ["\n".join(one) for one in texts]
                marshal.dump((joined, [one.tobytes() for one in numbers], values), out)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


# -- search terms ----------------------------------------------------------------------------

# Changes whenever words() would cut the same text differently: the index is then rebuilt.
SCHEME = "jieba-search-nohmm/1"


def words(text: str) -> list[str]:
    """Search terms of `text`, lower-cased: jieba's search-mode cut, punctuation dropped.

    Dictionary words only (no HMM): the HMM glues unknown characters to their neighbours
    depending on context ("拿铁要燕麦奶" -> "拿铁要"), so a query would cut "拿铁" one way and
    the stored text another, and miss it. Without it, unknown words fall apart into single
    characters the same way everywhere.
    """
    tokenizer = jieba().dt
    _save_dictionary(tokenizer)
    return _terms(tokenizer, text)


def query_words(text: str) -> list[str]:
    """words(text), from the on-disk dictionary when there is one (see the module doc)."""
    path = _dictionary_file() if len(text) <= _LONGEST_QUERY else None
    saved = _saved_dictionary(path) if path else None
    if saved is None:
        return words(text)
    try:
        return _terms(saved.tokenizer_for(text), text)
    except sqlite3.Error:
        return words(text)


def _terms(tokenizer: Any, text: str) -> list[str]:
    return [w.lower() for w in tokenizer.cut_for_search(text, HMM=False) if _WORD.fullmatch(w)]


class _SavedDictionary:
    """The on-disk copy of jieba's dictionary (its statements are memctl/store/fts.py's)."""

    def __init__(self, saved: Dictionary) -> None:
        self.saved = saved

    def tokenizer_for(self, text: str) -> Any:
        """A jieba tokenizer whose dictionary holds just the entries for `text`'s substrings."""
        wanted: set[str] = set()
        for block in _module().re_han_default.findall(text):
            for start in range(len(block)):
                stop = min(len(block), start + self.saved.longest)
                wanted.update(block[start:end] for end in range(start + 1, stop + 1))
        tokenizer = _module().Tokenizer()
        tokenizer.FREQ = self.saved.frequencies(sorted(wanted))
        tokenizer.total, tokenizer.initialized = self.saved.total, True
        return tokenizer


@cache
def _dictionary_name() -> str | None:
    """The copy's file name: jieba's version and its dictionary file's size and time."""
    module = _module()
    try:
        source = Path(str(module.__file__)).with_name("dict.txt").stat()
    except OSError:
        return None
    return f"jieba-{module.__version__}-{source.st_size}-{int(source.st_mtime)}-{_CACHE_FORMAT}"


def _dictionary_file() -> Path | None:
    """Where the copy of jieba's dictionary lives: $XDG_CACHE_HOME/memctl, or ~/.cache/memctl
    (a relative $XDG_CACHE_HOME is ignored, as the XDG spec says). None: nowhere usable."""
    name = _dictionary_name()
    if name is None:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory at all
            return None
    return Path(base) / "memctl" / f"{name}.sqlite"


@cache
def _saved_dictionary(path: Path) -> _SavedDictionary | None:
    try:
        if not path.is_file():
            return None
        from memctl.store.fts import Dictionary

        return _SavedDictionary(Dictionary.open(path))
    except (OSError, sqlite3.Error, KeyError, ValueError):
        return None  # unreachable, unreadable or partial: the next words() writes it again


# Cache locations this process has written to or failed to write to, by $XDG_CACHE_HOME (the
# index side calls words() once per entry: only the first call may do more than look here).
_tried: set[str | None] = set()


def _save_dictionary(tokenizer: Any) -> None:
    """Write the loaded dictionary for query_words, once per location and process; best
    effort (a read-only home only means context queries keep loading jieba)."""
    where = os.environ.get("XDG_CACHE_HOME")
    if where in _tried:
        return
    _tried.add(where)
    path = _dictionary_file()
    if path is None or _saved_dictionary(path) is not None:
        return
    from memctl.store.fts import Dictionary

    with contextlib.suppress(OSError, sqlite3.Error):
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        try:
            Dictionary.write(tmp, tokenizer.FREQ, tokenizer.total)
            with open(tmp, "rb") as written:
                os.fsync(written.fileno())  # on disk before it takes the real name
            os.replace(tmp, path)  # atomic: a concurrent reader sees all of it or nothing
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        _saved_dictionary.cache_clear()


def _remove_leftovers(folder: Path) -> None:
    """Half-written copies (and their journals) of writers killed over an hour ago."""
    stale = time.time() - 3600
    for leftover in [*folder.glob("tmp*.tmp"), *folder.glob("tmp*.tmp-journal")]:
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < stale:
                leftover.unlink()


# -- lexicon tokens --------------------------------------------------------------------------


@cache
def _lexicon_tokenizer() -> Any:
    """A private jieba tokenizer, built once.

    Private so words memctl adds never change segmentation for other jieba users in the
    process. It starts as a copy of jieba's default dictionary, which dedupe and search load
    too: loading it a second time from disk costs 0.4 s.
    """
    default = jieba()
    tokenizer = default.Tokenizer()
    tokenizer.FREQ, tokenizer.total = dict(default.dt.FREQ), default.dt.total
    tokenizer.initialized = True
    return tokenizer


def add_words(words: frozenset[str]) -> None:
    """Teach the segmenter lexicon words it would otherwise split (剧本杀, 角色扮演)."""
    global _cuts
    tokenizer = _lexicon_tokenizer()
    for word in sorted(words):
        if _CJK_RUN.fullmatch(word):
            tokenizer.add_word(word)
    _cut_run.cache_clear()
    _cuts += 1


def cut(run: str) -> list[str]:
    """Segment a run of CJK characters exactly as jieba's `lcut(run, HMM=False)` does."""
    return list(_cut_run(run))


# How many times add_words changed the segmentation: what was remembered of a run's cut
# before then is stale (Vocabulary's runs).
_cuts = 0


# The same short runs (用户, 喜欢, a name) recur across a user's memories: remembering their
# cuts takes a third off classification (tests/bench/bench_classify.py).
@lru_cache(maxsize=1 << 16)
def _cut_run(run: str) -> tuple[str, ...]:
    tokenizer = _lexicon_tokenizer()
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
    everything (tests/classify/test_gate.py).

    Runs are cut apart by every character that is not CJK, so a text's words are the union of
    its runs' (and its Latin words'): each run's words are remembered. The runs of a paragraph
    that many notes share (a pinned preamble, boilerplate) are then looked up, not searched
    for every word of the vocabulary and cut again, note after note.
    """

    # Runs remembered at most, then all forgotten at once (~3 MB): a shared paragraph's runs
    # are cut again once per ~16k other runs, which costs nothing to speak of.
    RUNS = 1 << 14

    def __init__(self, words: frozenset[str]) -> None:
        self.words = words
        cjk = sorted((w for w in words if _CJK_RUN.fullmatch(w)), key=len, reverse=True)
        self._cjk = re.compile("|".join(map(re.escape, cjk))) if cjk else None
        self._runs: dict[str, tuple[str, ...]] = {}  # CJK run -> its tokens that are words
        self._cuts = _cuts  # the segmentation the remembered runs were cut by

    def found(self, folded: str) -> frozenset[str]:
        """The vocabulary's words that are tokens of `folded` (already folded text)."""
        found = set(_LATIN_WORD.findall(folded))
        if self._cjk is not None:
            if self._cuts != _cuts or len(self._runs) > self.RUNS:
                self._runs, self._cuts = {}, _cuts
            runs, search = self._runs, self._cjk.search
            for run in _CJK_RUN.findall(folded):
                if (tokens := runs.get(run)) is None:
                    tokens = runs[run] = self._words_of(run) if search(run) else ()
                if tokens:
                    found.update(tokens)
        return self.words.intersection(found)

    def _words_of(self, run: str) -> tuple[str, ...]:
        return tuple(self.words.intersection(_cut_run(run)))
