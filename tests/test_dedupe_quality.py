"""Quality of the near-duplicate engine on labelled data: pairwise precision and recall.

The engine is given every record, exact copies included (it folds identical normalised text
itself; in an import, L1 would have taken those first). A pair of records is "predicted" when
the engine puts them in one group and "true" when they share a label.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from corpus import seed_shape

from memctl.dedupe.engine import Engine, Item

FIXTURE = Path(__file__).parents[1] / "fixtures" / "dedupe" / "labelled.jsonl"


def pairwise(labels: dict[int, int], groups: dict[int, int]) -> tuple[float, float, int, int]:
    """Precision and recall of the pairs `groups` puts together, against `labels`."""
    by_label: dict[int, list[int]] = {}
    by_group: dict[int, list[int]] = {}
    for item, label in labels.items():
        by_label.setdefault(label, []).append(item)
        by_group.setdefault(groups[item], []).append(item)
    true = {frozenset(p) for ids in by_label.values() for p in combinations(ids, 2)}
    predicted = {frozenset(p) for ids in by_group.values() for p in combinations(ids, 2)}
    hit = len(true & predicted)
    return hit / max(len(predicted), 1), hit / max(len(true), 1), len(predicted), len(true)


def test_pairwise_scorer_counts_pairs() -> None:
    labels = {1: 1, 2: 1, 3: 1, 4: 2}
    precision, recall, predicted, true = pairwise(labels, {1: 1, 2: 1, 3: 3, 4: 1})
    assert (predicted, true) == (3, 3)
    assert (precision, recall) == (1 / 3, 1 / 3)


def test_labelled_fixture_precision_and_recall(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines()]
    assert len(rows) >= 500
    kinds = Counter(r["kind"] for r in rows)
    assert {"exact", "normalised", "near", "long_edit", "template", "pinned", "negative"} <= set(
        kinds
    )
    engine = Engine()
    merges = engine.add([Item(r["id"], r["text"], r["ts"]) for r in rows])
    groups = {r["id"]: engine.canonical(r["id"]) for r in rows}
    precision, recall, predicted, true = pairwise({r["id"]: r["label"] for r in rows}, groups)
    layers = Counter(m.layer for m in merges)
    with capsys.disabled():
        print(
            f"\nlabelled fixture: {len(rows)} records {dict(kinds)}\n"
            f"  pairwise precision {precision:.4f}, recall {recall:.4f} "
            f"({predicted} predicted pairs, {true} true pairs); merges by layer {dict(layers)}"
        )
    assert precision >= 0.99
    assert recall >= 0.97


@pytest.mark.slow
def test_seed_shape_converges_to_its_distinct_memories() -> None:
    records, distinct = seed_shape()
    assert len(records) == 2617
    assert sum(r.kind == "template" for r in records) == 999
    assert sum(r.kind == "pinned" for r in records) == 899
    assert sum(r.kind == "hello" for r in records) == 52
    engine = Engine()
    merges = engine.add([Item(i, r.text, r.ts) for i, r in enumerate(records)])
    survivors = {engine.canonical(i) for i in range(len(records))}
    assert len(survivors) == distinct
    assert len(records) - len({m.dup for m in merges}) == distinct
    # Every group is one label: nothing distinct was merged.
    labels_per_group: dict[int, set[int]] = {}
    for i, r in enumerate(records):
        labels_per_group.setdefault(engine.canonical(i), set()).add(r.label)
    assert all(len(labels) == 1 for labels in labels_per_group.values())
    # Adding the same records again (new ids) creates no new memory.
    again = engine.add([Item(10_000 + i, r.text, r.ts) for i, r in enumerate(records)])
    assert len({engine.canonical(10_000 + i) for i in range(len(records))} - survivors) == 0
    assert {m.dup for m in again} >= {10_000 + i for i in range(len(records))} - survivors
