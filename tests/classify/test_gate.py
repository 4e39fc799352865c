"""Segmentation (jieba's algorithm, fast) and regex gating (literal pre-checks) change nothing."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl import segment
from memctl.classify import aspect, dates, facts, injection, rules, secrets
from memctl.classify.gate import (
    Index,
    anchored,
    compile_all,
    fold,
    gated,
    grams,
    has_digit,
    pair,
    requirement,
    requirements,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "classify"
TEXTS = [
    json.loads(line)["text"]
    for name in ("labelled.jsonl", "heldout.jsonl")
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
]
# Common characters, so generated strings hit real dictionary words.
HANZI = (
    "我你他用户住在上海北京喜欢不要叫名字工作公司生日过敏猫狗今天明天了的是"
    + "人设置个剧本杀跑团角色扮演说话"
)


def jieba_cut(run: str) -> list[str]:
    return list(segment._lexicon_tokenizer().lcut(run, HMM=False))


def test_cut_matches_jieba_on_every_fixture_line() -> None:
    rules.lexicon()  # the lexicon adds its words to the tokenizer first, as in real use
    runs = [run for text in TEXTS for run in segment._CJK_RUN.findall(text)]
    assert len(runs) > 300
    assert [segment.cut(r) for r in runs] == [jieba_cut(r) for r in runs]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=HANZI, min_size=1, max_size=40))
def test_cut_matches_jieba_on_generated_text(run: str) -> None:
    rules.lexicon()
    assert segment.cut(run) == jieba_cut(run)


def found(text: str) -> frozenset[str]:
    return rules.lexicon().vocabulary.found(segment.fold(text))


def fully_segmented(text: str) -> frozenset[str]:
    """The lexicon words among all the text's tokens, every CJK run segmented: the reference
    Vocabulary.found must equal while segmenting only the runs that can hold one."""
    folded = segment.fold(text)
    tokens = set(segment._LATIN_WORD.findall(folded))
    for run in segment._CJK_RUN.findall(folded):
        tokens.update(jieba_cut(run))
    return rules.lexicon().vocabulary.words & tokens


def test_lexicon_words_are_found_as_words_not_substrings() -> None:
    assert {"人设", "剧本杀", "跑团", "sister"} <= rules.lexicon().vocabulary.words
    assert "人设" not in found("打开个人设置页面")
    assert {"剧本杀", "跑团"} <= found("周末去玩剧本杀，晚上跑团")
    assert "sister" in found("My sister's Wedding")


def test_found_equals_segmenting_everything_on_every_fixture_line() -> None:
    rules.lexicon()
    assert [found(t) for t in TEXTS] == [fully_segmented(t) for t in TEXTS]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=HANZI + "abc ", min_size=1, max_size=60))
def test_found_equals_segmenting_everything_on_generated_text(text: str) -> None:
    rules.lexicon()
    assert found(text) == fully_segmented(text)


def test_found_remembers_runs_shared_by_many_texts_with_the_same_answer() -> None:
    """A run's words are remembered (boilerplate repeats its runs note after note): texts
    that share runs, found again and again, give what segmenting each of them does."""
    shared = "用户喜欢在周末玩剧本杀，晚上跑团。打开个人设置页面"
    texts = [f"{shared}，第{n}次" if n % 2 else f"第{n}次：{shared}" for n in range(50)]
    vocabulary = rules.lexicon().vocabulary
    assert [found(t) for t in texts * 2] == [fully_segmented(t) for t in texts * 2]
    assert {"剧本杀", "跑团"} <= found(shared) and "人设" not in found(shared)
    assert vocabulary._runs["打开个人设置页面"] == ()  # searched once, no word of it


def test_found_forgets_its_runs_when_the_segmentation_changes() -> None:
    vocabulary = segment.Vocabulary(frozenset({"壬癸"}))
    assert vocabulary.found("庚辛壬癸") == frozenset()  # four single characters
    segment.add_words(frozenset({"壬癸"}))  # in no test's text
    assert segment.cut("庚辛壬癸") == ["庚", "辛", "壬癸"]
    assert vocabulary.found("庚辛壬癸") == {"壬癸"}


def test_found_remembers_a_bounded_number_of_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    vocabulary = segment.Vocabulary(rules.lexicon().vocabulary.words)
    monkeypatch.setattr(segment.Vocabulary, "RUNS", 3)
    for n, other in enumerate("甲乙丙丁戊己庚辛子丑寅卯辰巳午未申酉戌亥"):
        assert vocabulary.found(f"剧本杀{n}{other}{n}跑团") == {"剧本杀", "跑团"}
        assert len(vocabulary._runs) <= 3 + 3  # forgotten once past RUNS, before a text
    assert len(vocabulary._runs) >= 1 and vocabulary.found("跑团") == {"跑团"}


def test_requirement_finds_the_literal_a_match_needs() -> None:
    assert requirement(r"\bcall(?:s|ed)? (?:me|him)\b") == ("call",)
    assert requirement("(?<![家们都])叫我(?!们)") == ("叫我",)
    assert requirement("(?:故事|剧情|剧本)(?:里|中)") == ("剧情", "剧本", "故事")
    assert requirement(r"[€$]\s?\d") == ("$", "€")
    assert requirement(r"(?i)Foo|bar\d") == ("bar", "foo")  # one or the other
    assert requirement(r"x\d|\d") == ()  # the second branch needs no literal at all
    assert requirement(r"\d+") == ()


def all_patterns() -> list[tuple[str, int]]:
    """Every gated pattern memctl uses, with its flags."""
    found = [(g.pattern.pattern, 0) for cue in rules.lexicon().cues for g in cue.patterns]
    *_, index = injection._flags()
    found += [(g.pattern.pattern, g.pattern.flags) for _, g in index.always]
    found += [
        (g.pattern.pattern, g.pattern.flags) for lst in index.by_literal.values() for _, g in lst
    ]
    found += [(p.pattern, p.flags) for rule in facts._rules().facts for _, p in rule.patterns]
    lex = aspect._lexicon()
    found += [
        (g.pattern.pattern, g.pattern.flags) for g in (*lex.withheld, *lex.quiet, *lex.deputy)
    ]
    return found


def test_gating_never_hides_a_match_on_the_fixtures() -> None:
    """Soundness: whenever a pattern matches, one of its required literals is in the text."""
    misses = []
    for pattern, flags in all_patterns():
        gate = gated(pattern, flags & ~re.UNICODE)
        for text in TEXTS:
            subject = segment.fold(text) if not flags & re.I else text
            if gate.pattern.search(subject) and gate.search(subject, subject.casefold()) is None:
                misses.append((pattern, text))
    assert misses == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=HANZI + "abcdefghijklmnopqrstuvwxyz '`:：,，。0123456789-/", max_size=60))
def test_index_finds_what_brute_force_finds(text: str) -> None:
    lex = rules.lexicon()
    folded = segment.fold(text)
    entries = [(i, g) for i, cue in enumerate(lex.cues) if cue.on == "text" for g in cue.patterns]
    brute = {i for i, g in entries if g.pattern.search(folded)}
    assert Index(entries).owners(folded, folded, set(), grams(folded)) == brute


def test_requirement_takes_every_option_of_an_alternation() -> None:
    # Each option needs one of its own literals: together they are the requirement.
    assert requirement(r"\bconfidence (?:scores?|decay)|\b(?:memories|entries) decay") == (
        "confidence ",
        "entries",
        "memories",
    )
    # What an Index looks up (requirements) joins "confidence " to each option after it.
    assert requirements(r"\bconfidence (?:scores?|decay)|\b(?:memories|entries) decay")[0] == (
        "confidence decay",
        "confidence score",
        "entries",
        "memories",
    )
    assert requirement(r"(?:ab|cd)x|ef") == ("ab", "cd", "ef")
    assert requirement(r"(?:ab|cd)x|\d") == ()  # an option with no literal at all


def index_key(pattern: str, flags: int = 0) -> tuple[str, ...]:
    return requirements(pattern, flags)[0]


def test_index_key_joins_the_run_before_an_alternation_to_each_option() -> None:
    # re's parser takes the common start out: "os|operating system" is "o" + "s|perating system".
    assert index_key(r"\b(?:os|operating system)(?: is|:)", re.I) == ("operating system", "os")
    assert requirement(r"\b(?:os|operating system)(?: is|:)", re.I) == ("s",)  # checked one by one
    assert index_key(r"ab(?:c|\d)") == ("ab",)  # an option starting with no literal
    assert index_key(r"x(?:ab|\d)") == ("x",)


def test_index_key_takes_a_long_alternation_of_words_and_groups_with_flags() -> None:
    words = "|".join(f"w{i:02d}x" for i in range(20))
    assert index_key(f"(?:{words}) to") == tuple(f"w{i:02d}x" for i in range(20))
    assert requirement(f"(?:{words}) to") == (" to",)
    many = "|".join(f"{'abcdefgh'[i % 8]}{i:02d}x" for i in range(40))
    assert index_key(many) == ()  # too many to be worth checking
    assert index_key(r"(?-i:\bMay\b)(?! \d)", re.I) == ("may",)
    assert requirement(r"(?-i:\bMay\b)(?! \d)", re.I) == ()


def test_requirement_continues_a_literal_into_a_small_class() -> None:
    assert requirement(r"\bP[0-3]\s*:", re.I) == ("p0", "p1", "p2", "p3")
    assert requirement(r"v[0-9a-z]") == ("v",)  # too many to list
    assert requirement(r"ab[^c]") == ("ab",)


def test_anchored_is_a_match_at_the_start_only() -> None:
    assert anchored(r"^a|^b") and anchored(r"\Afoo") and anchored(r"(?:^a)b")
    assert not anchored(r"a|^b") and not anchored(r"(?m)^a") and not anchored("a^")


def _case_groups() -> list[list[str]]:
    """Characters re.I takes for one another: the same lower case, or one of re's extra cases."""
    lower = importlib.import_module("_sre").unicode_tolower
    extra = importlib.import_module("re._casefix")._EXTRA_CASES
    groups: dict[int, set[int]] = {}
    for c in range(sys.maxunicode + 1):
        groups.setdefault(lower(c), set()).add(c)
    for lo, others in extra.items():
        groups.setdefault(lo, set()).update(others)
    return [[chr(c) for c in g] for g in groups.values() if len(g) > 1]


