"""Realm, thirteenth round: the person's own life keeps `real` against a job's vote. A line
about the person's body (a condition, an aid the body needs) is theirs whatever their job
(TAXONOMY.md, Realm: real is the user's own life; Audience: health is private), so a home
that serves a job does not take it as know-how it keeps private only for what it holds. A
leave or a health certificate may be a job's paperwork (a driver's medical card) and leans to
no realm. Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import classify, home, rules

MEMORY = "/h/.openclaw/workspace/MEMORY.md"

BODY = [
    "- CPAP mask strap snapped, a new one is on order",
    "- Sleep apnoea, the machine goes in the overnight bag",
    "- Knee bursitis flares after long shifts, ice it first",
    "- 胃炎又犯了，提醒她先吃东西再睡",
    "- 出门要带拐杖",
    "- Her new hearing aids arrive on Monday",
]


@pytest.mark.parametrize("text", BODY)
def test_a_condition_or_an_aid_of_the_body_leans_to_a_life(text):
    c = classify(text, path=MEMORY)
    assert rules.says_realm(text)
    # A lean, not a cue: the line says no realm of its own, and stays private.
    assert (c.realm, c.realm_cued, c.audience) == ("real", False, "private")


@pytest.mark.parametrize(
    "text",
    [
        "- Forklift medical certificate renewed, valid to 2028-01-31",
        "- 病假条周五前交",
        "- Maternity leave cover starts on the 3rd",
    ],
)
def test_a_leave_or_a_health_certificate_is_private_but_leans_to_no_realm(text):
    assert classify(text, path=MEMORY).audience == "private"
    assert not rules.says_realm(text)


def _evidence(private: str) -> home.Evidence:
    evidence = home.Evidence()
    statement = home.Line(
        1, "- Dee Park, night porter at the Grand", "work", True, "profile", "public", False, False
    )
    rules_ = [
        home.Line(i, f"rule {i}", "work", True, "procedural", "public", False, False)
        for i in (2, 3, 4)
    ]
    line = home.Line(5, private, "real", False, "procedural", "private", False, False)
    evidence.add(MEMORY, [statement, *rules_, line])
    return evidence


@pytest.mark.parametrize("text", BODY)
def test_a_job_home_keeps_a_line_of_the_body_the_persons(text):
    assert _evidence(text).candidates == []


def test_a_job_home_takes_a_certificate_of_the_job():
    evidence = _evidence("- Forklift medical certificate renewed, valid to 2028-01-31")
    assert evidence.candidates == [5]
