"""facts.extract's quick paths change no fact: _clean's one search for the cut and tuple test
before each particle loop clean every value as the plain loops over facts.toml's lists do, and
the patterns walked by serial number are the rules' own order."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.classify import facts
from memctl.classify.facts import extract

_SPACES = re.compile(r"\s+")


def reference(raw: str) -> str:
    """_clean as written before the quick checks: a find per stop, every particle tried."""
    r = facts._rules()
    value = unicodedata.normalize("NFKC", raw).strip()
    if value and value[0] in r.quotes:
        close = value.find(r.quotes[value[0]], 1)
        if close > 1:
            return _SPACES.sub(" ", value[1:close].strip()).casefold()
        value = value[1:]
    cut_at = len(value)
    for stop in r.cut:
        i = value.find(stop)
        if 0 <= i < cut_at:
            cut_at = i
    value = value[:cut_at].strip()
    changed = True
    while changed and value:
        changed = False
        for end in r.trailing:
            if value.endswith(end) and len(value) > len(end):
                value, changed = value[: -len(end)].rstrip(), True
        for start in r.leading:
            if value.casefold().startswith(start) and len(value) > len(start):
                value, changed = value[len(start) :].lstrip(), True
    value = value.strip(" \"'“”「」『』‘’《》")
    return _SPACES.sub(" ", value).casefold()


def pieces() -> list[str]:
    r = facts._rules()
    return [*r.cut, *r.trailing, *r.leading, *r.quotes, "上海", "Vim", "x", " ", "THE "]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(pieces()), max_size=10))
def test_clean_equals_the_plain_loops(parts: list[str]) -> None:
    raw = "".join(parts)
    assert facts._clean(raw) == reference(raw)


def test_clean_cuts_at_the_first_stop_and_drops_particles() -> None:
    assert facts._clean("在上海了，明天走") == "上海"
    assert facts._clean("The Vim editor and Emacs") == "vim editor"
    assert facts._clean("上海 with friends. ok") == "上海"


def test_patterns_by_serial_number_are_the_rules_patterns_in_order() -> None:
    """extract walks the patterns the text may match by serial number: that is the rules'
    own order, so the first fact found is the same."""
    r = facts._rules()
    nested = [(rule, pattern) for rule in r.facts for _, pattern in rule.patterns]
    assert list(r.by_serial) == nested
    assert [s for rule in r.facts for s, _ in rule.patterns] == list(range(len(nested)))


@pytest.mark.parametrize(
    "text",
    [
        "Oat-milk vegan muffins are on the top shelf of the bakery van",
        "Keto snacks for the hiking club go in the green box",
        "Halal chicken comes from the market on Tuesdays",
        "Kosher plates are kept apart in the left cupboard",
    ],
)
def test_a_diet_word_before_a_noun_describes_the_food_not_the_person(text):
    assert extract(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Vegan since last spring, eats no honey", "vegan"),
        ("Went vegetarian in 2024", "vegetarian"),
        ("Keto.", "keto"),
        ("User is pescatarian and drinks no coffee", "pescatarian"),
    ],
)
def test_a_diet_word_told_of_the_person_is_still_their_diet(text, value):
    fact = extract(text)
    assert fact is not None and (fact.predicate, fact.value) == ("diet", value)