def test_fold_holds_what_a_case_insensitive_literal_matches() -> None:
    """For every pair of letters re.I takes for one another, the folded text holds the
    folded literal (str.casefold alone misses the dotless ı that re.I takes for i)."""
    misses = [
        (a, b)
        for group in _case_groups()
        for a in group
        for b in group
        if re.fullmatch(re.escape(a), b, re.I) and fold(a) not in fold(b)
    ]
    assert misses == []
    assert fold("FİLE ıS") == "file is"
    # Each on its own too: the translation runs only for a text that holds one of them.
    assert (fold("FİLE"), fold("ıS"), fold("İ")) == ("file", "is", "i")


def _gated_patterns() -> list[tuple[str, int]]:
    """Every pattern an Index gates, with its flags (cues, injection, facts, hedges)."""
    found = [(p, flags & ~re.UNICODE) for p, flags in all_patterns()]
    hedges = facts._rules().hedge
    found += [
        (g.pattern.pattern, g.pattern.flags & ~re.UNICODE)
        for index in (hedges,)
        for lst in (index.always, *index.by_literal.values())
        for _, g in lst
    ]
    found += [(d.pattern.pattern, d.pattern.flags & ~re.UNICODE) for d in secrets._detectors()]
    found += [(g.pattern.pattern, g.pattern.flags & ~re.UNICODE) for g in dates._rules().absolute]
    return sorted(set(found))


