"""parallel.Shared: a forked worker and the caller split one batch; nothing lost or doubled."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memctl.parallel import Helper, Shared, WorkerFailed


def square(x: int) -> int:
    return x * x


def slow_square(x: int) -> int:
    time.sleep(0.001)
    return x * x


def collect(shared: Shared[int, int], drop: frozenset[int] = frozenset()) -> list[int | None]:
    shared.drop(drop)
    out: dict[int, int | None] = {}
    for start, results in shared.results():
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


def test_dropped_items_not_yet_reached_are_none_the_rest_are_computed() -> None:
    items = list(range(1_000))
    drop = frozenset(range(0, 1_000, 7))
    results = collect(Shared(items, square, chunk=50), drop)
    for i, result in enumerate(results):
        assert result in ((None, i * i) if i in drop else (i * i,))
    assert collect(Shared(items, square, fork=False), drop) == [
        None if i in drop else i * i for i in items
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


def test_a_worker_that_dies_is_reported_not_waited_for() -> None:
    shared = Shared(list(range(1_000)), dies_on_300, chunk=10)
    time.sleep(0.3)
    shared.drop(range(1_000))  # the caller computes none of them (nor dies on 300 itself)
    with pytest.raises(WorkerFailed, match="exited with code 9"):
        list(shared.results())


def big_then_killed(x: int) -> str:
    if x == 1:
        time.sleep(0.5)  # meanwhile the first chunk's message fills the pipe and blocks
        os.kill(os.getpid(), signal.SIGKILL)
    return "x" * 200_000  # one chunk's message is far bigger than the pipe's buffer


def test_a_worker_killed_in_the_middle_of_a_message_is_reported(tmp_path: Path) -> None:
    """The caller reads nothing while it works: the worker's first chunk (2 MB) sits half
    written in the pipe when the worker is killed. The caller must not wait for the rest."""
    shared = Shared([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], big_then_killed, chunk=10)
    time.sleep(1.0)
    started = time.monotonic()
    with pytest.raises(WorkerFailed):
        list(shared.results())
    assert time.monotonic() - started < 10


ORPHAN = """
import os, sys, time
from memctl.parallel import Shared

def slow(x):
    time.sleep(0.01)
    return x

lock = open(sys.argv[1], "w")  # an inherited descriptor, like DB.lock under `memctl run`
shared = Shared(list(range(100_000)), slow, chunk=10)
print(shared._proc.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_the_worker_dies_with_its_caller(tmp_path: Path, sig: int) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    caller = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "lock")], stdout=subprocess.PIPE, text=True
    )
    assert caller.stdout is not None
    with caller.stdout:
        worker = int(caller.stdout.readline())
    caller.send_signal(sig)
    caller.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.05)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_close_stops_a_worker_the_caller_no_longer_needs() -> None:
    shared = Shared(list(range(100_000)), slow_square, chunk=10)
    proc = shared._proc
    shared.close()
    assert proc is not None and not proc.is_alive()
    shared.close()  # idempotent


@pytest.mark.parametrize("fork", [True, False])
def test_dropped_items_are_passed_over_by_the_worker_too(fork: bool) -> None:
    """Items dropped while the worker runs: it computes none it reaches afterwards (one it
    had started may finish), the caller none at all; every other item is computed."""
    items = list(range(1_000))
    shared = Shared(items, slow_square, chunk=50, fork=fork)
    time.sleep(0.1)  # the worker is in its first chunks, from the front; dropped: its next ones
    dropped = set(range(200, 500))
    shared.drop(dropped)
    got = collect(shared)
    assert [got[i] for i in items if i not in dropped] == [x * x for x in items if x not in dropped]
    computed = [i for i in dropped if got[i] is not None]
    assert len(computed) <= (50 if fork else 0)
    assert all(got[i] == i * i for i in computed)


# --------------------------------------------------------------------- a worker forked early


def test_a_helper_forked_before_the_items_existed_shares_them_exactly() -> None:
    helper = Helper()
    try:
        for n in (2_345, 10, 0, 777):  # one helper, several batches in turn
            items = list(range(n))
            shared = Shared(items, square, chunk=100, helper=helper)
            assert collect(shared) == [x * x for x in items]
        assert helper.alive
    finally:
        helper.close()
    assert not helper.alive


def test_the_helper_takes_chunks_while_the_caller_does_other_work() -> None:
    helper = Helper()
    try:
        shared = Shared(list(range(600)), slow_square, chunk=20, helper=helper)
        assert shared._proc is None  # no fork of its own
        time.sleep(0.3)  # the helper alone: it has computed chunks from the front
        starts = [start for start, _ in shared.results()]
        assert starts[0] == 600 - 20  # the caller's first is the last chunk...
        assert 0 in starts and len(starts) == 30  # ...and the helper's arrive too, each once
    finally:
        helper.close()


