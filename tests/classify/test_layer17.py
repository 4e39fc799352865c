"""Layer round 17: an absence bounded by its dates is a status snapshot that will go stale
(TAXONOMY.md, episodic). Each test is an invented line of the kind the rule is written for, not
a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/memory/MEMORY.md"
AGENTS = ".codex/AGENTS.md"


@pytest.mark.parametrize(
    "text",
    [
        "- Priya is on parental leave until 2027-02; Tom takes her tickets",
        "- Off work 3–9 March, skiing in Bansko.",
        "- The studio is closed 24/12–02/01; bookings open again after",
        "- 王姐 1 月 20 日到 26 日休假，排班找小李",
    ],
)
def test_an_absence_bounded_by_its_dates_is_a_snapshot(text: str) -> None:
    # A leave or a closure with its end date or its date range: a state that holds for those
    # days only, then goes stale.
    assert classify(text, path=AGENTS, section="Notes").layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "- Sam is on a probation plan until 2027-01-10; review his tickets",
        "- Never deploy between 18:00–08:00",
    ],
)
def test_a_standing_value_or_a_start_is_no_snapshot(text: str) -> None:
    # A rule bounded by hours, or a term that is no absence, is not such a snapshot.
    assert classify(text, path=AGENTS, section="Notes").layer != "episodic"
