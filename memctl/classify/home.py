"""A home's job: the realm of the know-how an agent home keeps, decided with the whole home's
evidence, not only each line's own words.

A home is one agent's files (an OpenClaw workspace, a hermes memories folder, a Claude Code
project's memory). Its profile may say what the user does for a living ("Teaches Chinese at a
public high school", "ICU nurse at St James's"); its notes then hold the job's rules, formats,
tools and schedules ("周测卷统一 A4 竖版"), most with no work word of their own, because each job
has its own words. TAXONOMY.md, Realm: work is a job, employer, team, clients or a business.

The rule, counted over the home: when a profile line states the job (says work of its own) and
the home's know-how that says a realm is mostly the job's (its own work cues, the job's own
words, learnt from the job statements as kin learns a family's names, or the people a job
serves: students, patients, clients), the know-how that says no realm is the job's. What is
the person's own (a line cued real life, a private line whose words lean to a life or that
names a relative, a fact about the user, the lines of a file about the user) stays theirs; a
private line is the job's too when it is private only for what it holds (a shop's prices, a
studio's licence login), and so is a profile line that keeps no fact about the person and says
no realm (a clinic's Wi-Fi), though it does not vote. Fiction and unknown lines are not
touched. A home whose profile states no job, or whose know-how is mostly the person's life,
keeps real. A line votes for the person's life only by its own words: one that is real life
only by its heading ("## 个人") stays the person's but does not vote, its heading set it apart;
one that names the people the job serves (a guest's, a client's family) votes for the job and,
when the home serves it, takes the job's realm: a rule about the people a job serves is the
job's, whatever words of a life it holds (tests/quality README, ninth and tenth sets).
Who a job serves may follow from the job a statement names ([home] job_serves): a teacher's
home counts the class's children and their parents ("孩子", "家长") as served, words that in
another home name the user's own family (realm19); a line whose only life words name them is
the job's even where the home's life outweighs the job (`shown`).
Project and global instructions files neither vote nor take it (guideline 19: whose code a
rule is about is said in the file or not at all). Thresholds: classify.toml [thresholds]
home_job_*; [home].

A Claude Code project's memory folder (~/.claude/projects/-home-x-code-site/memory) is the
memory of the project at that path: when the project's own instructions file settles its
rules as a job's (its lines say it serves an employer, a team or a client), the memory's
know-how that says no realm is the job's too (`project_work`).

One pass: `Evidence.add` per file as it is settled (counts and ids; text only of the job
statements), then `Evidence.serves_job` with the texts of the candidate lines.

The same evidence carries the relatives the home's files introduce (memctl.classify.kin): a
relative one file introduces ("儿子小宇，14 岁") is family where another file of the home names
them ("小宇鼻炎发作，请假一天"; TAXONOMY.md, Audience: family is private). `Evidence.family`
gives those lines, from the texts of the public lines.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections import Counter
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import PurePath
from typing import NamedTuple

from memctl import segment
from memctl.classify import kin, rules

WORK = "work"
REAL = "real"
FICTIONAL = "fictional"
_CJK = re.compile(r"[\u4e00-\u9fff]")
# A capitalised word not opening the line, a list item or a sentence, nor a label ("**Notes:**",
# "Name:"): a name (Shopify, Ledgerly), its possessive 's dropped.
_NAME = re.compile(
    r"(?<![.!?:;]\s)(?<!^)(?<![-*•#]\s)(?<![*_])\b([A-Z][A-Za-z]+)(?:'s)?\b(?![*_]*\s*[:：])"
)


class Line(NamedTuple):
    """One settled line of a home's file."""

    id: int
    text: str
    realm: str  # as its file left it: its own, or its file's or section's
    cued: bool  # its own cues said the realm
    layer: str
    audience: str
    fact: bool  # it keeps a fact about the user (supersede's fact fields)
    by_section: bool  # its realm came from its section's lines, or a heading set it apart
    # The names its kinship words introduce (kin.introduced), kept with it (table home_lines)
    # so that a home's later votes do not cut its text again; None: not known yet.
    kin: frozenset[str] | None = None
    # Whether a cue of its own words gives a realm weight (rules.says_realm), kept with it
    # (table home_lines) so that a home's later votes do not match its text again; None: not
    # known yet (found when a vote first needs it: Evidence.learnt).
    says: bool | None = None


