"""Classification: realm, layer, audience, scores, expiry and review status for one entry.

One entry point, `classify`, deterministic and offline, so a later optional LLM classifier can
sit beside it with the same signature. The rules are data: memctl/data/classify.toml (lexicons,
thresholds, dates), facts.toml, secrets.toml and injection.toml.

    >>> classify("我对花生过敏", category="diet").audience
    'private'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memctl import segment
from memctl.classify import dates, facts, home, injection, kin, rules
from memctl.classify.gate import grams

ACTIVE = "active"
PENDING = "pending_review"
# The roles of text cues (classify.toml) saying whose the code base is: the user's own
# project, or one that serves a job (an employer's unit, a client).
OWN_PROJECT = "own project"
# The role of a text cue saying what the user does for a living.
JOB_STATEMENT = "job statement"
FICTIONAL = "fictional"
JOB_PROJECT = "job's project"
STORY_LOGISTICS = "story logistics"
# A rule about a code base's languages and tools: whose code it is, it does not say.
TOOLCHAIN = "toolchain"


@dataclass(frozen=True)
class Classification:
    """What memctl knows about one entry, and whether it may be used without review."""

    realm: str  # real | fictional | work | unknown
    layer: str  # persona | profile | relationship | episodic | procedural | boundary
    audience: str  # public | private
    importance: float  # [0, 1]
    emotional_weight: float  # [0, 1]
    confidence: float  # [0, 1], how clearly the layer won (hedged wording lowers it)
    expires_at: str | None  # ISO date from which a dated plan is stale
    status: str  # "active" or "pending_review"
    reasons: tuple[str, ...]  # why pending: "<category>: <detail>" or "<category> (<detail>)"
    # Whether the line itself (its text, heading or category) spoke to the realm; a line that
    # did not may take the realm its file's other lines agree on (`file_realm`).
    realm_cued: bool = True


def classify(
    text: str,
    *,
    ts: str | None = None,
    section: str | None = None,
    path: str | None = None,
    category: str | None = None,
    now: datetime | None = None,
    relatives: frozenset[str] = frozenset(),
    dated: bool = False,
) -> Classification:
    """Classify one memory. `section` is the Markdown heading path ("MEMORY > 用户偏好"), `path`
    the source file, `category` the transcript restraint category, `ts` the record's timestamp
    (anchors "明天" and year-less dates; `now` is the fallback anchor, the clock is never read),
    `relatives` the people its file names privately: the user's family it introduced, and
    the clients it declares confidential (confidential.people), `dated` whether the line opened
    with its own date, which its reader cut into `ts` (the writer dated that line).
    """
    text_grams = grams(segment.fold(text))
    scores = rules.score(
        text, path=path, section=section, category=category, text_grams=text_grams,
        dated=dated, relatives=relatives,
    )  # fmt: skip
    thresholds = rules.lexicon().thresholds
    # Only a reason a person can act on holds an entry back (TAXONOMY.md, Status): memory-file
    # lines were already in use by the agent, and a transcript line passed the restraint rules.
    # An unsure layer or an unknown realm is not such a reason: the best guess is kept, with
    # its confidence, and `memctl context` keeps unsure layers out of the fixed block.
    reasons = injection.flags(text, text_grams)
    # Only hedged wording can make a fact uncertain, so the (slower) extraction runs only then.
    if facts.hedged(text, text_grams) and (fact := facts.extract(text)) is not None:
        reasons.append(f"uncertain fact ({fact.predicate})")
    expires = dates.expires_at(
        text, dates.anchor(ts, path, now), int(thresholds["plan_expiry_days"])
    )
    # A relative the file introduced, named again without the kinship word, is family
    # (TAXONOMY.md, Audience), and a client of a file that declares its clients confidential
    # is marked private; a story's character of the same name is not.
    family = scores.realm != "fictional" and kin.names_any(text, relatives)
    return Classification(
        realm=scores.realm,
        layer=scores.layer,
        audience="private" if family else scores.audience,
        importance=scores.importance,
        emotional_weight=scores.emotional_weight,
        confidence=scores.confidence,
        expires_at=expires,
        status=PENDING if reasons else ACTIVE,
        reasons=tuple(reasons),
        realm_cued=scores.realm_cued,
    )


def file_realm(lines: Iterable[tuple[str, bool]], path: str | None = None) -> str | None:
    """The realm a file's uncued lines take, from (realm, realm_cued) of all its lines.

    The file's role is evidence (TAXONOMY.md): in a business agent's notes, "Session-Lane并发模型"
    is work knowledge although the line alone does not say so. When enough of the file's lines
    say their realm and most of them agree, that realm is the file's; else None (each line
    keeps its own guess). A project instructions file (CLAUDE.md, AGENTS.md at `path`) is about
    one code base: its rules take work when a few of its lines say it is a job's or a client's,
    and never the real life its lines about the person speak of. The global one (~/.codex,
    ~/.claude) holds every project's rules: neither the person's life nor their job there says
    whose each code base is (guideline 19), so it settles nothing; its headings still do.
    Fiction, which only role-play channels see, needs nearly all of them to agree. Thresholds:
    classify.toml, [thresholds] file_realm_*.
    """
    t = rules.lexicon().thresholds
    said = Counter(realm for realm, cued in lines if cued and realm != "unknown")
    least = t["file_realm_min_lines"]
    roles = rules.file_roles(path) if path is not None else frozenset()
    if "global" in roles:
        return None
    if "project" in roles:
        del said["real"]
        least = t["file_realm_project_min_lines"]
    total = sum(said.values())
    if not said or total < least:
        return None
    realm, count = said.most_common(1)[0]
    # Fiction is seen only in role-play channels: a file lends it only when nearly all its
    # lines that say a realm are the story's; else its sections speak (scopes).
    share = t["file_realm_fiction_min_share" if realm == FICTIONAL else "file_realm_min_share"]
    return realm if count / total >= share else None


def scope_realms(
    lines: Sequence[tuple[str | None, str, str, bool]], path: str | None = None
) -> list[str | None]:
    """The realm each of a file's lines takes if it says none itself (see `scopes`)."""
    return [realm for realm, _ in scopes(lines, path)]


