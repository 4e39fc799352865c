"""Relatives a file names: the people a kinship word introduces ("son Theo", "女儿王丽"), or
the user's saying whose relative they are ("我是小宇的妈妈", "I'm Theo's dad").

A later line of the same file that names one of them without the kinship word ("Theo's
school run") is about the user's family, private (TAXONOMY.md, Audience). The patterns and
words live in memctl/data/classify.toml, [kin].
"""

from __future__ import annotations

import importlib
import io
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from memctl import segment
from memctl.classify import rules

_LATIN = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_WORD = re.compile(r"[A-Za-z]+")
# What jieba.posseg cuts as one block (its re_han_internal); the rest it takes a character or
# a run of white space at a time.
_BLOCK_CHARS = "\u4e00-\u9fd5a-zA-Z0-9+#&\\._"
_BLOCK = re.compile(f"[{_BLOCK_CHARS}]+")


@dataclass(frozen=True)
class _Kin:
    any_word: re.Pattern[str]  # any kinship word, in lower case (a cheap test for every line)
    latin: tuple[re.Pattern[str], ...]  # group `name`: "son Theo", "Priya (sister)"
    whose: tuple[re.Pattern[str], ...]  # group `name`: "我是小宇的妈妈", "I'm Theo's dad"
    words: frozenset[str]  # Chinese kinship words: 女儿, 老伴…
    cjk: re.Pattern[str]  # any of `words` (before segmenting)
    glue: frozenset[str]  # between the word and the name: 叫, 是…
    # A kinship word and a Chinese glue word right after it ("女朋友叫"): a space goes after the
    # glue, or jieba may cut it with the name's first character ("叫安" + "琪").
    glued: re.Pattern[str]
    forms: tuple[re.Pattern[str], ...]  # given-name forms jieba does not tag as names
    form_max_count: int  # a form-matched word more common than this is a word, no name
    longest: int  # a tagged name longer than this is a foreign term (阿尔茨海默), no name
    most: int  # more names than this are no family (a story's cast, generated text)
    # A line of the job that opens with the user's own relative still introduces them.
    work_subject: re.Pattern[str]
    # Before a kinship word: the relative is a named person's ("Theo's dad Sam", "小宇的妈妈王蕾").
    latin_owner: re.Pattern[str]
    not_names: frozenset[str]  # capitalised words of the calendar: "Call dad Monday"
    cjk_owner: frozenset[str]  # the possessive particle after the owner's name: 的
    # Characters a text is cut at before looking for names (see _cjk_names); None: not cut,
    # when a kinship word is not one of jieba's blocks or a glue word spans two.
    stops: re.Pattern[str] | None


@cache
def _kin() -> _Kin:
    raw = rules.table("kin")
    words = frozenset(raw["cjk_words"])
    cjk = _alternation(words)
    return _Kin(
        # (An alternation of plain strings, no \b and no (?i): ~1 µs a line.)
        any_word=re.compile("|".join([*map(re.escape, raw["latin_stems"]), cjk])),
        latin=tuple(re.compile(p) for p in raw["latin"]),
        whose=tuple(re.compile(p) for p in raw["whose"]),
        words=words,
        cjk=re.compile(cjk),
        glue=frozenset(raw["cjk_glue"]),
        glued=re.compile(
            f"(?:{cjk})(?:{_alternation(g for g in raw['cjk_glue'] if _CJK.fullmatch(g))})"
        ),
        forms=tuple(re.compile(p) for p in raw["cjk_name_forms"]),
        form_max_count=int(raw["cjk_form_max_count"]),
        longest=int(raw["cjk_name_max_chars"]),
        most=int(raw["most_names"]),
        work_subject=re.compile(raw["work_subject"]),
        latin_owner=re.compile(raw["latin_owner"]),
        not_names=frozenset(raw["latin_not_names"]),
        cjk_owner=frozenset(raw["cjk_owner"]),
        stops=_stops(words, frozenset(raw["cjk_glue"])),
    )


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


