"""`memctl status`: is the store healthy? Runs, counts, pending reviews, size, warnings."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from memctl import lock
from memctl.store import UserStore


def status(user: UserStore, stale_hours: float, now: datetime | None = None) -> dict[str, Any]:
    conn = user.conn
    moment = now or datetime.now(UTC)
    runs = [
        {**dict(r), "counts": orjson.loads(r["counts"]) if r["counts"] else {}}
        for r in conn.execute(
            "SELECT id, kind, started_at, finished_at, status, dry_run, counts, error FROM runs "
            "ORDER BY id DESC LIMIT 5"
        )
    ]
    imports = [
        dict(r)
        for r in conn.execute(
            "SELECT id, started_at, finished_at, files, records, added, skipped, rejected "
            "FROM import_runs WHERE user_id = ? ORDER BY id DESC LIMIT 5",
            [user.user_id],
        )
    ]
    counts: dict[str, dict[str, int]] = {}
    for column in ("status", "layer", "realm", "audience"):
        counts[column] = {
            r[0]: r[1]
            for r in conn.execute(
                f"SELECT {column}, count(*) FROM entries WHERE user_id = ? "
                f"GROUP BY {column} ORDER BY {column}",
                [user.user_id],
            )
        }
    size = sum(
        os.path.getsize(p) for p in (user.store.path, f"{user.store.path}-wal") if os.path.exists(p)
    )
    warnings = []
    real = [r for r in runs if not r["dry_run"]]
    if real and real[0]["status"] == "error":
        warnings.append(f"last run #{real[0]['id']} failed: {real[0]['error']}")
    if real and real[0]["status"] == "running" and lock.holder(user.store.path) is None:
        warnings.append(
            f"run #{real[0]['id']} did not finish: its process is gone "
            "(the next run marks it failed)"
        )
    last_ok = conn.execute(
        "SELECT max(finished_at) FROM runs WHERE status = 'ok' AND dry_run = 0"
    ).fetchone()[0]
    if last_ok is None:
        warnings.append("consolidation has never completed on this database")
    else:
        finished = datetime.fromisoformat(last_ok.replace("Z", "+00:00"))
        if moment - finished > timedelta(hours=stale_hours):
            warnings.append(f"last successful consolidation is stale ({last_ok})")
    return {
        "user": user.user_id,
        "database": user.store.path,
        "size_bytes": size,
        "entries": sum(counts["status"].values()),
        "by_status": counts["status"],
        "by_layer": counts["layer"],
        "by_realm": counts["realm"],
        "by_audience": counts["audience"],
        "pending_review": counts["status"].get("pending_review", 0),
        "runs": runs,
        "imports": imports,
        "warnings": warnings,
    }
