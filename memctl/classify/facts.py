"""Subject–predicate–value extraction for supersede chains ("我住在上海" -> user lives_in 上海).

The patterns, vocabularies and value clean-up rules live in memctl/data/facts.toml. Only facts
whose phrasing is clear are extracted; anything else returns None, because a wrong fact would
supersede a right one.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from memctl.classify.gate import Gated, Grams, Index, gated

_CLAUSE_END = re.compile(r"[，,。.!！?？;；:：\n]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Fact:
    subject: str  # "user" or "assistant"
    predicate: str  # "lives_in", "name", "address_as", "editor", "allergy", ...
    value: str  # normalised, so equal facts compare equal ("上海", "vim")
    certain: bool  # False for hedged phrasing ("可能要搬去", "thinking about moving")
    multi: bool = False  # several values can hold at once (allergies, pets)

    @property
    def key(self) -> tuple[str, ...]:
        """What a newer fact supersedes: same subject and predicate (and value, when multi)."""
        if self.multi:
            return (self.subject, self.predicate, self.value)
        return (self.subject, self.predicate)


@dataclass(frozen=True)
class _Rule:
    predicate: str
    subject: str
    kind: str
    multi: bool
    about_others: bool
    topics: re.Pattern[str] | None  # the predicate's own noun, allowed before the match
    patterns: tuple[tuple[int, re.Pattern[str]], ...]  # (serial number in `index`, pattern)


@dataclass(frozen=True)
class _Subject:
    """Who a clause is about ([subject] in facts.toml)."""

    self: re.Pattern[str]
    adverbs: re.Pattern[str]
    others: re.Pattern[str]
    long_chars: int
    long_sentences: int


@dataclass(frozen=True)
class _Rules:
    facts: tuple[_Rule, ...]
    by_serial: tuple[tuple[_Rule, re.Pattern[str]], ...]  # each pattern of `facts`, in order
    index: Index
    hedge: Index
    negation: re.Pattern[str]
    past: re.Pattern[str]  # "以前", "used to": the clause says what held once, not now
    scope: re.Pattern[str]  # "at work", "服务器上": what one setting uses, not the user's own
    others: re.Pattern[str]
    subject: _Subject
    cut: tuple[str, ...]
    cut_at: re.Pattern[str]  # any of `cut`: its leftmost match is where the first one starts
    trailing: tuple[str, ...]
    leading: tuple[str, ...]
    quotes: dict[str, str]
    vocab: dict[str, list[tuple[str, str]]]  # table -> [(term, key)], longest term first
    place_aliases: dict[str, str]
    not_places: frozenset[str]
    not_place_endings: tuple[str, ...]
    not_place_units: tuple[str, ...]
    not_values: re.Pattern[str]
    cities: frozenset[str]


def _any(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)


_WORDS = re.compile(r"\{\{(\w+)\}\}")


def _expand(pattern: str, words: dict[str, list[str]]) -> str:
    """`{{name}}` -> the alternation of [words].name."""
    return _WORDS.sub(lambda m: "(?:" + "|".join(words[m[1]]) + ")", pattern)


def _aliases(places: dict[str, Any]) -> dict[str, str]:
    """[places].aliases and the English names of [places.other_language], to one spelling."""
    other = {name: city for city, names in places["other_language"].items() for name in names}
    return places["aliases"] | other


@cache
def _rules() -> _Rules:
    text = resources.files("memctl.data").joinpath("facts.toml").read_text(encoding="utf-8")
    raw: dict[str, Any] = tomllib.loads(text)
    vocab = {
        table: sorted(
            ((term.casefold(), key) for key, terms in entries.items() for term in terms),
            key=lambda pair: -len(pair[0]),
        )
        for table, entries in raw["vocab"].items()
    }
    gates: list[tuple[int, Gated]] = []
    facts = []
    for f in raw["fact"]:
        serials = []
        for p in (_expand(p, raw.get("words", {})) for p in f["patterns"]):
            serials.append((len(gates), re.compile(p, re.I)))
            gates.append((len(gates), gated(p, re.I)))
        facts.append(
            _Rule(
                predicate=f["predicate"],
                subject=f["subject"],
                kind=f["kind"],
                multi=bool(f.get("multi", False)),
                about_others=bool(f.get("about_others", False)),
                topics=_any(f["topics"]) if f.get("topics") else None,
                patterns=tuple(serials),
            )
        )
    values = raw["values"]
    return _Rules(
        facts=tuple(facts),
        by_serial=tuple((rule, pattern) for rule in facts for _, pattern in rule.patterns),
        index=Index(gates),
        hedge=Index([(0, gated(p, re.I)) for p in raw["hedges"]["patterns"]]),
        negation=_any(raw["negation"]["patterns"]),
        past=_any(raw["past"]["patterns"]),
        scope=_any(raw["scope"]["patterns"]),
        others=_any(raw["others"]["patterns"]),
        subject=_Subject(
            self=_any(raw["subject"]["self"]),
            adverbs=_any(raw["subject"]["adverbs"]),
            others=_any(raw["subject"]["others"]),
            long_chars=int(raw["subject"]["long_chars"]),
            long_sentences=int(raw["subject"]["long_sentences"]),
        ),
        cut=tuple(values["cut"]),
        cut_at=re.compile("|".join(map(re.escape, values["cut"]))),
        trailing=tuple(values["trailing"]),
        leading=tuple(values["leading"]),
        quotes={pair[0]: pair[1] for pair in values["quotes"]},
        vocab=vocab,
        place_aliases={k.casefold(): v.casefold() for k, v in _aliases(raw["places"]).items()},
        not_places=frozenset(p.casefold() for p in raw["places"]["not_places"]),
        not_place_endings=tuple(raw["places"]["not_place_endings"]),
        not_place_units=tuple(raw["places"]["not_place_units"]),
        not_values=_any(values["not_values"]),
        cities=frozenset(c.casefold() for c in raw["places"]["cities"]),
    )


def _clean(raw: str) -> str:
    """The value inside quotes if quoted, else up to the first cut, minus particles."""
    r = _rules()
    value = unicodedata.normalize("NFKC", raw).strip()
    if value and value[0] in r.quotes:
        close = value.find(r.quotes[value[0]], 1)
        if close > 1:
            return _SPACES.sub(" ", value[1:close].strip()).casefold()
        value = value[1:]
    # One search, not a find per stop: most values hold none.
    first_stop = r.cut_at.search(value)
    value = value[: first_stop.start() if first_stop else len(value)].strip()
    changed = True
    while changed and value:
        changed = False
        # Each loop only when one of its particles is there (str.endswith takes them all).
        if value.endswith(r.trailing):
            for end in r.trailing:
                if value.endswith(end) and len(value) > len(end):
                    value, changed = value[: -len(end)].rstrip(), True
        if value.casefold().startswith(r.leading):
            for start in r.leading:
                if value.casefold().startswith(start) and len(value) > len(start):
                    value, changed = value[len(start) :].lstrip(), True
    value = value.strip(" \"'“”「」『』‘’《》")
    return _SPACES.sub(" ", value).casefold()


def _from_vocab(table: str, raw: str) -> str | None:
    """The vocabulary key whose term starts the value, on a word boundary."""
    value = unicodedata.normalize("NFKC", raw).strip().casefold()
    for term, key in _rules().vocab[table]:
        if value.startswith(term):
            rest = value[len(term) : len(term) + 1]
            if not rest or not (rest.isalnum() or rest in "+#") or _CJK.match(term):
                return key
    return None


def _date(raw: str) -> str | None:
    from memctl.classify.dates import parse_day

    found = parse_day(raw)
    if found is None:
        return None
    year, month, day = found
    return f"{year:04d}-{month:02d}-{day:02d}" if year else f"{month:02d}-{day:02d}"


def _value(rule: _Rule, m: re.Match[str]) -> tuple[str, str] | None:
    """(predicate, value) for a match, or None when the captured text is not a usable value."""
    r = _rules()
    kind = rule.kind
    if kind == "pet":
        species = _from_vocab("species", m.group("species") or "")
        if species is None:
            return None
        name = _clean(m.group("name")) if "name" in m.groupdict() and m.group("name") else ""
        return rule.predicate, f"{species}:{name}" if name else species
    if kind == "favorite":
        what = m.group("k").strip().casefold()
        key = _from_vocab("favorite", what) or what
        value = _clean(m.group("v"))
        return (f"favorite_{key}", value) if value else None
    raw = m.group("v") or ""
    if kind.startswith("vocab:"):
        key = _from_vocab(kind.removeprefix("vocab:"), raw)
        return (rule.predicate, key) if key else None
    if kind == "date":
        day = _date(raw)
        return (rule.predicate, day) if day else None
    value = _clean(raw)
    if not value or r.not_values.search(value):
        return None
    if kind == "place":
        value = r.place_aliases.get(value, value)
        if value in r.not_places or value.split(" ")[0] in r.not_places:
            return None
        if len(value) > 1 and value.endswith(r.not_place_endings + r.not_place_units):
            return None
        if len(value) > 2 and value.endswith("市"):
            value = value[:-1]
        value = _city_of(value)
    if kind == "employer":
        if value in r.cities:
            return "works_in", value
        if len(value) > 1 and value.endswith(r.not_place_endings):
            return None  # "在飞书上工作": on a tool, in a thing, not for an employer
    return rule.predicate, value


def _city_of(place: str) -> str:
    """The city a Chinese place starts with ("上海浦东" -> "上海", "杭州西湖区" -> "杭州"): a
    district is where in the city, and "住在上海" / "住在上海浦东" state one fact."""
    if not _CJK.match(place):
        return place
    r = _rules()
    for size in range(min(len(place) - 1, 3), 1, -1):
        city = r.place_aliases.get(place[:size], place[:size])
        if city in r.cities:
            return city
    return place


def _clause_before(text: str, start: int) -> str:
    ends = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    return text[ends[-1] if ends else 0 : start]


_SENTENCE_END = re.compile(r"[。！？!?]|\.(?:\s|$)|\n")
_BULLET = re.compile(r"[\s\-*•#>`_\[\]()（）「」“”\"']+")


def long_note(text: str) -> bool:
    """A note long enough that a fact in it needs its subject stated."""
    s = _rules().subject
    sentences = len([p for p in _SENTENCE_END.split(text.strip()) if p.strip()])
    return len(text) > s.long_chars or sentences >= s.long_sentences


def _about_self(before: str, head: str, long: bool) -> bool:
    """Whether a match is about the user or the assistant: its clause names them as subject
    (before the match or in its own words ahead of the value, "User is a …"), with nothing
    but time and manner words ahead of them ("这条信息来自用户…" names the user as a source,
    not a subject); or, in a short note, the clause before it names no one."""
    s = _rules().subject
    named = s.self.search(before)
    if named:
        return _no_one(before[: named.start()])
    if s.self.match(head.lstrip()) and _no_one(before):
        return True  # "User is a …": the match starts with its subject ("叫我…" does not)
    return not long and _no_one(before)


def _no_one(text: str) -> bool:
    """Only time and manner words, or Latin text with no other subject ("Prefers")."""
    s = _rules().subject
    rest = _BULLET.sub(" ", s.adverbs.sub(" ", text)).strip()
    if not rest:
        return True
    return not _CJK.search(rest) and not s.others.search(rest)


def hedged(text: str, text_grams: Grams | None = None) -> bool:
    """Whether the wording is hedged ("可能", "thinking about"), which makes any fact uncertain."""
    return bool(_rules().hedge.owners(text, text.casefold(), set(), text_grams))


def extract(text: str) -> Fact | None:
    """The first clear fact in `text`, or None."""
    r = _rules()
    present = r.index.present(text.casefold())
    long: bool | None = None
    # The patterns whose literals the text holds, in the rules' order (serial numbers).
    for rule, pattern in (r.by_serial[serial] for serial in sorted(present)):
        for m in pattern.finditer(text):
            before = _clause_before(text, m.start())
            if r.negation.search(before) or r.past.search(before) or r.scope.search(before):
                continue
            if rule.subject == "user" and not rule.about_others and r.others.search(before):
                continue
            if long is None:
                long = long_note(text)
            head = text[m.start() : min(m.start(g) for g in m.groupdict() if m[g])]
            if rule.topics:
                before, head = rule.topics.sub(" ", before), rule.topics.sub(" ", head)
            if not _about_self(before, head, long):
                continue
            found = _value(rule, m)
            if found is None:
                continue
            predicate, value = found
            certain = not hedged(text)
            return Fact(rule.subject, predicate, value, certain, rule.multi)
    return None