def _stops(words: frozenset[str], glue: frozenset[str]) -> re.Pattern[str] | None:
    if not all(_BLOCK.fullmatch(w) for w in words):
        return None
    if not all(_BLOCK.fullmatch(g) or len(g) == 1 for g in glue):
        return None
    # Outside the blocks: not white space (a run of it is a token), not CJK (a name), no glue.
    single = "".join(re.escape(g) for g in sorted(glue) if not _BLOCK.fullmatch(g))
    return re.compile(f"[^{_BLOCK_CHARS}\\s\u4e00-\u9fff{single}]")


@cache
def posseg() -> Any:
    """jieba's part-of-speech cut, on the dictionary memctl already loads (memctl.segment); also
    what memctl.classify.aspect reads a Chinese clause's verbs with."""
    default = segment.jieba().dt
    tags = segment.word_tags()
    if tags is not None:
        # Its table of tags comes from memctl's copy: the module reads it from the
        # dictionary's text when it is imported (~0.3 s) unless the file it reads is empty.
        default.get_dict_file = lambda: io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module("jieba.posseg")
    finally:
        vars(default).pop("get_dict_file", None)
    if tags is None:
        segment.save_word_tags(module.dt.word_tag_tab)
    else:
        module.dt.word_tag_tab = tags
    return module


def warm(texts: Iterable[str]) -> None:
    """Load jieba's part-of-speech cut now (~0.3 s) if one of `texts` holds a Chinese kinship
    word: import loads it while its worker accepts, instead of later while the worker waits."""
    k = _kin()
    if any(k.cjk.search(text) for text in texts):
        posseg()


def _cjk_names(text: str, k: _Kin) -> Iterable[str]:
    """Names right after a Chinese kinship word: a word jieba tags as a person's name (nr),
    a one-character surname before one (张 + 小雨), or a given-name form (朵朵, 小葵). Not
    after a named person's 的 ("小宇的妈妈王蕾"): that is 小宇's relative, maybe the user.

    Only the pieces of the text that hold a kinship word are cut (a long note has few): jieba
    cuts a text a block at a time (a run of CJK, Latin letters and digits; see `_BLOCK`), and
    takes each other character as a token of its own, so the pieces between two such
    characters that cannot carry a name on (`_Kin.stops`: no glue, no CJK, no white space)
    are cut as they are in the whole text, and what follows a kinship word ends with them.
    A glue word right after a kinship word gets a space after it: jieba cuts 叫 with the next
    character when the two make a word it knows ("女朋友叫安琪": 叫安 + 琪)."""
    text = k.glued.sub(r"\g<0> ", text)
    if k.stops is None:
        yield from _names_after(_tokens(text), k)
        return
    for piece in k.stops.split(text):
        if k.cjk.search(piece):
            yield from _names_after(_tokens(piece), k)


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(t.word, t.flag) for t in posseg().cut(text)]


def _names_after(tokens: list[tuple[str, str]], k: _Kin) -> Iterable[str]:
    for i, (word, _) in enumerate(tokens):
        if word not in k.words or (i >= 2 and _owned(tokens[i - 2], tokens[i - 1][0], k)):
            continue
        j = i + 1
        while j < len(tokens) and tokens[j][0] in k.glue:
            j += 1
        if j >= len(tokens) or not _CJK.fullmatch(name := tokens[j][0]) or name in k.words:
            continue
        if len(name) == 1:
            yield from _surname_and_given(tokens, j)
        elif tokens[j][1].startswith("nr"):
            if len(name) <= k.longest:
                yield name
        elif any(f.fullmatch(name) for f in k.forms) and _count(name) <= k.form_max_count:
            yield name


def _surname_and_given(tokens: list[tuple[str, str]], j: int) -> Iterable[str]:
    """A one-character name is a surname: the name is it and the given name jieba cuts after
    it ("周" + "建国", "张" + "小雨"). A surname with no given name after it ("丈夫陈，…") is
    learnt as no one: one character is part of too many words ("周结", "周日")."""
    if j + 1 >= len(tokens):
        return
    given, flag = tokens[j + 1]
    named = tokens[j][1].startswith("nr") or flag.startswith("nr")
    if named and _CJK.fullmatch(given) and len(given) <= 2:
        yield tokens[j][0] + given


