"""The import's worker is forked with the caller's objects frozen (gc.freeze), and they stay
frozen in the caller until the worker ends: the caller's collector would otherwise write to
every object loaded before the fork, and each page it touched would be copied, held privately
by both processes."""

from __future__ import annotations

import gc

from memctl.parallel import Helper, Shared


def _double(x: int) -> int:
    return 2 * x


def test_objects_loaded_before_the_fork_stay_frozen_while_the_worker_lives() -> None:
    loaded = [[i] for i in range(1000)]  # containers the collector tracks
    helper = Helper()
    try:
        assert gc.get_freeze_count() >= len(loaded)
        gc.collect()  # a full collection passes over them
        assert gc.get_freeze_count() >= len(loaded)
        shared = Shared(list(range(5000)), _double, helper=helper, chunk=100)
        got = [r for _start, chunk in shared.results() for r in chunk]
        assert sorted(got) == [2 * i for i in range(5000)]
    finally:
        helper.close()
    assert gc.get_freeze_count() == 0  # the caller's objects are collected again
    helper.close()  # idempotent
    assert gc.get_freeze_count() == 0