def with_kin(lines: Iterable[Line]) -> list[Line]:
    """`lines`, of one file, with the names each introduces. Once they name more people than a
    family has, the file introduces no one (kin.names), whatever the rest name: the rest are
    not cut (a 20k-line notes file would be cut whole), and keep no names."""
    most, found, done = kin.most_names(), set[str](), []
    for line in lines:
        if line.kin is None:
            names = kin.introduced(line.text) if len(found) <= most else _NO_ONE
            line = line._replace(kin=names)
        found.update(line.kin or ())
        done.append(line)
    return done


_NO_ONE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Home:
    note_folders: frozenset[str]
    dated_folder: re.Pattern[str]
    know_how: frozenset[str]
    taking: frozenset[str]
    job_layer: str
    own_layers: frozenset[str]
    story_names: tuple[re.Pattern[str], ...]
    story_names_most: int
    project_memory: re.Pattern[str]
    project_memory_names: int
    served: frozenset[str]
    # Per job: the words naming it in a job statement, the people it serves.
    job_serves: tuple[tuple[frozenset[str], frozenset[str]], ...]


@cache
def _home() -> _Home:
    raw = rules.table("home")
    return _Home(
        note_folders=frozenset(raw["note_folders"]),
        dated_folder=re.compile(raw["dated_folder"]),
        know_how=frozenset(raw["know_how_layers"]),
        taking=frozenset(raw["know_how_layers"]) | frozenset(raw["taking_layers"]),
        job_layer=str(raw["job_layer"]),
        own_layers=frozenset(raw["own_layers"]),
        story_names=tuple(re.compile(p) for p in raw["story_names"]),
        story_names_most=int(raw["story_names_most"]),
        project_memory=re.compile(raw["project_memory"]),
        project_memory_names=int(raw["project_memory_names"]),
        served=frozenset(segment.fold(w) for w in raw["served_people"]),
        job_serves=tuple(
            (
                frozenset(segment.fold(w) for w in job["jobs"]),
                frozenset(segment.fold(w) for w in job["people"]),
            )
            for job in raw["job_serves"].values()
        ),
    )


def takes_scope(realm: str | None, layer: str) -> str | None:
    """The realm a line of `layer` that says none of its own takes from its file's or
    section's `realm` (memctl.classify.scopes): work is a job's know-how, never who the
    assistant is or how the two address each other (TAXONOMY.md, Realm: the persona and the
    relationship are real), whatever the file around them serves. Layers: [home] own_layers."""
    if realm == WORK and layer in _home().own_layers:
        return None
    return realm


def story_names(texts: Iterable[str]) -> frozenset[str]:
    """The names the story lines `texts` introduce: the channel a role-play is played in, the
    names they quote or title ([home] story_names); none when there are more than one
    channel's cast has."""
    h = _home()
    found = {
        _as_named(m.group("name"), m.group(0))
        for text in texts
        for p in h.story_names
        for m in p.finditer(text)
    }
    return frozenset(found) if len(found) <= h.story_names_most else frozenset()


def _as_named(name: str, written: str) -> str:
    """A story name as a line names it: a channel whose Latin name is more than one word
    ("#marrow-inn", "#dice_night") with its "#", since kin.names_any matches a Latin name only
    as one word; a Chinese channel's name ("问仙录") is found without its "#"."""
    if name.isascii() and not name.isalpha() and written.startswith("#"):
        return written
    return name


def home_of(path: str | None) -> str | None:
    """The home a file belongs to: its folder, or the folder above its notes folders."""
    if path is None:
        return None
    h = _home()
    folder = PurePath(path.replace("\\", "/")).parent
    while folder.name and (
        folder.name.lower() in h.note_folders or h.dated_folder.fullmatch(folder.name)
    ):
        folder = folder.parent
    return str(folder)


# Path-cue roles (classify.toml): instructions files of a code base or of every code base
# neither vote nor take (guideline 19); a file about the user (USER.md) votes, with its job
# statement, but its lines are the person's own.
_APART = frozenset({"project", "global"})
_ABOUT_USER = "about the user"