@cache
def dictionary_counts() -> dict[str, int]:
    """How often jieba's dictionary has each word (memctl.segment's dictionary): its own table,
    read only (a copy was 15 MiB in each process of an import; segment.add_words teaches
    a private tokenizer, never this one)."""
    tokenizer = segment.jieba().dt
    tokenizer.check_initialized()
    counts: dict[str, int] = tokenizer.FREQ
    return counts


def _count(word: str) -> int:
    return dictionary_counts().get(word, 0)


def _owned(owner: tuple[str, str], particle: str, k: _Kin) -> bool:
    """Whether `owner` + `particle` before a kinship word is a named person's (小宇 + 的)."""
    word, flag = owner
    named = flag.startswith("nr") or any(f.fullmatch(word) for f in k.forms)
    return particle in k.cjk_owner and named and word not in k.words


def _latin_names(text: str, k: _Kin) -> Iterable[str]:
    """Names the English patterns find; a relative of someone named ("Theo's dad Sam") is
    not the user's, and a day, a month or a holiday ("Call dad Monday") is no one."""
    for m in (m for p in k.latin for m in p.finditer(text)):
        if not k.latin_owner.search(text, 0, m.start()) and m.group("name") not in k.not_names:
            yield m.group("name")


def names(
    texts: Iterable[str], sections: Sequence[str | None] = (), path: str | None = None
) -> frozenset[str]:
    """The names the kinship words of `texts` introduce; none when there are more than a
    family has (classify.toml, [kin] most_names). `sections` (one per text) and `path`: where
    each line is, so that a story's line, whose kinship words introduce its characters
    ("Brother Oswin Hale, human cleric" under "## My character"), introduces no one."""
    k = _kin()
    found: set[str] = set()
    lines = list(texts)
    for text, section in zip(lines, sections or [None] * len(lines), strict=True):
        found |= introduced(text, section, path)
        if len(found) > k.most:
            return frozenset()
    return frozenset(found)


def introduced(text: str, section: str | None = None, path: str | None = None) -> frozenset[str]:
    """The names the kinship words of one text introduce (`names` without its bound)."""
    k = _kin()
    if not k.any_word.search(text.lower()):
        return frozenset()
    named = {m.group("name") for p in k.whose for m in p.finditer(text)}
    named.update(_latin_names(text, k))
    if k.cjk.search(text):
        named.update(_cjk_names(text, k))
    # A partner of a law firm or a business is a job's title: a line about the job
    # (realm work) introduces no relative, unless one opens it ([kin] work_subject), nor a
    # line of a story.
    if named and _family_realm(text, section, path, k):
        return frozenset(named)
    return frozenset()


def _family_realm(text: str, section: str | None, path: str | None, k: _Kin) -> bool:
    realm = rules.score(text, path=path, section=section, category=None).realm
    if realm == "work":
        return bool(k.work_subject.match(text))
    return realm != "fictional"


def most_names() -> int:
    """More names than this are no family ([kin] most_names)."""
    return _kin().most


def names_any(
    text: str, found: frozenset[str], anywhere: re.Pattern[str] | None | bool = True
) -> bool:
    """Whether `text` names one of the relatives `found`: an English name as a whole word
    ("Ivy", not "Ivybridge"), a Chinese one anywhere. `anywhere`: the pattern of the names of
    `found` found anywhere (anywhere_of), when the caller keeps it; None when there are none."""
    if not found:
        return False
    if not found.isdisjoint(_WORD.findall(text)):
        return True
    if anywhere is True:
        anywhere = _anywhere(found)
    return isinstance(anywhere, re.Pattern) and anywhere.search(text) is not None


def found_anywhere(name: str) -> bool:
    """Whether a relative's name is found anywhere in a text, not only as a word: a Chinese
    one (names_any)."""
    return not _LATIN.match(name)


def anywhere_of(names: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern finding any of `names` (those found_anywhere) in one scan; None: none."""
    ordered = sorted(names)
    return re.compile("|".join(re.escape(n) for n in ordered)) if ordered else None


@lru_cache(maxsize=256)
def _anywhere(found: frozenset[str]) -> re.Pattern[str] | None:
    return anywhere_of(name for name in found if found_anywhere(name))
