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


# glibc's mallopt parameter: blocks at least this big are mapped on their own, and unmapped
# (given back) as soon as they are freed.
_M_MMAP_THRESHOLD = -3
BIG_BLOCK = 4 << 20


def big_blocks_given_back() -> None:
    """From now on, have every block of BIG_BLOCK bytes or more (numpy's arrays of a big batch)
    go back to the system as soon as it is freed. glibc otherwise raises that threshold to
    the biggest block freed so far (up to 32 MiB): the near-duplicate join's arrays, each
    smaller than the one freed before it, were then carved from the heap and kept there once
    freed, resident, while the next ones were made (200k boilerplate notes: the tree's peak,
    in the L3 join, ~980 -> ~945 MiB)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, BIG_BLOCK)
