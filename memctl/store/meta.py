"""The database itself: its settings and housekeeping (SQLite pragmas, the WAL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

BUSY_TIMEOUT_S = 60.0


class Meta:
    """Settings and housekeeping of one open database."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def optimize(self) -> None:
        """Let SQLite refresh its statistics."""
        # Without a limit, ANALYZE of a 1M-entry store reads every index: seconds, not ms.
        self.conn.execute("PRAGMA analysis_limit = 1000")
        self.conn.execute("PRAGMA optimize")

    def defer_foreign_keys(self) -> None:
        """Check foreign keys at commit, not per row, until the transaction ends (an import
        writes sources before some of the entries they point at)."""
        self.conn.execute("PRAGMA defer_foreign_keys = ON")

    def checkpoint(self) -> None:
        """Copy the WAL into the database file and truncate it."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def waiting_at_most(self, ms: int) -> Iterator[None]:
        """Wait at most `ms` for another writer in the block (then "database is locked")."""
        self.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
