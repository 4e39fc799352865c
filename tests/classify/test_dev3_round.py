"""Realm, audience and layer rules of the dev3 round (issue 10): each test is an invented line
of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # A law firm: attorneys, courts, filings, matters.
        "Pleadings go out on the firm letterhead, Arial 11",
        "Depositions are booked through the litigation assistant",
        "State court answers are due 21 days after service",
        "开庭前三天把证据目录发给主办律师",
        "案件编号统一写成 2027-民-031 这种格式",
        # On call for a service: pages, incidents, postmortems, handovers.
        "After a page, write the handover note before going back to sleep",
        "Postmortem drafts live in the ops wiki under /incidents",
        "值班手机每周一早上交接，交接前清空未确认告警",
        # A researcher's contract and lab, a writer's publisher and manuscript.
        "Postdoc contract ends in March; the fellowship application is due in May",
        "博士后合同到 2028 年，基金申请 9 月截止",
        "The publisher wants the manuscript as a single .docx",
        "交稿前先把字数统计发给出版社的责编",
    ],
)
def test_the_vocabulary_of_a_jobs_world_is_work(text: str) -> None:
    # TAXONOMY.md, Realm: "work — a job, employer, team, clients or a business product".
    c = classify(text, path=MEMORY, section="Notes")
    assert (c.realm, c.realm_cued) == ("work", True), text


@pytest.mark.parametrize(
    "text",
    [
        "It doesn't matter which editor I use for notes",
        "Home Assistant alerts go to my phone",
        "Reading a novel before bed, no screens after 23:00",
    ],
)
def test_words_shared_with_ones_own_life_say_no_job(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").realm != "work", text