@dataclass
class Evidence:
    """What a home's files say of its job, gathered file by file."""

    jobs: list[str] = field(default_factory=list)  # the job statements' texts
    said: Counter[str] = field(default_factory=Counter)  # realms its know-how says itself
    candidates: list[int] = field(default_factory=list)  # know-how that may take the job's
    # The candidates cued real that name the people the job serves: they voted already.
    serving: set[int] = field(default_factory=set)
    # The people the home's job serves: served_people, and those its job statements' jobs
    # serve ([home] job_serves).
    served: frozenset[str] = field(default_factory=lambda: _home().served)
    # The know-how cued real that voted for a life, with its text: it votes for the job instead
    # when a job statement, in this file or a later one, makes the people it names served.
    lives: dict[int, str] = field(default_factory=dict)
    # The ids of `lives` not yet looked at with the served people seen last (`_serve_lives`
    # walks only those while no new job statement came: a home of thousands of daily notes
    # would otherwise walk every earlier life again for each file).
    unchecked: list[int] = field(default_factory=list)
    checked_with: frozenset[str] = frozenset()
    # Of the lives that turned, the ones whose only life words name those people ("带 28 个
    # 孩子" in a teacher's notes): the job's, whatever the rest of the home serves.
    shown: list[int] = field(default_factory=list)
    # Of `shown`, the private ones that are private only for those people's words ("孩子的个别
    # 情况一律私聊家长" in a teacher's notes: the class's children, no family of the user's):
    # public, as the line without them reads (TAXONOMY.md, Audience: family is the user's).
    unmarked: list[int] = field(default_factory=list)
    # The lives that came private (`lives` holds their texts only).
    private_lives: set[int] = field(default_factory=set)
    # Line.says of the lines that came without it, found as the vote needed it: kept with
    # them (home_lines.says) for the home's later votes.
    learnt: dict[int, bool] = field(default_factory=dict)

    # A project file's rules as its file settled them: work when all that say no realm took it.
    project_work: bool = False
    # A project file's lines that say no realm and no section settled: the job's when the
    # project's memory serves the job (memory_work).
    project_rules: list[int] = field(default_factory=list)
    # Every line of a project file: whether one names the employer (employer_projects), unless
    # the file settled its rules as the user's own (a line called the project theirs).
    project_lines: list[int] = field(default_factory=list)
    project_own: bool = False

    # The relatives the home's files introduce (kin.names, file by file) and the public lines
    # not of a story that may name one.
    relatives: set[str] = field(default_factory=set)
    # `relatives` frozen, with those of them found anywhere in a text (kin.names_any) and
    # their pattern: made again only when `relatives` grew (a file introduced someone).
    _named: frozenset[str] = field(default=frozenset(), repr=False)
    _anywhere: list[str] = field(default_factory=list, repr=False)
    _pattern: re.Pattern[str] | None = field(default=None, repr=False)
    public: array[int] = field(default_factory=lambda: array("q"))

    def add(self, path: str | None, lines: Iterable[Line]) -> None:
        lines = list(lines)
        self._add_kin(lines)
        roles = rules.file_roles(path) if path is not None else frozenset()
        if "project" in roles:
            uncued = {line.realm for line in lines if not line.cued}
            self.project_work = self.project_work or uncued == {WORK}
            self.project_own = self.project_own or uncued == {REAL}
            self.project_rules.extend(
                line.id for line in lines if not line.cued and not line.by_section
            )
            self.project_lines.extend(line.id for line in lines)
        if roles & _APART:
            return
        takes = _ABOUT_USER not in roles
        h = _home()
        most = rules.lexicon().thresholds["home_job_max_statements"]
        for line in lines:
            states_job = line.cued and line.realm == WORK and line.layer == h.job_layer
            if states_job and len(self.jobs) < most:
                self.jobs.append(line.text)
                self.served |= served_by(line.text)
            if line.layer not in h.taking:
                continue
            if line.cued:
                # A line its heading set apart (a paid hobby's "Gigs (paid)") speaks for its
                # section only, not for what the home's other know-how serves.
                if (
                    line.realm != "unknown"
                    and not line.by_section
                    and line.layer in h.know_how
                    and not self._only_its_heading_lives(line)
                ):
                    vote = self._vote(line)
                    self.said[vote] += 1
                    # A life's words in a rule about the people the job serves (a client's
                    # health, a guest's family, their ids kept out of a group) are the job's.
                    if takes and vote != line.realm:
                        self.candidates.append(line.id)
                        self.serving.add(line.id)
                    elif takes and vote == REAL:
                        self.lives[line.id] = line.text
                        self.unchecked.append(line.id)
                        if line.audience == "private":
                            self.private_lives.add(line.id)
            elif (
                takes
                and line.realm == REAL
                and not line.by_section
                and not line.fact
                and (line.audience != "private" or self._private_for_what_it_holds(line))
            ):
                self.candidates.append(line.id)
        self._serve_lives()

    def _serve_lives(self) -> None:
        """The lives counted so far that name the people the home's stated job serves
        ([home] job_serves: a teacher's "孩子", "家长") vote for the job and may take it, as
        `_vote` counts a line naming served_people."""
        extra = self.served - _home().served
        todo = self.lives if extra != self.checked_with else self.unchecked
        self.unchecked, self.checked_with = [], extra
        if not extra:
            return
        for i in [i for i in todo if i in self.lives and names_any(self.lives[i], extra)]:
            text = self.lives.pop(i)
            self.said[REAL] -= 1
            self.said[WORK] += 1
            self.candidates.append(i)
            self.serving.add(i)
            rest = _without(text, extra)
            if not rules.says_realm(rest):
                self.shown.append(i)
                if i in self.private_lives and not _private(rest):
                    self.unmarked.append(i)

    @staticmethod
    def _vote(line: Line) -> str:
        """The realm a know-how line that says one votes for: its own, but a line cued real
        life that names the people a job serves ([home] served_people: "Never put guests'
        names in the family chat", "客户的身份证照片不要转发") is about serving them, whatever
        words of a life it holds (a client's family, a member's phone): it votes for the job,
        and takes the job's realm when the home serves it (`add`: a candidate, counted once)."""
        if line.realm == REAL and names_any(line.text, _home().served):
            return WORK
        return line.realm

    def _says(self, line: Line) -> bool:
        """Line.says, found (and learnt) when the line came without it."""
        if line.says is not None:
            return line.says
        found = self.learnt[line.id] = rules.says_realm(line.text)
        return found

    def _only_its_heading_lives(self, line: Line) -> bool:
        """Whether a line is real life only by its heading ("## 个人", "## Personal": the
        person's own part of a file), none of its own words leaning to a life ("每天 5:30 起床"
        under "个人"). It stays the person's, but the heading set its part apart from the rest:
        it says nothing of what the home's other know-how serves, as a paid hobby's section
        says nothing of the rest either. A heading naming the job ("## Business") still says
        the home serves one."""
        return line.realm == REAL and not self._says(line)

    def _private_for_what_it_holds(self, line: Line) -> bool:
        """Whether a private line is private for what it holds (an amount, an account, a
        confidence: a shop's prices, a studio's licence login), not for whose life it tells:
        none of its words leans to a realm, not even weakly (a cold, a blood pressure, a
        family word), and it names none of the relatives the home's files introduced so far.
        TAXONOMY.md: audience and realm are two questions; a business's money and logins are
        private and the business's."""
        if self._says(line):
            return False
        if len(self._named) != len(self.relatives):  # `relatives` only grows
            self._anywhere.extend(n for n in self.relatives - self._named if kin.found_anywhere(n))
            self._named = frozenset(self.relatives)
            self._pattern = kin.anywhere_of(self._anywhere)
        return not kin.names_any(line.text, self._named, self._pattern)

    def _add_kin(self, lines: list[Line]) -> None:
        # A story's kinship words introduce its characters ("Brother Oswin Hale, human
        # cleric"), no one of the user's family.
        # As kin.names reads the file's lines: more names than a family has introduce no one.
        own = with_kin(line for line in lines if line.realm != FICTIONAL)
        found = frozenset().union(*(line.kin or () for line in own))
        if len(found) <= kin.most_names():
            self.relatives |= found
        had = len(self.public)
        self.public.extend(
            line.id for line in lines if line.audience != "private" and line.realm != FICTIONAL
        )
        # An import writes ids in order; `memctl classify` reads a home file by file.
        if any(a > b for a, b in pairwise(self.public[max(had - 1, 0) :])):
            self.public = array("q", sorted(self.public))

    def family(self, texts: Mapping[int, str]) -> list[int]:
        """The public lines among `texts` (holding the home's, and maybe other homes' lines)
        that name a relative one of the home's files introduced; none when the home names
        more people than a family has."""
        if not self.relatives or len(self.relatives) > kin.most_names():
            return []
        found = frozenset(self.relatives)
        # The smaller side is walked.
        ids = self.public if len(self.public) < len(texts) else filter(self._public, texts)
        return [i for i in ids if (t := texts.get(i)) is not None and kin.names_any(t, found)]

    def _public(self, entry_id: int) -> bool:
        # `public` is kept sorted (_add_kin).
        at = bisect.bisect_left(self.public, entry_id)
        return at < len(self.public) and self.public[at] == entry_id

    def serves_job(self, texts: Mapping[int, str]) -> bool:
        """Whether the home serves the user's job; `texts` holds the candidates' texts. With a
        job statement, its know-how is mostly the job's; without one, plainly so, and it names
        the people the job serves."""
        t = rules.lexicon().thresholds
        # A job's rules name the people it serves more often than its title: counting them
        # makes the vote rest on many lines, not on one rare word of the job statement.
        served = self.served
        words = job_words(self.jobs) | served if self.jobs else served
        naming = [
            i
            for i in self.candidates
            if i not in self.serving and names_any(texts.get(i, ""), words)
        ]
        work = self.said[WORK] + len(naming)
        if self.jobs:
            total = work + self.said[REAL]
            return work >= t["home_job_min_lines"] and work / total >= t["home_job_min_share"]
        total = work + self.said[REAL]
        return (
            bool(self.serving or naming)
            and work >= t["home_shown_job_min_lines"]
            and work / total >= t["home_shown_job_min_share"]
        )


