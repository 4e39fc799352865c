"""The full-text index (SQLite FTS5 over jieba-segmented text, ranked by BM25).

Two FTS5 tables, rowid = entries.id: `entries_fts` holds every indexed entry (for `memctl
search`, any status), `entries_fts_active` only the active ones (for context retrieval, which
must stay fast when most of a big store is archived; triggers on entries.status keep it in
step). Both are filled lazily — by consolidate, context and search — from `meta.fts_upto` (the
highest entry id indexed so far), so imports never pay for segmentation. Edits re-index their
entry directly.
"""

from __future__ import annotations

from typing import Any

from memctl.errors import UsageError
from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES
from memctl.segment import SCHEME, query_words, words
from memctl.store import Store, UserStore

_BATCH = 2000

ALL = "entries_fts"
ACTIVE = "entries_fts_active"


def sync(store: Store, limit: int | None = None) -> int:
    """Index entries added since the last sync (at most about `limit`); returns how many.

    Segmentation happens before the write transaction, so imports wait only for the insert.
    An index made by another segmenter is emptied and refilled, but not by a bounded call:
    on a big store that takes minutes, which is consolidate's job, not a context call's.
    """
    if _meta(store, "fts_scheme") != SCHEME:
        if limit is not None and _upto(store) > 0:
            return 0
        _rebuild(store)
    done = 0
    while limit is None or done < limit:
        upto = _upto(store)
        rows = store.conn.execute(
            "SELECT id, content FROM entries WHERE id > ? ORDER BY id LIMIT ?",
            [upto, _BATCH if limit is None else min(_BATCH, limit - done)],
        ).fetchall()
        if not rows:
            break
        bodies = [(r[0], " ".join(words(r[1]))) for r in rows]
        with store.transaction():
            if _upto(store) != upto:  # another process indexed this batch meanwhile
                continue
            store.conn.executemany(
                f"INSERT OR REPLACE INTO {ALL} (rowid, body) VALUES (?, ?)", bodies
            )
            # Status is read now, under the write lock: a change after this is the triggers'.
            store.conn.execute(
                f"INSERT OR REPLACE INTO {ACTIVE} (rowid, body) "
                f"SELECT f.rowid, f.body FROM {ALL} f JOIN entries e ON e.id = f.rowid "
                "WHERE f.rowid > ? AND f.rowid <= ? AND e.status = 'active'",
                [upto, rows[-1][0]],
            )
            _set_upto(store, rows[-1][0])
        done += len(rows)
    return done


def reindex(store: Store, entry_id: int, content: str) -> None:
    """Re-index one entry after its content changed (caller holds the transaction)."""
    if entry_id <= _upto(store):
        body = " ".join(words(content))
        store.conn.execute(
            f"INSERT OR REPLACE INTO {ALL} (rowid, body) VALUES (?, ?)", [entry_id, body]
        )
        store.conn.execute(
            f"INSERT OR REPLACE INTO {ACTIVE} (rowid, body) "
            "SELECT id, ? FROM entries WHERE id = ? AND status = 'active'",
            [body, entry_id],
        )


def match_expression(query: str) -> str | None:
    """An FTS5 OR-query of the query's terms, each quoted (so user text is never FTS syntax)."""
    terms = dict.fromkeys(query_words(query))
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def search(
    user: UserStore,
    query: str,
    *,
    statuses: tuple[str, ...] = (),
    layers: tuple[str, ...] = (),
    limit: int = 20,
    audiences: tuple[str, ...] = (),
    realms: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Entries of this user matching `query`, best first (BM25); each filter, when given, keeps
    only entries with one of its values."""
    filters = {"status": statuses, "layer": layers, "audience": audiences, "realm": realms}
    for name, given in filters.items():
        known = _KNOWN[name]
        for value in given:
            if value not in known:
                raise UsageError(f"unknown {name} {value!r} (one of {', '.join(known)})")
    expression = match_expression(query)
    if expression is None:
        return []
    table = ACTIVE if statuses == ("active",) else ALL
    sql = (
        f"SELECT e.*, bm25({table}) AS score FROM {table} "
        f"JOIN entries e ON e.id = {table}.rowid "
        f"WHERE {table} MATCH ? AND e.user_id = ?"
    )
    params: list[Any] = [expression, user.user_id]
    for name, given in filters.items():
        if given:
            sql += f" AND e.{name} IN ({','.join('?' * len(given))})"
            params += given
    sql += " ORDER BY score LIMIT ?"
    params.append(limit)
    rows = user.conn.execute(sql, params).fetchall()
    return [{k: r[k] for k in r.keys() if k != "user_id"} for r in rows]  # noqa: SIM118


_KNOWN = {"status": STATUSES, "layer": LAYERS, "audience": AUDIENCES, "realm": REALMS}


def _rebuild(store: Store) -> None:
    """Empty the index (made by another segmenter, or never) so sync() refills it."""
    with store.transaction():
        if _meta(store, "fts_scheme") != SCHEME:  # another process may have just done it
            store.conn.execute(f"DELETE FROM {ALL}")
            store.conn.execute(f"DELETE FROM {ACTIVE}")
            _set_meta(store, "fts_upto", "0")
            _set_meta(store, "fts_scheme", SCHEME)


def _upto(store: Store) -> int:
    return int(_meta(store, "fts_upto") or 0)


def _set_upto(store: Store, value: int) -> None:
    _set_meta(store, "fts_upto", str(value))


def _meta(store: Store, key: str) -> str | None:
    row = store.conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def _set_meta(store: Store, key: str, value: str) -> None:
    store.conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )
