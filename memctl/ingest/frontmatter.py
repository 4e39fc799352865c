"""Front matter (`---` … `---` at the top of a Markdown file): its fields, and the layer hint
and section they give the file's records.

Claude Code's auto-memory topic files carry `name`, `description` and `type` (user, feedback,
project, reference; memctl/data/frontmatter.toml maps each to layers). For such a file every
record gets `section` "<name> — <description>" (before its heading path) and `layer_hint` the
type; the import keeps the classifier's layer when the type allows it, else takes the type's
first layer (`apply_hint`). Files whose front matter has no known `type` are read as before.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from memctl.models import Record, Rejection

_FIELD = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")


def parse(lines: Iterable[str]) -> dict[str, str]:
    """The `key: value` fields of the front matter these lines start with ({} if none).

    Only flat scalar fields are kept, quotes removed; lists, nested keys and a block that is
    never closed are not front matter memctl uses.
    """
    it = iter(lines)
    if next(it, "").strip() != "---":
        return {}
    fields: dict[str, str] = {}
    for line in it:
        if line.strip() in ("---", "..."):
            return fields
        if (m := _FIELD.match(line)) and not line[:1].isspace():
            value = m[2]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            fields[m[1].lower()] = value
    return {}


@dataclass(frozen=True)
class Hint:
    """What a file's front matter says about all its records."""

    section: str | None
    layer_hint: str | None


def hint(fields: dict[str, str]) -> Hint | None:
    """The hint of a Claude Code auto-memory topic file's fields; None for other front matter."""
    kind = fields.get("type", "").strip().lower()
    if kind not in _types():
        return None
    name, description = fields.get("name", "").strip(), fields.get("description", "").strip()
    section = " — ".join(p for p in (name, description) if p) or None
    return Hint(section, kind)


def annotate(
    items: Iterable[Record | Rejection], front: Hint | None
) -> Iterator[Record | Rejection]:
    """`items` with the front matter's section put before each record's heading path and its
    layer hint set (unchanged when `front` is None)."""
    for item in items:
        if front is not None and isinstance(item, Record):
            item.section = " > ".join(s for s in (front.section, item.section) if s) or None
            item.layer_hint = _SEP.join(h for h in (front.layer_hint, item.layer_hint) if h)
        yield item


# A record's layer hint is its file's type and what its own form says ("dated_line", an open
# task), joined by this, in that order; one alone is stored as it is.
_SEP = "+"


def has(layer_hint: str | None, name: str) -> bool:
    """Whether the hint (as a record or a sources row keeps it) says `name`."""
    return name in (layer_hint or "").split(_SEP)


def file_hint(path: str) -> str | None:
    """The layer hint of the Markdown file at `path` as it is now (None if it has none or is
    gone): for re-classifying entries, whose sources keep the path but not the hint."""
    if not path.lower().endswith(".md"):
        return None
    try:
        return _file_hint(path, os.stat(path).st_mtime_ns)
    except OSError:
        return None


@lru_cache(maxsize=4096)
def _file_hint(path: str, _mtime: int) -> str | None:
    with open(path, encoding="utf-8", errors="replace") as f:
        head = [line.rstrip("\r\n") for line, _ in zip(f, range(_HEAD_LINES), strict=False)]
    found = hint(parse(head))
    return found.layer_hint if found else None


_HEAD_LINES = 50  # front matter longer than this is no memory file's


def apply_hint(layer: str, layer_hint: str | None) -> str:
    """The layer to store: the classifier's when the hint allows it, else the hint's first;
    the file's type first, then the record's own form (an open task is a task whatever file)."""
    for part in (layer_hint or "").split(_SEP):
        allowed = _types().get(part)
        if allowed and layer not in allowed:
            layer = allowed[0]
    return layer


@lru_cache(maxsize=1)
def _types() -> dict[str, tuple[str, ...]]:
    raw = tomllib.loads(resources.files("memctl.data").joinpath("frontmatter.toml").read_text())
    tables = (raw["claude_memory_types"], raw.get("marker_types", {}))
    return {k: tuple(v) for table in tables for k, v in table.items()}
