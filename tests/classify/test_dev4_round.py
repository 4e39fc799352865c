"""Realm rules of the dev4 round (issue 10): each test is an invented line of the kind the rule
is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

USER = "workspace/USER.md"
MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "Teaches maths at a community college, first-year groups",
        "Works at Zalando (checkout team), hybrid",
        "Name: Mira Holt. Freelance illustrator, based in Leeds",
        "- 初三数学老师，教 3 个班",
    ],
)
def test_a_job_stated_by_what_one_does_is_work(text: str) -> None:
    # TAXONOMY.md, Realm: "work — a job, employer"; the gold sets' decision: the user's job and
    # employer are work, also in USER.md beside the name.
    c = classify(text, path=USER, section="USER > About")
    assert (c.realm, c.realm_cued) == ("work", True), text


@pytest.mark.parametrize(
    "text",
    [
        "My sister works at a bank in Leeds",
        "退休前是一所初中的数学老师",
        "Worked at a bakery before university",
    ],
)
def test_someone_elses_job_or_a_former_one_is_not_the_users_work(text: str) -> None:
    assert classify(text, path=USER, section="USER > About").realm != "work", text


@pytest.mark.parametrize(
    "text",
    [
        "Series A term sheet arrives next week; lawyer reads it first",
        "Investor update order: MRR, churn, wins, asks",
        "Never forward the cap table or the data room outside the founders",
        "Monthly burn is 20k, runway 11 months",
        "天使轮融资下个月交割，路演材料放在共享盘",
    ],
)
def test_a_company_raising_money_and_its_metrics_is_work(text: str) -> None:
    # TAXONOMY.md, Realm: "work — … clients or a business product".
    c = classify(text, path="memory/project_round.md", section=None)
    assert (c.realm, c.realm_cued) == ("work", True), text


@pytest.mark.parametrize(
    "text", ["Buy more of the index ETF every payday", "Got a burn at the BBQ, aloe helps"]
)
def test_ones_own_investing_or_a_burn_is_no_company(text: str) -> None:
    assert classify(text, path="workspace/MEMORY.md", section=None).realm != "work", text


@pytest.mark.parametrize("section", ["MEMORY > My character", "MEMORY > 角色卡"])
def test_a_kinship_word_under_a_heading_naming_ones_character_is_the_storys(section: str) -> None:
    # The fourth set's decision: a player's own character is fictional; "Sister Maren" is a
    # nun's title in the game, not the user's family.
    c = classify("- Sister Maren Vale, dwarf paladin, level 5", path=MEMORY, section=section)
    # …and who the player is in the game: persona, as a character the assistant voices.
    assert (c.realm, c.audience, c.layer) == ("fictional", "public", "persona")
