"""Layer judgments of the eleventh layer round: each rule follows from a clause of TAXONOMY.md and
each test is an invented line of the rule's form, in both languages, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "司机月薪 6000，每月 15 号发",
        "保姆工资 4800，每个月 1 号转账",
        "Rosa is a live-out nanny, paid on the 28th of each month",
        "Tom is a part-time gardener; his pay goes out every month on the 1st",
    ],
)
def test_a_payment_on_a_day_of_every_month_is_a_routine(text: str) -> None:
    # TAXONOMY.md, procedural: workflows. Someone's pay set on a day of every month is a routine
    # the agent keeps, not a fact about the user, whatever pay word it names.
    assert classify(text, path=MEMORY, section="MEMORY.md > Household").layer == "procedural"


def test_the_users_own_salary_stays_a_fact_about_them() -> None:
    c = classify("月薪 2 万，年终奖一般两个月", path="workspace/USER.md", section="USER.md > 工作")
    assert c.layer == "profile"
