"""Accounting, as a property: whatever Markdown and JSONL go in, every record is accounted for.

Hypothesis writes random files (bullets, paragraphs, headings, fences, tables, `§` entries,
Chinese and English text, broken JSON lines, arrays, wrong shapes, lines of random bytes,
invalid UTF-8, NUL bytes, CRLF, BOM) and imports them into a scratch store. Whatever it writes:

- nothing raises; records = added + skipped + rejected, per file and overall;
- every accepted record has exactly one `sources` row, of this run: 'new' for each added one,
  'exact' for each exact duplicate, and no input line has two;
- every rejection names an imported file, a line in it (0 for the whole file) and a reason;
- nothing is lost: each tracked fact the generator wrote (a bullet, a paragraph, a quote, a
  dated line outside a fence; a nanobot or "remember:" line) is in some entry, or its line
  is rejected, or its file is reported unsupported; each broken JSON line is rejected at its
  line number;
- importing the same files again adds nothing and accounts for the same records.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl.importer import ALREADY_IMPORTED, EXACT_DUPLICATE, ImportReport, import_paths
from memctl.normalise import normalise
from memctl.store import Store

# -- what the generator writes -------------------------------------------------------------


@dataclass
class File:
    """One generated file: its lines, and what the test expects of them."""

    name: str
    lines: list[str] = field(default_factory=list)
    # token -> 0-based index of the line holding it; each must reach an entry.
    facts: dict[str, int] = field(default_factory=dict)
    # 0-based line index -> a word the rejection reason must contain.
    broken: dict[int, str] = field(default_factory=dict)
    bad_bytes: dict[int, bytes] = field(default_factory=dict)  # appended to that line
    # Lines that open or close a fence or front matter: damaged, they would (rightly) hide
    # everything after them, which this test does not model.
    structural: set[int] = field(default_factory=set)
    # Lines of random bytes (written instead of lines[i]). In Markdown they may open anything
    # (a fence, a comment), so facts after the first one are not tracked.
    raw: dict[int, bytes] = field(default_factory=dict)
    newline: str = "\n"
    bom: bool = False

    def data(self) -> bytes:
        out = []
        for i, line in enumerate(self.lines):
            text = self.raw[i] if i in self.raw else line.encode("utf-8", "surrogatepass")
            out.append(text + self.bad_bytes.get(i, b""))
        body = self.newline.encode().join(out) + self.newline.encode()
        return (b"\xef\xbb\xbf" if self.bom else b"") + body


# Words that start with a letter, so a line built from them is never Markdown structure.
EN = st.sampled_from(
    ["the", "user", "likes", "green", "tea", "and", "hates", "long", "meetings", "at", "work"]
)
ZH = st.sampled_from(["用户", "喜欢", "绿茶", "讨厌", "开会", "生日", "周末", "跑步", "记住"])
WORD = st.one_of(EN, ZH)
# Any characters but line breaks, NUL and surrogates, behind a letter: odd text, never structure.
ODD = st.text(
    st.characters(exclude_categories=("Cs",), exclude_characters="\n\r\x00"), max_size=30
).map(lambda s: "x" + s)
PHRASE = st.lists(st.one_of(WORD, WORD, ODD), min_size=1, max_size=6).map(" ".join)
# Any bytes but a line break or NUL (NUL makes the file binary; _damage adds those on purpose).
RAW = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\x00", b""))
BAD_BYTES = st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80abc", b"\xf0\x28\x8c"])


def _one_in(draw: st.DrawFn, n: int) -> bool:
    """True about once in n draws (st.integers would favour its bounds), False when shrunk."""
    return draw(st.sampled_from(range(n))) == n - 1


class Tokens:
    """Unique, lowercase ASCII markers: one per tracked fact, found again after normalise()."""

    def __init__(self) -> None:
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"tk{self.n:04d}q"


MARKDOWN_BLOCKS = [
    "bullet", "bullet", "bullet", "continued", "paragraph", "quote", "dated", "heading",
    "blank", "blank", "fence", "table", "rule", "comment", "duplicate", "raw",
]  # fmt: skip
# A hermes file: the same blocks, with `§` lines between entries.
HERMES_BLOCKS = [*MARKDOWN_BLOCKS, "hermes", "hermes", "hermes"]


def _tagline_position(f: File) -> bool:
    """Whether a blockquote added now would be the file's second block after a level-1 title
    (front matter and blank lines aside), where memctl reads it as the file's tagline."""
    start = 3 if f.lines[:1] == ["---"] and 0 in f.structural else 0
    blocks = [line for line in f.lines[start:] if line.strip()]
    return len(blocks) == 1 and blocks[0].startswith("# ")


