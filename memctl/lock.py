"""One consolidation at a time per database: an exclusive `flock` on `<db>.lock`.

flock is released by the kernel when the process dies, so a crashed run never leaves a stale
lock behind (unlike a pid file), and a second scheduler firing the same job fails at once.
The core takes it (consolidate, pipeline.run), so a core called from the API is as safe as
the CLI; it is re-entrant within one thread, so a pipeline holding it runs its consolidation.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memctl.errors import Locked, StoreError

# The locks this process holds: (lock file, thread). flock refuses a second open of the file
# even in the same process, so a nested hold is recognised here.
_HELD: set[tuple[str, int]] = set()


def lock_path(db_path: Path | str) -> Path:
    return Path(f"{db_path}.lock")


@contextmanager
def exclusive(db_path: Path) -> Iterator[None]:
    """Hold the lock for the block, or raise Locked at once; the holder's pid goes in the file.
    A thread already holding it holds it for the inner block too."""
    path = lock_path(db_path)
    mine = (str(path.absolute()), threading.get_ident())
    if mine in _HELD:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # the database could not be made there either: say it as its open
        raise StoreError(f"cannot open database {db_path}: {exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Locked(f"another memctl run holds {path}; try again later") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _HELD.add(mine)
        try:
            yield
        finally:
            _HELD.discard(mine)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def holder(db_path: Path | str) -> int | None:
    """The pid written by the last holder, if that process is still alive.

    Read without taking the lock, so `memctl status` never makes a scheduled run fail with
    "locked". A reused pid can make a dead holder look alive; that only hides a warning.
    """
    try:
        pid = int(lock_path(db_path).read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, but another user's
    return pid
