"""Groups of duplicates as a union-find whose root is always the group's canonical record.

Canonical = earliest time; ties go to the most informative (longest) text, then the lowest id.
Records without a time sort after every dated one. Because the root is the canonical, a union
either keeps a root or hands it over, and the record that stops being a root is exactly the one
to report as merged away (with its whole group following it).

Records are the engine's row numbers (0, 1, 2… in the order they were added); what orders them
is kept in three flat arrays rather than a tuple per record.
"""

from __future__ import annotations

import math
from array import array
from datetime import UTC, datetime

import numpy as np

OrderKey = tuple[float, int, int]


def parse_ts(ts: str | None) -> float | None:
    """POSIX seconds of an ISO time; naive times count as UTC; unparseable means unknown."""
    if not ts:
        return None
    try:
        parsed = datetime.fromisoformat(ts.strip())
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


class Groups:
    """Union-find over rows with the canonical as root."""

    def __init__(self) -> None:
        self._parent: list[int] = []
        self._size: list[int] = []
        self._when = array("d")  # POSIX time; +inf when unknown (after every dated record)
        self._length = array("q")
        self._id = array("q")

    def __len__(self) -> int:
        return len(self._parent)

    def add(self, ts: str | None, length: int, ident: int) -> int:
        """A new single-record group; returns its row."""
        row = len(self._parent)
        when = parse_ts(ts)
        self._parent.append(row)
        self._size.append(1)
        self._when.append(math.inf if when is None else when)
        self._length.append(length)
        self._id.append(ident)
        return row

    def length(self, row: int) -> int:
        return self._length[row]

    def key(self, row: int) -> OrderKey:
        """Sort key for choosing a canonical: smaller wins."""
        return (self._when[row], -self._length[row], self._id[row])

    def attach(self, row: int, root: int) -> None:
        """Put an already-merged record (and whatever it holds) under its canonical, whatever
        their order keys say (rebuilding stored state)."""
        mine, root = self.find(row), self.find(root)
        if mine != root:
            self._parent[mine] = root
            self._size[root] += self._size[mine]
            self._size[mine] = 0

    def find(self, row: int) -> int:
        parent = self._parent
        root = row
        while parent[root] != root:
            root = parent[root]
        while parent[row] != root:  # path compression
            parent[row], row = root, parent[row]
        return root

    def roots(self, rows: np.ndarray) -> np.ndarray:
        """find() of each row, once per distinct row. (Copying every parent into an array and
        jumping pointers cost ~8 ms a call at 200k records whatever the call's size: a cost
        per file that grew with the store, for an import of many small files.)"""
        distinct, back = np.unique(rows, return_inverse=True)
        found = np.fromiter(map(self.find, distinct.tolist()), np.int64, count=len(distinct))
        return found[back]

    def size(self, row: int) -> int:
        return self._size[self.find(row)]

    def union(self, a: int, b: int) -> tuple[int, int] | None:
        """Join the groups of a and b; return (loser, winner) roots, or None if already one."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return None
        winner, loser = (ra, rb) if self.key(ra) <= self.key(rb) else (rb, ra)
        self._parent[loser] = winner
        self._size[winner] += self._size[loser]
        self._size[loser] = 0
        return loser, winner