@pytest.mark.parametrize("pattern_flags", _gated_patterns(), ids=lambda pf: pf[0][:40])
def test_no_text_the_gate_rejects_can_match(pattern_flags: tuple[str, int]) -> None:
    """For every pattern of the data files (cues, injection, facts, hedges, secrets): a text
    it matches, drawn from the pattern itself, meets every requirement its gate derived (the
    literals, a digit), so the gate never hides a match.

    The property is built per pattern, not put under @given on the parametrized test:
    hypothesis's pytest plugin wraps a parametrized test's settings once per case (a
    settings object whose parent is the last), and over a thousand cases the chain
    overflows the recursion limit when the settings are read (hypothesis 6.170, $CI set)."""
    pattern, flags = pattern_flags
    gate = gated(pattern, flags)

    @settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=st.from_regex(re.compile(pattern, flags)))
    def holds(text: str) -> None:
        assert gate.pattern.search(text)
        assert gate.search(text, fold(text)) is not None

    holds()


def test_requirements_hold_every_literal_and_digit_a_match_needs() -> None:
    # The index key, then the others: "he"/"user" is needed besides " is"/" has"/...
    assert requirements(r"\b(?:user|he|she) (?:is|has)\b") == (
        (" has", " is"),
        (("he", "user"),),
        False,
    )
    assert requirements(r"\b(?:eur|usd)\s?\d") == (("eur", "usd"), (), True)
    assert requirements(r"(?<!\d)\d{4}[-/]\d{1,2}") == (("-", "/"), (), True)
    assert requirements(r"x\d|\d")[2] and requirements(r"[0-9]+")[2]
    # Not needed: a digit only in one option, an optional one, a negated class, a lookaround.
    assert not requirements(r"x\d|y")[2]
    assert not requirements(r"a\d?")[2] and not requirements(r"a\d*")[2]
    assert not requirements(r"[^0-9]a")[2] and not requirements(r"a(?=\d)")[2]
    # One the index key implies is left out: every "abc" holds "b".
    assert requirements(r"abc\s+b") == (("abc",), (), False)


