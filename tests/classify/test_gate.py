"""Segmentation (jieba's algorithm, fast) and regex gating (literal pre-checks) change nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memctl import segment
from memctl.classify import facts, injection, rules
from memctl.classify.gate import Index, gated, grams, requirement

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
