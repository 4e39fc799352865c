"""Word segmentation for search: jieba for Chinese, plain word runs for everything else.

The index side (`words`) loads jieba's whole dictionary (0.4-0.5 s, once per process). The query
side (`query_words`) runs on every `memctl context` call, where that load was half of the
command's time: it gives the same words from an on-disk copy of the dictionary (an SQLite file in
the user's cache directory, written the first time the index side loads jieba), reading only
the entries for the query's own substrings. jieba's segmentation only ever looks up substrings
of the text it cuts, so a dictionary cut down to those gives exactly the same words.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from memctl.lazy import jieba as _import_jieba

_WORD = re.compile(r"\w+")
_CACHE_FORMAT = 1
_BATCH = 500
# Past this many characters, looking up every substring (up to 16 characters each) costs more
# than loading the whole dictionary once (~0.5 s).
_LONGEST_QUERY = 4000


@cache
def _jieba():  # type: ignore[no-untyped-def]
    jieba = _import_jieba()
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
    tokenizer = _jieba().dt
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
    """jieba's prefix dictionary (word or word prefix -> frequency) in an SQLite file."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        self.total = int(meta["total"])
        self.longest = int(meta["longest"])

    def tokenizer_for(self, text: str) -> Any:
        """A jieba tokenizer whose dictionary holds just the entries for `text`'s substrings."""
        jieba = _import_jieba()
        wanted: set[str] = set()
        for block in jieba.re_han_default.findall(text):
            for start in range(len(block)):
                stop = min(len(block), start + self.longest)
                wanted.update(block[start:end] for end in range(start + 1, stop + 1))
        found: dict[str, int] = {}
        chunk = sorted(wanted)
        for i in range(0, len(chunk), _BATCH):
            part = chunk[i : i + _BATCH]
            rows = self.conn.execute(
                f"SELECT word, freq FROM freq WHERE word IN ({','.join('?' * len(part))})", part
            )
            found.update(rows)
        tokenizer = jieba.Tokenizer()
        tokenizer.FREQ, tokenizer.total, tokenizer.initialized = found, self.total, True
        return tokenizer


@cache
def _dictionary_name() -> str | None:
    """The copy's file name: jieba's version and its dictionary file's size and time."""
    jieba = _import_jieba()
    try:
        source = Path(str(jieba.__file__)).with_name("dict.txt").stat()
    except OSError:
        return None
    return f"jieba-{jieba.__version__}-{source.st_size}-{int(source.st_mtime)}-{_CACHE_FORMAT}"


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
        return _SavedDictionary(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True))
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
    with contextlib.suppress(OSError, sqlite3.Error):
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(path.parent)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        try:
            conn = sqlite3.connect(tmp)
            with conn:
                conn.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, freq INT) WITHOUT ROWID")
                conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
                conn.executemany("INSERT INTO freq VALUES (?, ?)", tokenizer.FREQ.items())
                longest = max(map(len, tokenizer.FREQ), default=1)
                conn.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("total", str(tokenizer.total)), ("longest", str(longest))],
                )
            conn.close()
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
