"""MEMORY.md / USER.md / CLAUDE.md / daily notes, read by their CommonMark structure.

A record is a memory, not a line (markdown-it-py parses the blocks):
- a list item together with its nested items and continuation lines is one record;
- a paragraph is one record, except that a dated line (`[2026-02-14 10:57] …`, `2026-02-21: …`)
  always opens a record of its own (nanobot HISTORY.md runs entries together);
- a table body row is a record (cells joined by " | "); the header row is context: the
  classifier reads the row under it (with_header), the row is stored as it is;
- headings become the records' `section`, and so does a label line that introduces the block
  after it (`**新增**:`, `Notes:`): context of what follows, not a record of its own;
- front matter, code fences, HTML comments and rules are not records; a hermes file (entries
  joined by a line holding only `§`) gives one record per entry.
A record's line is its first line. A date in the file name, a `# YYYY-MM-DD` heading or a dated
prefix becomes the record's time.

Agents write `-text` with no space and `• text`; both are read as list items, as agents mean.
"""

from __future__ import annotations

import re
import textwrap
import tomllib
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from itertools import accumulate
from pathlib import Path
from typing import Any

from markdown_it_pyrs import MarkdownIt, Node

from memctl.ingest import frontmatter, hermes, noise
from memctl.ingest.textio import Line, iter_lines
from memctl.models import MEMORY, Record, Rejection

