"""`memctl consolidate`: keep a store clean, safely, from cron.

Each step is idempotent and runs in its own transaction; a failing step rolls back (the
database is left as before that step), marks the run `error` with the message, and stops the
run. Every run is logged in `runs`; only a run that finished every step is `ok`. A real run
holds the per-database lock (memctl.lock) so two schedulers never run it at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl import changes, lock, search
from memctl.errors import MemctlError
from memctl.lazy import lazy
from memctl.settings import ConsolidateSettings as Settings
from memctl.settings import consolidate_settings as load_settings
from memctl.store import Store, UserStore

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
    by_user: dict[str, list[changes.Update]] = {}
    for user_id, entry_id, expires_at in ctx.store.all_entries.expired(ctx.now_iso, _EXPIRED):
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
    archived = 0
    for user_id, layer, count in ctx.store.all_entries.active_per_layer():
        cap = ctx.settings.caps.get(layer)
        if cap is None or count <= cap:
            continue
        user = ctx.store.for_user(user_id)
        rows = user.entries.active_in_layer(layer)
        rows.sort(key=lambda r: (_score(ctx, r[1], r[2]), r[0]))
        note = f"over the cap of {cap} for layer {layer}"
        victims = _unrestored(user, [r[0] for r in rows], count - cap)
        archived += _archive(ctx, user_id, "evict", [(i, {"status": "archived"}, note)
                                                     for i in victims])  # fmt: skip
    return archived


def _unrestored(user: UserStore, ranked: list[int], wanted: int) -> list[int]:
    """The first `wanted` of `ranked` that no person brought back after an eviction (only the
    candidates are looked up: the log of a big store holds hundreds of thousands)."""
    victims: list[int] = []
    start = 0
    while len(victims) < wanted and start < len(ranked):
        batch = ranked[start : start + wanted - len(victims)]
        start += len(batch)
        restored = user.log.logged("evict", batch)
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
    return ctx.store.all_entries.decay(
        floor=s.decay_floor,
        factor=s.decay_factor,
        now=ctx.now_iso,
        again=ctx.days_ago(s.decay_every_days),
        old=ctx.days_ago(s.decay_after_days),
        batch=s.decay_batch,
    )


def step_index(ctx: RunContext) -> int:
    """Bring the full-text index up to date (commits in batches of its own)."""
    return search.sync(ctx.store)


def step_optimize(ctx: RunContext) -> int:
    """Let SQLite refresh its statistics (the WAL is checkpointed once the run is logged)."""
    ctx.store.meta.optimize()
    return 0


def step_dedupe(ctx: RunContext) -> int:
    """Near-duplicate check of new entries that import did not already check (no signature)."""
    merged = 0
    new = ctx.store.all_entries.new(ctx.since_id, ctx.upto_id, unsigned=True)
    for user_id, ids in new.items():
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
    new = ctx.store.all_entries.new(ctx.since_id, ctx.upto_id, with_fact=True)
    for user_id, ids in new.items():
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


@contextmanager
def opened(db_path: Path, *, dry_run: bool = False) -> Iterator[Store]:
    """The store at `db_path` for upkeep (`consolidate`, `pipeline.run`), under the lock they
    take, taken before the store is opened: a second run fails at once (Locked) and opens
    nothing (creates no database, runs no migration under the first). A dry run opens a
    scratch copy and takes no lock."""
    with nullcontext() if dry_run else lock.exclusive(db_path):
        store = Store.open_scratch(db_path) if dry_run else Store.open(db_path)
        try:
            yield store
        finally:
            store.close()


def consolidate(
    store: Store,
    settings: Settings | None = None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
    kind: str = "consolidate",
) -> RunReport:
    """Run the steps of `settings` (default: data/consolidate.toml) over every user's entries.

    A real run holds the database's consolidation lock (raises Locked at once if another
    process does); a dry run, on a scratch copy, needs none. Raises StepFailed when a step
    fails, after recording the run as `error`."""
    with ExitStack() as held:
        if not dry_run:
            held.enter_context(lock.exclusive(Path(store.path)))
        return _consolidate(store, settings or load_settings(), dry_run, now, kind)


def _consolidate(
    store: Store, settings: Settings, dry_run: bool, now: datetime | None, kind: str
) -> RunReport:
    started = datetime.now(UTC)
    with store.transaction():
        # We hold the lock, so a run still marked 'running' belongs to a process that died.
        store.runs.interrupt_running(INTERRUPTED)
        last = store.runs.last_upto()
        upto = store.all_entries.max_id()
        run_id = store.runs.start(kind, dry_run, upto)
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
        store.runs.finish(run_id, report.status, report.counts, report.error)
    if "optimize" in settings.steps and report.status == "ok" and not dry_run:
        store.meta.checkpoint()
    if report.status == "error":
        raise StepFailed(report.error or "consolidation failed")
    return report