def test_items_dropped_are_not_sent_to_the_helper() -> None:
    helper = Helper()
    try:
        items = list(range(1_000))
        shared = Shared(items, slow_square, chunk=50, helper=helper)
        time.sleep(0.1)
        dropped = set(range(300, 700))
        shared.drop(dropped)
        got = collect(shared)
        assert [got[i] for i in items if i not in dropped] == [
            x * x for x in items if x not in dropped
        ]
        # Sent before the drop: at most the chunks it had in hand (two ahead) were computed.
        assert len([i for i in dropped if got[i] is not None]) <= 2 * 50
    finally:
        helper.close()


def test_a_failure_in_the_helper_is_raised_and_the_next_batch_forks_its_own() -> None:
    helper = Helper()
    try:
        shared = Shared(list(range(1_000)), fails_on_500, chunk=10, helper=helper)
        time.sleep(0.3)
        with pytest.raises((WorkerFailed, ValueError), match="bad item 500"):
            list(shared.results())
        time.sleep(0.1)
        assert not helper.alive
        items = list(range(300))
        assert collect(Shared(items, square, chunk=10, helper=helper)) == [x * x for x in items]
    finally:
        helper.close()


def test_a_helper_that_dies_is_reported_not_waited_for() -> None:
    helper = Helper()
    try:
        shared = Shared(list(range(1_000)), dies_on_300, chunk=10, helper=helper)
        time.sleep(0.3)
        shared.drop(range(1_000))
        with pytest.raises(WorkerFailed, match="exited"):
            list(shared.results())
    finally:
        helper.close()


def test_a_helper_in_use_is_not_shared_by_a_second_batch() -> None:
    helper = Helper()
    try:
        first = Shared(list(range(500)), square, chunk=10, helper=helper)
        second = Shared(list(range(500)), square, chunk=10, helper=helper)
        assert second._proc is not None  # forked its own worker
        assert collect(second) == [x * x for x in range(500)]
        assert collect(first) == [x * x for x in range(500)]
    finally:
        helper.close()


def test_closing_a_batch_early_leaves_the_helper_ready_for_the_next() -> None:
    helper = Helper()
    try:
        shared = Shared(list(range(2_000)), slow_square, chunk=10, helper=helper)
        time.sleep(0.05)
        shared.close()
        items = list(range(400))
        assert collect(Shared(items, square, chunk=10, helper=helper)) == [x * x for x in items]
    finally:
        helper.close()


def test_work_that_cannot_be_sent_to_the_helper_is_an_error_not_a_wait() -> None:
    helper = Helper()
    try:
        shared = Shared(list(range(100)), lambda x: x, chunk=10, helper=helper)
        with pytest.raises(WorkerFailed, match="cannot send"):
            list(shared.results())
        items = list(range(50))
        assert collect(Shared(items, square, chunk=10, helper=helper)) == [x * x for x in items]
    finally:
        helper.close()


CALLER = os.getpid()


def slow_in_the_caller(x: int) -> int:
    if os.getpid() == CALLER:
        time.sleep(0.02)
    return x * x


def test_the_helper_finishing_first_is_not_waited_for_again() -> None:
    """The helper's last answer arrives while the caller still computes chunks of its own:
    the caller must still see the end (it once took that answer for a chunk and waited on)."""
    helper = Helper()
    try:
        items = list(range(400))
        shared = Shared(items, slow_in_the_caller, chunk=10, helper=helper)
        got: list[list[int | None]] = []
        runner = threading.Thread(target=lambda: got.append(collect(shared)), daemon=True)
        runner.start()
        runner.join(timeout=30)
        assert not runner.is_alive(), "the caller waits for a helper that has finished"
        assert got == [[x * x for x in items]]
    finally:
        helper.close()


def test_what_the_helper_shares_stays_out_of_both_collectors_until_it_closes() -> None:
    # A full collection in the caller writes to every object it walks: each page the worker
    # shares would be copied, then counted whole in both processes' PSS.
    assert gc.get_freeze_count() == 0
    helper = Helper()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # A Shared that forks its own worker meanwhile keeps it so.
        assert collect(Shared(list(range(50)), square, chunk=10)) == [x * x for x in range(50)]
        assert gc.get_freeze_count() >= frozen
    finally:
        helper.close()
    assert gc.get_freeze_count() == 0
