"""Realm rules of the eighteenth session's round (realm25): each test is an invented line of the
kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, scope_realms
from memctl.classify.rules import text_roles

MEMORY = "/home/a/.openclaw/workspace/MEMORY.md"
PROJECT = "/home/a/code/lab/CLAUDE.md"


@pytest.mark.parametrize(
    "heading",
    ["Kids & home", "The kids", "Children", "My money", "Our finances", "家庭开支", "个人财务"],
)
def test_a_heading_naming_ones_children_home_or_money_says_the_lines_are_ones_life(
    heading: str,
) -> None:
    # TAXONOMY.md, Realm: real is the user's own life and setup. In a file whose other lines
    # are a business's, the lines under such a heading keep the person's realm: the file's
    # majority does not reach them.
    work = [
        ("Clients", "- Lumen Pay day rate €520, invoiced monthly", "work", True),
        ("Clients", "- Brasa pays €45/h at 60 days; the client calls are Tuesdays", "work", True),
        ("Clients", "- Never mix client files with my own drafts", "work", True),
        ("Clients", "- Weekly client review Thursdays 11:00", "work", True),
        ("Clients", "- Quarterly business review with the accounts team", "work", True),
    ]
    rule = "- Bins: paper and plastic out on Monday evenings"
    c = classify(rule, path=MEMORY, section=heading)
    assert (c.realm, c.realm_cued) == ("real", True), heading
    lines = [*work, (heading, rule, c.realm, c.realm_cued)]
    assert scope_realms(lines, MEMORY)[-1] is None  # it says its own realm: nothing overrides it


@pytest.mark.parametrize("heading", ["孩子们", "Children's workshop", "Money in", "Clients"])
def test_a_class_a_workshop_or_a_business_s_money_is_no_heading_of_ones_life(heading: str) -> None:
    c = classify("- Bins: paper and plastic out on Monday evenings", path=MEMORY, section=heading)
    assert not (c.realm == "real" and c.realm_cued), heading


@pytest.mark.parametrize(
    "text",
    [
        "- Second shooter: £300 a day, invoices after each job",
        "- Invoices go out on the last working day of the month",
        "- 11 月付款批次：共 146 张，还有 9 张三单不匹配",
        "- 12 月付款清单 12 月 17 号前要发出去",
        "- Check the payment run before Friday",
    ],
)
def test_a_business_s_invoicing_and_payment_runs_are_work(text: str) -> None:
    assert classify(text).realm == "work", text


@pytest.mark.parametrize(
    "text",
    ["- Dave fixed the leak, £85 invoice paid from the house pot", "- 买电脑记得要发票"],
)
def test_one_bill_paid_or_a_receipt_kept_is_no_business(text: str) -> None:
    assert classify(text).realm != "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- I'm Dev (Devika Rao), data analyst in retail credit risk at Northgate Bank, Leeds.",
        "I'm Sam Lee, software engineer at Quanta",
    ],
)
def test_a_self_introduction_with_a_trade_as_its_apposition_states_a_job(text: str) -> None:
    c = classify(text)
    assert (c.realm, c.layer) == ("work", "profile"), text


def test_a_trade_of_the_heart_states_no_job() -> None:
    assert classify("I'm Jo, a teacher's kid and an engineer at heart").realm != "work"


def test_a_tool_used_at_work_is_the_jobs() -> None:
    assert classify("- SQL against Snowflake at work; DuckDB at home").realm == "work"


@pytest.mark.parametrize(
    "owner",
    ["Ansible playbooks for the boxes in the garage. This is my own kit, not work.",
     "My personal servers: a NAS and two Pis"],
)  # fmt: skip
def test_a_project_file_calling_its_setup_ones_own_is_real(owner: str) -> None:
    assert "own project" in text_roles(owner)
    rule = ("lab > Rules", "- Pin image versions", "unknown", False)
    lines = [("lab", owner, "unknown", False), rule]
    assert scope_realms(lines, PROJECT)[1:] == ["real"]


def test_a_kit_list_is_not_ones_own_setup() -> None:
    assert "own project" not in text_roles("Check my kit list before the trip")


@pytest.mark.parametrize(
    "text",
    [
        "用户在深圳工作，公司在南山科技园。",
        "- 我在南山一家公司上班",
        "Works from home in Harrogate; in the Leeds office on Tuesdays",
        "- She works nights on the ward",
    ],
)
def test_where_or_how_the_user_works_states_the_job(text: str) -> None:
    assert classify(text).realm == "work", text


@pytest.mark.parametrize(
    "text", ["老婆在深圳工作", "我在工作的时候别打扰", "- My wife works from home on Fridays"]
)
def test_a_relatives_work_place_or_a_time_of_work_states_no_job_of_the_users(text: str) -> None:
    assert classify(text).realm != "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- Work hours 08:30–17:00 Dublin time",
        "- Approve refunds up to €200; above that, finance",
        "- 周二店休",
    ],
)
def test_a_workplaces_hours_and_powers_are_the_jobs(text: str) -> None:
    assert classify(text).realm == "work", text


@pytest.mark.parametrize("heading", ["我自己", "Myself", "About myself"])
def test_a_heading_naming_the_user_as_oneself_is_about_the_person(heading: str) -> None:
    # Its lines are the person's: commuting to work is their life, not the job.
    from memctl.classify.rules import about_person

    assert about_person(heading)
    c = classify("- 住在成都武侯区，骑电动车上班，20 分钟。", path=MEMORY, section=heading)
    assert c.realm == "real"


@pytest.mark.parametrize("heading", ["会员", "学员", "Students", "My pupils"])
def test_a_heading_naming_a_gym_s_or_a_school_s_people_makes_their_matters_the_jobs(
    heading: str,
) -> None:
    # TAXONOMY.md, Realm: the people a job serves are work, their health too ("heading naming
    # clients"); it stays private by its words.
    c = classify("- 王姐腰椎间盘突出，只做器械和核心，不做硬拉。", path=MEMORY, section=heading)
    assert (c.realm, c.audience) == ("work", "private"), heading


@pytest.mark.parametrize("heading", ["Family members", "Guests", "同学聚会"])
def test_a_familys_members_a_partys_guests_and_old_classmates_are_no_job_s_people(
    heading: str,
) -> None:
    c = classify("- Tom has a bad back; no lifting for him", path=MEMORY, section=heading)
    assert c.realm != "work", heading
