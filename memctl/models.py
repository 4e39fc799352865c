"""The values that flow between stages: a Record read from input, a Rejection, enums."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass(slots=True)
class Rejection:
    """An input item that could not be read, with where and why."""

    path: str
    line: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "reason": self.reason}
