"""MEMORY.md / USER.md / CLAUDE.md / daily notes: bullets, paragraphs, `§` entries, tables.

What becomes a record: a bullet (with its continuation lines), a paragraph, a table data row, or
a hermes `§` entry. What does not: headings (they become the records' section), front matter,
code fences, HTML comments, horizontal rules and table headers. A record's line is its first line.
A date in the file name, a `# YYYY-MM-DD` heading or a `2026-02-21:` / `[2026-02-14 10:57]`
prefix becomes the record's time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memctl.ingest import frontmatter, hermes
from memctl.ingest.textio import Line, iter_lines
from memctl.models import MEMORY, Record, Rejection

FORMAT = "markdown"
HERMES_FORMAT = "hermes-md"

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
# "-text" with no space counts as a bullet (agents write it), but only for "-": "*emphasis*"
# and "**bold**" lines are paragraphs.
_BULLET = re.compile(r"^(\s*)(?:[-*+]\s+|\d{1,3}[.)]\s+|-(?=[^\s-]))(.*)$")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_DATE = r"\d{4}-\d{2}-\d{2}"
_DATE_ONLY = re.compile(rf"^(?:\*\*)?({_DATE})\b")
# The date is followed by a separator or a space: "2026-02-21: x", "2026-02-21：x" (Chinese
# writers leave no space after a full-width colon), and "2026-02-13 | x" (a table row whose
# first cell is the date).
_DATED_PREFIX = re.compile(
    rf"^(?:\*\*)?\[?({_DATE}(?:[ T]\d{{2}}:\d{{2}}(?::\d{{2}})?)?)\]?(?:\*\*)?"
    r"(?:\s*[:：\-–—|]\s*|\s+)(\S.*)$",
    re.S,
)
_DATED_STARTS = frozenset("0123456789[*")
_FILE_DATE = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")


def file_date(path: Path) -> str | None:
    """The date a daily note's name carries: 2026-02-08.md, 2026-03-22-0804.md, 20260208.md."""
    m = _FILE_DATE.match(path.name)
    return f"{m[1]}-{m[2]}-{m[3]}" if m else None


@dataclass
class _Block:
    start: int
    lines: list[str] = field(default_factory=list)
    bullet: bool = False
    quoted: bool = False


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = str(path)
        self.date = file_date(path)
        self.headings: list[tuple[int, str]] = []
        self.block: _Block | None = None
        self.table: list[tuple[int, str]] = []

    def record(self, line: int, text: str, fmt: str = FORMAT) -> Record | None:
        text = text.strip()
        ts = self.date
        if text[:1] in _DATED_STARTS and (m := _DATED_PREFIX.match(text)):
            ts, text = m[1], m[2].strip()
        if not text:
            return None
        section = " > ".join(h for _, h in self.headings) or None
        return Record(text, self.shown, line, fmt, MEMORY, ts=ts, section=section)

    def flush(self) -> Iterator[Record]:
        if self.block is not None:
            rec = self.record(self.block.start, "\n".join(self.block.lines))
            self.block = None
            if rec:
                yield rec
        if self.table:
            rows = self.table
            self.table = []
            if len(rows) > 1 and _TABLE_RULE.match(rows[1][1]):
                rows = rows[2:]  # header row and its rule
            for number, row in rows:
                if _TABLE_RULE.match(row):
                    continue
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                if rec := self.record(number, " | ".join(c for c in cells if c)):
                    yield rec

    def heading(self, level: int, text: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        if m := _DATE_ONLY.match(text):
            self.date = m[1]

    def read(self, lines: Iterator[Line | Rejection]) -> Iterator[Record | Rejection]:
        fence: str | None = None
        in_comment = False
        for item in lines:
            if isinstance(item, Rejection):
                yield item
                continue
            number, line = item
            if number == 1 and line.strip() == "---":
                fence = "---"  # front matter runs to the next "---" line
                continue
            if fence is not None:
                if (fence == "---" and line.strip() in ("---", "...")) or (
                    fence != "---" and line.strip().startswith(fence)
                ):
                    fence = None
                continue
            if in_comment:
                in_comment = "-->" not in line
                continue
            stripped = line.strip()
            # Cheap first-character checks keep the regexes off most lines (import hot path).
            first = stripped[:1]
            if first in "`~" and (m := _FENCE.match(line)):
                yield from self.flush()
                fence = m[1]
                continue
            if stripped.startswith("<!--"):
                yield from self.flush()
                in_comment = "-->" not in stripped
                continue
            if not stripped:
                yield from self.flush()
                continue
            if first == "#" and (m := _HEADING.match(line)):
                yield from self.flush()
                self.heading(len(m[1]), m[2])
                continue
            if first == "|":
                if self.block is not None:
                    yield from self.flush()
                self.table.append((number, line))
                continue
            if self.table:
                yield from self.flush()
            if first in "-*_" and _RULE.match(line):
                yield from self.flush()
                continue
            if m := _BULLET.match(line):
                yield from self.flush()
                self.block = _Block(number, [_CHECKBOX.sub("", m[2])], bullet=True)
                continue
            quoted = stripped.startswith(">")
            text = stripped[1:].strip() if quoted else stripped
            # A dated line always opens a record (nanobot HISTORY.md runs entries together); so
            # does an unindented line after a bullet: in memory files it is rarely a continuation.
            opens = _DATED_PREFIX.match(text) or (
                self.block is not None and self.block.bullet and line[:1] not in (" ", "\t")
            )
            if opens or quoted != (self.block is not None and self.block.quoted):
                yield from self.flush()
            if self.block is None:
                self.block = _Block(number, quoted=quoted)
            self.block.lines.append(text)
        yield from self.flush()


def read_markdown(path: Path) -> Iterator[Record | Rejection]:
    lines = list(iter_lines(path))
    texts = [item[1] for item in lines if not isinstance(item, Rejection)]
    if hermes.is_memory_file(path) or any(line.strip() == "§" for line in texts):
        yield from _read_hermes(path, lines)
    else:
        hint = frontmatter.hint(frontmatter.parse(texts))
        yield from frontmatter.annotate(_Reader(path).read(iter(lines)), hint)


def _read_hermes(path: Path, lines: list[Line | Rejection]) -> Iterator[Record | Rejection]:
    """hermes MEMORY.md / USER.md: entries joined by a line holding only "§"."""
    reader = _Reader(path)
    start, body = 0, list[str]()
    for item in [*lines, (0, "§")]:
        if isinstance(item, Rejection):
            yield item
            continue
        number, line = item
        if line.strip() == "§":
            if rec := reader.record(start, "\n".join(body), HERMES_FORMAT):
                yield rec
            start, body = 0, []
            continue
        if not body and not line.strip():
            continue
        if not body:
            start = number
            line = line.strip().removeprefix("§").strip()  # some files also prefix "§ "
        body.append(line)
