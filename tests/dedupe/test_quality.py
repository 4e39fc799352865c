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

FIXTURE = Path(__file__).parents[2] / "fixtures" / "dedupe" / "labelled.jsonl"


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


def scores(rows: list[dict], groups: dict[int, int]) -> tuple[float, float, int, int]:
    return pairwise({r["id"]: r["label"] for r in rows}, {r["id"]: groups[r["id"]] for r in rows})


@pytest.fixture(scope="module")
def labelled() -> tuple[list[dict], dict[int, int], Counter[str]]:
    """Every labelled record through one engine: (rows, id -> canonical, merges per layer)."""
    rows = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines()]
    engine = Engine()
    merges = engine.add([Item(r["id"], r["text"], r["ts"]) for r in rows])
    groups = {r["id"]: engine.canonical(r["id"]) for r in rows}
    return rows, groups, Counter(m.layer for m in merges)


def test_labelled_fixture_precision_and_recall(
    labelled: tuple[list[dict], dict[int, int], Counter[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    rows, groups, layers = labelled
    base = [r for r in rows if r["split"] == "base"]
    assert len(base) >= 500
    kinds = Counter(r["kind"] for r in base)
    assert {"exact", "normalised", "near", "long_edit", "template", "pinned", "negative"} <= set(
        kinds
    )
    precision, recall, predicted, true = scores(rows, groups)
    with capsys.disabled():
        print(f"\nlabelled fixture: {len(rows)} records, merges by layer {dict(layers)}")
        for part in ("base", "dev", "test"):
            chosen = [r for r in rows if r["split"] == part]
            p, r, n_predicted, n_true = scores(chosen, groups)
            print(f"  {part:>4}: {len(chosen)} records, pairwise precision {p:.4f}, recall {r:.4f} "
                  f"({n_predicted} predicted pairs, {n_true} true pairs)")  # fmt: skip
        print(f"   all: pairwise precision {precision:.4f}, recall {recall:.4f} "
              f"({predicted} predicted pairs, {true} true pairs)")  # fmt: skip
    assert precision >= 0.99
    assert recall >= 0.97
    assert scores(base, groups)[:2] >= (0.99, 0.97)


EVIDENCE = ("counter", "repeated", "bp_head", "bp_tail")


@pytest.mark.parametrize("part", ["dev", "test"])
@pytest.mark.parametrize("kind", EVIDENCE)
def test_evidence_cases_by_kind(
    labelled: tuple[list[dict], dict[int, int], Counter[str]], kind: str, part: str
) -> None:
    # Each class on its own, both styles: what it got wrong, by group, in words.
    rows, groups, _ = labelled
    chosen = [r for r in rows if r["kind"] == kind and r["split"] == part]
    assert {r["group"][0] for r in chosen} == {"A", "B"}  # both styles in both halves
    wrong = []
    for group in sorted({r["group"] for r in chosen}):
        members = [r for r in chosen if r["group"] == group]
        p, r, n_predicted, n_true = scores(members, groups)
        if (p, r) != (1.0, 1.0):
            wrong.append(f"{group}: precision {p:.2f} recall {r:.2f} ({n_predicted} / {n_true})")
    assert wrong == []


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
