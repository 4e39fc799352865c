"""The import benchmark's memory figure is the run's own, not what the bench process held.

On Linux a process started by fork (or vfork) and exec keeps the resident high-water mark of
the memory it was forked from in its ru_maxrss, so a bench that had generated a big corpus
reported that much for every later run (749 MiB for six 20k imports after a 200k one, each
286-411 MiB alone). tests/bench/treemem.py reads the child's own VmHWM instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

BENCH = Path(__file__).parent / "bench"

# Run in a process of its own, so the test's memory is not pytest's: it holds FAT MiB, then
# measures one small import.
SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, {bench!r})
from bench_import_dedupe import run_memctl
held = bytearray({fat} << 20)
held[::4096] = b"x" * len(held[::4096])  # resident, not only reserved
_, peak, report = run_memctl(Path({src!r}), Path({db!r}))
print(peak, report["records"])
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_peak_of_a_small_import_leaves_out_the_bench_own_memory(tmp_path: Path) -> None:
    src = tmp_path / "small.json"
    memories = [{"id": i, "content": f"The user prefers tea number {i}.", "created_at": 0}
                for i in range(20)]  # fmt: skip
    src.write_bytes(orjson.dumps({"version": 1, "exportedAt": 0, "memories": memories}))
    fat = 1200
    script = SCRIPT.format(bench=str(BENCH), fat=fat, src=str(src), db=str(tmp_path / "m.db"))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    peak, records = float(out[0]), int(out[1])
    assert records == 20
    assert 20 < peak < fat / 2  # a small import: ~100-300 MiB, not the bench's 1,200
