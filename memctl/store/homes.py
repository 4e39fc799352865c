"""Home lines (table `home_lines`): what each classified line said of its home's job, so the
home's vote (memctl.classify.home) counts every line of the home, not only one import's."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

# A line as its file settled it, in memctl.classify.home.Line's order after the entry id and
# text: realm, cued, layer, audience, fact, by_section, kin (the names it introduces, one per
# line of the text; NULL when not known), says (whether its own words give a realm weight;
# NULL when not known).
_FIELDS = ("realm", "cued", "layer", "audience", "fact", "by_section", "kin", "says")
_INSERT = (
    f"INSERT OR REPLACE INTO home_lines (entry_id, user_id, home, path, {', '.join(_FIELDS)}, "
    f"settled) VALUES (?, ?, ?, ?{', ?' * len(_FIELDS)}, ?)"
)


_NO_NAMES: frozenset[str] = frozenset()


class HomeLines:
    """One user's home lines."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def put(
        self, home: str | None, path: str | None, lines: Iterable[Sequence[Any]], settled: bool
    ) -> None:
        """Keep `lines` (memctl.classify.home.Line each: id, text, then _FIELDS) of `path`,
        replacing what an entry had; `settled`: a vote counted them already."""
        user_id, flag = self.user_id, int(settled)
        self.conn.executemany(
            _INSERT,
            (
                (line[0], user_id, home, path, *line[2:8], _names(line[8]), line[9], flag)
                for line in lines
            ),
        )

    def homes(self, unsettled: bool = False) -> set[str | None]:
        """Every home holding a line, or (`unsettled`) a line no vote has counted yet."""
        rows = self.conn.execute(
            "SELECT DISTINCT home FROM home_lines WHERE user_id = ?"
            + (" AND settled = 0" if unsettled else ""),
            [self.user_id],
        )
        return {r[0] for r in rows}

    def of_home(self, home: str | None) -> Iterator[tuple[str | None, list[tuple[Any, ...]]]]:
        """(path, lines) of each file of `home`, in the order the files were first imported;
        a line is (id, text, *_FIELDS, settled), in entry order. One query for the home: a
        vote reads every line of it each import, and a daily notes folder is hundreds of
        files."""
        columns = ", ".join(f"h.{f}" for f in _FIELDS)
        rows = self.conn.execute(
            f"SELECT h.path, h.entry_id, e.content, {columns}, h.settled FROM home_lines h "
            "JOIN entries e ON e.id = h.entry_id WHERE h.user_id = ? AND h.home IS ? "
            "ORDER BY min(h.entry_id) OVER (PARTITION BY h.path), h.entry_id",
            [self.user_id, home],
        ).fetchmany
        path: str | None = None
        lines: list[tuple[Any, ...]] = []
        while batch := rows(4096):
            for r in batch:
                if lines and r[0] != path:
                    yield path, lines
                    lines = []
                path = r[0]
                lines.append(_line(r[1:]))
        if lines:
            yield path, lines

    def name(self, lines: Iterable[Any]) -> None:
        """Keep the names each of `lines` (memctl.classify.home.Line) introduces."""
        self.conn.executemany(
            "UPDATE home_lines SET kin = ? WHERE entry_id = ? AND user_id = ?",
            [(_names(line.kin), line.id, self.user_id) for line in lines],
        )

    def learn(self, says: dict[int, bool]) -> None:
        """Keep whether each line's own words give a realm weight (memctl.classify.home.Line's
        says), by entry id."""
        self.conn.executemany(
            "UPDATE home_lines SET says = ? WHERE entry_id = ? AND user_id = ?",
            [(int(v), i, self.user_id) for i, v in says.items()],
        )

    def settle(self, homes: Iterable[str | None]) -> None:
        """The lines of `homes` are counted now."""
        self.conn.executemany(
            "UPDATE home_lines SET settled = 1 WHERE user_id = ? AND home IS ? AND settled = 0",
            [(self.user_id, home) for home in homes],
        )

    def delete_of(self, entry_id: int) -> None:
        self.conn.execute(
            "DELETE FROM home_lines WHERE entry_id = ? AND user_id = ?", [entry_id, self.user_id]
        )


def _line(row: Sequence[Any]) -> tuple[Any, ...]:
    i, text, realm, cued, layer, audience, fact, by_section, kin, says, settled = row
    names = None if kin is None else frozenset(kin.split("\n")) if kin else _NO_NAMES
    return (
        i, text, realm, bool(cued), layer, audience, bool(fact), bool(by_section), names,
        None if says is None else bool(says), settled,
    )  # fmt: skip


def _names(names: frozenset[str] | None) -> str | None:
    return None if names is None else "\n".join(sorted(names))