@st.composite
def markdown_file(draw: st.DrawFn, tokens: Tokens, name: str) -> File:
    f = File(name)
    if draw(st.booleans()):
        f.structural |= {0, 2}
        f.lines += ["---", f"title: {draw(WORD)}", "---"]
    tracked: list[str] = []
    blocks = HERMES_BLOCKS if _one_in(draw, 4) else MARKDOWN_BLOCKS
    for kind in draw(st.lists(st.sampled_from(blocks), max_size=25)):
        if kind == "quote" and _tagline_position(f):
            # A blockquote right under the file's title is its tagline: context, skipped with
            # its reason (memctl/data/noise.toml, [tagline]), so it carries no fact to track.
            f.lines.append("> " + draw(PHRASE))
        elif kind in ("bullet", "continued", "paragraph", "quote", "dated"):
            tok = tokens.next()
            text = f"{draw(PHRASE)} {tok}"
            marker = draw(st.sampled_from(["- ", "* ", "+ ", "1. ", "-", "- [ ] ", "- [x] "]))
            line = {
                "bullet": marker + text,
                "continued": marker + text,
                "paragraph": text,
                "quote": "> " + text,
                "dated": f"2026-0{draw(st.integers(1, 9))}-1{draw(st.integers(0, 9))}: {text}",
            }[kind]
            f.facts[tok] = len(f.lines)
            f.lines.append(line)
            tracked.append(line)
            if kind == "continued":
                f.lines.append(f"  {draw(PHRASE)}")
        elif kind == "duplicate" and tracked:
            f.lines.append(draw(st.sampled_from(tracked)))  # an exact copy of an earlier fact
        elif kind == "heading":
            f.lines.append(f"{'#' * draw(st.integers(1, 6))} {draw(PHRASE)}")
        elif kind == "blank":
            f.lines.append(draw(st.sampled_from(["", "   "])))
        elif kind == "fence":
            fence = draw(st.sampled_from(["```", "~~~", "````"]))
            f.structural |= {len(f.lines), len(f.lines) + 2}
            f.lines += [fence + draw(st.sampled_from(["", "python"])), draw(PHRASE), fence]
        elif kind == "table":
            f.lines += [f"| {draw(WORD)} | {draw(WORD)} |", "|---|---|", f"| {draw(PHRASE)} | x |"]
        elif kind == "rule":
            f.lines.append(draw(st.sampled_from(["***", "___", "- - -"])))
        elif kind == "comment":
            f.lines.append(f"<!-- {draw(PHRASE)} -->")
        elif kind == "hermes":
            f.lines.append(draw(st.sampled_from(["§", " § "])))
        elif kind == "raw" and f.lines:  # never first: it could start with a UTF-16 BOM
            _raw_line(draw, f)
    if _one_in(draw, 10) and f.lines:
        f.lines.append(f"```{draw(WORD)}")  # an unclosed fence at the very end
    _damage(draw, f)
    return f


JSON_LINES = [
    "remember", "remember", "nanobot", "claude", "assistant", "chat", "structural",
    "truncated", "array", "scalar", "wrong-shape", "blank", "raw",
]  # fmt: skip


