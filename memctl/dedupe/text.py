"""The text forms the layers compare: light (NFKC + casefold), folded (memctl's normal form),
and the character-bigram set of a folded text.

`fold(light(t)) == memctl.normalise.normalise(t)`: the engine splits normalise in two because
the template masks and the guard need the punctuation that the folded form drops (quotes, URLs,
"don't"), and computing NFKC once for both halves saves a third of the per-record cost.
"""

from __future__ import annotations

import unicodedata
from functools import cache

import numpy as np

from memctl.normalise import _fold_table

# From this many characters on, a text is folded (and sliced) as an array of code points: one
# table lookup per character in numpy instead of str.translate's dict lookup (20 µs against
# 3.6 µs for a 370-character note); below it the array's set-up costs more than it saves.
_ARRAY_FROM = 128


def light(text: str) -> str:
    """NFKC (full/half width) and casefold; punctuation and spacing kept."""
    # is_normalized is a fast scan; normalize always rebuilds the string (50x slower).
    if unicodedata.is_normalized("NFKC", text):
        return _same(text, text.casefold())
    if len(text) >= _ARRAY_FROM:
        # Most of what is not normalised in a long note is full-width punctuation ("，", "！",
        # "："), which NFKC maps to ASCII one to one. Mapped first, a text is often normalised
        # then, and it is NFKC of the original: replacing a character by its compatibility
        # decomposition leaves the decomposition of the whole text unchanged (light() took 43 µs
        # of a 370-character Chinese note of the boilerplate shape, now 13 µs).
        codes = _code_points(text)
        wide = ((codes >= _WIDE_FIRST) & (codes <= _WIDE_LAST)) | (codes == _WIDE_SPACE)
        if wide.any():
            narrow = np.where(wide, _narrow()[codes & 0xFF], codes).astype(np.uint32)
            mapped = narrow.tobytes().decode("utf-32-le", "surrogatepass")
            if unicodedata.is_normalized("NFKC", mapped):
                return _same(text, mapped.casefold())
    return _same(text, unicodedata.normalize("NFKC", text).casefold())


def _same(text: str, light_text: str) -> str:
    """`text` itself when the light form is equal to it: casefold always builds a new string,
    and the engine keeps every new record's light text during an add() (a Chinese or lower
    case note is its own light form: the copy was as big as the texts)."""
    return text if light_text == text else light_text


# Full-width ASCII (U+FF01-FF5E is NFKC U+0021-007E) and the ideographic space (U+3000 is " ").
_WIDE_FIRST, _WIDE_LAST, _WIDE_SPACE = 0xFF01, 0xFF5E, 0x3000


@cache
def _narrow() -> np.ndarray:
    """The low byte of a full-width character or of U+3000 -> what NFKC makes of it."""
    narrow = np.zeros(256, dtype=np.uint32)
    narrow[_WIDE_FIRST & 0xFF : (_WIDE_LAST & 0xFF) + 1] = np.arange(0x21, 0x7F)
    narrow[_WIDE_SPACE & 0xFF] = 0x20
    return narrow


def fold(light_text: str) -> str:
    """Drop whitespace, punctuation and control characters: memctl's normal form."""
    if len(light_text) < _ARRAY_FROM:
        return light_text.translate(_fold_table())
    codes = _code_points(light_text)
    return codes[~_dropped()[codes]].tobytes().decode("utf-32-le", "surrogatepass")


@cache
def _dropped() -> np.ndarray:
    """Code point -> does fold() drop it: the fold table as a bool per code point (1.1 MB)."""
    dropped = np.zeros(0x110000, dtype=bool)
    dropped[np.fromiter(_fold_table(), dtype=np.int64)] = True
    return dropped


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def bigrams(folded: str) -> set[int]:
    """The distinct character bigrams of `folded`, each packed exactly into one int.

    Ints hash and compare faster than 2-character strings and store in 8 bytes. A
    one-character text is its single character (as a bigram with a code point no text holds);
    the empty text has no tokens.
    """
    if len(folded) < 2:
        return {(ord(folded) << 21) | 0x1FFFFF} if folded else set()
    codes = list(map(ord, folded))
    return set(map(_pack, codes, codes[1:]))


def _pack(a: int, b: int) -> int:
    return (a << 21) | b


def light_slice(light_text: str, start: int, end: int) -> str:
    """The part of `light_text` whose folded form is `fold(light_text)[start:end]`: from its
    start-th kept character up to its end-th (the characters dropped between them kept)."""
    if len(light_text) >= _ARRAY_FROM:
        kept_at = np.flatnonzero(~_dropped()[_code_points(light_text)])
        if end < len(kept_at):
            return light_text[kept_at[start] : kept_at[end]] if start <= end else ""
        return light_text[kept_at[start] :] if start < len(kept_at) else ""
    table = _fold_table()
    kept = 0
    begin = None
    for index, char in enumerate(light_text):
        if ord(char) in table:
            continue
        if kept == start and begin is None:
            begin = index
        if kept == end:
            return light_text[begin if begin is not None else index : index]
        kept += 1
    return light_text[begin if begin is not None else len(light_text) :]


def cased_slice(text: str, start: int, end: int) -> str:
    """The part of NFKC(`text`), case kept, whose folded form is `fold(light(text))[start:end]`
    (light_slice of the text as written: a character may casefold to more than one, "ß" to
    "ss", so positions are counted on each character's casefolded form)."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    folded = text.casefold()
    if len(folded) == len(text):
        # Each character folds to one (casefold never shortens): the kept ones are found on
        # an array at once, as in light_slice. The walk below took ~300 µs on a long note's
        # core, a third of the boilerplate shape's import (bench_ab.py, 2026-12-02).
        kept_at = np.flatnonzero(~_dropped()[_code_points(folded)])
        if end == 0 or start > len(kept_at):
            return ""
        begin = kept_at[start - 1] + 1 if start else 0
        return text[begin : kept_at[end - 1] + 1] if end <= len(kept_at) else text[begin:]
    table = _fold_table()
    kept = 0
    begin = None
    for index, char in enumerate(text):
        if kept >= end:
            return text[begin if begin is not None else index : index]
        if begin is None and kept >= start:
            begin = index
        kept += sum(ord(c) not in table for c in char.casefold())
    return text[begin if begin is not None else len(text) :]
