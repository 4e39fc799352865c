"""The tense and aspect of a line's main predicate, one signal for its layer.

TAXONOMY.md, Layer: episodic is something that happened once (or a status snapshot that will go
stale), procedural standing how-to. What a line is about rarely says which; the form of its
predicate often does: "Streamed 19:00–23:40, peak 412 viewers" reports an event, "Rehearsals
move to Thursdays" states what stands. Three forms weigh towards episodic:

- EVENT: in English, the first finite verb of the first clause (after what opens the line: a
  list marker, a label, its own date) is past, and the line places it in time (a date, a clock
  time, "yesterday"); in Chinese, which marks no tense, time deixis places the line on a day of
  its own ("这周", "第一次") or a part of the day opens its first clause, and that clause has a
  verb. Habitual or conditional clauses, and a later clause that commands or states what holds
  now (a dated decision that stands), give none. A time adverbial opening the English clause
  ("in week 5 …", "at the spring launch …") places it in time; its verb is sought after it.
- ONGOING: a clause in progress or not done yet ("still waiting for", "还没回"), also after a
  past clause the line does not place in time (what is left to do of what was done).
- PAST (a past verb the line does not place in time) weighs nothing: it tells how a standing
  fact came to be as often as an event.

Two more forms of the predicate weigh towards other layers:

- STATIVE: the first clause states who a person is, their job or where they live ("Dana's
  supervising attorney is Priya Moreno", "老公周建国是店里的大厨", "I'm not a programmer"):
  profile, whatever rule follows.
- WITHHELD: a prohibition whose verb is one of telling, sending or recording ("别在群里提…",
  "never post …"): what the assistant must not disclose or which channel it must not use,
  boundary.
- QUIET: a prohibition bounded by clock hours ("no messages after 22:00", "晚上十点后别发消息"):
  hours the assistant must keep quiet in, boundary.
- CONDITION: a bodily condition as the first clause's predicate, its subject dropped, a pronoun
  or a relative ("allergic to penicillin", "对花生过敏", "Her son is asthmatic"): a stable fact
  about a person, profile, whatever reminder follows.
- DEPUTY: a prohibition of acting for the user (accepting, declining, replying in her name)
  that hands the matter to a person first ("不要替她答应，先发草稿给她"): a limit on the
  assistant's authority, boundary.

jieba.posseg runs only on Chinese lines that hold such a time word. Lexicon:
memctl/data/aspect.toml.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from memctl.classify import kin
from memctl.classify.gate import Gated, fold, gated

EVENT = "event"
# A past predicate the line does not place in time.
PAST = "past"
# A clause in the ongoing aspect: what is in progress or not done yet, for now.
ONGOING = "ongoing"
# A stative of a person's identity as the first clause: who they are, their job, where they
# live (a fact about the person: profile).
STATIVE = "stative"
# A prohibition of telling, sending or recording: what the assistant must not disclose.
WITHHELD = "withheld"
# A prohibition bounded by clock hours: when the assistant must keep quiet.
QUIET = "quiet"
# A bodily condition as the first clause's predicate: a fact about a person's health.
CONDITION = "condition"
# A prohibition of acting in the user's name that hands the matter to a person first.
DEPUTY = "deputy"
_WORD = re.compile(r"[a-z][a-z'-]*")
_REGULAR_PAST = re.compile(r"[a-z]{2,}ed")
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class _Lexicon:
    opening: re.Pattern[str]
    clause_end: re.Pattern[str]
    present: frozenset[str]
    past: frozenset[str]
    not_past: frozenset[str]
    before_adjective: frozenset[str]
    imperative: frozenset[str]
    window: int
    # A time adverbial opening the first clause ("in October", "at the spring launch"): it
    # places the predicate in time, and the predicate is looked for after it.
    adverbial: re.Pattern[str]
    window_after_adverbial: int
    time: re.Pattern[str]
    stamp: re.Pattern[str]
    habitual: frozenset[str]
    weights: dict[str, tuple[tuple[str, float], ...]]
    deixis: re.Pattern[str]
    frame: tuple[str, ...]
    zh_habitual: re.Pattern[str]
    # A word of deixis or of a part of the day anywhere in a Chinese line: without one, no
    # form is sought.
    zh_time: re.Pattern[str]
    en_ongoing: re.Pattern[str]
    stative: re.Pattern[str]
    marker: re.Pattern[str]
    stative_verb: re.Pattern[str]
    # The three searched in every line, gated (memctl.classify.gate): each needs a word of
    # prohibition, the clock-hour ones a bound ("after", "后") and a digit or numeral, so a
    # line without them is not searched. Ungated, they were ~80 µs of a 370-character
    # Chinese note, a fifth of classifying it; each of their patterns is gated on its own,
    # which is what lets the English ones skip a Chinese line.
    withheld: tuple[Gated, ...]
    zh_ongoing: re.Pattern[str]
    quiet: tuple[Gated, ...]
    condition: re.Pattern[str]
    deputy: tuple[Gated, ...]


def _weights(raw: dict[str, Any]) -> dict[str, tuple[tuple[str, float], ...]]:
    return {
        form: tuple((f"layer.{k}", float(v)) for k, v in table.get("layer", {}).items() if v)
        for form, table in raw.items()
    }


@cache
def _lexicon() -> _Lexicon:
    text = resources.files("memctl.data").joinpath("aspect.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    en, zh = raw["english"], raw["chinese"]
    return _Lexicon(
        opening=re.compile(raw["opening"]["pattern"]),
        clause_end=re.compile(raw["opening"]["clause_end"]),
        present=frozenset(en["present"]),
        past=frozenset(en["past"]),
        not_past=frozenset(en["not_past"]),
        before_adjective=frozenset(en["before_adjective"]),
        imperative=frozenset(en["imperative"]) | frozenset(en["present"]),
        window=int(en["window"]),
        adverbial=re.compile(raw["time"]["adverbial"], re.I),
        window_after_adverbial=int(en["window_after_adverbial"]),
        time=re.compile(raw["time"]["pattern"], re.I),
        stamp=re.compile(raw["time"]["stamp"]),
        habitual=frozenset(raw["time"]["habitual"]),
        weights=_weights(raw["weights"]),
        deixis=re.compile("|".join(map(re.escape, zh["deixis"]))),
        frame=tuple(zh["frame"]),
        zh_habitual=re.compile("|".join(map(re.escape, zh["habitual"]))),
        zh_time=re.compile(
            "|".join([*map(re.escape, [*zh["deixis"], *zh["frame"]]), *raw["ongoing"]["chinese"]])
        ),
        en_ongoing=re.compile(raw["ongoing"]["english"], re.I),
        stative=_stative(raw["stative"]["patterns"]),
        marker=re.compile(raw["opening"]["marker"]),
        stative_verb=re.compile(raw["stative"]["verbs"]),
        withheld=tuple(gated(p, re.I) for p in raw["withheld"]["patterns"]),
        zh_ongoing=re.compile("|".join(raw["ongoing"]["chinese"])),
        quiet=tuple(gated(p, re.I) for p in raw["quiet"]["patterns"]),
        condition=_condition(raw["condition"]),
        deputy=tuple(gated(p, re.I) for p in raw["deputy"]["patterns"]),
    )


def _condition(raw: dict[str, Any]) -> re.Pattern[str]:
    """The condition patterns, with `{condition}` the English or Chinese words of conditions
    and `{kin}` the Chinese kinship words of classify.toml [kin] cjk_words."""
    kin_words = _kin_words()
    english = "|".join(raw["english"])
    chinese = "|".join(map(re.escape, raw["chinese"]))
    return re.compile(
        "|".join(
            p.replace("{kin}", kin_words)
            .replace("{english}", english)
            .replace("{chinese}", chinese)
            for p in raw["patterns"]
        ),
        re.I,
    )


def _stative(patterns: list[str]) -> re.Pattern[str]:
    """The stative patterns, with `{kin}` the Chinese kinship words of classify.toml [kin]."""
    words = _kin_words()
    return re.compile("|".join(p.replace("{kin}", words) for p in patterns))


def _kin_words() -> str:
    """classify.toml [kin] cjk_words as an alternation, from the table rules already parsed."""
    from memctl.classify import rules  # rules imports this module

    return "|".join(map(re.escape, rules.table("kin")["cjk_words"]))


def _rest(text: str) -> str:
    """The line without what opens it (a list marker, a label, its own date or stamp)."""
    return text[_lexicon().opening.match(text).end() :]  # type: ignore[union-attr]


def _plain(text: str) -> str:
    """The line without what opens it and without its asides in parentheses."""
    return re.sub(r"\([^)]*\)|（[^）]*）", " ", _rest(text))


def clauses(text: str) -> list[str]:
    """The line's clauses, without what opens it and without parentheses."""
    return _lexicon().clause_end.split(_plain(text))


