"""Layer judgments of the eleventh layer round: each rule follows from a clause of TAXONOMY.md and
each test is an invented line of the rule's form, in both languages, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/MEMORY.md"
PROJECT = "code/shop/CLAUDE.md"


@pytest.mark.parametrize(
    "text",
    [
        "司机月薪 6000，每月 15 号发",
        "保姆工资 4800，每个月 1 号转账",
        "Rosa is a live-out nanny, paid on the 28th of each month",
        "Tom is a part-time gardener; his pay goes out every month on the 1st",
    ],
)
def test_pay_sent_out_on_a_day_of_every_month_is_a_routine(text: str) -> None:
    # TAXONOMY.md, procedural: workflows. Someone's pay set on a day of every month is a routine
    # the agent keeps, not a fact about the user, whatever pay word it names.
    assert classify(text, path=MEMORY, section="MEMORY.md > Household").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "月薪 2 万，年终奖一般两个月",
        "房贷每月 15 号还，月供 8200，招商银行",
        "Mortgage with Halifax, £640 due on the 1st of every month",
    ],
)
def test_what_the_user_earns_or_owes_stays_a_fact_about_them(text: str) -> None:
    assert classify(text, path="workspace/USER.md", section="USER.md > Money").layer == "profile"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("Never restart any container on the prod host during office hours", "shop > Deploy"),
        ("发布流程里别跳过任何检查步骤", "shop > 发布"),
        ("不要执行任何部署命令", "shop > 部署"),
    ],
)
def test_a_prohibition_over_anything_is_a_limit(text: str, section: str) -> None:
    # TAXONOMY.md, boundary: what it must never do. "Any" leaves no case open: the form wins
    # over the rules file and the deploy heading the line sits under.
    assert classify(text, path=PROJECT, section=section).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    ["家长说别在任何群里发孩子的照片", "Nothing about the kids goes into the shared calendar"],
)
def test_a_reported_or_bare_prohibition_over_anything_is_a_limit(text: str) -> None:
    assert classify(text, path="workspace/memory/2026-05-04.md", section="Notes").layer == (
        "boundary"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Nobody came to the meeting on Friday",
        "Nothing broke during the migration",
        "No one replied to the listing yet",
        "I have never used any paid plan",
        "She never eats anything spicy",
    ],
)
def test_nothing_or_nobody_telling_what_happened_is_no_limit(text: str) -> None:
    # Only a rule in the present ("Nothing … goes …") is a limit; these tell an event.
    assert classify(text, path="workspace/memory/2026-05-04.md", section="Notes").layer != (
        "boundary"
    )


def test_advice_naming_what_to_use_instead_stays_procedural() -> None:
    # TAXONOMY.md, boundary: advice phrased as "don't" stays procedural.
    text = "不要用任何第三方图床，改用 `scripts/upload.sh` 传到 OSS"
    assert classify(text, path=PROJECT, section="shop").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "居留卡有效期到 2028-06-30",
        "房屋保险在人保，2027-09 到期",
        "Home insurance with Aviva, policy HX-55120, renews 2027-05-01",
        "Car loan at 3.9%, fixed until 2028-02, £210/month",
        "Passport valid until 2031",
    ],
)
def test_a_term_that_runs_to_a_date_is_a_standing_fact(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user; a permit, a policy or a rate holds for
    # as long as it runs (tests/quality README, sixth set), it is no event of its end date.
    assert classify(text, path=MEMORY, section="MEMORY.md > Notes").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "GitHub token for the backup job (expires 2027-03)",
        "备份用的 API 密钥 2027-01 到期，到时候换新的",
    ],
)
def test_a_credentials_term_stays_setup(text: str) -> None:
    # tests/quality guideline 14: a token set up for the agent is procedural.
    assert classify(text, path=MEMORY, section="MEMORY.md > Setup").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "The Brookfield case closed 2026-02, archive only",
        "Grandma had her cataract surgery in March 2026",
        "Boiler service, every year: done 2026-05-12 (Acme Heating)",
        "2026-03-14 发布了 v2.4",
    ],
)
def test_an_act_with_its_day_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic: a dated event ("2026-03-02 migrated the blog to Astro"): the verb
    # with the day it was done, whatever routine or topic the line also names.
    assert classify(text, path=MEMORY, section="MEMORY.md > Notes").layer == "episodic"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Fixed rate until 2027-06 on the mortgage", "profile"),
        ("Deposit ref DPS-4471-0923, protected with the DPS", "procedural"),
    ],
)
def test_a_state_or_a_reference_number_is_no_act_on_a_day(text: str, want: str) -> None:
    assert classify(text, path=MEMORY, section="MEMORY.md > Notes").layer == want
