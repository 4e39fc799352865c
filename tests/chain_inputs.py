"""One fact key stated many times with dated values, written straight into a store: shared by
tests/test_supersede_chains.py and tests/bench/bench_supersede.py."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memctl.store import Store

KEY = "user|lives_in"


def dated_values(n: int, seed: int, shuffled: bool, repeats: int = 0) -> list[tuple[str, str]]:
    """(value, ts) pairs: n days in a row, each a different city (or one of `repeats` cities
    said again, when repeats > 0), in time order or shuffled."""
    rng = random.Random(seed)
    start = datetime(2020, 1, 1, tzinfo=UTC)
    rows = []
    for day in range(n):
        value = f"city{rng.randrange(repeats)}" if repeats else f"city{day}"
        ts = (start + timedelta(hours=day * 7 + rng.randrange(5))).isoformat()
        rows.append((value, ts))
    if shuffled:
        rng.shuffle(rows)
    return rows


def fill(path: Path, rows: list[tuple[str, str]]) -> list[int]:
    """A store at `path` with one active, certain entry per row; returns their ids."""
    store = Store.open(path)
    try:
        user = store.for_user("alice")
        with store.transaction():
            entries: list[dict[str, Any]] = [
                {"content": f"I live in {value} ({n})", "norm_hash": f"h{n}", "status": "active",
                 "realm": "real", "layer": "profile", "ts": ts, "fact_key": KEY,
                 "fact_value": value, "fact_certain": 1}
                for n, (value, ts) in enumerate(rows)
            ]  # fmt: skip
            ids = list(user.add_entries(entries).values())
    finally:
        store.close()
    return ids


def outcome(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Statuses, links and the change log, without the times of the decisions."""
    store = Store.open(path)
    try:
        conn = store.conn
        return {
            "entries": [tuple(r) for r in conn.execute(
                "SELECT id, status FROM entries ORDER BY id")],
            "links": [tuple(r) for r in conn.execute(
                "SELECT new_id, old_id, reason FROM supersedes ORDER BY new_id, old_id")],
            "changes": [tuple(r) for r in conn.execute(
                "SELECT entry_id, action, before, after, note FROM changes ORDER BY id")],
        }  # fmt: skip
    finally:
        store.close()
