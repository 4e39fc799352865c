"""parallel.Shared: a forked worker and the caller split one batch; nothing lost or doubled."""

from __future__ import annotations

import os
import time

import pytest

from memctl import parallel
from memctl.parallel import Shared, WorkerFailed


def square(x: int) -> int:
    return x * x


def slow_square(x: int) -> int:
    time.sleep(0.001)
    return x * x


def collect(shared: Shared[int, int], skip: frozenset[int] = frozenset()) -> list[int | None]:
    out: dict[int, int | None] = {}
    for start, results in shared.results(skip):
        for offset, result in enumerate(results):
            assert start + offset not in out, "an item came back twice"
            out[start + offset] = result
    return [out[i] for i in range(len(out))]


def test_results_equal_the_inline_ones_in_order() -> None:
    items = list(range(2_345))
    assert collect(Shared(items, square, chunk=100)) == [x * x for x in items]
    assert collect(Shared(items, square, chunk=100, fork=False)) == [x * x for x in items]


def test_the_worker_and_the_caller_both_take_chunks() -> None:
    items = list(range(600))
    shared = Shared(items, slow_square, chunk=20)
    time.sleep(0.2)  # the worker alone for a while: it must have taken some from the front
    seen_starts = [start for start, _ in shared.results()]
    assert 0 in seen_starts and len(seen_starts) == 30
    assert shared._proc is None  # closed: no worker left behind


def test_skipped_items_the_caller_takes_are_none_the_rest_are_computed() -> None:
    items = list(range(1_000))
    skip = frozenset(range(0, 1_000, 7))
    results = collect(Shared(items, square, chunk=50), skip)
    for i, result in enumerate(results):
        assert result in ((None, i * i) if i in skip else (i * i,))
    assert collect(Shared(items, square, fork=False), skip) == [
        None if i in skip else i * i for i in items
    ]


def fails_on_500(x: int) -> int:
    if x == 500:
        raise ValueError("bad item 500")
    return x


def test_a_failure_in_the_worker_is_raised_with_its_traceback() -> None:
    shared = Shared(list(range(1_000)), fails_on_500, chunk=10)
    time.sleep(0.3)  # the worker reaches item 500 before the caller does
    with pytest.raises((WorkerFailed, ValueError), match="bad item 500"):
        list(shared.results())


def dies_on_300(x: int) -> int:
    if x == 300:
        os._exit(9)
    return x


def test_a_worker_that_dies_is_reported_not_waited_for(monkeypatch) -> None:
    monkeypatch.setattr(parallel, "_POLL_S", 0.05)
    shared = Shared(list(range(1_000)), dies_on_300, chunk=10)
    time.sleep(0.3)
    with pytest.raises(WorkerFailed, match="exited with code 9"):
        list(shared.results(frozenset(range(1_000))))


def test_close_stops_a_worker_the_caller_no_longer_needs() -> None:
    shared = Shared(list(range(100_000)), slow_square, chunk=10)
    proc = shared._proc
    shared.close()
    assert proc is not None and not proc.is_alive()
    shared.close()  # idempotent