def project_work(homes: Mapping[str | None, Evidence], named: Iterable[str] = ()) -> list[int]:
    """The know-how that says no realm of the Claude Code project memories whose project
    file settles its rules as a job's, or names the job's employer (`named`:
    employer_projects): the memory of a job's code base is the job's."""
    settled = {f for f, evidence in homes.items() if f and evidence.project_work} | set(named)
    work = [_project_tail(f) for f in settled]
    found: list[int] = []
    for folder, evidence in homes.items():
        name = _memory_name(folder)
        if name is not None and evidence.candidates and any(name.endswith(t) for t in work):
            found.extend(evidence.candidates)
    return found


def job_lines(
    homes: Mapping[str | None, Evidence],
    texts: Mapping[int, str],
    voting: Container[str | None] | None = None,
) -> set[int]:
    """The lines the homes' votes give the job, `texts` holding the homes' lines: the
    candidates of a home that serves it and the lives its job's people showed to be the job's,
    of the homes that vote (`voting`; None: all), and the project memories' and projects' rules
    the partner of each settles (project_work, memory_work)."""
    votes = [f for f in homes if voting is None or f in voting]
    serving = {f for f, evidence in homes.items() if evidence.serves_job(texts)}
    work = {i for f in votes if f in serving for i in homes[f].candidates}
    work.update(i for f in votes for i in homes[f].shown)
    named = employer_projects(homes, texts)
    work.update(project_work(homes, named))
    work.update(memory_work(homes, serving))
    work.update(i for f in named for i in homes[f].project_rules)
    return work


