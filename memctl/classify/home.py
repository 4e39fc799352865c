"""A home's realm evidence carried across its files: notes that serve the user's job take
its realm, and know-how its own file does not settle takes what the home's know-how agrees on.

An agent home (an OpenClaw workspace, a hermes memories folder, a Claude Code project's
memory) is imported as several files: USER.md says "高二语文老师", MEMORY.md holds the lesson
rules ("周测卷文件名：高二语文_周测_第N周.docx") with no work word of their own. Each file settles
its realm alone (scope_realms); this module lets the job's own words, learnt from the home's
job statements as kin learns a family's names, speak for the notes of every file of the home
(TAXONOMY.md, Realm: work is a job, employer, team or clients). The words and thresholds live
in memctl/data/classify.toml, [home].
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import PurePath

from memctl import segment

# One line of a home's file: (section, text, realm, realm_cued, layer, audience).
HomeLine = tuple[str | None, str, str, bool, str, str]
WORK = "work"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[a-z][a-z'-]*")


@dataclass(frozen=True)
class _Home:
    note_folders: frozenset[str]
    dated_folder: re.Pattern[str]
    job_layers: frozenset[str]
    know_how_layers: frozenset[str]
    cjk_min: int
    latin_min: int
    cjk_max_count: int
    common: frozenset[str]
    agree_min_lines: int
    agree_min_share: float


@cache
def _home() -> _Home:
    text = resources.files("memctl.data").joinpath("classify.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)["home"]
    return _Home(
        note_folders=frozenset(raw["note_folders"]),
        dated_folder=re.compile(raw["dated_folder"]),
        job_layers=frozenset(raw["job_layers"]),
        know_how_layers=frozenset(raw["know_how_layers"]),
        cjk_min=int(raw["cjk_min"]),
        latin_min=int(raw["latin_min"]),
        cjk_max_count=int(raw["cjk_max_count"]),
        common=frozenset(raw["common"]),
        agree_min_lines=int(raw["agree_min_lines"]),
        agree_min_share=float(raw["agree_min_share"]),
    )


def home_of(path: str | None) -> str | None:
    """The home a file belongs to: its folder, or the folder above its notes folders
    (workspace/memory/202611/20261118.md -> workspace)."""
    if path is None:
        return None
    h = _home()
    folder = PurePath(path.replace("\\", "/")).parent
    while folder.name and (
        folder.name.lower() in h.note_folders or h.dated_folder.fullmatch(folder.name)
    ):
        folder = folder.parent
    return str(folder)


def _words(text: str) -> set[str]:
    h = _home()
    found = set()
    for w in segment.words(segment.fold(text)):
        if w in h.common:
            continue
        least = h.cjk_min if _CJK.match(w) else h.latin_min if _LATIN.fullmatch(w) else None
        if least is not None and len(w) >= least:
            found.add(w)
    return found


def _distinct(text: str) -> set[str]:
    """The words of a job statement that name this job, not any: a Chinese word the language
    uses rarely (jieba's dictionary count at most cjk_max_count: 语文, 班主任, not 公司, 内容), a
    Latin word written as a name inside the line (Northfield, Shopify, not "public school")."""
    h = _home()
    names = {m.group(1).lower() for m in _NAME.finditer(text)}
    freq = _dictionary_counts()
    return {
        w
        for w in _words(text)
        if (freq.get(w, 0) <= h.cjk_max_count if _CJK.match(w) else w in names)
    }


# A capitalised word not opening the line or a sentence: a name (its possessive 's dropped).
_NAME = re.compile(r"(?<![.!?:;]\s)(?<!^)(?<![-*•#]\s)\b([A-Z][A-Za-z]+)(?:'s)?\b")


@cache
def _dictionary_counts() -> dict[str, int]:
    tokenizer = segment.jieba().dt
    tokenizer.check_initialized()
    return dict(tokenizer.FREQ)


def job_words(lines: Iterable[HomeLine]) -> frozenset[str]:
    """The words of the home's job statements (lines that say work of their own, of a job
    layer: the user's job as a fact about them) that name this job."""
    h = _home()
    words: set[str] = set()
    for _, text, realm, cued, layer, _ in lines:
        if cued and realm == WORK and layer in h.job_layers:
            words |= _distinct(text)
    return frozenset(words)


def serves_job(line: HomeLine, words: frozenset[str]) -> bool:
    """Whether a line that says no realm of its own is know-how of the home's job: standing
    know-how or an event (not a fact about the person), not private, naming a job word."""
    _, text, _, cued, layer, audience = line
    h = _home()
    if cued or audience == "private" or layer not in h.know_how_layers or not words:
        return False
    # Segmenting is the cost: only a line that contains a job word as a string is cut.
    folded = segment.fold(text)
    return _any_of(words).search(folded) is not None and not words.isdisjoint(_words(text))


@lru_cache(maxsize=64)
def _any_of(words: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))


def with_job(files: Sequence[Sequence[HomeLine]]) -> list[list[HomeLine]]:
    """The home's files with each line that serves the job made a line that says work (so
    scope_realms lets it speak for its section and file as any cued line)."""
    words = job_words(line for lines in files for line in lines)
    if not words:
        return [list(lines) for lines in files]
    return [
        [_said_work(line) if serves_job(line, words) else line for line in lines] for lines in files
    ]


def _said_work(line: HomeLine) -> HomeLine:
    section, text, _, _, layer, audience = line
    return (section, text, WORK, True, layer, audience)


def agreed(lines: Iterable[HomeLine]) -> str | None:
    """The realm the home's know-how agrees on: its know-how lines (not facts about the person)
    that say a realm of their own, when enough of them do and nearly all agree; else None."""
    h = _home()
    said = Counter(
        realm
        for _, _, realm, cued, layer, _ in lines
        if cued and realm != "unknown" and layer in h.know_how_layers
    )
    total = sum(said.values())
    if total < h.agree_min_lines:
        return None
    realm, count = said.most_common(1)[0]
    return realm if count / total >= h.agree_min_share else None


def takes_home_realm(line: HomeLine) -> bool:
    """Whether a line may take the realm its home agrees on: know-how that says none itself
    and is not private."""
    _, _, _, cued, layer, audience = line
    return not cued and audience != "private" and layer in _home().know_how_layers
