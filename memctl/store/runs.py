"""Runs: consolidation and pipeline runs (table `runs`, the whole database's), and one user's
import runs with the records each rejected (tables `import_runs`, `rejections`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import orjson

from memctl.models import Rejection
from memctl.store.util import now_iso


class Runs:
    """Consolidation and pipeline runs: what each did and whether it worked."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def interrupt_running(self, error: str) -> None:
        """Mark every run still 'running' as failed with `error` (its process is gone: the
        caller holds the consolidation lock)."""
        self.conn.execute(
            "UPDATE runs SET status = 'error', finished_at = ?, error = ? WHERE status = 'running'",
            [now_iso(), error],
        )

    def last_upto(self) -> int | None:
        """The largest entry id the last successful real run covered."""
        row = self.conn.execute(
            "SELECT max(upto_entry_id) FROM runs WHERE status = 'ok' AND dry_run = 0"
        ).fetchone()
        return None if row[0] is None else int(row[0])

    def start(self, kind: str, dry_run: bool, upto: int) -> int:
        cur = self.conn.execute(
            "INSERT INTO runs (kind, started_at, status, dry_run, upto_entry_id) "
            "VALUES (?, ?, 'running', ?, ?)",
            [kind, now_iso(), int(dry_run), upto],
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish(self, run_id: int, status: str, counts: dict[str, int], error: str | None) -> None:
        self.conn.execute(
            "UPDATE runs SET finished_at = ?, status = ?, counts = ?, error = ? WHERE id = ?",
            [now_iso(), status, orjson.dumps(counts).decode(), error, run_id],
        )

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """The last `limit` runs, newest first, `counts` as a dict."""
        rows = self.conn.execute(
            "SELECT id, kind, started_at, finished_at, status, dry_run, counts, error FROM runs "
            "ORDER BY id DESC LIMIT ?",
            [limit],
        )
        return [{**dict(r), "counts": orjson.loads(r["counts"]) if r["counts"] else {}}
                for r in rows]  # fmt: skip

    def last_ok_at(self) -> str | None:
        """When the last successful real run finished."""
        row = self.conn.execute(
            "SELECT max(finished_at) FROM runs WHERE status = 'ok' AND dry_run = 0"
        ).fetchone()
        return None if row[0] is None else str(row[0])


class ImportRuns:
    """One user's import runs and what each rejected."""

    def __init__(self, conn: sqlite3.Connection, user_id: str) -> None:
        self.conn = conn
        self.user_id = user_id

    def start(self) -> int:
        cur = self.conn.execute(
            "INSERT INTO import_runs (user_id, started_at) VALUES (?, ?)", [self.user_id, now_iso()]
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish(self, run_id: int, counts: dict[str, int]) -> None:
        keys = ("files", "records", "added", "skipped", "rejected")
        self.conn.execute(
            "UPDATE import_runs SET finished_at = ?, files = ?, records = ?, added = ?, "
            "skipped = ?, rejected = ? WHERE id = ? AND user_id = ?",
            [now_iso(), *(counts[k] for k in keys), run_id, self.user_id],
        )

    def add_rejections(self, run_id: int, rejections: Sequence[Rejection]) -> None:
        self.conn.executemany(
            "INSERT INTO rejections (run_id, user_id, path, line, reason) VALUES (?, ?, ?, ?, ?)",
            [(run_id, self.user_id, r.path, r.line, r.reason) for r in rejections],
        )

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """The user's last `limit` imports, newest first, with their counts."""
        rows = self.conn.execute(
            "SELECT id, started_at, finished_at, files, records, added, skipped, rejected "
            "FROM import_runs WHERE user_id = ? ORDER BY id DESC LIMIT ?",
            [self.user_id, limit],
        )
        return [dict(r) for r in rows]
