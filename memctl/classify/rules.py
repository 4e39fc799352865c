"""Rule scoring: compiles memctl/data/classify.toml once and scores an entry against it.

Every cue is tested once; a firing cue adds its weights once. The winning layer, realm and
audience are the highest totals; how clearly the layer won is the confidence. Headings are a
section-level prior: when the nearest one names a layer, the headings above it weigh less, and
under one that names a log, what a line is about (its topic cues) weighs less than what kind of
statement it is. Lexicon changes belong in the TOML, not here.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from memctl import segment
from memctl.classify import aspect
from memctl.classify.gate import Gated, Grams, Index, gated, grams
from memctl.models import LAYERS, REALMS

FIELDS = ("text", "path", "section", "category")
# Scalar effects a cue may carry besides layer/realm/audience scores.
SCALARS = ("importance", "emotion", "hedge")


@dataclass(frozen=True)
class Cue:
    name: str
    on: str
    # A role a path cue gives its file ("project") or a text cue its line ("own project"), for
    # memctl.classify.file_realm and scope_realms.
    role: str | None
    words: frozenset[str]
    patterns: tuple[Gated, ...]
    effects: tuple[tuple[str, float], ...]  # ("layer.boundary", 3.5), ("importance", 0.1)
    # What the line is about (a tool, a workflow word), not what kind of statement it is: under
    # a heading that says its lines happened, its layer weights count less (thresholds.
    # topic_under_log).
    topic: bool = False
    # The role of the file it speaks in only ("about the user": a person named as the subject
    # of USER.md's lines is the user); None: any file.
    within: str | None = None


@dataclass(frozen=True)
class Lexicon:
    cues: tuple[Cue, ...]
    text_words: dict[str, tuple[int, ...]]  # word -> indices of the cues on "text" it fires
    vocabulary: segment.Vocabulary  # the words of text_words
    text_patterns: Index  # patterns of cues on "text", owner = index into `cues`
    priors: dict[str, float]  # starting totals: "layer.profile", "realm.real", ...
    thresholds: dict[str, float]
    base_importance: dict[str, float]
    base_emotion: dict[str, float]
    # A heading that only gives a date ("2026-01-29", "3月2日 周一"): what the lines under it are
    # is named by the heading above it ([section] dated_heading).
    dated_heading: re.Pattern[str] | None = None
    # What a line that opens with its own date adds ([dated_line]): the writer dated it.
    dated_line: tuple[tuple[str, float], ...] = ()


def _effects(raw: dict[str, Any]) -> tuple[tuple[str, float], ...]:
    found: list[tuple[str, float]] = []
    for dimension, allowed in (("layer", LAYERS), ("realm", REALMS), ("audience", ("private",))):
        for target, weight in raw.get(dimension, {}).items():
            if target not in allowed:
                raise ValueError(f"classify.toml: unknown {dimension} {target!r}")
            found.append((f"{dimension}.{target}", float(weight)))
    found.extend((name, float(raw[name])) for name in SCALARS if name in raw)
    return tuple(found)


def _cue(raw: dict[str, Any]) -> Cue:
    on = raw.get("on", "text")
    if on not in FIELDS:
        raise ValueError(f"classify.toml: cue on unknown field {on!r}")
    patterns = tuple(gated(p) for p in raw.get("patterns", []))
    words = frozenset(segment.fold(w) for w in raw.get("words", []))
    role = raw.get("role")
    topic = bool(raw.get("topic", False))
    within = raw.get("within")
    return Cue(str(raw["name"]), on, role, words, patterns, _effects(raw), topic, within)


@cache
def _data() -> dict[str, Any]:
    """classify.toml, parsed once for every module that reads a table of it (~11 ms a parse)."""
    text = resources.files("memctl.data").joinpath("classify.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def table(name: str) -> Any:
    """One top-level table of classify.toml ("kin", "dates", "home", "confidential", ...)."""
    return _data()[name]


@cache
def lexicon() -> Lexicon:
    raw = _data()
    cues = tuple(_cue(c) for c in raw["cue"])
    segment.add_words(frozenset().union(*(c.words for c in cues)))
    text_words = _by_word(cues)
    return Lexicon(
        cues=cues,
        text_words=text_words,
        vocabulary=segment.Vocabulary(frozenset(text_words)),
        text_patterns=Index(
            [(i, p) for i, cue in enumerate(cues) if cue.on == "text" for p in cue.patterns]
        ),
        priors={
            **{f"layer.{k}": float(v) for k, v in raw["prior"]["layer"].items()},
            **{f"realm.{k}": float(v) for k, v in raw["prior"]["realm"].items()},
        },
        thresholds={k: float(v) for k, v in raw["thresholds"].items()},
        base_importance={k: float(v) for k, v in raw["base"]["importance"].items()},
        base_emotion={k: float(v) for k, v in raw["base"].get("emotion", {}).items()},
        dated_heading=re.compile(raw["section"]["dated_heading"], re.I)
        if "section" in raw
        else None,
        dated_line=_effects(raw.get("dated_line", {})),
    )


def _by_word(cues: tuple[Cue, ...]) -> dict[str, tuple[int, ...]]:
    found: dict[str, list[int]] = {}
    for i, cue in enumerate(cues):
        if cue.on == "text":
            for word in cue.words:
                found.setdefault(word, []).append(i)
    return {word: tuple(owners) for word, owners in found.items()}


@dataclass(frozen=True)
class Scores:
    layer: str
    realm: str
    audience: str
    importance: float
    emotional_weight: float
    confidence: float
    hedged: bool
    realm_cued: bool  # a cue of the line itself (text, heading, category) spoke to the realm


def _clip(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 2)


def _share(top: float, second: float, smoothing: float) -> float:
    """How clearly the top score beats the runner-up, in [0, 1)."""
    top, second = max(top, 0.0), max(second, 0.0)
    return top / (top + second + smoothing)


def _realm(fictional: float, work: float, real: float, fictional_min: float) -> str:
    """Fiction needs a clear in-story frame; work must beat real life; no evidence is unknown."""
    if fictional >= fictional_min and fictional >= max(work, real):
        return "fictional"
    if work > 0 and work > real:
        return "work"
    if real > 0:
        return "real"
    return "unknown"


@lru_cache(maxsize=4096)
def _field_hits(on: str, value: str) -> frozenset[int]:
    """Cues that fire on a path, section or category. These repeat across a file's records."""
    folded = segment.fold(value.replace("\\", "/") if on == "path" else value)
    return frozenset(
        i
        for i, cue in enumerate(lexicon().cues)
        if cue.on == on
        and (folded in cue.words or any(p.search(folded, folded) for p in cue.patterns))
    )