def clause(text: str) -> str:
    """The line's first clause (see `clauses`): split once, not a long note into all of them."""
    return _lexicon().clause_end.split(_plain(text), maxsplit=1)[0]


def _goes_on_standing(later: list[str], lex: _Lexicon) -> bool:
    """Whether a later clause opens with a command or a present verb: what stands since."""
    for part in later:
        first = _WORD.match(part.strip().lower())
        if first and first.group() in lex.imperative:
            return True
    return False


def _english(words: list[str], lex: _Lexicon, window: int) -> str | None:
    """PAST when the first finite verb among the first `window` words is past, None when it
    is present or modal, when the clause says it is habitual or conditional, or when no verb is
    found."""
    if lex.habitual.intersection(words):
        return None
    for i, word in enumerate(words[:window]):
        if word in lex.present:
            return None
        if word in lex.past:
            return PAST
        if (
            _REGULAR_PAST.fullmatch(word)
            and word not in lex.not_past
            and not (i and words[i - 1] in lex.before_adjective)
        ):
            return PAST
    return None


def _chinese(head: str, rest: str, lex: _Lexicon) -> str | None:
    """EVENT when time deixis places the line (`rest`) or a part of the day opens its first
    clause (`head`), nothing in that clause makes it habitual, and its predicate is a verb."""
    placed = lex.deixis.search(rest) or head.lstrip().startswith(lex.frame)
    if not placed or lex.zh_habitual.search(head):
        return None
    # Without jieba's HMM for unknown words (3x faster): a verb is a dictionary word.
    verbs = (t.flag.startswith("v") for t in kin.posseg().cut(head, HMM=False))
    return EVENT if any(verbs) else None


