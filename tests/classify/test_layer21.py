"""Layer round 21 (rules read from tuning set A, checked on set B by figures). Each test is an
invented line of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

DAILY = "workspace/memory/2026-10-14.md"
MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        (
            "- Lena's birthday is next Tuesday (2026-10-27) — she wants a reminder on Saturday"
            " to buy flowers.",
            "2026-10-14 > Evening",
        ),
        (
            "- Omar's birthday is 2026-12-03. Kim wants a reminder on the 25th to book the"
            " restaurant.",
            "2026-10-14 > Evening",
        ),
        (
            "- Niamh's birthday is 9 January. She wants a wool scarf; remind Tom by 2027-01-02.",
            "2026-10-14 > Personal",
        ),
    ],
)
def test_a_reminder_asked_for_one_day_is_a_plan_for_once(text: str, section: str) -> None:
    # TAXONOMY.md, episodic: something that will happen once; the birthday is its reason.
    assert classify(text, path=DAILY, section=section).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "- Before each lesson remind me on Thursday night to print the sheets",
        "- Ravi's birthday: 4 March",
    ],
)
def test_a_reminder_that_comes_back_and_a_bare_birthday_are_not_once(text: str) -> None:
    assert classify(text, path=MEMORY, section="Long-term Memory").layer != "episodic"
