"""Session transcripts and logs, one JSON object per line (line numbers are 1-based)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from memctl.ingest.textio import iter_lines
from memctl.ingest.transcripts import Context, is_transcript_item, records_from_item
from memctl.models import MESSAGE, Record, Rejection

FORMAT = "jsonl"
UNRECOGNISED = "unrecognised item"
PYTHON_REPR = "a Python repr, not JSON (single quotes or True/False/None): re-export it as JSON"

# A line some tool wrote with Python's str(dict) instead of json.dumps: `{'role': 'user', …}`
# or `{"ok": True}`. Only looked for once the line failed to parse as JSON.
_PYTHON_REPR = re.compile(r"^\s*\{\s*'|[:,\[]\s*(?:True|False|None)\s*[,}\]]")


def read_jsonl(path: Path) -> Iterator[Record | Rejection]:
    ctx = Context(str(path), FORMAT, name_session=session_from_name(path))
    for item in iter_lines(path):
        if isinstance(item, Rejection):
            yield item
            continue
        number, line = item
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            if _PYTHON_REPR.search(line):
                yield Rejection(ctx.path, number, PYTHON_REPR)
            else:
                yield Rejection(ctx.path, number, f"invalid JSON: {_short(exc)}")
            continue
        if not isinstance(obj, dict):
            yield Rejection(ctx.path, number, f"expected a JSON object, got {_kind(obj)}")
            continue
        records = records_from_item(obj, number, ctx)
        if not records and not is_transcript_item(obj) and not isinstance(obj.get("type"), str):
            # No known shape (a typed event is a known family's structural line): counted as
            # a skipped record, so the report accounts for the line instead of losing it.
            records = [Record("", ctx.path, number, FORMAT, MESSAGE, skip=UNRECOGNISED)]
        yield from records


def session_from_name(path: Path) -> str | None:
    """`telegram_8801.jsonl` → "telegram_8801"; OpenClaw's `<id>.jsonl.reset.<ISO>` and
    `<id>.checkpoint.<uuid>.jsonl` → "<id>"."""
    name = _CHECKPOINT.sub("", path.name)
    at = name.lower().find(".jsonl")
    stem = name[:at] if at >= 0 else path.stem
    return stem or None


_CHECKPOINT = re.compile(r"\.checkpoint\.[^.]+(?=\.jsonl)", re.I)


def _short(exc: orjson.JSONDecodeError) -> str:
    msg = str(exc)
    if "unexpected end of data" in msg or "EOF while parsing" in msg:
        return "truncated line (unexpected end of data)"
    return msg.split(": line ")[0]


def _kind(obj: object) -> str:
    return {
        list: "an array",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
    }.get(type(obj), "null")
