"""The in-memory supersede chains (memctl.supersede.resolve) against the algorithm they replaced
(tests/supersede_reference.py): the same statuses, links and logged changes on dated input,
whatever order the values arrive in and however they are batched into files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import supersede_reference
from chain_inputs import dated_values, fill, outcome

from memctl import supersede
from memctl.store import Store


def _run(path: Path, resolve, batches: list[list[int]]) -> None:
    store = Store.open(path)
    try:
        user = store.for_user("alice")
        for batch in batches:
            with store.transaction():
                resolve(user, batch)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("shuffled", "repeats", "batching"),
    [
        (True, 0, "one"), (True, 0, "files"), (False, 0, "one"), (True, 0, "single"),
        (True, 40, "one"), (True, 40, "files"), (True, 7, "single"),
    ],
)  # fmt: skip
def test_the_same_chains_as_the_old_algorithm(
    tmp_path: Path, shuffled: bool, repeats: int, batching: str
) -> None:
    rows = dated_values(300, seed=11, shuffled=shuffled, repeats=repeats)
    ids = fill(tmp_path / "old.db", rows)
    assert fill(tmp_path / "new.db", rows) == ids
    rng = random.Random(5)
    if batching == "one":
        batches = [ids]  # one transcript stating it 300 times
    elif batching == "single":
        batches = [[i] for i in ids]  # one daily note each
    else:
        batches, rest = [], list(ids)
        while rest:
            size = rng.randrange(1, 40)
            batches.append(rest[:size])
            rest = rest[size:]
    _run(tmp_path / "old.db", supersede_reference.resolve, batches)
    _run(tmp_path / "new.db", supersede.resolve, batches)
    old, new = outcome(tmp_path / "old.db"), outcome(tmp_path / "new.db")
    assert sum(s == "superseded" for _, s in old["entries"]) > 100  # the case is not trivial
    assert new == old