def test_casefolding_keeps_every_decimal_digit() -> None:
    digits = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isdecimal()]
    assert len(digits) > 600
    assert [d for d in digits if not has_digit(fold(d)) or not re.fullmatch(r"\d", d)] == []


def test_a_gate_checks_its_other_requirements() -> None:
    gate = gated(r"\b(?:eur|usd)\s?\d", re.I)
    assert gate.search("EUR 5", "eur 5") is not None
    assert gate.search("EUR five", "eur five") is None
    index = Index([(1, gate), (2, gated(r"\d{3}"))])
    assert index.owners("usd 100", "usd 100", set()) == {1, 2}
    assert index.present("usd only") == set()


@given(st.text(alphabet=st.characters(codec=None, blacklist_categories=()), max_size=12))
def test_grams_are_the_pairs_of_the_text_packed_one_per_int(text: str) -> None:
    """Read out of the text's UTF-32 as 8-byte words (surrogates too), each adjacent pair once."""
    assert grams(text) == {pair(text[i : i + 2]) for i in range(len(text) - 1)}
    assert len({pair(a + b) for a in "a中\U0001f600" for b in "b文\ud800"}) == 9


def test_grams_spare_the_search_of_a_two_character_literal_only_when_it_decides() -> None:
    """With a text's grams, a gate's other literals of two characters are looked up among its
    pairs: the answer is the one the substring search gives (an apostrophe's pair, which the
    grams of segment.fold may hold for a typographic one, is still searched for)."""
    gate = gated(r"xyz\w(?:ab|'d)")
    assert gate.also == (("'d", "ab"),)
    assert [gate.rest_holds(t) for t in ("xyz_ab", "xyz_'d", "xyz_\u2019d", "xyz_a b")] == [
        True, True, False, False
    ]  # fmt: skip
    for text in ("xyz_ab", "xyz_'d", "xyz_\u2019d", "xyz_a b", "ba"):
        folded = text.casefold()
        for pairs in (grams(folded), grams(segment.fold(text))):
            assert gate.rest_holds(folded, pairs) == gate.rest_holds(folded), text


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=HANZI + "abcdefghijklmnopqrstuvwxyz '\u2019:：,，。0123456789", max_size=60)
)
def test_other_requirements_hold_alike_with_the_grams_an_index_is_given(text: str) -> None:
    folded = text.casefold()
    pairs = grams(segment.fold(text))
    for index in _indexes():
        for _, gate in (g for lst in index.by_literal.values() for g in lst):
            assert gate.rest_holds(folded, pairs) == gate.rest_holds(folded)