def scopes(
    lines: Sequence[tuple[str | None, str, str, bool]], path: str | None = None
) -> list[tuple[str | None, bool]]:
    """The realm each of a file's lines (section, text, realm, realm_cued) takes if it says
    none itself: its file's (file_realm), else its section's; None where nothing settles it.

    Realm is a property of a scope (TAXONOMY.md, Realm; tests/quality README, third set). When
    a file's lines do not agree — an author's notes hold her life, her job with a publisher
    and her story — each section's own lines speak for it: the lines under "Book 3" are the
    job's, under "Story bible" the story's. They decide when enough of them say a realm and
    nearly all agree; a section whose lines say none (a table under its own heading) takes its
    parent heading's. The file's role counts as in file_realm: a project file's real-life
    lines say nothing of whose its code is, a global one settles nothing unless a few of its
    lines besides the job statement say its rules serve the job (_global_scopes). A project
    file one of whose lines says the project is the user's own ("my own open-source project",
    guideline 19) has rules of the user's own life; when one says it serves an employer's
    unit or a client ("for the Post's local-democracy desk"), they are the job's. Thresholds:
    section_realm_*. Each realm comes with whether the lines of its section (or of a heading
    above) settled it, not its file's nor only its sibling sections' under a title. A heading
    that sets its section apart ("Gigs (paid)" in a file about the person: role "section
    apart") says its lines' realm of that section only: they count for neither the file nor
    the headings above, and come flagged so that their home does not count them either. A line
    under a heading about the person ("## 用户", "User Information") takes no work (_persons_own).
    """
    t = rules.lexicon().thresholds
    roles = rules.file_roles(path) if path is not None else frozenset()
    if "global" in roles:
        return _global_scopes(lines)
    if "project" in roles:
        whose = frozenset().union(*(rules.text_roles(text) for _, text, _, _ in lines))
        for role, realm in ((OWN_PROJECT, "real"), (JOB_PROJECT, "work")):
            if role in whose:
                return [(None if cued else realm, False) for _, _, _, cued in lines]
    # A line saying the realm its heading sets apart ("Gigs (paid)") says it of its section
    # only: neither its file nor the headings above count it.
    apart = [cued and bool(s) and rules.apart_realm(s) == realm for s, _, realm, cued in lines]
    votes = zip(lines, apart, strict=True)
    file = file_realm(((realm, cued) for (_, _, realm, cued), off in votes if not off), path)
    said, below = _section_votes(lines, apart, "project" in roles)

    def settled(section: str) -> tuple[str | None, bool]:
        heads = section.split(" > ")
        own = True
        while heads:
            # A heading above with lines of its own speaks by them; one with none (a day's
            # title over its sections) by the lines of its subsections.
            key = " > ".join(heads)
            mine = said.get(key)
            if votes := mine or (None if own else below.get(key)):
                realm, count = votes.most_common(1)[0]
                total = sum(votes.values())
                enough = total >= t["section_realm_min_lines"]
                if enough and count / total >= t["section_realm_min_share"]:
                    # A section's own lines settled it, or only its neighbours' (a title's);
                    # a day's title sets no part of its file apart (rules.only_dates).
                    return realm, bool(mine) and not rules.only_dates(key)
            heads.pop()
            own = False
        return file, False

    known: dict[str, tuple[str | None, bool]] = {}
    found: list[tuple[str | None, bool]] = []
    # A role-play's channel and names, as its own lines give them: a line that names one and
    # says nothing else is the story's.
    story = home.story_names(text for _, text, realm, cued in lines if cued and realm == FICTIONAL)
    for (section, text, _, cued), off in zip(lines, apart, strict=True):
        if cued:
            # Whether its heading set it apart: then it is no evidence for its home either.
            found.append((None, off))
            continue
        if story and kin.names_any(text, story):
            scoped: tuple[str | None, bool] = (FICTIONAL, False)
        elif not section or file is not None:
            scoped = _persons_own(section, (file, False))
        else:
            if section not in known:
                known[section] = settled(section)
            scoped = _persons_own(section, known[section])
        found.append(_no_story_logistics(text, scoped))
    return found