def _fired(
    text: str,
    path: str | None,
    section: str | None,
    category: str | None,
    text_grams: Grams | None = None,
) -> list[int]:
    lex = lexicon()
    folded = segment.fold(text)
    fired = {i for word in lex.vocabulary.found(folded) for i in lex.text_words[word]}
    for on, value in (("path", path), ("section", section), ("category", category)):
        if value:
            fired |= _field_hits(on, value)
    if section and (named := _named_section(section)) != section:
        fired |= _field_hits("section", named)
    fired |= lex.text_patterns.owners(folded, folded, fired, text_grams or grams(folded))
    return sorted(fired)


@lru_cache(maxsize=4096)
def _named_section(section: str) -> str:
    """The heading path without its trailing date-only headings ("Key Insights > 2026-01-29" ->
    "Key Insights"), so that the heading naming what the lines are is the last one."""
    dated = lexicon().dated_heading
    heads = section.split(" > ")
    while dated is not None and len(heads) > 1 and dated.fullmatch(heads[-1].strip()):
        heads.pop()
    return " > ".join(heads)


@lru_cache(maxsize=4096)
def only_dates(section: str) -> bool:
    """Whether every heading of `section` only gives a date (a daily note's title "# 2026-10-15",
    "2026-11 > 11月3日"): a day names no part of its file, so what its lines say of their realm
    is their file's to say, not a part's set apart."""
    dated = lexicon().dated_heading
    return dated is not None and all(dated.fullmatch(h.strip()) for h in section.split(" > "))


