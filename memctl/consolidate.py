"""`memctl consolidate`: keep a store clean, safely, from cron.

Each step is idempotent and runs in its own transaction; a failing step rolls back (the
database is left as before that step), marks the run `error` with the message, and stops the
run. Every run is logged in `runs`; only a run that finished every step is `ok`. The caller
holds the per-database lock (memctl.lock) so two schedulers never run it at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import orjson

from memctl import changes, search
from memctl.errors import MemctlError
from memctl.lazy import lazy
from memctl.settings import ConsolidateSettings as Settings
from memctl.settings import consolidate_settings as load_settings
from memctl.store import Store, chunks, now_iso

if TYPE_CHECKING:
    from memctl import merge, supersede
else:  # the upkeep steps' engines load when a step runs, not when context reads the settings
    merge, supersede = lazy("memctl.merge"), lazy("memctl.supersede")

INTERRUPTED = "interrupted: the process ended before the run finished"


class StepFailed(MemctlError):
    """A consolidation step failed; the run is recorded as `error`."""


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


# Who consolidation's changes are logged as (`memctl history` shows it).
ACTOR = "memctl"
_EXPIRED = "expired on "


def step_expire(ctx: RunContext) -> int:
    """Archive entries whose expires_at has passed, each a logged change ("expire").

    An entry a person brought back after it expired (`review undo`) is not expired again for
    the same expires_at: the log says it was, and the person overruled it.
    """
    rows = ctx.store.conn.execute(
        "SELECT user_id, id, expires_at FROM entries AS e "
        "WHERE expires_at IS NOT NULL AND expires_at <= ? "
        "AND status IN ('active', 'pending_review') AND NOT EXISTS (SELECT 1 FROM changes AS c "
        "WHERE c.user_id = e.user_id AND c.entry_id = e.id AND c.action = 'expire' "
        "AND c.note = ? || e.expires_at) ORDER BY user_id, id",
        [ctx.now_iso, _EXPIRED],
    )
    by_user: dict[str, list[changes.Update]] = {}
    for user_id, entry_id, expires_at in rows:
        by_user.setdefault(user_id, []).append(
            (entry_id, {"status": "archived"}, _EXPIRED + expires_at)
        )
    return sum(_archive(ctx, user_id, "expire", items) for user_id, items in by_user.items())


def _archive(ctx: RunContext, user_id: str, action: str, items: Sequence[changes.Update]) -> int:
    user = ctx.store.for_user(user_id)
    return changes.update_many(user, action, items, who=ACTOR, at=ctx.now_iso)


def step_caps(ctx: RunContext) -> int:
    """Archive the lowest importance x recency entries of any user layer over its cap, each a
    logged change ("evict").

    An entry evicted before and active again was brought back by a person (`review undo`): it
    is kept, and the next lowest go in its place.
    """
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
        note = f"over the cap of {cap} for layer {layer}"
        victims = _unrestored(ctx, user_id, [r[0] for r in rows], count - cap)
        archived += _archive(ctx, user_id, "evict", [(i, {"status": "archived"}, note)
                                                     for i in victims])  # fmt: skip
    return archived


def _unrestored(ctx: RunContext, user_id: str, ranked: list[int], wanted: int) -> list[int]:
    """The first `wanted` of `ranked` that no person brought back after an eviction (only the
    candidates are looked up: the log of a big store holds hundreds of thousands)."""
    victims: list[int] = []
    start = 0
    while len(victims) < wanted and start < len(ranked):
        batch = ranked[start : start + wanted - len(victims)]
        start += len(batch)
        restored: set[int] = set()
        for ids in chunks(batch):
            restored.update(r[0] for r in ctx.store.conn.execute(
                "SELECT entry_id FROM changes WHERE user_id = ? AND action = 'evict' "
                f"AND entry_id IN ({','.join('?' * len(ids))})",
                [user_id, *ids],
            ))  # fmt: skip
        victims += [i for i in batch if i not in restored]
    return victims


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
    # Two index ranges (never decayed; decayed long enough ago) rather than one OR, which
    # made SQLite walk every unused active entry on every run (entries_undecayed).
    due = (
        "SELECT id FROM entries WHERE last_used_at IS NULL AND status = 'active' "
        "AND decayed_at {} AND created_at <= :old"
    )
    cur = ctx.store.conn.execute(
        "UPDATE entries SET importance = max(:floor, importance * :factor), decayed_at = :now "
        f"WHERE id IN ({due.format('IS NULL')} UNION ALL {due.format('<= :again')} "
        "LIMIT :batch)",
        {
            "floor": s.decay_floor,
            "factor": s.decay_factor,
            "now": ctx.now_iso,
            "again": ctx.days_ago(s.decay_every_days),
            "old": ctx.days_ago(s.decay_after_days),
            "batch": s.decay_batch,
        },
    )
    return cur.rowcount


def step_index(ctx: RunContext) -> int:
    """Bring the full-text index up to date (commits in batches of its own)."""
    return search.sync(ctx.store)


def step_optimize(ctx: RunContext) -> int:
    """Let SQLite refresh its statistics (the WAL is checkpointed once the run is logged)."""
    # Without a limit, ANALYZE of a 1M-entry store reads every index: seconds, not ms.
    ctx.store.conn.execute("PRAGMA analysis_limit = 1000")
    ctx.store.conn.execute("PRAGMA optimize")
    return 0


def _new_by_user(ctx: RunContext, extra: str = "") -> dict[str, list[int]]:
    """Ids of entries added since the last successful run, per user (an index range scan)."""
    found: dict[str, list[int]] = {}
    rows = ctx.store.conn.execute(
        "SELECT user_id, id FROM entries WHERE id > ? AND id <= ? AND merged_into IS NULL "
        f"AND status IN ('active', 'pending_review') {extra} ORDER BY id",
        [ctx.since_id, ctx.upto_id],
    )
    for user_id, entry_id in rows:
        found.setdefault(user_id, []).append(entry_id)
    return found


def step_dedupe(ctx: RunContext) -> int:
    """Near-duplicate check of new entries that import did not already check (no signature)."""
    merged = 0
    unsigned = "AND id NOT IN (SELECT entry_id FROM dedupe_signatures)"
    for user_id, ids in _new_by_user(ctx, unsigned).items():
        user = ctx.store.for_user(user_id)
        entries = [
            {"id": e["id"], "content": e["content"], "ts": e["ts"]}
            for e in (user.entry(i) for i in ids)
        ]
        merged += len(merge.add(user, merge.engine_for(user), entries))
    return merged


def step_supersede(ctx: RunContext) -> int:
    """Re-check supersede conflicts for the facts stated by new entries."""
    superseded = 0
    for user_id, ids in _new_by_user(ctx, "AND fact_key IS NOT NULL").items():
        counts = supersede.resolve(ctx.store.for_user(user_id), ids)
        superseded += counts["superseded"]
    return superseded


STEPS: dict[str, Step] = {
    "expire": step_expire,
    "dedupe": step_dedupe,
    "supersede": step_supersede,
    "caps": step_caps,
    "decay": step_decay,
    "index": step_index,
    "optimize": step_optimize,
}
# Steps that manage their own transactions. Not optimize: its ANALYZE writes, and a write
# begun as a read fails at once ("database is locked") instead of waiting while an import
# holds the lock; in a transaction taken up front it waits like every other step.
_OWN_TRANSACTION = {"index"}


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
        # We hold the lock, so a run still marked 'running' belongs to a process that died.
        conn.execute(
            "UPDATE runs SET status = 'error', finished_at = ?, error = ? WHERE status = 'running'",
            [now_iso(), INTERRUPTED],
        )
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
            # One line, never empty: it is shown in `status` and cron mail.
            report.error = f"step {name}: {' '.join(str(exc).split()) or type(exc).__name__}"
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