FORMAT = "markdown"
HERMES_FORMAT = "hermes-md"
# Why a label line that introduces nothing (a heading or the end follows) is not a memory.
EMPTY_LABEL = "label with no content"

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_RULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]*")
_CHECKBOX = re.compile(r"^\[[ xX]\]\s*")
_OPEN_BOX = re.compile(r"^\[ \]\s*")
# The layer hint of an unchecked list item (frontmatter.toml, [marker_types]).
OPEN_TASK = "open_task"
# The layer hint of a line that opens with its own date ("- 2026-09-20 查的…"), cut into `ts`:
# the writer dated that line, which the classifier weighs (classify.toml, [dated_line]). A
# log's stamp with its time ("[2026-11-01 09:12] …") is the program's, not the writer's.
DATED_LINE = "dated_line"
TEMPLATE = "template placeholder"  # noise.toml: the reason of unfilled template slots
_QUOTE = re.compile(r"^ {0,3}> ?")
# A paragraph in italics from end to end ("_…_", "*…*"; not bold, "**…**").
_ITALIC = re.compile(r"^([_*])(?![_*\s]).*(?<![_*\s])\1$", re.S)
# Agents' list items that CommonMark reads as paragraphs: "-text" and "• text".
_LOOSE_ITEM = re.compile(r"^(\s*)(?:-(?=[^\s>-])|•\s*)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_DATE = r"\d{4}-\d{2}-\d{2}"
_DATE_ONLY = re.compile(rf"^(?:\*\*)?({_DATE})\b")
_BARE_DATE = re.compile(_DATE)  # a stamp without a time of day
# The date is followed by a separator or a space: "2026-02-21: x", "2026-02-21：x" (Chinese
# writers leave no space after a full-width colon), and "2026-02-13 | x" (a table row whose
# first cell is the date).
# A log's stamp is cut whole, with the fraction of a second and the zone after its seconds
# ("[2026-11-10T23:58:01+08:00] memory_flush: …"): the time is atomic, so "23:58" is never
# taken for the time and ":01+08:00] …" for the text.
_DATED_PREFIX = re.compile(
    rf"^(?:\*\*)?\[?({_DATE}(?>[ T]\d{{2}}:\d{{2}}(?::\d{{2}})?)?)"
    r"(?:(?<=:\d\d:\d\d)(?>(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?))?\]?(?:\*\*)?"
    r"(?:\s*[:：\-–—|]\s*|\s+)(\S.*)$",
    re.S,
)
_DATED_STARTS = frozenset("0123456789[*")
# A line that ends a statement: sentence punctuation, or Chinese text (rarely hard-wrapped)
# that does not end in a comma.
_STATEMENT_END = re.compile(r"(?:[.!?;。！？；]|[\u3400-\u9fff）」』”]|\*\*)$")
_CJK = re.compile(r"[\u3400-\u9fff]")
# A line that leaves its sentence open: a comma, an enumeration mark, a colon, an open bracket.
_OPEN_END = re.compile(r"[,，、:：(（\[「『“]$")
_FILE_DATE = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")
# A line the fast path may take as it is: an ATX heading, or a top-level list item whose text
# cannot open a block of its own (fence, quote, table, HTML, heading, nested item, rule).
_SIMPLE = re.compile(
    r"(?:#{1,6}(?:[ \t].*)?"
    r"|(?:[-*+]|\d{1,9}[.)]) (?![\s`~>|<#]|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)).*)"
)

# markdown-it-pyrs: markdown-it (the parser of markdown-it-py, with the same CommonMark rules)
# in Rust. On a 4 MB memory file markdown-it-py's parse alone took 3.6x as long as this whole
# reader does with it (22.1 s vs 6.2 s, tests/bench/bench_markdown.py), and an import reads
# every record of every file.
# Only the block rules: inline structure (emphasis, links) decides nothing here.
_PARSER = MarkdownIt("zero").enable_many(
    ["blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "html_block",
     "table"]
)  # fmt: skip
# What a label line cannot introduce: the next heading or rule ends what it could name.
_NOT_INTRODUCED = frozenset(("heading", "lheading", "hr"))


def file_date(path: Path) -> str | None:
    """The date a daily note's name carries: 2026-02-08.md, 2026-03-22-0804.md, 20260208.md."""
    m = _FILE_DATE.match(path.name)
    return f"{m[1]}-{m[2]}-{m[3]}" if m else None


@cache
def _noise_toml() -> dict[str, Any]:
    text = resources.files("memctl.data").joinpath("noise.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def _label() -> re.Pattern[str]:
    return re.compile(_noise_toml()["label"]["pattern"])


@cache
def _template_share() -> dict[str, float]:
    """When a file is an unfilled template (noise.toml, [template])."""
    return {k: float(v) for k, v in _noise_toml()["template"].items()}


@cache
def _tagline() -> tuple[str, re.Pattern[str], re.Pattern[str]]:
    """The skip reason of a blockquote right under the file's title, the shape of the taglines
    that are memories all the same, and what makes a line in italics there one (it speaks to
    the agent; noise.toml, [tagline])."""
    table = _noise_toml()["tagline"]
    unless, italic = (re.compile(table[k], re.I) for k in ("unless", "italic"))
    return str(table["reason"]), unless, italic


@cache
def _dialogue() -> tuple[str, re.Pattern[str], int]:
    """The skip reason of a blockquote of a conversation's turns, the shape of a turn (its
    speaker the first group) and how many speakers make one (noise.toml, [dialogue])."""
    table = _noise_toml()["dialogue"]
    return str(table["reason"]), re.compile(table["turn"]), int(table["min_speakers"])


def _dialogue_turns(records: list[Record]) -> None:
    """Skip a blockquote's records when they are a conversation's turns: each a speaker and
    what they said, among at least two speakers, one of whom speaks twice."""
    reason, turn, min_speakers = _dialogue()
    speakers = [m[1].strip().casefold() if (m := turn.match(r.text)) else None for r in records]
    if None in speakers or len(set(speakers)) < min_speakers or len(set(speakers)) == len(speakers):
        return
    for r in records:
        r.skip = r.skip or reason


def is_label(text: str) -> bool:
    """A line that only names what follows: `**配置说明**:`, `Notes:`, `🐛 Bug:`, `**Setup**`."""
    return "\n" not in text and bool(_label().match(text.strip()))


def _label_text(text: str) -> str:
    return text.strip().strip("*_ ").rstrip(":：").strip("*_ ").strip("【】[]= \t")


class _Reader:
    def __init__(self, path: Path, numbers: list[int], lines: list[str]) -> None:
        self.shown = str(path)
        self.date = file_date(path)
        self.numbers = numbers  # source line index -> the file's 1-based line number
        self.lines = lines
        self.headings: list[tuple[int, str]] = []
        self.section: str | None = None  # the heading path, kept as the headings change
        self.starts: list[int] = []  # UTF-8 offset of each line's start (set by parsed)
        self.tagline = False  # reading the blockquote right under the file's title

    def record(
        self,
        index: int,
        text: str,
        fmt: str = FORMAT,
        label: str | None = None,
        hint: str | None = None,
        header: str | None = None,
    ) -> Iterator[Record]:
        """The record (none if no text is left once a dated prefix is cut)."""
        stamped = text = text.strip()
        ts = self.date
        if text[:1] in _DATED_STARTS and (m := _DATED_PREFIX.match(text)):
            ts, text = m[1], m[2].strip()
            if hint is None and _BARE_DATE.fullmatch(ts):
                hint = DATED_LINE
        if not text:
            return
        if header and stamped is not text:
            # A first cell that was the row's date is now its time: its column's name goes too.
            names = header.split(" | ")
            header = " | ".join(names[len(names) - text.count(" | ") - 1 :])
            header = header if header.strip(" |") else None
        section = self.section
        if label:
            section = f"{section} > {label}" if section else label
        rec = Record(text, self.shown, self.numbers[index], fmt, MEMORY, ts=ts, section=section)
        rec.layer_hint, rec.header = hint, header
        # What a heading says of the lines under it ("置信度体系", "Session: …"): noise.toml.
        rec.skip = noise.judge_in_section(text, section)
        if not rec.skip and stamped is not text:
            # The stamp cut off is evidence too: a program's log line keeps its stamp and tag
            # ("[2026-11-10T23:58:01+08:00] memory_flush: appended 9 lines"), noise.toml.
            rec.skip = noise.judge(stamped)
        if self.tagline and not rec.skip and not _tagline()[1].match(text.lstrip("_*")):
            # A tagline of a class of its own ("*Update this as you go.*") keeps that reason.
            rec.skip = noise.judge(text) or _tagline()[0]
        yield rec

    def heading(self, level: int, text: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, text))
        self.section = " > ".join(h for _, h in self.headings) or None
        if m := _DATE_ONLY.match(text):
            self.date = m[1]

    # --- the fast path: a file of headings and flat list items has no structure to parse ---

    def flat(self) -> Iterator[Record]:
        for index, line in enumerate(self.lines):
            if not line.strip():
                continue
            if line[0] == "#":
                m = _HEADING.match(line)
                assert m is not None
                self.heading(len(m[1]), m[2] or "")
            else:
                text, hint = _item_text(line)
                yield from self.record(index, text, hint=hint)

    # --- the general path -------------------------------------------------------------------

    def parsed(self) -> Iterator[Record]:
        # markdown-it also breaks lines at a lone CR; the line numbers must stay the file's.
        text = "\n".join(self.lines).replace("\r", " ")
        self.starts = list(accumulate((len(line.encode()) + 1 for line in self.lines), initial=0))
        yield from self.blocks(_PARSER.tree(text).children, 0)

    def span(self, node: Node) -> tuple[int, int]:
        """The source lines [start, end) of a node (the parser maps nodes to UTF-8 offsets)."""
        start, end = node.srcmap or (0, 0)
        first = bisect_right(self.starts, start) - 1
        return first, max(first + 1, bisect_right(self.starts, end - 1))

    def blocks(self, nodes: Sequence[Node], quote: int) -> Iterator[Record]:
        label: tuple[int, str] | None = None  # (index of the sibling it introduces, its text)
        for k, node in enumerate(nodes):
            introduced = label[1] if label is not None and label[0] == k else None
            name = node.name
            if name in ("heading", "lheading"):
                self.heading(int(node.meta["level"]), self.heading_text(node, quote))
            elif name == "paragraph":
                start, end = self.span(node)
                text = "\n".join(self.text(start, end, quote))
                if not is_label(text):
                    # A line in italics right under the title is the file's tagline, as a
                    # blockquote there is ("_You're not a chatbot. You're becoming someone._").
                    italic = k == 1 and quote == 0 and _is_title(nodes[0]) and _italic(text)
                    italic = italic and _tagline()[2].search(text) is not None
                    self.tagline = self.tagline or italic
                    yield from self.paragraph(start, end, quote, introduced)
                    self.tagline = self.tagline and not italic
                elif k + 1 < len(nodes) and nodes[k + 1].name not in _NOT_INTRODUCED:
                    label = (k + 1, _label_text(text))
                else:
                    for rec in self.record(start, text):
                        rec.skip = EMPTY_LABEL
                        yield rec
            elif name in ("bullet_list", "ordered_list"):
                for item in node.children:
                    yield from self.item(*self.span(item), quote, introduced)
            elif name == "blockquote":
                tagline = quote == 0 and k == 1 and _is_title(nodes[0])
                self.tagline = self.tagline or tagline
                quoted = list(self.blocks(node.children, quote + 1))
                _dialogue_turns(quoted)
                yield from quoted
                self.tagline = self.tagline and not tagline
            elif name == "table":
                names: list[str] = []
                for part in node.children:
                    for row in part.children:
                        start = self.span(row)[0]
                        if part.name == "thead":
                            names = _cells(self.lines[start])
                        elif part.name == "tbody":
                            yield from self.rows(start, [self.lines[start]], introduced, names)
            elif name == "fence":
                start, end = self.span(node)
                if str(node.meta.get("content", "")).strip():
                    code = textwrap.dedent("\n".join(self.text(start, end, quote)))
                    yield from self.record(start, code, label=introduced)
            elif name in ("code_block", "html_block") and not str(
                node.meta.get("content", "")
            ).lstrip().startswith("<!--"):
                # Indented text is rarely code in a memory file; HTML comments are not records.
                yield from self.paragraph(*self.span(node), quote, introduced)

    def heading_text(self, node: Node, quote: int) -> str:
        start, end = self.span(node)
        lines = self.text(start, end, quote)
        if node.name == "heading":
            m = _HEADING.match(lines[0])
            return (m[2] or "") if m else ""
        return " ".join(s.strip() for s in lines[:-1])  # setext: the underline is last

    def text(self, start: int, end: int, quote: int) -> list[str]:
        lines = self.lines[start:end]
        return [_unquote(line, quote) for line in lines] if quote else lines

    def paragraph(self, start: int, end: int, quote: int, label: str | None) -> Iterator[Record]:
        """A paragraph's statements. Its lines are one record while they read as one wrapped
        sentence; a line break after a finished statement, before a dated line or in Chinese
        text (rarely hard-wrapped) starts the next record. A first line that is a label names
        the rest of the paragraph."""
        lines = self.text(start, end, quote)
        if all(s.lstrip().startswith("|") for s in lines if s.strip()):
            yield from self.rows(start, lines, label)  # a table with no rule row
            return
        first, body = start, list[str]()
        width = max(len(line.strip()) for line in lines)  # where the writer wrapped, if they did
        for offset, line in enumerate(lines):
            stripped = line.strip()
            if not stripped:
                continue
            if len(body) == 1 and first == start and is_label(body[0]):
                label = " > ".join(p for p in (label, _label_text(body[0])) if p)
                body = []
            elif body and not _continues(body[-1], stripped, width):
                yield from self.statement(first, body, label)
                body = []
            if not body:
                first = start + offset
            body.append(stripped)
        if body:
            yield from self.statement(first, body, label)

    def statement(self, first: int, body: list[str], label: str | None) -> Iterator[Record]:
        """One record of a paragraph's lines, or one per line if that reads as no sentence:
        prose longer than any wrapped sentence runs (lines of their own, unpunctuated; as
        one record, 20k of them were rejected as too long). A key broken over lines (no
        spaces) stays whole, so redaction sees it."""
        if len(body) > 1 and sum(map(len, body)) > _WRAPPED_MAX and all(" " in b for b in body):
            for offset, line in enumerate(body):
                yield from self.record(first + offset, line, label=label)
        else:
            yield from self.record(first, "\n".join(body), label=label)

    def item(self, start: int, end: int, quote: int, label: str | None) -> Iterator[Record]:
        """A list item with everything nested in it; a lazy continuation line (indented less
        than the item's text) ends it, since in memory files it is rarely meant to continue."""
        lines = self.text(start, end, quote)
        m = _MARKER.match(lines[0])
        indent = m.end() if m else 0
        first = lines[0][indent:].strip()
        hint = OPEN_TASK if _OPEN_BOX.match(first) else None
        body = [_CHECKBOX.sub("", first)]
        for offset, line in enumerate(lines[1:], 1):
            if line.strip() and _indent(line) < min(indent, 2):
                yield from self.record(start, "\n".join(body), label=label, hint=hint)
                yield from self.paragraph(start + offset, end, quote, label)
                return
            if line.strip():
                body.append(line.strip())
        yield from self.record(start, "\n".join(body), label=label, hint=hint)

    def rows(
        self, start: int, lines: list[str], label: str | None, names: Sequence[str] = ()
    ) -> Iterator[Record]:
        """A table's body rows, each with the names of its cells' columns (`names`, from its
        header row) as its header; an empty cell and its column's name are left out."""
        for offset, row in enumerate(lines):
            if not row.strip() or _TABLE_RULE.match(row):
                continue
            cells = _cells(row)
            kept = [k for k, c in enumerate(cells) if c]
            header = " | ".join(names[k] if k < len(names) else "" for k in kept)
            yield from self.record(
                start + offset, " | ".join(cells[k] for k in kept), label=label,
                header=header if header.strip(" |") else None,
            )  # fmt: skip


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def with_header(text: str, header: str | None) -> str:
    """A table row as the classifier reads it: under its header (Record.header), the names of
    its cells' columns, as in its table ("Name | Salary" over "Mia | 2,400")."""
    return f"{header}\n{text}" if header else text


def _italic(text: str) -> bool:
    return _ITALIC.match(text) is not None


def _is_title(node: Node) -> bool:
    return node.name in ("heading", "lheading") and int(node.meta["level"]) == 1


_WRAPPED_MAX = 2000  # characters: no sentence wrapped over lines runs longer


def _continues(line: str, following: str, width: int) -> bool:
    """Whether `following` goes on with what `line` says. A dated line, a line after a finished
    statement, a line of words that stops short of the paragraph's width (`following`'s first
    word would have fitted: the writer broke the line, no wrapping did) and a capitalised line
    of words after a line of words are new statements; any other break is wrapping (prose cut
    at a width, a key or a blob broken over lines)."""
    if following[:1] in _DATED_STARTS and _DATED_PREFIX.match(following):
        return False
    if _STATEMENT_END.search(line):
        return False
    if " " in line and len(line) + 1 + len(following.split(maxsplit=1)[0]) <= width:
        return False
    # Chinese text is rarely hard-wrapped: after a line of it that ends in a file name or a
    # Latin word ("…例如 CLAUDE_AGENT_…_fix.md"), a line opening in Chinese is a new statement.
    if _CJK.match(following) and _CJK.search(line) and not _OPEN_END.search(line):
        return False
    return not (following[:1].isupper() and " " in line and " " in following)


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def _unquote(line: str, depth: int) -> str:
    for _ in range(depth):
        if not (m := _QUOTE.match(line)):
            break
        line = line[m.end() :]
    return line


def _item_text(line: str) -> tuple[str, str | None]:
    """A flat line's text without its list marker and checkbox, and its layer hint."""
    m = _MARKER.match(line)
    if not m:
        return line.strip(), None
    text = line[m.end() :].strip()
    return _CHECKBOX.sub("", text), OPEN_TASK if _OPEN_BOX.match(text) else None


def read_markdown(path: Path) -> Iterator[Record | Rejection]:
    items = list(iter_lines(path))
    good = [item for item in items if not isinstance(item, Rejection)]
    yield from (item for item in items if isinstance(item, Rejection))
    if hermes.is_memory_file(path) or any(line.strip() == "§" for _, line in good):
        yield from _read_hermes(path, good)
        return
    numbers = [number for number, _ in good]
    # parse reads only as far as the front matter goes: no copy of the file's lines.
    hint = frontmatter.hint(frontmatter.parse(line for _, line in good))
    lines = [
        _LOOSE_ITEM.sub(r"\1- ", line) if line.lstrip()[:1] in "-•" else line for _, line in good
    ]
    _blank_front_matter(numbers, lines)
    reader = _Reader(path, numbers, lines)
    if all(
        not line.strip() or (_SIMPLE.fullmatch(line) and not _RULE.match(line)) for line in lines
    ):
        found = reader.flat()
    else:
        found = reader.parsed()
    yield from frontmatter.annotate(_chat_turns(_template_options(found)), hint)


def _template_options(records: Iterator[Record]) -> Iterator[Record]:
    """In a template nobody filled in (most of its records are unfilled slots), an unchecked
    box is an option never picked ("- [ ] Casual"), not a task: a template placeholder."""
    found = list(records)
    options = [r for r in found if r.layer_hint == OPEN_TASK and not r.skip]
    if options:
        unfilled = sum(r.skip == TEMPLATE or noise.judge(r.text) == TEMPLATE for r in found)
        share = _template_share()
        if unfilled >= share["min_slots"] and unfilled >= share["min_share"] * len(found):
            for r in options:
                r.skip = TEMPLATE
    yield from found


@cache
def _roles() -> tuple[re.Pattern[str], re.Pattern[str], int]:
    """The user's and the assistant's role names of a pasted chat, and how many turns make one
    (noise.toml, [dialogue])."""
    table = _noise_toml()["dialogue"]
    user, assistant = (
        "|".join(f"(?:{p})" for p in table[k]) for k in ("user_roles", "assistant_roles")
    )
    return re.compile(user, re.I), re.compile(assistant, re.I), int(table["min_turns"])


def _chat_turns(records: Iterator[Record]) -> Iterator[Record]:
    """Skip a run of records that are a chat's turns: each a role and what it said, the user's
    and the assistant's in turn (noise.toml, [dialogue]), at least `min_turns` of them."""
    found = list(records)
    run: list[Record] = []
    last: str | None = None
    for r in found:
        side = _side(r)
        if side is None or side == last:
            _skip_chat(run)
            run = [r] if side else []
        else:
            run.append(r)
        last = side
    _skip_chat(run)
    yield from found


def _side(record: Record) -> str | None:
    """Whose turn of a pasted chat the record is ("user", "assistant"), or None."""
    user, assistant, _ = _roles()
    m = None if record.skip else _dialogue()[1].match(record.text)
    if m is None:
        return None
    return "user" if user.match(m[1]) else "assistant" if assistant.match(m[1]) else None


def _skip_chat(run: list[Record]) -> None:
    if len(run) >= _roles()[2]:
        for r in run:
            r.skip = _dialogue()[0]


def _blank_front_matter(numbers: list[int], lines: list[str]) -> None:
    """Front matter (from a first line `---` to the next `---` or `...`) is no record."""
    if not lines or numbers[0] != 1 or lines[0].strip() != "---":
        return
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            lines[: end + 1] = [""] * (end + 1)
            return
    lines[:] = [""] * len(lines)


def _read_hermes(path: Path, lines: list[Line]) -> Iterator[Record]:
    """hermes MEMORY.md / USER.md: entries joined by a line holding only "§" (what hermes itself
    splits on; a "§ " at the start of a line inside an entry is part of the entry)."""
    reader = _Reader(path, [number for number, _ in lines] + [0], [])
    start, body = 0, list[str]()
    for index, (_, line) in enumerate([*lines, (0, "§")]):
        if line.strip() == "§":
            yield from reader.record(start, "\n".join(body), HERMES_FORMAT)
            start, body = 0, []
            continue
        if not body and not line.strip():
            continue
        if not body:
            start = index
            line = line.strip().removeprefix("§").strip()  # some files also prefix "§ "
        body.append(line)