@lru_cache(maxsize=4096)
def _nearest_hits(section: str) -> frozenset[int]:
    """Section cues that name a layer (give one at least heading_names_layer_min) and fire on
    the nearest heading (a trailing date-only heading left out)."""
    lex = lexicon()
    least = lex.thresholds["heading_names_layer_min"]
    near = _field_hits("section", _named_section(section).rsplit(" > ", 1)[-1])
    return frozenset(i for i in near if max(_layer_weights(lex.cues[i])) >= least)


@lru_cache(maxsize=256)
def _names_events(nearest: frozenset[int]) -> bool:
    """Whether the nearest heading's cues name episodic above any other layer."""
    totals: dict[str, float] = {}
    for i in nearest:
        for key, weight in lexicon().cues[i].effects:
            if key.startswith("layer."):
                totals[key] = totals.get(key, 0.0) + weight
    return bool(totals) and max(totals, key=lambda k: totals[k]) == "layer.episodic"


def _layer_weights(cue: Cue) -> list[float]:
    """The layer weights a cue gives ([0.0] when it gives none)."""
    return [w for k, w in cue.effects if k.startswith("layer.")] or [0.0]


# The role of a section cue whose heading sets its section apart from the rest of its file.
APART = "section apart"
# The role of a text cue saying what the user does for a living.
JOB_STATEMENT = "job statement"
# The role of a section cue whose heading names the user as its subject ("## 用户", "About me").
ABOUT_PERSON = "about the person"


@cache
def _subject_opening() -> re.Pattern[str]:
    """What may come before a line's subject: a list marker, a bold label ([home])."""
    return re.compile(table("home")["subject_opening"])


@cache
def _kin_subject() -> re.Pattern[str]:
    """A kinship word as the line's subject, after a list marker or a label ([kin]
    cjk_words, latin_subject)."""
    kin = table("kin")
    words = "|".join(map(re.escape, sorted(kin["cjk_words"], key=len, reverse=True)))
    return re.compile(f"{table('home')['subject_opening']}(?:{words}|{kin['latin_subject']})")


def opens_with(text: str, names: frozenset[str]) -> bool:
    """Whether `text` opens with one of `names` (after a list marker or a label): its subject.
    A Latin name as a whole word ("Tom", not "Tomas"), a Chinese one as it is written."""
    if not names:
        return False
    rest = text[_subject_opening().match(text).end() :]  # type: ignore[union-attr]
    for name in names:
        if rest.startswith(name) and not (
            name[-1:].isascii() and rest[len(name) : len(name) + 1].isalnum()
        ):
            return True
    return False


@lru_cache(maxsize=4096)
def apart_realm(section: str) -> str | None:
    """The realm a heading in `section` says of its own section only (a section cue with
    role "section apart": "Gigs (paid)"), else None."""
    cues = lexicon().cues
    hits = _field_hits("section", section) | _field_hits("section", _named_section(section))
    for i in sorted(hits):
        if cues[i].role == APART:
            realms = [
                k.removeprefix("realm.")
                for k, w in cues[i].effects
                if k.startswith("realm.") and w > 0
            ]
            if realms:
                return realms[0]
    return None


@lru_cache(maxsize=4096)
def about_person(section: str) -> bool:
    """Whether the nearest heading in `section` (a trailing date-only one left out) names the
    user as its subject (a section cue with role "about the person": "## 用户", "About me")."""
    cues = lexicon().cues
    nearest = _named_section(section).rsplit(" > ", 1)[-1]
    return any(cues[i].role == ABOUT_PERSON for i in _field_hits("section", nearest))


