"""Clients a file declares confidential: the people it names by a title ("Mrs Walsh", "陈先生").

A file that says its clients' or customers' data must not leave it ("顾客信息只在这里，不外传")
makes each line naming one of them with a fact about their matter private (tests/quality
README, fifth set; TAXONOMY.md, Audience: anything marked private). Learnt per file, as
memctl.classify.kin learns relatives; a client named only by a code (S3) is no name. The
patterns live in memctl/data/classify.toml, [confidential].
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from memctl.classify import kin, rules


@dataclass(frozen=True)
class _Confidential:
    declare: tuple[re.Pattern[str], ...]  # matched on the casefolded line
    names: tuple[re.Pattern[str], ...]  # group `name`, matched on the line as written
    most: int


@cache
def _lexicon() -> _Confidential:
    raw = rules.table("confidential")
    return _Confidential(
        declare=tuple(re.compile(p) for p in raw["declare"]),
        names=tuple(re.compile(p) for p in raw["names"]),
        most=int(raw["most_names"]),
    )


def clients(texts: Iterable[str]) -> frozenset[str]:
    """The people `texts` name by a title, when one of them declares its clients' data
    confidential; none otherwise, or when there are more than classify.toml's most_names."""
    lex = _lexicon()
    lines = list(texts)
    if not any(p.search(folded) for folded in map(str.casefold, lines) for p in lex.declare):
        return frozenset()
    found = {m.group("name") for line in lines for p in lex.names for m in p.finditer(line)}
    return frozenset(found) if len(found) <= lex.most else frozenset()


def people(
    texts: Iterable[str], sections: Sequence[str | None] = (), path: str | None = None
) -> frozenset[str]:
    """Whom a file's lines name privately: the relatives it introduces (kin.names; `sections`
    and `path` say where each line is) and the clients it declares confidential (clients).
    A line naming one is private."""
    lines = list(texts)
    return kin.names(lines, sections, path) | clients(lines)
