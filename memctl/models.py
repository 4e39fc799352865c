"""The values that flow between stages: a Record read from input, a Rejection, enums."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

REALMS = ("real", "fictional", "work", "unknown")
LAYERS = ("persona", "profile", "relationship", "episodic", "procedural", "boundary")
STATUSES = ("active", "pending_review", "superseded", "archived")
AUDIENCES = ("public", "private")

# A record is either a memory already written down (a bullet in MEMORY.md, a `§` entry, an
# exported memory) or a message from a transcript, which must pass the restraint rules first.
MEMORY = "memory"
MESSAGE = "message"


@dataclass(slots=True)
class Record:
    """One input item with its provenance."""

    text: str
    path: str
    line: int
    format: str
    kind: str = MEMORY
    role: str | None = None
    ts: str | None = None
    session_id: str | None = None
    message_id: str | None = None
    section: str | None = None
    # What the file says the record is (a Claude Code memory `type:`), for the classifier:
    # see memctl/ingest/frontmatter.py.
    layer_hint: str | None = None
    # A table row's header: its cells' column names, joined by " | " as its cells are. Context
    # the classifier reads the row under (memctl/ingest/markdown.py, with_header), not its text.
    header: str | None = None
    # Why a reader already knows this record must not become a memory (tool output, setup text…).
    skip: str | None = None
    # Entry fields carried by memctl's own export, restored on import.
    fields: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        """Pickled (to an import's worker) with a copy of its text (see `unshared`)."""
        text, *rest = _record_fields(self)
        return Record, (unshared(text), *rest)


_record_fields = attrgetter(*(f.name for f in fields(Record)))


def unshared(text: str) -> str:
    """`text`, or a copy of it to hand to pickle or sqlite3, which ask a string for its UTF-8
    form: CPython keeps that form inside a non-ASCII string for as long as the string lives
    (a 320-character Chinese note 714 -> 1,675 bytes: every record text of a big import,
    sent to its worker or written, held twice over). The copy takes it and is dropped with
    the pickle or the row. An ASCII string is its own UTF-8 form."""
    return text if text.isascii() else "".join((text, ""))


@dataclass(slots=True)
class Rejection:
    """An input item that could not be read, with where and why."""

    path: str
    line: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "reason": self.reason}
