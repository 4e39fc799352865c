"""Entries (table `entries`): one user's memories, and the logged path that changes them.

Every change of an entry's fields goes through `update`/`update_many`, which write the
entry and its change-log row together, so `memctl history` can say why and `review undo` can
bring it back. `AllEntries` holds the few statements consolidation runs over every user.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from memctl.errors import EntryNotFound, UsageError
from memctl.models import unshared
from memctl.store.changelog import ChangeLog
from memctl.store.fields import EDITABLE, FACT_FIELDS
from memctl.store.util import chunks, entry_dict, marks, now_iso

# One entry's part of a bulk update: (entry_id, {field: new value}, note).
Update = tuple[int, dict[str, Any], str | None]
LIVE = ("active", "pending_review")


class Visible(NamedTuple):
    """Which entries a context block may use: active, unmerged, unexpired at `now`; private
    ones only if `private`, fictional ones only if `roleplay`."""

    now: str
    private: bool
    roleplay: bool


class Unsure(NamedTuple):
    """The retrieval block's entries: its own `layers`, and entries of `fixed` layers whose
    confidence is below `below` (too unsure of their layer for the fixed block)."""

    layers: Sequence[str]
    fixed: Sequence[str]
    below: float


class Entries:
    """One user's entries. Calling it lists them (see `__call__`)."""

    def __init__(self, conn: sqlite3.Connection, user_id: str, log: ChangeLog) -> None:
        self.conn = conn
        self.user_id = user_id
        self.log = log

    # -- reads -------------------------------------------------------------------------------

    def __call__(
        self,
        statuses: Sequence[str] = (),
        limit: int | None = None,
        *,
        layers: Sequence[str] = (),
        realms: Sequence[str] = (),
        audiences: Sequence[str] = (),
        source: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """This user's entries in id order, filtered; `source` keeps those with a source
        whose path is `source` or lies under it."""
        sql = "SELECT * FROM entries WHERE user_id = ?"
        params: list[Any] = [self.user_id]
        for column, values in (("status", statuses), ("layer", layers), ("realm", realms),
                               ("audience", audiences)):  # fmt: skip
            if values:
                sql += f" AND {column} IN ({marks(values)})"
                params += list(values)
        if source is not None:
            sql += (
                " AND id IN (SELECT entry_id FROM sources WHERE user_id = ? "
                "AND (path = ? OR substr(path, 1, length(?)) = ?))"
            )
            prefix = source.rstrip("/") + "/"
            params += [self.user_id, source, prefix, prefix]
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        for row in self.conn.execute(sql, params):
            yield entry_dict(row)

    def get(self, entry_id: int) -> dict[str, Any]:
        row = self.conn.execute(
            "SELECT * FROM entries WHERE id = ? AND user_id = ?", [entry_id, self.user_id]
        ).fetchone()
        if row is None:
            raise EntryNotFound(f"no entry {entry_id} for user {self.user_id!r}")
        return entry_dict(row)

    def ids_by_hash(self, hashes: Iterable[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        for chunk in chunks(list(hashes)):
            rows = self.conn.execute(
                "SELECT norm_hash, id FROM entries WHERE user_id = ? "
                f"AND norm_hash IN ({marks(chunk)})",
                [self.user_id, *chunk],
            )
            found.update((r[0], r[1]) for r in rows)
        return found

    def by_id(self, columns: str, ids: Iterable[int], where: str = "") -> Iterator[Any]:
        """`columns` of this user's entries among `ids` (and matching `where`), a few queries
        for any number of ids. "+user_id" makes SQLite look each id up directly instead of
        scanning the user's index (4.4 s against 0.13 s for 200k ids)."""
        for chunk in chunks(list(dict.fromkeys(ids))):
            yield from self.conn.execute(
                f"SELECT {columns} FROM entries WHERE +user_id = ? {where} "
                f"AND id IN ({marks(chunk)})",
                [self.user_id, *chunk],
            )

    def counts(self, column: str) -> dict[str, int]:
        """How many entries have each value of `column` (status, layer, realm, audience)."""
        rows = self.conn.execute(
            f"SELECT {column}, count(*) FROM entries WHERE user_id = ? "
            f"GROUP BY {column} ORDER BY {column}",
            [self.user_id],
        )
        return {r[0]: r[1] for r in rows}

    def live_unmerged(self) -> list[dict[str, Any]]:
        """id, content, ts, layer and status of every live entry not merged away, by id."""
        rows = self.conn.execute(
            "SELECT id, content, ts, layer, status FROM entries WHERE user_id = ? "
            f"AND merged_into IS NULL AND status IN {LIVE} ORDER BY id",
            [self.user_id],
        )
        return [dict(r) for r in rows]

    def active_in_layer(self, layer: str) -> list[tuple[int, float, str | None]]:
        """(id, importance, last used or else own or else stored time) of the layer's active
        entries: what eviction ranks on."""
        rows = self.conn.execute(
            "SELECT id, importance, coalesce(last_used_at, ts, created_at) FROM entries "
            "WHERE user_id = ? AND layer = ? AND status = 'active'",
            [self.user_id, layer],
        )
        return [(r[0], r[1], r[2]) for r in rows]

    # -- what a context block may use ----------------------------------------------------------

    def _visible(self, v: Visible, prefix: str = "") -> tuple[str, list[Any]]:
        p = prefix
        where = (
            f"{p}user_id = ? AND {p}status = 'active' AND {p}merged_into IS NULL "
            f"AND ({p}expires_at IS NULL OR {p}expires_at > ?)"
        )
        if not v.private:
            where += f" AND {p}audience <> 'private'"
        if not v.roleplay:
            where += f" AND {p}realm <> 'fictional'"
        return where, [self.user_id, v.now]

    @staticmethod
    def _unsure(u: Unsure, prefix: str = "") -> tuple[str, list[Any]]:
        p = prefix
        sql = (
            f"({p}layer IN ({marks(u.layers)}) OR ({p}layer IN ({marks(u.fixed)}) "
            f"AND {p}confidence < ?))"
        )
        return sql, [*u.layers, *u.fixed, u.below]

    def visible_in_layer(
        self, v: Visible, layer: str, min_confidence: float, limit: int
    ) -> list[dict[str, Any]]:
        """The layer's visible entries sure enough of their layer, most important first."""
        where, params = self._visible(v)
        rows = self.conn.execute(
            f"SELECT * FROM entries WHERE {where} AND layer = ? "
            "AND (confidence IS NULL OR confidence >= ?) "
            "ORDER BY importance DESC, ts DESC, id LIMIT ?",
            [*params, layer, min_confidence, limit],
        )
        return [dict(r) for r in rows]

    def visible_matching(
        self, index: str, expression: str, v: Visible, u: Unsure, limit: int
    ) -> list[dict[str, Any]]:
        """Visible retrieval entries the full-text `index` matches, best (BM25) first."""
        where, params = self._visible(v, "e.")
        unsure, more = self._unsure(u, "e.")
        rows = self.conn.execute(
            f"SELECT e.* FROM {index} f JOIN entries e ON e.id = f.rowid "
            f"WHERE {index} MATCH ? AND {where} AND {unsure} ORDER BY bm25({index}) LIMIT ?",
            [expression, *params, *more, limit],
        )
        return [dict(r) for r in rows]

    def visible_newest(self, v: Visible, u: Unsure, limit: int) -> list[dict[str, Any]]:
        """The last stored `limit` visible retrieval entries, newest first."""
        where, params = self._visible(v)
        unsure, more = self._unsure(u)
        rows = self.conn.execute(
            f"SELECT * FROM entries WHERE {where} AND {unsure} ORDER BY id DESC LIMIT ?",
            [*params, *more, limit],
        )
        return [dict(r) for r in rows]

    # -- writes --------------------------------------------------------------------------------

    def add(self, rows: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Insert new entries (batched by column set); return norm_hash -> id for all of them.

        A hash the user already has is left alone (a concurrent import got there first) and its
        existing id is returned, so callers never create a second entry for the same text.
        Call inside `Store.transaction()`: ids are handed out from max(id) under its lock.
        """
        now = now_iso()
        # Ids follow the input order (or are given, from next_id()). Left to SQLite they
        # would follow the batches, and a dated note between two facts (one more column) would
        # be numbered after both.
        next_id = self.next_id()
        groups: dict[tuple[str, ...], list[tuple[Any, ...]]] = {}
        ids: dict[str, int] = {}
        for offset, fields in enumerate(rows):
            row = {"id": next_id + offset, "created_at": now, "updated_at": now, **fields}
            groups.setdefault(tuple(row), []).append((self.user_id, *row.values()))
            ids.setdefault(row["norm_hash"], row["id"])
        before = self.conn.total_changes
        for cols, values in groups.items():
            sql = (
                f"INSERT INTO entries (user_id, {','.join(cols)}) "
                f"VALUES (?, {marks(cols)}) "
                "ON CONFLICT (user_id, norm_hash) DO NOTHING"
            )
            self.conn.executemany(sql, _bound(values, cols.index("content") + 1))
        if self.conn.total_changes - before == len(ids):
            return ids  # every row went in (the usual case): no need to look them up
        return self.ids_by_hash(ids)

    def next_id(self) -> int:
        """The id the next new entry gets (stable while the caller holds the transaction)."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0])

    def update(
        self, entry_id: int, action: str, values: dict[str, Any], who: str, note: str | None
    ) -> int:
        """Change fields of one entry and log it (caller holds the transaction); the change."""
        _check_editable(values)
        # Only the fields that change are read (supersede calls this once per fact it
        # retires: a whole row read and turned into a dict each time was a fifth of it).
        row = self.conn.execute(
            f"SELECT {', '.join(values)} FROM entries WHERE id = ? AND user_id = ?",
            [entry_id, self.user_id],
        ).fetchone()
        if row is None:
            raise EntryNotFound(f"no entry {entry_id} for user {self.user_id!r}")
        before = dict(zip(values, row, strict=True))
        sets = ", ".join(f"{k} = ?" for k in values)
        self.conn.execute(
            f"UPDATE entries SET {sets}, updated_at = ? WHERE id = ? AND user_id = ?",
            [*values.values(), now_iso(), entry_id, self.user_id],
        )
        return self.log.record(entry_id, action, before, values, who, note)

    def update_many(
        self, action: str, updates: Sequence[Update], who: str, at: str | None = None
    ) -> int:
        """`update` for many entries at once: (entry_id, values, note) each.

        The fields before are read, the entries updated and the changes logged a few statements
        per 500 entries (executemany), so archiving tens of thousands costs no round trip each.
        `at` (default now) is both the entries' updated_at and the changes' time. Caller holds
        the transaction; an id that is not this user's raises EntryNotFound (roll it back).
        """
        by_fields: dict[tuple[str, ...], list[Update]] = {}
        for item in updates:
            by_fields.setdefault(tuple(item[1]), []).append(item)
        at = at or now_iso()
        for fields, items in by_fields.items():
            _check_editable(fields)
            columns = ", ".join(("id", *fields))
            before = {r[0]: dict(zip(fields, r[1:], strict=True))
                      for r in self.by_id(columns, [i for i, _, _ in items])}  # fmt: skip
            missing = next((i for i, _, _ in items if i not in before), None)
            if missing is not None:
                raise EntryNotFound(f"no entry {missing} for user {self.user_id!r}")
            sets = ", ".join(f"{k} = ?" for k in fields)
            self.conn.executemany(
                f"UPDATE entries SET {sets}, updated_at = ? WHERE id = ? AND user_id = ?",
                [(*values.values(), at, i, self.user_id) for i, values, _ in items],
            )
            self.log.record_many(
                ((i, action, before[i], values, note) for i, values, note in items), who, at
            )
        return len(updates)

    def amend_new(self, rows: Sequence[dict[str, Any]]) -> None:
        """Set fields of entries this transaction wrote, before anything used them (so no
        change to log): each row an `id` and the same other fields."""
        if not rows:
            return
        fields = [k for k in rows[0] if k != "id"]
        if not set(fields) <= _AMENDABLE:  # never a status: every status change is logged
            raise UsageError(f"cannot amend {', '.join(sorted(set(fields) - _AMENDABLE))}")
        self.conn.executemany(
            f"UPDATE entries SET {', '.join(f'{k} = :{k}' for k in fields)} "
            "WHERE user_id = :user_id AND id = :id",
            [{**row, "user_id": self.user_id} for row in rows],
        )

    def follow_merge(self, dup: int, into: int) -> None:
        """Entries merged into `dup` earlier now point at `into`, where it went."""
        self.conn.execute(
            "UPDATE entries SET merged_into = ? WHERE merged_into = ? AND user_id = ?",
            [into, dup, self.user_id],
        )

    def mark_used(self, ids: Sequence[int], at: str) -> None:
        self.conn.execute(
            f"UPDATE entries SET last_used_at = ? WHERE user_id = ? AND id IN ({marks(ids)})",
            [at, self.user_id, *ids],
        )

    def remove(self, entry_id: int) -> None:
        """Delete the entry's row (hard delete; its sources, links and signature go first).

        Entries merged into it are unlinked; a row the caller has not archived first would
        leave a supersede chain pointing at nothing (memctl.manage.delete does)."""
        params = [entry_id, self.user_id]
        self.conn.execute(
            "UPDATE entries SET merged_into = NULL WHERE merged_into = ? AND user_id = ?", params
        )
        self.conn.execute("DELETE FROM entries WHERE id = ? AND user_id = ?", params)

    def retire(self, entry_id: int) -> None:
        """Archive without a change of its own: only for an entry about to be removed, whose
        hard delete is the change logged."""
        self.conn.execute(
            "UPDATE entries SET status = 'archived' WHERE id = ? AND user_id = ?",
            [entry_id, self.user_id],
        )


# What the import settles about entries it just wrote: the file's realm and the fact it implies.
_AMENDABLE = FACT_FIELDS | {"realm", "audience"}


def _bound(rows: list[tuple[Any, ...]], text: int) -> Iterator[tuple[Any, ...]]:
    """The rows as sqlite3 binds them, one at a time, each with a copy of its text (column
    `text`; models.unshared): an import keeps its entries' texts after writing them."""
    for row in rows:
        yield (*row[:text], unshared(row[text]), *row[text + 1 :])


def _check_editable(fields: Iterable[str]) -> None:
    bad = set(fields) - EDITABLE
    if bad:
        raise UsageError(f"cannot change {sorted(bad)[0]}")


class AllEntries:
    """The statements consolidation runs over every user's entries at once."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def max_id(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0])

    def expired(self, now: str, note: str) -> list[tuple[str, int, str]]:
        """(user, id, expires_at) of live entries expired by `now`, but not those a person
        brought back after a change "expire" with the note `note` + that same expires_at."""
        rows = self.conn.execute(
            "SELECT user_id, id, expires_at FROM entries AS e "
            "WHERE expires_at IS NOT NULL AND expires_at <= ? "
            "AND status IN ('active', 'pending_review') AND NOT EXISTS (SELECT 1 FROM changes "
            "AS c WHERE c.user_id = e.user_id AND c.entry_id = e.id AND c.action = 'expire' "
            "AND c.note = ? || e.expires_at) ORDER BY user_id, id",
            [now, note],
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def active_per_layer(self) -> list[tuple[str, str, int]]:
        """(user, layer, count) of active entries."""
        rows = self.conn.execute(
            "SELECT user_id, layer, count(*) FROM entries WHERE status = 'active' "
            "GROUP BY user_id, layer"
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def new(
        self, since: int, upto: int, *, unsigned: bool = False, with_fact: bool = False
    ) -> dict[str, list[int]]:
        """Ids of live, unmerged entries with since < id <= upto, per user (an index range
        scan); `unsigned`: only those without a dedupe signature, `with_fact`: stating one."""
        extra = ""
        if unsigned:
            extra += " AND id NOT IN (SELECT entry_id FROM dedupe_signatures)"
        if with_fact:
            extra += " AND fact_key IS NOT NULL"
        found: dict[str, list[int]] = {}
        rows = self.conn.execute(
            "SELECT user_id, id FROM entries WHERE id > ? AND id <= ? AND merged_into IS NULL "
            f"AND status IN ('active', 'pending_review'){extra} ORDER BY id",
            [since, upto],
        )
        for user_id, entry_id in rows:
            found.setdefault(user_id, []).append(entry_id)
        return found

    def decay(
        self, *, floor: float, factor: float, now: str, again: str, old: str, batch: int
    ) -> int:
        """Lower the importance of up to `batch` active entries never used, stored before
        `old`, and never decayed or last decayed before `again`; how many."""
        # Two index ranges (never decayed; decayed long enough ago) rather than one OR, which
        # made SQLite walk every unused active entry on every run (entries_undecayed).
        due = (
            "SELECT id FROM entries WHERE last_used_at IS NULL AND status = 'active' "
            "AND decayed_at {} AND created_at <= :old"
        )
        cur = self.conn.execute(
            "UPDATE entries SET importance = max(:floor, importance * :factor), decayed_at = :now "
            f"WHERE id IN ({due.format('IS NULL')} UNION ALL {due.format('<= :again')} "
            "LIMIT :batch)",
            {"floor": floor, "factor": factor, "now": now, "again": again, "old": old,
             "batch": batch},
        )  # fmt: skip
        return cur.rowcount
