"""The full-text index (SQLite FTS5 over jieba-segmented text, ranked by BM25).

The index is filled lazily — by consolidate, context and search — from `meta.fts_upto` (the
highest entry id indexed so far), so imports never pay for segmentation. Edits re-index their
entry directly.
"""

from __future__ import annotations

from typing import Any

from memctl.segment import words
from memctl.store import Store, UserStore

_BATCH = 2000


def sync(store: Store) -> int:
    """Index every entry added since the last sync; returns how many were indexed."""
    done = 0
    while True:
        upto = _upto(store)
        rows = store.conn.execute(
            "SELECT id, content FROM entries WHERE id > ? ORDER BY id LIMIT ?", [upto, _BATCH]
        ).fetchall()
        if not rows:
            return done
        with store.transaction():
            if _upto(store) != upto:  # another process indexed this batch meanwhile
                continue
            store.conn.executemany(
                "INSERT OR REPLACE INTO entries_fts (rowid, body) VALUES (?, ?)",
                [(r[0], " ".join(words(r[1]))) for r in rows],
            )
            _set_upto(store, rows[-1][0])
        done += len(rows)


def reindex(store: Store, entry_id: int, content: str) -> None:
    """Re-index one entry after its content changed (caller holds the transaction)."""
    if entry_id <= _upto(store):
        store.conn.execute(
            "INSERT OR REPLACE INTO entries_fts (rowid, body) VALUES (?, ?)",
            [entry_id, " ".join(words(content))],
        )


def match_expression(query: str) -> str | None:
    """An FTS5 OR-query of the query's terms, each quoted (so user text is never FTS syntax)."""
    terms = dict.fromkeys(words(query))
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
) -> list[dict[str, Any]]:
    """Entries of this user matching `query`, best first (BM25)."""
    expression = match_expression(query)
    if expression is None:
        return []
    sql = (
        "SELECT e.*, bm25(entries_fts) AS score FROM entries_fts "
        "JOIN entries e ON e.id = entries_fts.rowid "
        "WHERE entries_fts MATCH ? AND e.user_id = ?"
    )
    params: list[Any] = [expression, user.user_id]
    if statuses:
        sql += f" AND e.status IN ({','.join('?' * len(statuses))})"
        params += statuses
    if layers:
        sql += f" AND e.layer IN ({','.join('?' * len(layers))})"
        params += layers
    sql += " ORDER BY score LIMIT ?"
    params.append(limit)
    rows = user.conn.execute(sql, params).fetchall()
    return [{k: r[k] for k in r.keys() if k != "user_id"} for r in rows]  # noqa: SIM118


def _upto(store: Store) -> int:
    row = store.conn.execute("SELECT value FROM meta WHERE key = 'fts_upto'").fetchone()
    return int(row[0]) if row else 0


def _set_upto(store: Store, value: int) -> None:
    store.conn.execute(
        "INSERT INTO meta (key, value) VALUES ('fts_upto', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [str(value)],
    )
