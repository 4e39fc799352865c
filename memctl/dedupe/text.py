"""The text forms the layers compare: light (NFKC + casefold), folded (memctl's normal form),
and the character-bigram set of a folded text.

`fold(light(t)) == memctl.normalise.normalise(t)`: the engine splits normalise in two because
the template masks and the guard need the punctuation that the folded form drops (quotes, URLs,
"don't"), and computing NFKC once for both halves saves a third of the per-record cost.
"""

from __future__ import annotations

import unicodedata

from memctl.normalise import _fold_table


def light(text: str) -> str:
    """NFKC (full/half width) and casefold; punctuation and spacing kept."""
    # is_normalized is a fast scan; normalize always rebuilds the string (50x slower).
    if unicodedata.is_normalized("NFKC", text):
        return text.casefold()
    return unicodedata.normalize("NFKC", text).casefold()


def fold(light_text: str) -> str:
    """Drop whitespace, punctuation and control characters: memctl's normal form."""
    return light_text.translate(_fold_table())


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
    """The part of `light_text` whose folded form is `fold(light_text)[start:end]`."""
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