def employer_projects(homes: Mapping[str | None, Evidence], texts: Mapping[int, str]) -> set[str]:
    """The projects whose instructions file names the employer its Claude Code memory's job
    statements name ("Collections site of Hallam Museums Trust", the memory's user file saying
    "front-end developer at Hallam Museums Trust"): the file says whose its code is, the job's
    (guideline 19; TAXONOMY.md, Realm: work is a job's product). A line must name at least
    [thresholds] home_employer_min_words of the statements' own words (job_words), so that a
    city or a weekday the statement also names is no employer."""
    least = rules.lexicon().thresholds["home_employer_min_words"]
    memories = [
        (name, job_words(e.jobs))
        for f, e in homes.items()
        if e.jobs and (name := _memory_name(f)) is not None
    ]
    found = set()
    for folder, evidence in homes.items():
        if not folder or not evidence.project_lines or evidence.project_own:
            continue
        tail = _project_tail(folder)
        words = frozenset().union(*(w for name, w in memories if name.endswith(tail)))
        if words and any(
            len(words.intersection(segment.words(segment.fold(text)))) >= least
            for i in evidence.project_lines
            if names_any(text := texts.get(i, ""), words)
        ):
            found.add(folder)
    return found


def memory_work(homes: Mapping[str | None, Evidence], serving: Iterable[str | None]) -> list[int]:
    """The rules that say no realm of the projects whose Claude Code memory serves the user's
    job (`serving`: the homes whose vote found it does): the project a job's memory is kept
    for is the job's code base (TAXONOMY.md, Realm: work is a job's product), as the memory of
    a project whose file settles its rules as the job's is the job's (project_work)."""
    names = [n for f in serving if (n := _memory_name(f)) is not None]
    found: list[int] = []
    for folder, evidence in homes.items():
        if (
            folder
            and evidence.project_rules
            and any(n.endswith(_project_tail(folder)) for n in names)
        ):
            found.extend(evidence.project_rules)
    return found


