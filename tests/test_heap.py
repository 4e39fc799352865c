"""memctl.heap: what a big import frees goes back to the system."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Frees a 24 MiB block (glibc then carves every smaller one from its heap, by default), then
# makes, fills and frees a 16 MiB one: how much of it is still resident, in MiB.
_KEPT = """
import numpy as np
from memctl import heap
if {given_back}:
    heap.big_blocks_given_back()
def resident():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
big = np.ones(24 << 17)
del big
before = resident()
block = np.ones(16 << 17)
block += 1
del block
print(resident() - before)
"""


def _kept(given_back: bool) -> float:
    code = _KEPT.format(given_back=given_back)
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                check=True, text=True).stdout)  # fmt: skip


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_a_big_block_freed_goes_back_to_the_system() -> None:
    assert _kept(given_back=False) > 12  # what it guards against, as glibc does by default
    assert _kept(given_back=True) < 4
