"""Accuracy of the rule classifier on the hand-labelled set in fixtures/classify/.

labelled.jsonl is what the lexicons were tuned on; heldout.jsonl (a quarter of the lines,
split off before any rule was written) was not. Both are asserted on together; the held-out
figures are printed separately (run with -s to see them and the confusion matrices).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from memctl.classify import Classification, classify
from memctl.models import AUDIENCES, LAYERS, REALMS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "classify"
CJK = re.compile(r"[\u4e00-\u9fff]")


def load(name: str) -> list[dict[str, str]]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


TUNED = load("labelled.jsonl")
HELD_OUT = load("heldout.jsonl")
EVERYTHING = TUNED + HELD_OUT


def run(row: dict[str, str]) -> Classification:
    return classify(
        row["text"],
        ts=row.get("ts"),
        section=row.get("section"),
        path=row.get("path"),
        category=row.get("category"),
    )


RESULTS = {row["text"]: run(row) for row in EVERYTHING}


def predict(row: dict[str, str]) -> dict[str, str]:
    c = RESULTS[row["text"]]
    return {"layer": c.layer, "realm": c.realm, "audience": c.audience}


def accuracy(rows: list[dict[str, str]], dimension: str) -> float:
    return sum(predict(r)[dimension] == r[dimension] for r in rows) / len(rows)


def confusion(rows: list[dict[str, str]], dimension: str, labels: tuple[str, ...]) -> str:
    counts = Counter((r[dimension], predict(r)[dimension]) for r in rows)
    width = max(len(x) for x in labels) + 1
    header = " " * width + "".join(f"{x[:10]:>11}" for x in labels)
    lines = [f"{dimension}: rows = label, columns = predicted", header]
    for label in labels:
        lines.append(f"{label:<{width}}" + "".join(f"{counts[label, p]:>11}" for p in labels))
    return "\n".join(lines)


def test_labelled_set_is_big_bilingual_and_split() -> None:
    assert len(EVERYTHING) >= 200
    chinese = sum(bool(CJK.search(r["text"])) for r in EVERYTHING)
    assert 0.3 < chinese / len(EVERYTHING) < 0.7
    assert 0.2 <= len(HELD_OUT) / len(EVERYTHING) <= 0.3
    for row in EVERYTHING:
        assert row["layer"] in LAYERS and row["realm"] in REALMS and row["audience"] in AUDIENCES
    assert not {r["text"] for r in TUNED} & {r["text"] for r in HELD_OUT}
    assert {r["layer"] for r in HELD_OUT} == set(LAYERS)


@pytest.mark.parametrize(
    ("dimension", "labels", "floor"),
    [("layer", LAYERS, 0.9), ("realm", REALMS, 0.95), ("audience", AUDIENCES, 0.95)],
)
def test_accuracy_on_the_labelled_set(
    dimension: str, labels: tuple[str, ...], floor: float
) -> None:
    full = accuracy(EVERYTHING, dimension)
    held_out = accuracy(HELD_OUT, dimension)
    print(f"\n{dimension}: full set {full:.3f} ({len(EVERYTHING)} lines), ", end="")
    print(f"held-out {held_out:.3f} ({len(HELD_OUT)} lines)")
    print(confusion(EVERYTHING, dimension, labels))
    assert full >= floor


def test_wrong_layers_are_less_confident_and_no_line_waits_for_being_unsure() -> None:
    """Confidence is the classifier saying it may be wrong about the layer: errors should sit
    lower. It is not a reason to hold a line back: a clean line is active whatever its score."""
    wrong = [RESULTS[r["text"]].confidence for r in EVERYTHING if predict(r)["layer"] != r["layer"]]
    right = [RESULTS[r["text"]].confidence for r in EVERYTHING if predict(r)["layer"] == r["layer"]]
    print(
        f"\nmean layer confidence: wrong {sum(wrong) / max(len(wrong), 1):.2f} ({len(wrong)}),"
        f" right {sum(right) / len(right):.2f} ({len(right)})"
    )
    assert not wrong or sum(wrong) / len(wrong) < sum(right) / len(right)
    for row in EVERYTHING:
        c = RESULTS[row["text"]]
        assert (c.status == "active") == (not c.reasons), row["text"]
        assert all(not r.startswith(("low confidence", "realm unknown")) for r in c.reasons)
