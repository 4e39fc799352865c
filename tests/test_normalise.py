"""The canonical form dedupe layer 1 keys on, and its tagged hashes."""

from __future__ import annotations

import re
import string
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.normalise import HASH_SCHEME, norm_hash, normalise, raw_hash


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("User prefers dark mode.", "userprefersdarkmode"),
        ("ＴｙｐｅＳｃｒｉｐｔ", "typescript"),
        ("用户对花生过敏。", "用户对花生过敏"),
        ("「记住」：E2E041，蓝鲸！", "记住e2e041蓝鲸"),
        ("  tabs\tand\u3000ideographic   spaces\n", "tabsandideographicspaces"),
        ("Straße", "strasse"),
        ("zero\u200bwidth", "zerowidth"),
        ("①②", "12"),
        ("C++ > C", "c++>c"),
        # Dropping the zero-width space lets the accent compose with its letter.
        ("e\u200b\u0301", "\u00e9"),
        ("T\u00a8", "\u1e97"),
        ("", ""),
        ("。！？", ""),
    ],
)
def test_examples(text: str, canonical: str) -> None:
    assert normalise(text) == canonical


def test_variants_of_one_fact_share_a_hash() -> None:
    variants = [
        "Likes TypeScript more than plain JavaScript.",
        "likes typescript more than plain javascript",
        "Likes ＴｙｐｅＳｃｒｉｐｔ more than plain JavaScript",
        "  Likes TypeScript, more than plain JavaScript!  ",
    ]
    assert len({norm_hash(v) for v in variants}) == 1
    assert norm_hash("likes rust") != norm_hash(variants[0])


def test_hashes_carry_their_scheme_tag() -> None:
    assert HASH_SCHEME == "s1"
    assert re.fullmatch(r"s1:[0-9a-f]{64}", norm_hash("用户对花生过敏"))
    assert re.fullmatch(r"r1:[0-9a-f]{64}", raw_hash("用户对花生过敏"))
    # The raw hash tells apart what normalisation folds together.
    assert raw_hash("用户对花生过敏") != raw_hash("用户对花生过敏。")
    assert norm_hash("用户对花生过敏") == norm_hash("用户对花生过敏。")


def test_lone_surrogates_hash_without_error() -> None:
    assert norm_hash("bad \ud800 half").startswith("s1:")
    assert raw_hash("\udfff").startswith("r1:")


# --- properties ----------------------------------------------------------------------------------

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}
# Punctuation in Unicode's sense (P*): symbols such as "+", "<" and "$" carry meaning
# ("C++" is not "C") and are kept.
_PUNCT = [c for c in string.punctuation if unicodedata.category(c)[0] == "P"]
_PUNCT += list("，。、！？；：「」『』（）《》【】…—·")
_SPACES = [" ", "\t", "\n", "\u3000", "\u00a0", "\u2003"]


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_idempotent(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + "中文记忆蓝鲸过敏", max_size=40))
def test_invariant_under_full_width(text: str) -> None:
    wide = "".join(_FULLWIDTH.get(c, c) for c in text)
    assert normalise(wide) == normalise(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_invariant_under_case(text: str) -> None:
    assert normalise(text.upper()) == normalise(text.lower()) == normalise(text.casefold())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(alphabet=string.ascii_letters + "中文记忆", min_size=1, max_size=6), max_size=8
    ),
    st.data(),
)
def test_invariant_under_whitespace_and_punctuation(words: list[str], data: st.DataObject) -> None:
    plain = "".join(words)
    noisy = ""
    for word in words:
        noisy += word + data.draw(st.text(alphabet=_SPACES + _PUNCT, max_size=3))
    noisy = data.draw(st.text(alphabet=_SPACES, max_size=2)) + noisy
    assert normalise(noisy) == normalise(plain)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_output_has_no_whitespace_punctuation_or_upper_case(text: str) -> None:
    out = normalise(text)
    assert not any(unicodedata.category(c)[0] in "PZ" for c in out)
    assert not any(c.isspace() for c in out)
    assert out == unicodedata.normalize("NFKC", out)


def test_the_fold_table_misses_no_code_point_of_the_planes_it_does_not_scan() -> None:
    """The table is built from planes 0-3 and 14 only: none of the others holds punctuation,
    separators, controls or format characters in this Python's Unicode database."""
    import sys

    from memctl.normalise import _SCANNED, _fold_table

    scanned = {cp for plane in _SCANNED for cp in plane}
    folded = {
        cp
        for cp in range(sys.maxunicode + 1)
        if cp not in scanned
        and ((kind := unicodedata.category(chr(cp)))[0] in "PZ" or kind in ("Cc", "Cf"))
    }
    assert folded == set()
    assert 0xE0001 in _fold_table() and 0x3000 in _fold_table() and ord("!") in _fold_table()