def project_partners(folders: Iterable[str | None], others: Iterable[str | None]) -> set[str]:
    """The homes among `others` that are the project of a Claude Code project memory among
    `folders`, or the memory of a project among them: project_work reads both, whichever
    import brought each."""
    given = [f for f in folders if f]
    names = [n for f in given if (n := _memory_name(f)) is not None]
    tails = [_project_tail(f) for f in given]
    found = set()
    for other in others:
        if not other:
            continue
        name = _memory_name(other)
        if (name is not None and any(name.endswith(t) for t in tails)) or any(
            n.endswith(_project_tail(other)) for n in names
        ):
            found.add(other)
    return found


def _project_tail(folder: str) -> str:
    # Claude Code names a project's memory folder after the project's path, "/" and "."
    # written as "-": the tail a project's folder gives that name.
    parts = PurePath(folder.replace("\\", "/")).parts[-_home().project_memory_names :]
    return ("-" + re.sub(r"[/.]", "-", "-".join(parts))).lower()


def _memory_name(folder: str | None) -> str | None:
    m = _home().project_memory.search(folder.replace("\\", "/")) if folder else None
    return m.group("name").lower() if m else None


def served_by(statement: str) -> frozenset[str]:
    """The people the job a job statement names serves ([home] job_serves)."""
    found: frozenset[str] = frozenset()
    for jobs, people in _home().job_serves:
        if names_any(statement, jobs):
            found |= people
    return found


def _without(text: str, words: frozenset[str]) -> str:
    """`text` folded, each of `words` it holds taken out (a Latin one as a whole word)."""
    folded = segment.fold(text)
    for w in words:
        if w in folded:
            folded = re.sub(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w), " ", folded)
    return folded


def _private(text: str) -> bool:
    """Whether `text`'s own words make it private (no path, section or relatives)."""
    return rules.score(text, path=None, section=None, category=None).audience == "private"


def unmarked(
    homes: Mapping[str | None, Evidence], voting: Container[str | None] | None = None
) -> set[int]:
    """The lines of the homes that vote (`voting`; None: all) that are private only for the
    words naming the people their job serves (Evidence.unmarked): public."""
    return {i for f, e in homes.items() if voting is None or f in voting for i in e.unmarked}


def job_words(statements: Iterable[str]) -> frozenset[str]:
    """The words of the job statements that name this job, not any: a Chinese word the
    language uses rarely (语文, 主厨; not 老师, 学校), a Latin word written as a name inside the
    line (Shopify, Ledgerly; not "public", "school")."""
    t = rules.lexicon().thresholds
    counts = kin.dictionary_counts()
    found: set[str] = set()
    for text in statements:
        names = {m.group(1).lower() for m in _NAME.finditer(text)}
        for w in segment.words(segment.fold(text)):
            if _CJK.match(w):
                if (
                    len(w) >= t["home_job_cjk_min"]
                    and counts.get(w, 0) <= t["home_job_word_max_count"]
                ):
                    found.add(w)
            elif w in names and len(w) >= t["home_job_latin_min"]:
                found.add(w)
    return frozenset(found)


def names_any(text: str, words: frozenset[str]) -> bool:
    """Whether `text` names one of `words` as a word of its own."""
    if not words:
        return False
    folded = segment.fold(text)
    # Segmenting is the cost: only a line holding one of the words as a string is cut.
    if not any_of(words).search(folded):
        return False
    return not words.isdisjoint(segment.words(folded))


@lru_cache(maxsize=256)
def any_of(words: frozenset[str]) -> re.Pattern[str]:
    """A pattern finding any of `words` as a string: one scan of a text, where testing each
    word in turn walks it once a word (a home's vote asks it of every line of the home)."""
    return re.compile("|".join(re.escape(w) for w in sorted(words)))
