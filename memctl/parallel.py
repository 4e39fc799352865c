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

An import forks its worker once, before it reads the first file (`Helper`), and each batch's
chunks are sent to it: a worker forked from a caller holding a big file's records shares their
pages, and every page either process writes afterwards is copied.

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
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 1000  # items per claim: big enough that the pipe is not the cost, small enough to share


class WorkerFailed(RuntimeError):
    pass


class Shared(Generic[T, R]):
    """`fn` over `items`, split between one forked worker (front) and the caller (back)."""

    def __init__(
        self,
        items: Sequence[T],
        fn: Callable[[T], R],
        *,
        fork: bool = True,
        chunk: int = 0,
        helper: Helper | None = None,
    ) -> None:
        self._items = items
        self._fn = fn
        self._size = chunk or CHUNK
        self._chunks = (len(items) + self._size - 1) // self._size
        self._proc: Any = None
        self._done = False  # the worker has sent its last chunk
        self._dropped: Any = set()  # items no longer needed (shared with the worker if any)
        self._lent: _Lent[T, R] | None = None
        if helper is not None and self._chunks > 1 and helper.alive and helper.lock.acquire(False):
            # A worker forked before these items existed: they are sent to it, chunk by chunk,
            # smaller ones (it has two in hand, which the caller cannot take back at the end).
            self._size = chunk or max(1, CHUNK // _Lent.AHEAD // 2)
            self._chunks = (len(items) + self._size - 1) // self._size
            self._dropped = bytearray(len(items))
            self._lent = _Lent(helper, self)
            return
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
            # (Already frozen: a Helper's, which keeps it so until it closes.)
            frozen = gc.get_freeze_count() > 0
            gc.freeze()
            try:
                self._proc.start()
            finally:
                if not frozen:
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
        if self._lent is not None:
            yield from self._lent.results()
            return
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
        if self._lent is not None:
            self._lent.close()
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.terminate()
            self._proc.join()
            self._reader.close()
            self._proc = None


def _trace() -> str:
    return traceback.format_exc()


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


class Helper:
    """A worker forked before the work it will share exists (`Shared(..., helper=h)`).

    A worker forked from a caller that holds a big file's records shares their pages, and
    every page either process then writes (a reference count, a freed object, the caller's
    next arrays) becomes a private copy in both: 120-180 MB at 100k records. Forked early,
    it holds nothing but what was loaded by then (the classifier's lexicons); each chunk is
    sent to it, and its results sent back. One `Shared` at a time uses it; `close` ends it.
    """

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self._inbox, to_worker = ctx.Pipe(duplex=False)  # the worker reads the first end
        from_worker, self._outbox = ctx.Pipe(duplex=False)  # the worker writes the second
        self._parent = os.getpid()
        self._proc: Any = ctx.Process(
            target=self._serve, args=(to_worker, self._outbox), daemon=True
        )
        # Neither collector walks what the two share (the lexicons): the worker's never, this
        # process's not until close(). A full collection writes to every object it walks, so
        # each page of them was copied, then counted whole in both processes' PSS, not half.
        gc.freeze()
        try:
            self._proc.start()
        except BaseException:
            gc.unfreeze()
            raise
        # The caller keeps the sending end of the first pipe and the reading end of the
        # second; the worker's ends closed here, its death is end of file on the second.
        self.sender, self.receiver = to_worker, from_worker
        self._inbox.close()
        self._outbox.close()
        self.lock = threading.Lock()  # held by the one Shared using it (another forks its own)
        self.batches = 0

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    def _serve(self, to_worker: Any, outbox: Any) -> None:
        _die_with(self._parent)
        to_worker.close()
        code = 0
        try:
            while True:
                message = pickle.loads(self._inbox.recv_bytes())
                if message is None:
                    break
                batch, index, fn, items, dropped = message
                if index < 0:  # the caller's last chunk of a batch was sent: say so, in order
                    outbox.send_bytes(_pickled((batch, index, None)))
                    continue
                results = [None if dropped[i] else fn(item) for i, item in enumerate(items)]
                # Two messages: what it is, then the results, which the caller keeps pickled
                # until it takes them (~72 bytes a classified entry, ~540 as objects).
                outbox.send_bytes(_pickled((batch, index, None)))
                outbox.send_bytes(_pickled(results))
        except (EOFError, OSError):
            pass  # the caller is gone
        except BaseException:
            with contextlib.suppress(OSError):
                outbox.send_bytes(_pickled((-1, -1, traceback.format_exc())))
            code = 1
        os._exit(code)

    def close(self) -> None:
        """End the worker (idempotent)."""
        if self._proc is None:
            return
        with contextlib.suppress(OSError):
            self.sender.send_bytes(_END)
        self._proc.join(timeout=5)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join()
        self.sender.close()
        self.receiver.close()
        self._proc = None
        gc.unfreeze()


_DONE = object()  # a batch's last message from the helper


class _Lent(Generic[T, R]):
    """A Shared's chunks from the front sent to a Helper by a feeding thread, at most two
    ahead of what it has sent back, its results collected by a receiving thread; the caller
    takes chunks from the back, as with a forked worker."""

    AHEAD = 2

    def __init__(self, helper: Helper, shared: Shared[T, R]) -> None:
        helper.batches += 1  # its lock is held: Shared took it
        self._helper, self._shared, self._batch = helper, shared, helper.batches
        self._claims = threading.Lock()
        self._front, self._back = 0, shared._chunks
        self._slots = threading.Semaphore(self.AHEAD)
        self._received: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._feeder = threading.Thread(target=self._feed, daemon=True)
        self._receiver = threading.Thread(target=self._receive, daemon=True)
        self._receiver.start()
        self._feeder.start()

    def _claim(self, front: bool) -> int | None:
        with self._claims:
            if self._front >= self._back:
                return None
            if front:
                self._front += 1
                return self._front - 1
            self._back -= 1
            return self._back

    def _feed(self) -> None:
        shared, send = self._shared, self._helper.sender.send_bytes
        try:
            while True:
                self._slots.acquire()
                if (index := self._claim(front=True)) is None:
                    break
                start = index * shared._size
                items = shared._chunk(index)
                dropped = bytes(shared._dropped[start : start + len(items)])
                send(_pickled((self._batch, index, shared._fn, items, dropped)))
        except OSError:
            return  # the worker died: the receiver says so
        except BaseException:  # a chunk that cannot be pickled: the caller raises it
            self._received.put(WorkerFailed(f"cannot send to the worker:\n{_trace()}"))
        # The worker answers this after the chunks sent before it: the receiver's last message.
        with contextlib.suppress(OSError):
            send(_pickled((self._batch, -1, None, None, None)))

    def _receive(self) -> None:
        receive = self._helper.receiver.recv_bytes
        while True:
            try:
                batch, index, results = pickle.loads(receive())
                body = receive() if batch >= 0 and index >= 0 else b""
            except (EOFError, OSError):
                self._received.put(WorkerFailed("worker process exited before finishing"))
                return
            if batch == -1:
                self._received.put(WorkerFailed(f"worker process failed:\n{results}"))
                return
            if batch != self._batch:
                continue  # cannot happen: a batch is drained before the next one starts
            if index < 0:
                self._received.put(_DONE)
                return
            self._slots.release()
            self._received.put((index * self._shared._size, body))

    def results(self) -> Iterator[tuple[int, list[R | None]]]:
        shared, dropped = self._shared, self._shared._dropped
        done = False  # the worker's last message taken
        try:
            while (index := self._claim(front=False)) is not None:
                start = index * shared._size
                chunk = shared._chunk(index)
                yield (
                    start,
                    [None if dropped[start + i] else shared._fn(x) for i, x in enumerate(chunk)],
                )
                while not done and not self._received.empty():
                    done = yield from self._take(self._received.get())
            while not done:
                done = yield from self._take(self._received.get())
        finally:
            self.close()

    @staticmethod
    def _take(message: Any) -> Generator[tuple[int, list[Any]], None, bool]:
        """Yield a chunk's results (or raise the worker's failure); True for the last one."""
        if isinstance(message, WorkerFailed):
            raise message
        if message is _DONE:
            return True
        start, body = message
        yield start, pickle.loads(body)
        return False

    def close(self) -> None:
        """No more chunks for the worker; wait for those it has (their results dropped)."""
        if self._closed:
            return
        self._closed = True
        with self._claims:
            self._back = self._front
        self._slots.release()  # a feeder waiting for a slot finds nothing left to claim
        self._feeder.join()
        self._receiver.join()
        self._helper.lock.release()
