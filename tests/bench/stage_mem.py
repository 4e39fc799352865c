"""Where a whole `memctl import`'s memory goes, stage by stage, in one process and its worker.

    python tests/bench/stage_mem.py FILE [--db PATH]

Runs `memctl import FILE` in this process (the importer's stages wrapped) while a thread
samples the PSS of this process and of its forked worker every 50 ms (treemem.py). Printed per
stage (read, accept, L1, classification start, the engine, the three writes, supersede, the
homes): the largest tree PSS seen while it ran, the main process's and the worker's share at
that moment, and the stage's seconds. "between" is the time outside any wrapped stage.
Write a shape first: `python tests/bench/shapes.py boilerplate 200000 > /tmp/b.json`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from treemem import _children, _hwm_kib, _pss_kib  # noqa: E402


class Stages:
    """The stage running now, and per stage [tree MiB, main MiB, worker MiB, seconds]."""

    def __init__(self) -> None:
        self.now = "between"
        self.found: dict[str, list[float]] = {"between": [0.0, 0.0, 0.0, 0.0]}

    def wrap(self, module: Any, name: str) -> None:
        original: Callable[..., Any] = getattr(module, name)
        label = f"{module.__name__.rsplit('.', 1)[-1]}.{name}"
        stages = self

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            before, stages.now = stages.now, label
            stages.found.setdefault(label, [0.0, 0.0, 0.0, 0.0])
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                stages.found[label][3] += time.perf_counter() - started
                stages.now = before

        setattr(module, name, wrapped)

    def sample(self, stop: threading.Event) -> None:
        me = os.getpid()
        while not stop.wait(0.05):
            main = _pss_kib(me) / 1024
            worker = sum(_pss_kib(c) for c in _children(me)) / 1024
            seen = self.found.setdefault(self.now, [0.0, 0.0, 0.0, 0.0])
            if main + worker > seen[0]:
                seen[:3] = [main + worker, main, worker]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    from memctl.cli import app
    from memctl.importer import accept, classify, dedupe, read, supersede, write

    stages = Stages()
    for module, name in (
        (read, "records"), (accept, "sort"), (dedupe, "exact"), (classify, "start"),
        (dedupe, "near"), (write, "unclassified"), (write, "sources"), (write, "classified"),
        (dedupe, "replace_older"), (supersede, "settle"), (classify, "settle_homes"),
    ):  # fmt: skip
        stages.wrap(module, name)
    # The importer looks each stage up through its module when it runs it: wrapped here, it holds.
    stop = threading.Event()
    threading.Thread(target=stages.sample, args=(stop,), daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "stage_mem.db"
        sys.argv = ["memctl", "import", str(args.file), "--db", str(db), "--json", "--silent"]
        started = time.perf_counter()
        try:
            app()
        except SystemExit:
            pass
        finally:
            stop.set()
    print(f"# {args.file}: {time.perf_counter() - started:.1f} s, main VmHWM "
          f"{_hwm_kib(os.getpid()) / 1024:.0f} MiB", file=sys.stderr)  # fmt: skip
    print(f"{'stage':24s} {'tree MiB':>9s} {'main':>7s} {'worker':>7s} {'s':>7s}", file=sys.stderr)
    for label, (tree, main_mib, worker, seconds) in stages.found.items():
        print(f"{label:24s} {tree:9.0f} {main_mib:7.0f} {worker:7.0f} {seconds:7.1f}",
              file=sys.stderr)  # fmt: skip


if __name__ == "__main__":
    main()
