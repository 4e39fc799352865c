"""Records that repeat a line are accepted once (accept.accept_all); each must still come out
exactly as accepting it alone would give."""

from __future__ import annotations

import copy

import pytest

import memctl.importer.accept as accepting
import memctl.parallel as parallel
from memctl.models import MESSAGE, Record

SECRET = "api_key=ZZsecret12345678"


def _records() -> list[Record]:
    lines = [
        ("用户喜欢绿茶", {}),
        (f"my key {SECRET}", {}),
        ("x" * (accepting.MAX_RECORD_CHARS + 5), {}),  # rejected, with its own line
        ("   ", {}),  # empty
        ("TODO", {}),  # template noise
        ("I moved to Lisbon in 2021.", {"kind": MESSAGE, "role": "user"}),
        ("ok thanks", {"kind": MESSAGE, "role": "user"}),
        ("I moved to Lisbon in 2021.", {"section": f"Keys {SECRET}"}),
        ("用户喜欢绿茶", {"section": "Tea"}),
        ("用户喜欢绿茶", {"skip": "tool output"}),
    ]
    records = []
    for line in range(60):
        text, extra = lines[line % len(lines)]
        records.append(Record(text, "MEMORY.md", line + 1, "markdown", **extra))
    return records


@pytest.mark.parametrize("fork", [False, True])
def test_repeated_records_come_out_as_each_accepted_alone(
    fork: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if fork:
        monkeypatch.setattr(accepting, "PARALLEL_MIN", 1)
        monkeypatch.setattr(parallel, "CHUNK", 2)
    records = _records()
    alone = copy.deepcopy(records)
    expected = [accepting.accept(r) for r in alone]
    got = accepting.accept_all(records)
    assert len(got) == len(expected)
    for record, was, outcome, want in zip(records, alone, got, expected, strict=True):
        assert record == was  # the same heading redacted, nothing else changed
        if isinstance(want, accepting.Accepted):
            assert isinstance(outcome, accepting.Accepted)
            assert outcome.record is record
            assert outcome._replace(record=was) == want
        else:
            assert outcome == want
    rejected = [o for o in got if isinstance(o, accepting.Rejection)]
    assert [r.line for r in rejected] == [3, 13, 23, 33, 43, 53]
    # Each its own list of redacted kinds, as alone.
    kinds = [o.redacted for o in got if isinstance(o, accepting.Accepted) and o.redacted]
    assert len(kinds) > 2 and len({id(k) for k in kinds}) == len(kinds)


def test_a_repeated_record_is_accepted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped: list[str] = []
    ship = accepting.ship

    def counting(record: Record):  # type: ignore[no-untyped-def]
        shipped.append(record.text)
        return ship(record)

    monkeypatch.setattr(accepting, "ship", counting)
    accepting.accept_all(_records())
    # Ten kinds of line; the same text under another heading, kind or skip is its own.
    assert len(shipped) == 10


def test_a_source_row_binds_each_value_to_its_column() -> None:
    """write builds each sources row as one plain tuple, in SOURCE_COLUMNS order."""
    import memctl.importer.write as writing
    from memctl.dedupe import Merge
    from memctl.store.fields import SOURCE_COLUMNS

    record = Record("tea", "a.md", 7, "markdown", role="user", ts="2024-01-02", section="S",
                    session_id="s1", message_id="m1", layer_hint="profile",
                    header="Name | Role")  # fmt: skip
    a = accepting.Accepted(record, "tea", "s1:n", "r1:r", "preference", ())
    how = Merge(dup=5, into=3, layer="jaccard", score=0.912345, why="near")
    row = writing._source_row(a, 5, 9, True, "NOW", how)
    assert dict(zip(SOURCE_COLUMNS, row, strict=True)) == {
        "entry_id": 5, "path": "a.md", "line": 7, "format": "markdown",
        "session_id": "s1", "message_id": "m1", "role": "user", "ts": "2024-01-02",
        "section": "S", "raw_hash": "r1:r", "run_id": 9, "merge_layer": "jaccard",
        "merge_score": 0.9123, "created_at": "NOW", "category": "preference",
        "layer_hint": "profile", "header": "Name | Role",
    }  # fmt: skip