def _no_story_logistics(text: str, scoped: tuple[str | None, bool]) -> tuple[str | None, bool]:
    """A story's logistics (a cue with role "story logistics": where it is kept, when it is
    played, where it may be posted) take no fiction from their scope: they are the person's
    life, said in every channel (TAXONOMY.md, Realm: only role-play channels see fiction)."""
    realm, by_section = scoped
    if realm == FICTIONAL and STORY_LOGISTICS in rules.text_roles(text):
        return None, by_section
    return scoped


def _persons_own(section: str | None, scoped: tuple[str | None, bool]) -> tuple[str | None, bool]:
    """A line under a heading about the person ("## 用户", "User Information": rules.
    about_person) is theirs, as the lines of a file about the user are: it takes no work from
    its file or its section, and comes flagged as settled by its section, so that its home
    does not count it as know-how that may be the job's (memctl.classify.home)."""
    if not section or not rules.about_person(section):
        return scoped
    realm, _ = scoped
    return (None if realm == "work" else realm, True)


def _section_votes(
    lines: Sequence[tuple[str | None, str, str, bool]], apart: Sequence[bool], project: bool
) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]]]:
    """The realms a file's lines say, by section: each section's own lines, and each heading's
    with its subsections' (a line its heading set apart counts for its own section only; a
    project file's real lines for none)."""
    said: dict[str, Counter[str]] = {}
    below: dict[str, Counter[str]] = {}
    for (section, _, realm, cued), off in zip(lines, apart, strict=True):
        if section and cued and realm != "unknown" and not (project and realm == "real"):
            said.setdefault(section, Counter())[realm] += 1
            heads = section.split(" > ")
            for n in range(len(heads) if off else 1, len(heads) + 1):
                below.setdefault(" > ".join(heads[:n]), Counter())[realm] += 1
    return said, below


def _global_scopes(
    lines: Sequence[tuple[str | None, str, str, bool]],
) -> list[tuple[str | None, bool]]:
    """A global instructions file's realms: none, unless a few of its lines other than the
    job statement say its rules serve the job and none says the user keeps projects of
    their own (classify.toml, file_realm_global_min_lines)."""
    least = rules.lexicon().thresholds["file_realm_global_min_lines"]
    serving = 0
    for _, text, realm, cued in lines:
        whose = rules.text_roles(text)
        if OWN_PROJECT in whose:
            return [(None, False)] * len(lines)
        serving += cued and realm == "work" and JOB_STATEMENT not in whose
    if serving < least:
        return [(None, False)] * len(lines)
    return [
        (None if cued or TOOLCHAIN in rules.text_roles(text) else "work", False)
        for _, text, _, cued in lines
    ]


__all__ = [
    "ACTIVE", "PENDING", "Classification", "classify", "file_realm", "scope_realms", "scopes",
]  # fmt: skip
