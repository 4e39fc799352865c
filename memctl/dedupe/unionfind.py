"""Groups of duplicates as a union-find whose root is always the group's canonical record.

Canonical = earliest time; ties go to the most informative (longest) text, then the lowest id.
Records without a time sort after every dated one. Because the root is the canonical, a union
either keeps a root or hands it over, and the record that stops being a root is exactly the one
to report as merged away (with its whole group following it).
"""

from __future__ import annotations

from datetime import UTC, datetime

OrderKey = tuple[int, float, int, int]


def order_key(item: int, ts: str | None, length: int) -> OrderKey:
    """Sort key for choosing a canonical: smaller wins."""
    when = parse_ts(ts)
    if when is None:
        return (1, 0.0, -length, item)
    return (0, when, -length, item)


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
    """Union-find over record ids with the canonical as root."""

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}
        self._key: dict[int, OrderKey] = {}
        self._size: dict[int, int] = {}

    def __contains__(self, item: int) -> bool:
        return item in self._parent

    def add(self, item: int, key: OrderKey) -> None:
        self._parent[item] = item
        self._key[item] = key
        self._size[item] = 1

    def attach(self, item: int, root: int) -> None:
        """Put an already-merged record under its canonical (rebuilding stored state)."""
        self._parent[item] = root
        self._size[root] = self._size.get(root, 1) + 1

    def find(self, item: int) -> int:
        parent = self._parent
        root = item
        while parent[root] != root:
            root = parent[root]
        while parent[item] != root:  # path compression
            parent[item], item = root, parent[item]
        return root

    def size(self, item: int) -> int:
        return self._size[self.find(item)]

    def union(self, a: int, b: int) -> tuple[int, int] | None:
        """Join the groups of a and b; return (loser, winner) roots, or None if already one."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return None
        winner, loser = (ra, rb) if self._key[ra] <= self._key[rb] else (rb, ra)
        self._parent[loser] = winner
        self._size[winner] += self._size.pop(loser)
        return loser, winner