@st.composite
def jsonl_file(draw: st.DrawFn, tokens: Tokens, name: str) -> File:
    f = File(name)
    for kind in draw(st.lists(st.sampled_from(JSON_LINES), max_size=25)):
        index = len(f.lines)
        if kind in ("remember", "nanobot", "claude"):
            tok = tokens.next()
            fact = f"{draw(PHRASE)} {tok}"
            obj: object = {
                "remember": {"role": "user", "content": f"remember: {fact}"},
                "nanobot": {"cursor": index, "timestamp": "2026-01-02T03:04:05Z", "content": fact},
                "claude": {
                    "type": "user",
                    "sessionId": "s1",
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": f"记住：{fact}"}],
                    },
                },
            }[kind]
            f.facts[tok] = index
            f.lines.append(orjson.dumps(obj).decode())
        elif kind == "assistant":
            f.lines.append(orjson.dumps({"role": "assistant", "content": draw(PHRASE)}).decode())
        elif kind == "chat":
            f.lines.append(orjson.dumps({"role": "user", "content": draw(PHRASE) + "?"}).decode())
        elif kind == "structural":
            f.lines.append(orjson.dumps({"type": "session", "id": draw(WORD)}).decode())
        elif kind == "truncated":
            whole = orjson.dumps({"role": "user", "content": f"remember: {draw(PHRASE)}"}).decode()
            f.lines.append(whole[: draw(st.integers(1, len(whole) - 1))])
            f.broken[index] = "JSON"
        elif kind == "array":
            f.lines.append(orjson.dumps([{"role": "user", "content": draw(PHRASE)}]).decode())
            f.broken[index] = "array"
        elif kind == "scalar":
            f.lines.append(draw(st.sampled_from(['"remember: x"', "42", "null", "true", "-1.5"])))
            f.broken[index] = "expected"
        elif kind == "wrong-shape":
            obj = draw(
                st.sampled_from(
                    [
                        {},
                        {"role": 5, "content": [1, 2]},
                        {"role": "user", "content": None},
                        {"role": "user", "content": {"nested": ["remember: x"]}},
                        {"type": "user", "message": "remember: x"},
                        {"type": "message", "message": {"role": ["user"], "content": "x"}},
                        {"cursor": "a", "content": 7},
                        {"a": {"b": {"c": {"d": [[[[]]]]}}}},
                    ]
                )
            )
            f.lines.append(orjson.dumps(obj).decode())
        elif kind == "raw" and f.lines:
            _raw_line(draw, f)
        else:
            f.lines.append(draw(st.sampled_from(["", "  "])))
    _damage(draw, f)
    return f


def _raw_line(draw: st.DrawFn, f: File) -> None:
    f.raw[len(f.lines)] = draw(RAW)
    f.structural.add(len(f.lines))  # its outcome is unknown: not one to damage further
    f.lines.append("")


def _damage(draw: st.DrawFn, f: File) -> None:
    """Maybe: CRLF, a BOM, invalid UTF-8 in a line, a NUL byte (the file is then binary)."""
    f.newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    f.bom = draw(st.booleans())
    # Never on the first line: bytes there could start the file with a UTF-16 BOM.
    damageable = [i for i in range(1, len(f.lines)) if i not in f.structural]
    if damageable and _one_in(draw, 4):
        index = draw(st.sampled_from(damageable))
        f.bad_bytes[index] = draw(BAD_BYTES)
        f.broken[index] = "UTF-8"
    if f.lines and _one_in(draw, 30):
        index = draw(st.integers(0, len(f.lines) - 1))
        f.bad_bytes[index] = f.bad_bytes.get(index, b"") + b"\x00"


@st.composite
def input_tree(draw: st.DrawFn) -> list[File]:
    tokens = Tokens()
    names = ["MEMORY.md", "notes/2026-02-03.md", "USER.md", "a/b.md", "s1.jsonl", "x.jsonl"]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True))
    return [
        draw(jsonl_file(tokens, n) if n.endswith(".jsonl") else markdown_file(tokens, n))
        for n in chosen
    ]


