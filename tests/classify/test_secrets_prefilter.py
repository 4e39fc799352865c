"""The detectors' requirements derived from their patterns (gate.requirements) skip only
detectors that could not have fired: redaction is the same as without them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.classify import secrets

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "classify"
LINES = [
    json.loads(line)["text"]
    for line in Path(__file__).with_name("secret_lines.jsonl").read_text("utf-8").splitlines()
    if json.loads(line)["half"] == "dev"
] + [
    json.loads(line)["text"]
    for name in ("labelled.jsonl", "heldout.jsonl")
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
]


def test_some_detectors_have_requirements_besides_their_gate() -> None:
    wide = [d.wide for d in secrets._detectors() if d.wide is not None and not d.wide.plain]
    assert len(wide) > 10
    pin = next(d for d in secrets._detectors() if d.kind == "pin" and d.wide and d.wide.digit)
    assert secrets.redact("door pin 4471")[1] == ["pin"]
    assert pin.wide is not None and not pin.wide.rest_holds("door pin please")


def test_redaction_with_them_equals_without() -> None:
    with_them = [secrets.redact(t) for t in LINES]
    plain = tuple(dataclasses.replace(d, wide=None) for d in secrets._detectors())
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets, "_detectors", lambda: plain)
        without = [secrets.redact(t) for t in LINES]
    assert sum(bool(kinds) for _, kinds in with_them) > 30
    assert with_them == without


PIECES = [
    "pw ",
    "pass: ",
    "API_KEY=",
    "token: ",
    "pin ",
    "密码 ",
    "sk-",
    "4471",
    "Ab3$xY9!q",
    " ",
    "\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_redaction_with_them_equals_without_on_generated_text(parts: list[str]) -> None:
    text = "".join(parts)
    plain = tuple(dataclasses.replace(d, wide=None) for d in secrets._detectors())
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets, "_detectors", lambda: plain)
        without = secrets.redact(text)
    assert secrets.redact(text) == without
