"""One consolidation at a time per database: an exclusive `flock` on `<db>.lock`.

flock is released by the kernel when the process dies, so a crashed run never leaves a stale
lock behind (unlike a pid file), and a second scheduler firing the same job fails at once.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memctl.errors import Locked


@contextmanager
def exclusive(db_path: Path) -> Iterator[None]:
    lock_path = Path(f"{db_path}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Locked(f"another memctl run holds {lock_path}; try again later") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
