"""The full-text index (SQLite FTS5 over jieba-segmented text, ranked by BM25).

Two FTS5 tables, rowid = entries.id: `entries_fts` holds every indexed entry (for `memctl
search`, any status), `entries_fts_active` only the active ones (for context retrieval, which
must stay fast when most of a big store is archived; triggers on entries.status keep it in
step). Both are filled lazily — by consolidate, context and search, each before it reads —
from `meta.fts_upto` (the highest entry id indexed so far), so imports never pay for
segmentation. Edits re-index their entry directly. The statements are memctl/store/fts.py's;
this module holds the rules: when to segment, rebuild and re-index, and what a query matches.
"""

from __future__ import annotations

from typing import Any

from memctl.errors import UsageError
from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES
from memctl.segment import SCHEME, query_words, words
from memctl.store import Store, UserStore
from memctl.store.fts import ACTIVE as ACTIVE  # context's query and the tests name the tables
from memctl.store.fts import ALL as ALL
from memctl.store.fts import Index, UserIndex

_BATCH = 2000


def sync(store: Store, limit: int | None = None) -> int:
    """Index entries added since the last sync (at most about `limit`); returns how many.

    Segmentation happens before the write transaction, so imports wait only for the insert.
    An index made by another segmenter is emptied and refilled, but not by a bounded call:
    on a big store that takes minutes, which is consolidate's job, not a context call's.
    """
    index = Index(store)
    if index.scheme() != SCHEME:
        if limit is not None and index.upto() > 0:
            return 0
        _rebuild(store)
    done = 0
    while limit is None or done < limit:
        upto = index.upto()
        rows = index.unindexed(upto, _BATCH if limit is None else min(_BATCH, limit - done))
        if not rows:
            break
        bodies = [(entry_id, " ".join(words(content))) for entry_id, content in rows]
        with store.transaction():
            if index.upto() != upto:  # another process indexed this batch meanwhile
                continue
            # Status is read now, under the write lock: a change after this is the triggers'.
            index.add(upto, bodies)
        done += len(rows)
    return done


def reindex(store: Store, entry_id: int, content: str) -> None:
    """Re-index one entry after its content changed (caller holds the transaction)."""
    index = Index(store)
    if entry_id <= index.upto():
        index.replace(entry_id, " ".join(words(content)))


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
    only entries with one of its values. Entries added since the last search are indexed
    first."""
    filters = {"status": statuses, "layer": layers, "audience": audiences, "realm": realms}
    for name, given in filters.items():
        known = _KNOWN[name]
        for value in given:
            if value not in known:
                raise UsageError(f"unknown {name} {value!r} (one of {', '.join(known)})")
    sync(user.store)
    expression = match_expression(query)
    if expression is None:
        return []
    rows = UserIndex(user).search(expression, filters, limit, active_only=statuses == ("active",))
    return [{k: r[k] for k in r.keys() if k != "user_id"} for r in rows]  # noqa: SIM118


_KNOWN = {"status": STATUSES, "layer": LAYERS, "audience": AUDIENCES, "realm": REALMS}


def _rebuild(store: Store) -> None:
    """Empty the index (made by another segmenter, or never) so sync() refills it."""
    with store.transaction():
        index = Index(store)
        if index.scheme() != SCHEME:  # another process may have just done it
            index.clear(SCHEME)
