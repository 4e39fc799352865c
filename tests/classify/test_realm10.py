"""Realm rules of the tenth round (realm10, homes that mix a job and a personal life): each test
is an invented line of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "/home/a/.picoclaw/workspace/memory/MEMORY.md"
AGENTS = "/home/a/.codex/AGENTS.md"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("- 在解放路开一家 30 座的小面馆「阿庆面馆」，开了 8 年", "Memory > 用户"),
        ("- 自己开一家三个人的空调安装维修小店，做了 10 年", "Memory > 用户信息"),
        ("- 经营一间两层楼的社区花店", "Memory > 关于我"),
        ("- I'm Sam Reyes, billing operations lead at Quanta (a payroll SaaS)", "About me"),
        ("I am Jo Park, senior claims specialist for Northwind Insurance.", "About me"),
    ],
)
def test_a_business_one_runs_or_a_post_one_holds_is_a_job_statement(
    text: str, section: str
) -> None:
    # TAXONOMY.md, Realm: work is a job, an employer or a business. Running one's own shop
    # ("开一家…店/馆", "经营一间…") and a self-introduction with a post at a company ("I'm
    # <name>, <title> at <company>") state the job, also under a heading about the person.
    assert classify(text, path=MEMORY, section=section).realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- 老婆在小区门口开一家花店",
        "- 以前开过一家书店，2019 年关了",
        "- I'm Sam, living in Leeds with my partner and two cats",
        "- I'm Sam Reyes, 41, at home most days since the surgery",
        "- I'm Jo Park, Tom's partner of ten years",  # "partner", "owner" name no post here
        "- I'm Jo Park, proud owner of two greyhounds",
    ],
)
def test_a_relatives_shop_a_wish_or_a_plain_introduction_is_no_job_statement(text: str) -> None:
    # Not the user's business (a relative's, one wished for, one held before), nor a
    # self-introduction that names no post.
    assert classify(text, path=MEMORY, section="Memory > 用户").realm != "work", text


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("- 面粉：城北粮油老张，周结", "Memory > 供应商"),
        ("- 大米：每周二送货", "Memory > 店里 > 进货"),
        ("| 小李 | 收银 | 周二休 |", "Memory > 店里 > 员工"),
        ("- Flour from Hartley Mills, invoiced monthly", "Notes > Suppliers"),
        ("- Jess covers Saturdays", "Notes > Staff"),
    ],
)
def test_a_heading_naming_a_business_its_staff_or_its_suppliers_makes_its_lines_work(
    text: str, section: str
) -> None:
    # TAXONOMY.md, Realm: a business the user runs is work, its staff and suppliers too: a
    # heading over them ("供应商", "员工", "店里", "Suppliers", "Staff") says the realm of
    # lines that name no business word of their own, as "Clients" does.
    assert classify(text, path=MEMORY, section=section).realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- 学徒小王 12 月起转正，试用期满",
        "- 阿强底薪 3800 + 提成 10%",
        "- 水泥：经销商月结，每月 25 号对账",
        "- Ask the wholesaler about the year-end rebate",
        "- Apprentice pay rises to £9.50 after probation",
        "- Stream peaked at 380 viewers, 12 new subscribers",
        "- Sponsor segment at 21:00, read the brief out first",
    ],
)
def test_a_business_s_staff_trade_and_audience_are_work(text: str) -> None:
    # What a business pays its staff (base pay, commission, probation, an apprentice), how it
    # trades with its suppliers (a distributor, monthly settlement, a rebate) and the audience a
    # channel is run for (viewers, subscribers, a sponsor) are the business's (TAXONOMY.md,
    # Realm: a business, its team and its clients), though pay reads as money of one's own.
    assert classify(text, path=MEMORY, section="Memory > 2026-11-29").realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- 这个月工资到账后转 3000 进定投",
        "- 周末去批发市场买了两箱橙子",
        "- Watched Mira's stream last night, great chat",
        "- Staff at the hotel were lovely",
    ],
)
def test_ones_own_pay_shopping_or_watching_a_stream_stays_real(text: str) -> None:
    # One's own pay and savings, buying at a wholesale market, watching someone's stream:
    # the person's own life.
    assert classify(text, path=MEMORY, section="Memory > 2026-11-29").realm != "work", text


def test_payslips_for_a_visa_are_the_persons_papers() -> None:
    # A payslip is as often the person's own papers as a business's payroll.
    text = "- The visa office wants 3 payslips and the tenancy contract"
    assert classify(text, path=MEMORY, section="Memory > Visa").realm != "work"


def _work_file(section: str, line: str) -> list[tuple[str | None, str, str, bool]]:
    """A business's MEMORY.md: six lines that say work, and `line` under `section`, saying
    nothing of its realm (the prior's real)."""
    shop = [
        ("Memory > 规则", f"- 差评 24 小时内回复，先道歉（{n}）", "work", True) for n in range(6)
    ]
    return [*shop, (section, line, "real", False)]


@pytest.mark.parametrize(
    "section", ["Memory > 用户", "Memory > 用户信息", "Notes > User Information"]
)
def test_a_line_under_a_heading_about_the_person_takes_no_work_from_its_file(section: str) -> None:
    # As a file about the user (USER.md): a heading naming the person says the lines under it
    # are theirs. Their routine takes neither the file's realm nor the home's job (flagged as
    # settled by its section, so the home does not count it as know-how that may be the job's).
    from memctl.classify import scopes

    found = scopes(_work_file(section, "- 每天早上 7 点去游泳，9 点前别发消息"), "/w/MEMORY.md")
    assert found[-1] == (None, True)


def test_a_line_under_another_heading_still_takes_its_files_work() -> None:
    from memctl.classify import scopes

    found = scopes(_work_file("Memory > 规则", "- 每天早上 7 点前开门"), "/w/MEMORY.md")
    assert found[-1] == ("work", False)


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ('- 叫她"陈姐"就行，别叫老板娘', "Memory > 用户信息"),
        ("- Call me Sam at work and at home; never 'boss'", "Notes > People"),
    ],
)
def test_how_the_two_address_each_other_is_never_work(text: str, section: str) -> None:
    # TAXONOMY.md, Realm: the relationship is real (as the persona is), whatever word of the
    # job the line uses (老板, boss, work).
    c = classify(text, path=MEMORY, section=section)
    assert (c.layer, c.realm) == ("relationship", "real"), text


@pytest.mark.parametrize("text", ["- 周六上午去上瑜伽课", "- 狗狗每年 5 月打疫苗"])
def test_a_heading_naming_the_home_makes_its_lines_real(text: str) -> None:
    # "家里" (at home) names the person's home life, as "家庭" and "Home & life" do.
    assert classify(text, path=MEMORY, section="Memory > 家里").realm_cued is True
    assert classify(text, path=MEMORY, section="Memory > 家里").realm == "real"


def test_a_storys_apprentice_is_no_business_staff() -> None:
    # An apprentice is as often a story's as a business's.
    text = "- 铁匠的学徒阿青偷走了地图"
    assert classify(text, path=MEMORY, section="Memory > 跑团 > 角色").realm != "work"
