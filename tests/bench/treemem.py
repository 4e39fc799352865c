"""Peak memory of a process and its children (memctl's forked workers), sampled while it runs.

ru_maxrss only ever reports one process. A memctl import forks a worker, and the two share most
pages (copy-on-write), so adding their RSS would count shared pages twice: the honest total is
the sum of PSS (proportional set size, /proc/PID/smaps_rollup), sampled every 50 ms.

Nor can a peak between two samples be taken from ru_maxrss (wait4's or RUSAGE_CHILDREN's): on
Linux a process started by fork (or vfork) and exec keeps the high-water mark of the memory it
was forked from, so every run started by a bench that once held a big corpus reported at least
what the bench itself had peaked at (749 MiB for six 20k runs after a 200k one, against 286-411
MiB fresh). The sampler reads the process's own VmHWM (/proc/PID/status) instead: the mark of
its memory since exec.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # the task or process may be gone already
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _proc_kib(pid: int, file: str, field: str) -> int:
    """A `field: N kB` line of /proc/PID/FILE, 0 once the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kib(pid: int) -> int:
    return _proc_kib(pid, "smaps_rollup", "Pss:")


def _hwm_kib(pid: int) -> int:
    """The process's resident high-water mark since its exec (VmHWM), 0 once it is gone."""
    return _proc_kib(pid, "status", "VmHWM:")


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, children first."""
    found, todo = [], _children(pid)
    while todo:
        p = todo.pop()
        found.append(p)
        todo += _children(p)
    return found


def tree_pss_mib(pid: int) -> float:
    """PSS of `pid` and all its descendants now, in MiB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _pss_kib(p)
        todo += _children(p)
    return total / 1024


class PeakSampler:
    """`with PeakSampler(pid) as s: ...` then s.peak_mib: the largest tree PSS seen, or the
    root process's resident high-water mark if that is larger (a peak between samples)."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid, self.every, self.peak_mib = pid, every, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak_mib = max(self.peak_mib, tree_pss_mib(self.pid), _hwm_kib(self.pid) / 1024)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