def _indexes() -> list[Index]:
    *_, injected = injection._flags()
    r = facts._rules()
    return [
        rules.lexicon().text_patterns,
        injected,
        r.index,
        r.hedge,
    ]


def test_each_literal_is_keyed_by_a_pair_it_holds() -> None:
    """A text's pairs find every literal it holds: each is filed under a pair of its own."""
    for index in _indexes():
        filed = [literal for literals in index.by_gram.values() for literal in literals]
        assert sorted(filed) == sorted(index.by_literal)
        assert all(key in literal for key, lits in index.by_gram.items() for literal in lits)


def test_a_literal_is_keyed_by_its_rarest_pair() -> None:
    index = Index([(i, gated(p)) for i, p in enumerate(["confidential", "company", "code"])])
    # "co" starts all three; the first pair each holds alone keys it.
    assert index.by_gram == {"on": ("confidential",), "om": ("company",), "od": ("code",)}
    assert index.owners("a company car", "a company car", set()) == {1}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["TOMORROW", "Tonıght", "next week", "明天", "下周五", "x", " "])))
def test_relative_days_are_found_as_without_the_look_up(parts: list[str]) -> None:
    text = "".join(parts)
    r = dates._rules()
    assert bool(r.relative.search(text)) == bool(r.relative_words.search(fold(text)))


def test_a_pair_with_a_typographic_apostrophe_keys_nothing() -> None:
    # The cues pass the pairs of segment.fold (’ made ') and look literals up in it; the
    # hedges and facts look them up in the plain casefold, with those same pairs.
    index = Index([(1, gated("\u2019s own", re.I))])
    text = "It\u2019s own"
    assert index.present(text.casefold(), grams(segment.fold(text))) == {1}


def test_one_character_literals_are_found_in_the_text_not_among_its_pairs() -> None:
    # An Index looks its one-character keys up in the text itself; grams holds pairs only.
    index = Index([(1, gated("岁")), (2, gated(r"€\s?\d")), (3, gated("用户"))])
    assert "岁" not in grams("今年三十岁") and "€" not in grams("花了€5")
    assert index.present("今年三十岁", grams("今年三十岁")) == {1}
    assert index.owners("x €5", "x €5", set(), grams("x €5")) == {2}
    assert index.owners("用户三十岁", "用户三十岁", set()) == {1, 3}
    assert index.present("用", grams("用")) == set()


def test_no_one_character_key_of_the_rules_is_an_apostrophe() -> None:
    """One-character keys are looked up in the text an Index is given, which for the hedges,
    facts and injection is the plain casefold while their pairs are segment.fold's (’ made
    '): the two hold the same characters but for apostrophes, so no such key may exist."""
    indexes = [
        rules.lexicon().text_patterns, injection._flags()[2], facts._rules().index,
        facts._rules().hedge,
    ]  # fmt: skip
    singles = {key for index in indexes for key in index.keys if len(key) == 1}
    assert len(singles) > 20 and singles.isdisjoint("'\u2018\u2019")


def test_no_requirement_hides_a_match_on_a_dotless_i() -> None:
    # re.I takes "ı" for "i"; the callers' str.casefold() keeps it.
    text = "maybe I th\u0131nk"
    gate = gated(r"\bmay(?:be)? .*think", re.I)
    assert gate.pattern.search(text) and gate.search(text, text.casefold())
    assert Index([(1, gate)]).owners(text, text.casefold(), set()) == {1}
    assert Index([(1, gate)]).present(text.casefold(), grams(text.casefold())) == {1}


def test_a_gated_pattern_is_compiled_when_first_searched():
    # A small import meets few patterns' needs: the others are never compiled.
    g = gated(r"\bfjord(?:s)? ferry\b", re.I)
    assert "pattern" not in vars(g)
    assert g.search("The fjord ferry leaves at 7", "the fjord ferry leaves at 7") is not None
    assert vars(g)["pattern"].flags & re.I
    other = gated(r"\bglacier walk\b")
    compile_all()  # what a big import does before its worker forks
    assert "pattern" in vars(other)
