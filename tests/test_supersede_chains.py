"""The in-memory supersede chains (memctl.supersede.resolve) against the algorithm they replaced
(tests/supersede_reference.py): the same statuses, links and logged changes on dated input,
whatever order the values arrive in and however they are batched into files."""

from __future__ import annotations

import random
from pathlib import Path

import chain_inputs
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


def _imported(path: Path, rows: list[tuple[str, str]], sizes: list[int], chains) -> None:
    """Rows written a file at a time, each file's entries resolved as an import does: with
    `chains` (a dict) kept from file to file, or read anew for each file (None)."""
    store = Store.open(path)
    try:
        user = store.for_user("alice")
        start = 0
        for size in sizes:
            with store.transaction():
                entries = [
                    {"content": f"I live in {value} ({start + i})", "norm_hash": f"h{start + i}",
                     "status": "active", "realm": "real", "layer": "profile", "ts": ts,
                     "fact_key": chain_inputs.KEY, "fact_value": value, "fact_certain": 1}
                    for i, (value, ts) in enumerate(rows[start : start + size])
                ]  # fmt: skip
                ids = list(user.add_entries(entries).values())
                supersede.resolve(user, ids, chains=chains)
            start += size
    finally:
        store.close()


@pytest.mark.parametrize(("shuffled", "repeats"), [(True, 0), (False, 0), (True, 30)])
def test_chains_kept_from_file_to_file_decide_as_chains_read_for_each(
    tmp_path: Path, shuffled: bool, repeats: int
) -> None:
    """An import keeps each key's chain from one file to the next (new entries join it): the
    statuses, links and change log are those of reading the chain again for every file."""
    rows = dated_values(240, seed=13, shuffled=shuffled, repeats=repeats)
    rng = random.Random(2)
    sizes = []
    while sum(sizes) < len(rows):
        sizes.append(min(rng.choice([1, 1, 1, 2, 5, 17]), len(rows) - sum(sizes)))
    _imported(tmp_path / "fresh.db", rows, sizes, None)
    kept: dict = {}
    _imported(tmp_path / "kept.db", rows, sizes, kept)
    fresh, new = outcome(tmp_path / "fresh.db"), outcome(tmp_path / "kept.db")
    assert sum(s == "superseded" for _, s in fresh["entries"]) > 100
    assert new == fresh
    assert list(kept) == [chain_inputs.KEY]  # the chain was kept, not read again


def _one_a_call(path: Path, n: int, seed: int, repeats: int = 0) -> supersede.Chains:
    """Shuffled values resolved one a call, the chain kept from call to call (one value a
    daily note, as an import goes); returns the kept chains."""
    rows = dated_values(n, seed=seed, shuffled=True, repeats=repeats)
    kept: supersede.Chains = {}
    _imported(path, rows, [1] * n, kept)
    return kept


def test_a_value_slotting_into_a_long_chain_reads_a_few_links_not_the_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 11: each shuffled value walked down the chain link by link to its place, n²/4
    link reads in all (1.0M for 2k values, 16.1M for 8k); by bisection on the chain in time
    order, a few per value."""
    reads = 0
    olds_of = supersede._Chain.olds_of

    def counted(self: supersede._Chain, entry: supersede.Entry) -> list[supersede.Entry]:
        nonlocal reads
        reads += 1
        return olds_of(self, entry)

    monkeypatch.setattr(supersede._Chain, "olds_of", counted)
    n = 400
    _one_a_call(tmp_path / "kept.db", n, seed=21)
    statuses = [s for _, s in outcome(tmp_path / "kept.db")["entries"]]
    assert statuses.count("superseded") == n - 1  # every value but the latest replaced
    assert reads < 10 * n  # the walk link by link: ~n²/4 = 40,000


@pytest.mark.parametrize("repeats", [0, 12])
def test_the_closest_newer_by_bisection_is_the_one_walking_the_stored_links_finds(
    tmp_path: Path, repeats: int
) -> None:
    """After a few hundred shuffled values, the chain's answer for any time is what walking
    down the stored links one by one gives (the algorithm before the chains in memory), and
    its spine is the path that walk takes."""
    kept = _one_a_call(tmp_path / "kept.db", 300, seed=8, repeats=repeats)
    chain = kept[chain_inputs.KEY]
    assert len(chain.spine) > 50  # the bisection is what is tested, not the walk
    store = Store.open(tmp_path / "kept.db")
    try:
        user = store.for_user("alice")
        chain.user = user
        head = chain.spine[-1]
        assert head["status"] == "active"
        path = [head]
        while olds := supersede._olds(user, path[-1]):
            path.append(max(olds, key=supersede._when))
        assert [e["id"] for e in chain.spine] == [e["id"] for e in reversed(path)]
        rng = random.Random(4)
        first, last = supersede._when(path[-1])[0], supersede._when(head)[0]
        for n in range(200):
            probe = {"id": 10**6 + n, "ts": f"{rng.choice([first, last])[:4]}-06-01T00:00:00"}
            if n % 2:  # a time between two values of the chain
                probe["ts"] = rng.choice(path)["ts"].replace(":00+", ":30+")
            found = chain.closest_newer(head, probe)
            assert found["id"] == supersede._closest_newer(user, head, probe)["id"]
    finally:
        store.close()
