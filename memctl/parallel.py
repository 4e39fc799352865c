"""Share one batch of pure per-item work between a forked worker and the caller.

Import accepts and classifies every record (~15 and ~85 µs each) while it also runs the
near-duplicate engine and writes, and these machines have two cores. `Shared` forks a worker
that takes chunks from the front of the batch as soon as it exists; the caller goes on with its
own work, then iterates `results`, which takes chunks from the back until the two meet. Neither
waits idle for the other, and the caller may drop items it has learned it no longer needs
(entries merged away at birth), which the worker, started earlier, could not know.

    shared = Shared(jobs, classify_one)       # the worker starts now
    ...                                       # the caller's own work
    shared.drop([3, 8])                       # no longer needed: passed over from now on
    for start, chunk in shared.results():
        ...                                   # chunk[i] is jobs[start + i]'s result

The worker dies with the caller (a killed import leaves no orphan holding a lock), and the
caller learns of a worker that died, even in the middle of a message (end of file on the pipe,
whose writing end only the worker holds), instead of waiting for it forever.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 1000  # items per claim: big enough that the pipe is not the cost, small enough to share


class WorkerFailed(RuntimeError):
    pass


class Shared(Generic[T, R]):
    """`fn` over `items`, split between one forked worker (front) and the caller (back)."""

    def __init__(
        self, items: Sequence[T], fn: Callable[[T], R], *, fork: bool = True, chunk: int = 0
    ) -> None:
        self._items = items
        self._fn = fn
        self._size = chunk or CHUNK
        self._chunks = (len(items) + self._size - 1) // self._size
        self._proc: Any = None
        self._done = False  # the worker has sent its last chunk
        self._dropped: Any = set()  # items no longer needed (shared with the worker if any)
        if fork and self._chunks > 1 and (os.cpu_count() or 1) > 1:
            ctx = multiprocessing.get_context("fork")
            self._dropped = ctx.RawArray("b", len(items))
            self._lock = ctx.Lock()
            self._front = ctx.RawValue("i", 0)  # next chunk the worker takes
            self._back = ctx.RawValue("i", self._chunks)  # chunks from here on are the caller's
            self._reader, writer = ctx.Pipe(duplex=False)
            self._parent = os.getpid()
            self._proc = ctx.Process(target=self._work, args=(writer,), daemon=True)
            # The worker's collector leaves what it inherits alone: walking it would write to
            # every page of the caller's heap that holds an object, each page then copied.
            gc.freeze()
            try:
                self._proc.start()
            finally:
                gc.unfreeze()
            writer.close()  # the worker's copy is the only one: its death is end of file here

    def _chunk(self, index: int) -> Sequence[T]:
        return self._items[index * self._size : (index + 1) * self._size]

    # ---------------------------------------------------------------- in the worker

    def _work(self, writer: Any) -> None:
        _die_with(self._parent)
        self._reader.close()
        # A sender thread writes to the pipe, so the worker goes on computing while the
        # caller is busy elsewhere and not reading (a full pipe would block it). What waits
        # for the caller waits pickled: a chunk's results as objects took ~10x the memory
        # (a classified entry's fields: ~540 bytes of dict and floats, ~72 pickled).
        outbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        sender = threading.Thread(target=_send_all, args=(outbox, writer), daemon=True)
        sender.start()
        code = 0
        try:
            while (index := self._claim_front()) is not None:
                if os.getppid() != self._parent:
                    break  # the caller is gone (where the death signal is not available)
                start, dropped = index * self._size, self._dropped
                results = [
                    None if dropped[start + i] else self._fn(item)
                    for i, item in enumerate(self._chunk(index))
                ]
                outbox.put(_pickled((index, results)))
        except BaseException:
            outbox.put(_pickled((-1, traceback.format_exc())))
            code = 1
        outbox.put(_END)
        sender.join()
        # Straight out: no flushing of inherited stdio buffers, whose locks another thread of
        # the caller (rich's progress display) may have held at the fork.
        os._exit(code)

    def _claim_front(self) -> int | None:
        with self._lock:
            index = self._front.value
            if index >= self._back.value:
                return None
            self._front.value = index + 1
            return index

    # ---------------------------------------------------------------- in the caller

    def _claim_back(self) -> int | None:
        with self._lock:
            index = self._back.value - 1
            if index < self._front.value:
                return None
            self._back.value = index
            return index

    def drop(self, items: Iterable[int]) -> None:
        """Items (indexes) whose results are no longer needed: whichever process reaches one
        from now on passes over it (None in its chunk); those computed already stay."""
        if isinstance(self._dropped, set):
            self._dropped.update(items)
            return
        for i in items:
            self._dropped[i] = 1

    def results(self) -> Iterator[tuple[int, list[R | None]]]:
        """(index of its first item, results) per chunk, in no fixed order, each chunk once.

        The caller's share is computed here, chunk by chunk from the back; dropped items (see
        `drop`) it takes get None. Between its own chunks it yields the worker's finished ones,
        so whatever the caller does with a chunk also overlaps the worker's computing.
        """
        dropped = self._dropped
        if self._proc is None:
            yield (
                0,
                [None if i in dropped else self._fn(x) for i, x in enumerate(self._items)],
            )
            return
        try:
            while (index := self._claim_back()) is not None:
                start = index * self._size
                chunk = self._chunk(index)
                yield (
                    start,
                    [None if dropped[start + i] else self._fn(x) for i, x in enumerate(chunk)],
                )
                yield from self._received(wait=False)
            yield from self._received(wait=True)
        finally:
            self.close()

    def _received(self, wait: bool) -> Iterator[tuple[int, list[R | None]]]:
        """The worker's finished chunks: those ready now, or (wait) all until it is done."""
        while not self._done and (wait or self._reader.poll()):
            try:
                message = pickle.loads(self._reader.recv_bytes())
            except (EOFError, OSError):
                self._proc.join()
                raise WorkerFailed(
                    f"worker process exited with code {self._proc.exitcode} before finishing"
                ) from None
            if message is None:
                self._done = True
                self._proc.join()
                return
            index, results = message
            if index < 0:
                raise WorkerFailed(f"worker process failed:\n{results}")
            yield index * self._size, results

    def close(self) -> None:
        """Stop the worker (idempotent); `results` calls it, callers that bail out must too."""
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.terminate()
            self._proc.join()
            self._reader.close()
            self._proc = None


def _pickled(message: Any) -> bytes:
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


_END = _pickled(None)  # the worker's last message


def _send_all(outbox: queue.SimpleQueue[bytes], writer: Any) -> None:
    with contextlib.suppress(OSError):  # the caller is gone: nothing left to tell
        while True:
            message = outbox.get()
            writer.send_bytes(message)
            if message is _END:
                return


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when the caller dies (Linux), so a killed import
    leaves no worker behind holding an inherited lock file open."""
    if sys.platform.startswith("linux"):
        import ctypes  # in the worker only: not worth loading for every memctl command

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before that took effect
        os._exit(1)
