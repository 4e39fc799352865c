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


def test_a_homes_private_lines_look_for_its_relatives_with_one_pattern(monkeypatch):
    """Whether a private line names a relative the home introduced: the names' pattern is
    made again only when a file introduced someone, not for each line or file."""
    made: list[list[str]] = []
    real = kin.anywhere_of
    monkeypatch.setattr(
        kin, "anywhere_of", lambda names: made.append(list(names)) or real(made[-1])
    )

    def private(i: int, text: str, names: frozenset[str] = frozenset()) -> home.Line:
        return home.Line(
            i, text, "real", False, "procedural", "private", False, False, names, False
        )

    evidence = home.Evidence()
    evidence.add("/h/MEMORY.md", [private(1, "儿子小宇，14 岁", frozenset({"小宇"}))])
    for day in range(5):
        evidence.add(f"/h/memory/2026-01-0{day + 1}.md", [
            private(10 + 2 * day, "小宇的补习费 300 元一节"),
            private(11 + 2 * day, "仓库门禁密码 4417"),
        ])  # fmt: skip
    assert made == [["小宇"]]
    # The lines naming him are his family's, the one with the code the home's own.
    assert 11 in evidence.candidates and 10 not in evidence.candidates
