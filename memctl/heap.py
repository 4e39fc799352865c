"""Giving freed memory back to the system."""

from __future__ import annotations

import contextlib
import sys


def give_back() -> None:
    """Return the heap's free pages to the system (glibc's malloc_trim): what a dropped
    engine (or its folded texts) held is scattered over pages that the writes after it, or
    numpy's and Python's own arenas, would not all reuse."""
    if sys.platform.startswith("linux"):
        import ctypes  # only here: not worth loading for every memctl command

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)