@lru_cache(maxsize=4096)
def form(text: str) -> str | None:
    """The form of the line's main predicate: EVENT (past, placed in time: it happened), PAST
    (past, not placed in time), or None (it says neither). A line with Chinese in it is read
    as Chinese, and only when a word of time in it may place it."""
    lex = _lexicon()
    if _CJK.search(text):
        if not lex.zh_time.search(text):
            return None
        plain = _plain(text)
        found = _chinese(lex.clause_end.split(plain, maxsplit=1)[0], plain, lex)
        return found or (ONGOING if lex.zh_ongoing.search(plain) else None)
    head, *later = clauses(text)
    # A time adverbial opening the clause places it, and hides its verb from the window: the
    # predicate is read after it ("in week 5 the course organiser said …").
    opened = lex.adverbial.match(head.strip())
    words = _WORD.findall(head.strip()[opened.end() :].lower() if opened else head.lower())
    window = lex.window_after_adverbial if opened else lex.window
    if words and _english(words, lex, window) is not None and not _goes_on_standing(later, lex):
        stamp = lex.stamp.match(text)
        if opened or lex.time.search(text, stamp.end() if stamp else 0):
            return EVENT
        # A past report the line does not place, then what is still to do about it ("Wrote the
        # intro; Rosa still has to cut it"): a status snapshot that will go stale.
        return ONGOING if _ongoing(later, lex) else PAST
    return ONGOING if _ongoing([head, *later], lex) else None


def _ongoing(parts: list[str], lex: _Lexicon) -> bool:
    """Whether one of the clauses `parts` is in the ongoing aspect."""
    return any(lex.en_ongoing.search(part.strip()) for part in parts)


def stative(text: str) -> bool:
    """Whether the line's first clause is a stative of a person's identity (who they are,
    their job, where they live), read after what opens the line or after its list marker."""
    lex = _lexicon()
    if not lex.stative_verb.search(text):  # a cheap test: no verb of the forms, no stative
        return False
    return any(lex.stative.match(part.strip()) for part in _first_clauses(text))


def condition(text: str) -> bool:
    """Whether the line's first clause has a bodily condition as its predicate, its subject
    dropped, a pronoun or a relative ("Coeliac: …", "她对花生过敏", "My dad is diabetic"), read
    after what opens the line or after its list marker only (a condition may be its label)."""
    lex = _lexicon()
    return any(lex.condition.match(part.strip()) for part in _first_clauses(text))


@lru_cache(maxsize=256)
def _first_clauses(text: str) -> tuple[str, str]:
    """The line's first clause after what opens it (`clause`), and after its list marker only:
    where a condition and a stative are read. `weights` asks for both, so the line is cut
    once (cutting a 370-character note's asides costs ~3 µs)."""
    lex = _lexicon()
    unmarked = lex.clause_end.split(lex.marker.sub("", text, count=1), maxsplit=1)[0]
    return clause(text), unmarked


def weights(text: str) -> tuple[tuple[str, float], ...]:
    """What the form of the line's main predicate adds to its layer scores."""
    lex = _lexicon()
    if condition(text):
        found: str | None = CONDITION
    else:
        found = STATIVE if stative(text) else form(text)
    own = lex.weights.get(found, ()) if found else ()
    folded = fold(text)
    # (The raw line first: most lines forbid nothing, and only those need their asides cut.)
    # A line matches the joined patterns of withheld (quiet, deputy) when one of them does.
    if any(gate.search(text, folded) for gate in lex.withheld) and any(
        gate.pattern.search(_plain(text)) for gate in lex.withheld
    ):
        own += lex.weights[WITHHELD]
    if any(gate.search(text, folded) for gate in lex.quiet):
        own += lex.weights[QUIET]
    if any(gate.search(text, folded) for gate in lex.deputy):
        own += lex.weights[DEPUTY]
    return own
