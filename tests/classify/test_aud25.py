"""Audience mends of the eighteenth session's round (aud25): invented lines of the shapes the
cues misread."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "text",
    [
        "- Chains required on I-84 at Cabbage Hill, sat 3 h at Pendleton",
        "- Roadworks on the A-34 near Beacon Hill",
        "- 以后叫我川哥，阿川听着像小孩。",
        "- 他说话像个小孩，别当真",
    ],
)
def test_a_roads_number_and_a_likeness_are_no_address_and_no_child(text: str) -> None:
    assert classify(text).audience == "public", text


@pytest.mark.parametrize(
    "text", ["Lives at 22 Harbour Rd", "- Flat at 7 Mill Hill", "- 小孩周末上游泳课"]
)
def test_a_street_address_and_a_child_stay_private(text: str) -> None:
    assert classify(text).audience == "private", text