@cache
def _never_work_layers() -> frozenset[str]:
    """The layers a line is never work in ([home] never_work_layers: the relationship)."""
    return frozenset(table("home")["never_work_layers"])


def file_roles(path: str) -> frozenset[str]:
    """The roles (`role` of a path cue: "project") the file at `path` has."""
    cues = lexicon().cues
    return frozenset(r for i in _field_hits("path", path) if (r := cues[i].role) is not None)


def text_roles(text: str) -> frozenset[str]:
    """The roles (`role` of a text cue: "own project") the line `text` has."""
    cues = lexicon().cues
    return frozenset(
        r
        for i in _fired(text, None, None, None)
        if cues[i].on == "text" and cues[i].within is None and (r := cues[i].role)
    )


def says_realm(text: str) -> bool:
    """Whether a cue of `text`'s own words gives a realm any weight, even one too weak to say
    it (a cold: real 1.0): the line leans to someone's life or a job by what it is about."""
    cues = lexicon().cues
    return any(
        key.startswith("realm.") and weight > 0
        for i in _fired(text, None, None, None)
        if cues[i].on == "text" and cues[i].within is None
        for key, weight in cues[i].effects
    )


def explain(
    text: str, *, path: str | None = None, section: str | None = None, category: str | None = None
) -> list[str]:
    """Names of the cues that fire on an entry, for debugging a lexicon change."""
    cues = lexicon().cues
    return [cues[i].name for i in _fired(text, path, section, category)]


def _realm_of(
    totals: dict[str, float], own: dict[str, float], t: dict[str, float]
) -> tuple[str, bool]:
    """The realm the weights give, and whether the line's own cues say it."""
    scores = {n: totals.get(f"realm.{n}", 0.0) for n in ("fictional", "work", "real")}
    realm = _realm(scores["fictional"], scores["work"], scores["real"], t["fictional_min"])
    # A line says its realm when its own cues weigh enough, or says unknown when they pull real
    # life below zero (a vague reference leaning on missing context). A cue too weak to win
    # (a passing "story", below fictional_min) says nothing: the line may take its scope's.
    cued = (
        own.get(f"realm.{realm}", 0.0) >= t["realm_cue_min"]
        if realm != "unknown"
        else own.get("realm.real", 0.0) < 0
    )
    return realm, cued


def _plus(priors: dict[str, float], effects: tuple[tuple[str, float], ...]) -> dict[str, float]:
    """The starting totals: the priors, and what the form of the line's main predicate adds
    (memctl.classify.aspect: an event that happened weighs towards episodic)."""
    totals = dict(priors)
    for key, weight in effects:
        totals[key] = totals.get(key, 0.0) + weight
    return totals


