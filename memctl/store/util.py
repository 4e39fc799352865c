"""Small helpers every part of the store uses: the time format, IN (...) lists, rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

_CHUNK = 500  # bound parameters per IN (...) query, well under SQLite's limit
T = TypeVar("T")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def chunks(items: Sequence[T]) -> Iterator[Sequence[T]]:
    """`items` in slices small enough for one IN (...) query."""
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


def marks(items: Sequence[Any]) -> str:
    """The placeholders of an IN (...) list of `items`."""
    return ",".join("?" * len(items))


def entry_dict(row: sqlite3.Row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys() if k != "user_id"}  # noqa: SIM118 (Row has no iter)
