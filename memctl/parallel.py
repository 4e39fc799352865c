"""Share one batch of pure per-item work between a forked worker and the caller.

Import classifies every new entry (~60-90 µs each) while it also runs the near-duplicate
engine, and these machines have two cores. `Shared` forks a worker that takes chunks from the
front of the batch as soon as it exists; the caller goes on with its own work, then calls
`finish`, which takes chunks from the back until the two meet. Neither waits idle for the
other, and the caller may skip items it has learned it no longer needs (entries merged away
at birth), which the worker, started earlier, could not know.

    shared = Shared(jobs, classify_one)   # the worker starts now
    ...                                   # the caller's own work
    results = shared.finish(skip={3, 8})  # results[i] for each job; None where skipped
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import traceback
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 1000  # items per claim: big enough that the queue is not the cost, small enough to share
_POLL_S = 1.0


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
        if fork and self._chunks > 1 and (os.cpu_count() or 1) > 1:
            ctx = multiprocessing.get_context("fork")
            self._lock = ctx.Lock()
            self._front = ctx.RawValue("i", 0)  # next chunk the worker takes
            self._back = ctx.RawValue("i", self._chunks)  # chunks from here on are the caller's
            self._queue = ctx.Queue()
            self._proc = ctx.Process(target=self._work, daemon=True)
            self._proc.start()

    def _chunk(self, index: int) -> Sequence[T]:
        return self._items[index * self._size : (index + 1) * self._size]

    def _work(self) -> None:  # in the worker
        try:
            while (index := self._claim_front()) is not None:
                self._queue.put((index, [self._fn(item) for item in self._chunk(index)]))
        except BaseException:
            self._queue.put((-1, traceback.format_exc()))
        self._queue.put(None)
        self._queue.close()
        self._queue.join_thread()

    def _claim_front(self) -> int | None:
        with self._lock:
            index = self._front.value
            if index >= self._back.value:
                return None
            self._front.value = index + 1
            return index

    def _claim_back(self) -> int | None:
        with self._lock:
            index = self._back.value - 1
            if index < self._front.value:
                return None
            self._back.value = index
            return index

    def results(self, skip: Container[int] = frozenset()) -> Iterator[tuple[int, list[R | None]]]:
        """(index of its first item, results) per chunk, in no fixed order, each chunk once.

        The caller's share is computed here, chunk by chunk from the back; items in `skip` that
        the caller takes get None. Between its own chunks it yields the worker's finished ones,
        so whatever the caller does with a chunk also overlaps the worker's classifying.
        """
        if self._proc is None:
            yield 0, [None if i in skip else self._fn(x) for i, x in enumerate(self._items)]
            return
        try:
            while (index := self._claim_back()) is not None:
                start = index * self._size
                yield (
                    start,
                    [
                        None if start + i in skip else self._fn(x)
                        for i, x in enumerate(self._chunk(index))
                    ],
                )
                yield from self._received(wait=False)
            yield from self._received(wait=True)
        finally:
            self.close()

    def _received(self, wait: bool) -> Iterator[tuple[int, list[R | None]]]:
        """The worker's finished chunks: those ready now, or (wait) all until it is done."""
        while not self._done:
            try:
                message = self._queue.get(timeout=_POLL_S) if wait else self._queue.get_nowait()
            except queue.Empty:
                if not wait:
                    return
                if not self._proc.is_alive():
                    raise WorkerFailed(
                        f"classification worker exited with code {self._proc.exitcode}"
                    ) from None
                continue
            if message is None:
                self._proc.join()
                self._done = True
                return
            index, results = message
            if index < 0:
                raise WorkerFailed(f"classification worker failed:\n{results}")
            yield index * self._size, results

    def close(self) -> None:
        """Stop the worker (idempotent); `finish` calls it, callers that bail out must too."""
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.terminate()
            self._proc.join()
            self._queue.close()
            self._proc = None