def score(
    text: str,
    *,
    path: str | None,
    section: str | None,
    category: str | None,
    text_grams: Grams | None = None,
    dated: bool = False,
    relatives: frozenset[str] = frozenset(),
) -> Scores:
    """Scores for an entry; `text_grams` (gate.grams of segment.fold(text)) saves recomputing.
    `dated`: the line opened with its own date (cut into its ts by the reader).
    `relatives`: the people its file introduced as the user's family (kin): a line whose
    subject is one of them, or a kinship word ("老公在…做主管"), states that person's job, not
    the user's (TAXONOMY.md, Realm: work is the user's job), so no cue with role "job
    statement" counts on it."""
    lex = lexicon()
    theirs = opens_with(text, relatives) or _kin_subject().match(text) is not None
    t = lex.thresholds
    totals = _plus(lex.priors, aspect.weights(text))  # and the form of its main predicate
    own: dict[str, float] = {}  # realm evidence of the line itself (not of its file's name)
    nearest = _nearest_hits(section) if section else frozenset()
    # The writer dated the line: it happened once, unless its form says a rule stands or its
    # nearest heading names what its lines are (lessons, a log), which speaks for their dates.
    if dated and not nearest:
        for key, weight in lex.dated_line:
            totals[key] = totals.get(key, 0.0) + weight
    states_job = _add_cues(
        totals, own, text, (path, section, category, text_grams), nearest, theirs=theirs
    )

    ranked = sorted(((totals.get(f"layer.{n}", 0.0), n) for n in LAYERS), key=lambda p: -p[0])
    layer = ranked[0][1]
    layer_share = _share(ranked[0][0], ranked[1][0], t["smoothing"])
    # A line that states the job is there to say it, a fact about the person (profile), also
    # when one of its clauses says how to call them ("韦小川，叫我阿川，广西人，在天河跑美团外
    # 卖"); a line that only gives the name and the address stays the relationship
    # (tests/quality README, guideline 17).
    if states_job and layer == "relationship":
        layer = "profile"

    realm, realm_cued = _realm_of(totals, own, t)
    # TAXONOMY.md, Realm: the relationship is real, whatever word of the job it uses
    # ("叫他何师傅就行，别叫老板").
    if realm == "work" and layer in _never_work_layers():
        realm = "real"

    private_weight = totals.get("audience.private", 0.0)
    # A role-play character's illness or family is not the user's: only an explicit
    # "private" mark (weight >= 3) keeps fiction private.
    private = private_weight > 0 and (realm != "fictional" or private_weight >= 3)

    hedged = totals.get("hedge", 0.0) > 0
    # Confidence is about the layer: it decides which context block an entry may enter.
    confidence = layer_share * (t["hedge_factor"] if hedged else 1.0)

    return Scores(
        layer=layer,
        realm=realm,
        audience="private" if private else "public",
        importance=_clip(lex.base_importance.get(layer, 0.5) + totals.get("importance", 0.0)),
        emotional_weight=_clip(lex.base_emotion.get(layer, 0.0) + totals.get("emotion", 0.0)),
        confidence=_clip(confidence),
        hedged=hedged,
        realm_cued=realm_cued,
    )


def _add_cues(
    totals: dict[str, float],
    own: dict[str, float],
    text: str,
    where: tuple[str | None, str | None, str | None, Grams | None],
    nearest: frozenset[int],
    *,
    theirs: bool,
) -> bool:
    """Add what each cue firing on the line says to `totals`, and its realm evidence of the line
    itself to `own`; whether one of them states a job (`where`: path, section, category and
    text grams, as `score` takes them; `theirs`: the line's subject is a relative)."""
    lex = lexicon()
    t = lex.thresholds
    path, section, category, text_grams = where
    under_log = _names_events(nearest)
    states_job = False
    for i in _fired(text, path, section, category, text_grams):
        cue = lex.cues[i]
        # Read the file's roles only for the rare cue that needs one, not for every line.
        if cue.within is not None and not (path and cue.within in file_roles(path)):
            continue
        if cue.role == JOB_STATEMENT:
            if theirs:
                continue
            states_job = True
        # When the nearest heading names a layer, a heading above it names one less surely
        # ("About Me > Deploy steps"); when it names none ("User Preferences > 编程语言"), the
        # heading above speaks for it.
        far = bool(nearest) and cue.on == "section" and i not in nearest
        factor = t["ancestor_heading_factor"] if far else 1.0
        # Under a heading that says its lines happened ("重要日期", "Incidents"), what a line is
        # about (部署, a tool) names what happened, not a rule.
        if cue.topic and under_log:
            factor = t["topic_under_log"]
        for key, weight in cue.effects:
            if key.startswith("layer."):
                weight *= factor
            totals[key] = totals.get(key, 0.0) + weight
            if key.startswith("realm.") and cue.on != "path":
                own[key] = own.get(key, 0.0) + weight
    return states_job
