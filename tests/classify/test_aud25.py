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


@pytest.mark.parametrize(
    "text",
    [
        "- NIF 254 118 903 — goes on invoices and nowhere else.",
        "- CPF 123.456.789-09",
        "- 小周今天称重 82.4kg，比上周掉了 0.8。",
        "I weigh 82 kg now",
        "- I'm 71 and my eyes aren't what they were",
        "Moving out to a rented flat on Cold Bath Road on 2026-12-14.",
    ],
)
def test_a_tax_number_a_weighing_ones_age_and_a_street_are_private(text: str) -> None:
    # TAXONOMY.md, Audience: identity numbers, health and home addresses are private.
    assert classify(text).audience == "private", text


@pytest.mark.parametrize(
    "text",
    ["The parcel weighs 12 kg", "快递称重 2kg", "I'm 10 minutes away", "The office on Park Road"],
)
def test_a_parcels_weight_a_delay_and_an_office_are_public(text: str) -> None:
    assert classify(text).audience == "public", text
