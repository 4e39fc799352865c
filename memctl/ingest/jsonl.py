"""Session transcripts and logs, one JSON object per line (line numbers are 1-based)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from memctl.ingest.textio import iter_lines
from memctl.ingest.transcripts import Context, records_from_item
from memctl.models import Record, Rejection

FORMAT = "jsonl"


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
            yield Rejection(ctx.path, number, f"invalid JSON: {_short(exc)}")
            continue
        if not isinstance(obj, dict):
            yield Rejection(ctx.path, number, f"expected a JSON object, got {_kind(obj)}")
            continue
        yield from records_from_item(obj, number, ctx)


def session_from_name(path: Path) -> str | None:
    """`telegram_8801.jsonl` → "telegram_8801"; OpenClaw's `<id>.jsonl.reset.<ISO>` → "<id>"."""
    name = path.name
    at = name.lower().find(".jsonl")
    stem = name[:at] if at >= 0 else path.stem
    return stem or None


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
