"""`memctl status`: is the store healthy? Runs, counts, pending reviews, size, warnings."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

from memctl import lock
from memctl.store import UserStore


def status(user: UserStore, stale_hours: float, now: datetime | None = None) -> dict[str, Any]:
    moment = now or datetime.now(UTC)
    runs = user.store.runs.recent(5)
    imports = user.imports.recent(5)
    counts = {column: user.entries.counts(column)
              for column in ("status", "layer", "realm", "audience")}  # fmt: skip
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
    last_ok = user.store.runs.last_ok_at()
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
