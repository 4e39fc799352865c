"""`memctl consolidate`: keep a store clean, safely, from cron.

Each step is idempotent and runs in its own transaction; a failing step rolls back (the
database is left as before that step), marks the run `error` with the message, and stops the
run. Every run is logged in `runs`; only a run that finished every step is `ok`. The caller
holds the per-database lock (memctl.lock) so two schedulers never run it at once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import orjson

from memctl import search
from memctl.errors import ConfigError, MemctlError
from memctl.models import LAYERS
from memctl.store import Store, now_iso


class StepFailed(MemctlError):
    """A consolidation step failed; the run is recorded as `error`."""


@dataclass(frozen=True)
class Settings:
    steps: tuple[str, ...]
    caps: dict[str, int]
    decay_factor: float
    decay_after_days: float
    decay_every_days: float
    decay_floor: float
    decay_batch: int
    recency_half_days: float
    stale_hours: float


def load_settings(overrides: dict[str, Any] | None = None) -> Settings:
    raw = tomllib.loads(resources.files("memctl.data").joinpath("consolidate.toml").read_text())
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(raw.get(key), dict):
            raw[key].update(value)
        else:
            raw[key] = value
    try:
        steps = tuple(raw["steps"])
        unknown = [s for s in steps if s not in STEPS]
        if unknown:
            raise ConfigError(f"steps: unknown step {unknown[0]!r} (known: {', '.join(STEPS)})")
        caps = {layer: int(n) for layer, n in raw["caps"].items()}
        bad = [layer for layer in caps if layer not in LAYERS]
        if bad:
            raise ConfigError(f"caps.{bad[0]}: not a layer ({', '.join(LAYERS)})")
        return Settings(
            steps=steps,
            caps=caps,
            decay_factor=float(raw["decay"]["factor"]),
            decay_after_days=float(raw["decay"]["after_days"]),
            decay_every_days=float(raw["decay"]["every_days"]),
            decay_floor=float(raw["decay"]["floor"]),
            decay_batch=int(raw["decay"]["batch"]),
            recency_half_days=float(raw["recency"]["half_days"]),
            stale_hours=float(raw["status"]["stale_hours"]),
        )
    except KeyError as exc:
        raise ConfigError(f"consolidate settings: missing key {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"consolidate settings: {exc}") from None


@dataclass
class RunContext:
    store: Store
    settings: Settings
    now: datetime
    since_id: int  # entries with a larger id arrived after the last successful run
    upto_id: int

    @property
    def now_iso(self) -> str:
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def days_ago(self, days: float) -> str:
        moment = self.now - timedelta(days=days)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


Step = Callable[[RunContext], int]


def step_expire(ctx: RunContext) -> int:
    """Archive entries whose expires_at has passed."""
    cur = ctx.store.conn.execute(
        "UPDATE entries SET status = 'archived', updated_at = ? "
        "WHERE expires_at IS NOT NULL AND expires_at <= ? "
        "AND status IN ('active', 'pending_review')",
        [ctx.now_iso, ctx.now_iso],
    )
    return cur.rowcount


def step_caps(ctx: RunContext) -> int:
    """Archive the lowest importance x recency entries of any user layer over its cap."""
    conn = ctx.store.conn
    over = conn.execute(
        "SELECT user_id, layer, count(*) FROM entries WHERE status = 'active' "
        "GROUP BY user_id, layer"
    ).fetchall()
    archived = 0
    for user_id, layer, count in over:
        cap = ctx.settings.caps.get(layer)
        if cap is None or count <= cap:
            continue
        rows = conn.execute(
            "SELECT id, importance, coalesce(last_used_at, ts, created_at) FROM entries "
            "WHERE user_id = ? AND layer = ? AND status = 'active'",
            [user_id, layer],
        ).fetchall()
        rows.sort(key=lambda r: (_score(ctx, r[1], r[2]), r[0]))
        victims = [r[0] for r in rows[: count - cap]]
        for chunk in range(0, len(victims), 500):
            ids = victims[chunk : chunk + 500]
            conn.execute(
                f"UPDATE entries SET status = 'archived', updated_at = ? "
                f"WHERE id IN ({','.join('?' * len(ids))})",
                [ctx.now_iso, *ids],
            )
        archived += len(victims)
    return archived


def _score(ctx: RunContext, importance: float, when: str | None) -> float:
    age_days = 365.0
    if when:
        try:
            moment = datetime.fromisoformat(when.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            age_days = max(0.0, (ctx.now - moment).total_seconds() / 86400)
        except ValueError:
            pass
    return float(importance) / (1 + age_days / ctx.settings.recency_half_days)


def step_decay(ctx: RunContext) -> int:
    """Lower the importance of entries never used, at most once per `every_days`."""
    s = ctx.settings
    cur = ctx.store.conn.execute(
        "UPDATE entries SET importance = max(?, importance * ?), decayed_at = ? "
        "WHERE id IN (SELECT id FROM entries WHERE last_used_at IS NULL AND status = 'active' "
        "AND (decayed_at IS NULL OR decayed_at <= ?) AND created_at <= ? LIMIT ?)",
        [
            s.decay_floor,
            s.decay_factor,
            ctx.now_iso,
            ctx.days_ago(s.decay_every_days),
            ctx.days_ago(s.decay_after_days),
            s.decay_batch,
        ],
    )
    return cur.rowcount


def step_index(ctx: RunContext) -> int:
    """Bring the full-text index up to date (commits in batches of its own)."""
    return search.sync(ctx.store)


def step_optimize(ctx: RunContext) -> int:
    """Checkpoint the WAL (TRUNCATE) and let SQLite refresh its statistics."""
    ctx.store.conn.execute("PRAGMA optimize")
    return 0


STEPS: dict[str, Step] = {
    "expire": step_expire,
    "caps": step_caps,
    "decay": step_decay,
    "index": step_index,
    "optimize": step_optimize,
}
# Steps that manage their own transactions (or cannot run inside one).
_OWN_TRANSACTION = {"index", "optimize"}


@dataclass
class RunReport:
    run_id: int | None
    status: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return vars(self) | {"seconds": round(self.seconds, 3)}


def consolidate(
    store: Store,
    settings: Settings | None = None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
    kind: str = "consolidate",
) -> RunReport:
    settings = settings or load_settings()
    started = datetime.now(UTC)
    conn = store.conn
    with store.transaction():
        last = conn.execute(
            "SELECT max(upto_entry_id) FROM runs WHERE status = 'ok' AND dry_run = 0"
        ).fetchone()[0]
        upto = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
        run_id = conn.execute(
            "INSERT INTO runs (kind, started_at, status, dry_run, upto_entry_id) "
            "VALUES (?, ?, 'running', ?, ?)",
            [kind, now_iso(), int(dry_run), upto],
        ).lastrowid
    ctx = RunContext(store, settings, now or started, last or 0, upto)
    report = RunReport(run_id, "ok", dry_run)
    for name in settings.steps:
        try:
            if name in _OWN_TRANSACTION:
                report.counts[name] = STEPS[name](ctx)
            else:
                with store.transaction():
                    report.counts[name] = STEPS[name](ctx)
        except Exception as exc:  # noqa: BLE001 - any failure must be recorded, not lost
            report.status = "error"
            report.error = f"step {name}: {exc}"
            break
    report.seconds = (datetime.now(UTC) - started).total_seconds()
    with store.transaction():
        conn.execute(
            "UPDATE runs SET finished_at = ?, status = ?, counts = ?, error = ? WHERE id = ?",
            [now_iso(), report.status, orjson.dumps(report.counts).decode(), report.error, run_id],
        )
    if "optimize" in settings.steps and report.status == "ok" and not dry_run:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if report.status == "error":
        raise StepFailed(report.error or "consolidation failed")
    return report
