"""Dedupe signatures are written as they are made: an import's last file hands the store one
signature per new entry (its folded text, ~1 KB for a long note), and a list of them all was
~200 MiB of a 200k-record import's peak."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

from memctl.store import Store

ENTRIES = 400
SIZE = 100_000  # bytes per signature: all of them at once would be 40 MB


def test_put_stores_each_pair(store: Store) -> None:
    user = store.for_user("u")
    with store.transaction():
        user.add_entries({"content": f"t{i}", "norm_hash": f"h{i}"} for i in range(3))
        user.signatures.put((i, bytes([i])) for i in (1, 2, 3))
        user.signatures.put([(2, b"again")])  # replaces what the entry had
    assert [(i, sig) for i, _ts, sig, _m in user.signatures.load()] == [
        (1, b"\x01"), (2, b"again"), (3, b"\x03")
    ]  # fmt: skip


def test_put_holds_one_signature_at_a_time(store: Store) -> None:
    user = store.for_user("u")
    with store.transaction():
        user.add_entries({"content": f"t{i}", "norm_hash": f"h{i}"} for i in range(ENTRIES))

    def signed() -> Iterator[tuple[int, bytes]]:
        for i in range(1, ENTRIES + 1):
            yield i, bytes(SIZE)

    tracemalloc.start()
    try:
        with store.transaction():
            user.signatures.put(signed())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * SIZE  # not ENTRIES * SIZE
    assert sum(len(sig) for _i, _ts, sig, _m in user.signatures.load()) == ENTRIES * SIZE
