"""Copies of a transcript: records another file of the same session already holds.

OpenClaw keeps copies beside a session's transcript `<id>.jsonl`: `<id>.jsonl.deleted.<ts>`
(the session deleted from the UI), `<id>.checkpoint.<uuid>.jsonl` (a checkpoint taken before a
compaction) and `<id>.jsonl.full_backup`. Each is a copy or a superset of a transcript of the
same session, so re-reading it would import every shared message a second time under another
path. A message of a copy that a transcript read before already holds (same session and message
id, else same role, time and raw text) is skipped as already imported; the rest is read as new.

Originals are read before their copies (`order`), whichever order a folder lists them in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from memctl.models import MESSAGE, Record, Rejection
from memctl.normalise import raw_hash
from memctl.store import UserStore

COPY_OF_IMPORTED = "already imported (transcript copy)"

_COPY = re.compile(
    r"\.checkpoint\.[^.]+\.jsonl$|\.jsonl\.deleted\.[^/]+$|\.jsonl\.full_backup$", re.I
)

Key = tuple[str | None, ...]


def is_copy(path: Path) -> bool:
    """Whether the file's name marks it as a copy of another transcript."""
    return bool(_COPY.search(path.name))


def order(files: list[Path]) -> list[Path]:
    """`files` with the copies last, each group in its own order."""
    return sorted(files, key=is_copy)


def key(record: Record) -> Key:
    """What makes a message the same message in two files of one session."""
    if record.message_id:
        return (record.session_id, record.message_id)
    return (record.session_id, record.role, record.ts, raw_hash(record.text))


class Seen:
    """The transcript messages read so far in one import, and those stored before it."""

    def __init__(self, store: UserStore) -> None:
        self.store = store
        self.keys: set[Key] = set()

    def mark(self, path: Path, items: Iterable[Record | Rejection]) -> int:
        """Note the file's messages; in a copy, mark those already read as skipped. The count."""
        messages = [i for i in items if isinstance(i, Record) and i.kind == MESSAGE]
        marked = 0
        if is_copy(path):
            known = self.keys | self._stored({r.session_id for r in messages})
            for record in messages:
                if key(record) in known:
                    record.skip = COPY_OF_IMPORTED
                    marked += 1
        self.keys.update(key(r) for r in messages)
        return marked

    def _stored(self, sessions: set[str | None]) -> set[Key]:
        """Keys of the messages of these sessions that earlier imports kept a source for."""
        found: set[Key] = set()
        for session in sessions:
            if session is None:
                continue
            for message_id, role, ts, rhash in self.store.sources.of_session(session):
                found.add((session, message_id) if message_id else (session, role, ts, rhash))
        return found
