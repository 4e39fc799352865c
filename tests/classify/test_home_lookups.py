"""The text lookups a home's vote makes of every line of the home (memctl.classify.home,
memctl.classify.kin): one scan of a line for any of a set of words, the set's pattern made
once, with the answers of testing each word in turn."""

from __future__ import annotations

from memctl import segment
from memctl.classify import home, kin

WORDS = frozenset({"customers", "patients", "学生", "家长"})
LINES = [
    "Customers get a text when the bike is ready",
    "The customer-facing rota is posted on Mondays",
    "Patientsheet printer is out of toner",
    "周五给家长发成绩单",
    "学生会的活动改到下周",
    "Walk the dog before seven",
    "",
]


def test_one_pattern_per_word_set_with_each_words_answers():
    home.any_of.cache_clear()
    for text in LINES:
        folded = segment.fold(text)
        expected = any(w in folded for w in WORDS)
        assert (home.any_of(WORDS).search(folded) is not None) == expected
        assert home.names_any(text, WORDS) == (
            expected and not WORDS.isdisjoint(segment.words(folded))
        )
    info = home.any_of.cache_info()
    assert info.misses == 1 and info.hits >= len(LINES)


def test_relatives_found_anywhere_with_one_pattern():
    found = frozenset({"Ivy", "小宇", "阿梅"})
    assert kin.names_any("小宇鼻炎发作，请假一天", found)
    assert kin.names_any("Lunch with Ivy on Sunday", found)
    assert not kin.names_any("Ivybridge station closes at ten", found)
    assert not kin.names_any("梅雨季节记得除湿", found)
    kin._anywhere.cache_clear()
    for text in ("阿梅来吃饭", "问小宇作业", "nothing here"):
        kin.names_any(text, found)
    assert kin._anywhere.cache_info().misses == 1