# -- the property --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=input_tree())
def test_every_record_is_accounted_for(files: list[File]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "in"
        for f in files:
            path = root / f.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(f.data())
        store = Store.open_scratch(Path(tmp) / "none.db")
        try:
            user = store.for_user("u")
            first = import_paths(user, [root])
            check_accounting(first, store.conn, root, files)
            again = import_paths(user, [root])
            assert again.added == 0
            assert again.records == first.records
            assert [r.as_dict() for r in again.rejected] == [r.as_dict() for r in first.rejected]
            near = sum(n for why, n in first.skipped_by_reason.items() if why.startswith("near"))
            accepted = first.added + first.skipped_by_reason[EXACT_DUPLICATE] + near
            assert again.skipped_by_reason[ALREADY_IMPORTED] == accepted
            sql = "SELECT count(*) FROM sources WHERE run_id = ?"
            assert _count(store.conn, sql, [again.run_id]) == 0
        finally:
            store.close()


def check_accounting(
    report: ImportReport, conn: sqlite3.Connection, root: Path, files: list[File]
) -> None:
    # records = added + skipped + rejected, overall and per file
    assert report.records == report.added + report.skipped + len(report.rejected)
    for fr in report.by_file:
        assert fr.records == fr.added + fr.skipped + fr.rejected, fr
    assert report.records == sum(fr.records for fr in report.by_file)
    assert len(report.rejected) == sum(fr.rejected for fr in report.by_file)
    rejected_per_file = Counter(r.path for r in report.rejected)
    assert rejected_per_file == Counter(
        {fr.path: fr.rejected for fr in report.by_file if fr.rejected}
    )

    # every file is either imported (in by_file) or reported unsupported, never both
    shown = {str(root / f.name): f for f in files}
    imported = {fr.path for fr in report.by_file}
    unsupported = {u["path"] for u in report.unsupported}
    assert imported | unsupported == set(shown)
    assert not imported & unsupported

    # one sources row per accepted record: 'new' per added one, 'exact' per exact duplicate
    layers = Counter(
        dict(
            conn.execute(
                "SELECT merge_layer, count(*) FROM sources WHERE run_id = ? GROUP BY merge_layer",
                [report.run_id],
            ).fetchall()
        )
    )
    # ... and a near duplicate's rows carry the layer that merged them (L2-L4)
    near = sum(n for why, n in report.skipped_by_reason.items() if why.startswith("near dup"))
    assert layers["new"] == report.added
    assert sum(layers.values()) == report.added + report.skipped_by_reason[EXACT_DUPLICATE] + near
    for fr in report.by_file:
        sql = "SELECT count(*) FROM sources WHERE run_id = ? AND path = ? AND merge_layer = 'new'"
        assert _count(conn, sql, [report.run_id, fr.path]) == fr.added
    twice = conn.execute(
        "SELECT path, line FROM sources WHERE run_id = ? GROUP BY path, line HAVING count(*) > 1",
        [report.run_id],
    ).fetchall()
    assert twice == []
    # merged-away entries keep their rows
    assert _count(conn, "SELECT count(*) FROM entries") == report.added + near
    assert _count(conn, "SELECT count(*) FROM rejections WHERE run_id = ?", [report.run_id]) == len(
        report.rejected
    )

    # every rejection: an imported file, a line in it (0: the whole file), a reason
    lines_in = {str(root / f.name): len(f.lines) for f in files}
    for r in report.rejected:
        assert r.path in imported
        assert 0 <= r.line <= lines_in[r.path], r
        assert r.reason.strip(), r

    # nothing lost: each tracked fact reached an entry, or its line was rejected
    contents = [normalise(row[0]) for row in conn.execute("SELECT content FROM entries")]
    rejected_at = {(r.path, r.line): r.reason for r in report.rejected}
    for path, f in shown.items():
        if path in unsupported:
            assert any(b"\x00" in b for b in f.bad_bytes.values()), report.unsupported
            continue
        chaos = min(f.raw, default=None) if path.endswith(".md") else None
        for tok, index in f.facts.items():
            if chaos is not None and index > chaos:
                continue
            found = any(tok in c for c in contents) or (path, index + 1) in rejected_at
            assert found, (tok, f.name, f.lines)
        for index, word in f.broken.items():
            reason = rejected_at.get((path, index + 1))
            if index in f.bad_bytes or path.endswith(".jsonl"):
                assert reason is not None and (word in reason or "UTF-8" in reason), (
                    f.name, index + 1, f.lines[index], report.rejected,
                )  # fmt: skip


def _count(conn: sqlite3.Connection, sql: str, params: list[object] | None = None) -> int:
    return int(conn.execute(sql, params or []).fetchone()[0])
