"""Realm rules of the sixth round (personal and mixed homes): each test is an invented line of
the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, scope_realms

PROJECT = "/home/a/code/tax/CLAUDE.md"


def _said(text: str, path: str, section: str = "CLAUDE") -> tuple[str, bool]:
    c = classify(text, path=path, section=section)
    return c.realm, c.realm_cued


@pytest.mark.parametrize(
    "owner",
    [
        "This is my personal repo for flat-hunting paperwork.",
        "My own repository: scans of bills and the tax return drafts",
        "这是我个人的仓库，放报税和保险的材料",
        "我自己的代码库，放家里的账单脚本",
        "Household admin scripts, nothing to do with my job",
        "家里的账单和保险材料，跟工作没有关系",
        "Scripts for our allotment society's newsletter; unrelated to work",
    ],
)
def test_a_project_file_saying_its_repo_is_personal_or_not_the_jobs_is_real(owner: str) -> None:
    # Guideline 19: a project's rules are unknown unless the text says whose it is; TAXONOMY.md,
    # Realm: personal projects are real. A repository (not only a "project") called one's own
    # or personal, or said to have nothing to do with work, says whose it is.
    rules = ["Name scans YYYY-MM-DD_office_topic.pdf", "Never print the passport folder"]
    lines = [("CLAUDE", owner, *_said(owner, PROJECT))] + [
        ("CLAUDE > Rules", r, "unknown", False) for r in rules
    ]
    assert scope_realms(lines, PROJECT)[1:] == ["real", "real"]


@pytest.mark.parametrize(
    "text",
    ["My repo uses uv", "The repo has no tests", "工作仓库在公司 GitLab 上", "Work repo: run make"],
)
def test_a_repo_not_called_ones_own_says_not_whose_it_is(text: str) -> None:
    from memctl.classify.rules import text_roles

    assert "own project" not in text_roles(text), text


MEMORY = "/home/a/.picoclaw/workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "heading", ["Gigs (paid)", "Paid gigs", "Paid work", "Side gig", "接单", "兼职"]
)
@pytest.mark.parametrize(
    "text",
    [
        "- Standard fee: £300 for a wedding, split 4 ways",
        "- A booking is confirmed only once the deposit is in",
        "- 2026-12-12 wedding of Ana & Joe at the Grange: load-in 16:00",
    ],
)
def test_lines_under_a_heading_naming_paid_work_are_the_jobs(heading: str, text: str) -> None:
    # TAXONOMY.md, Realm: work is a job, clients or a business; tests/quality README, sixth set:
    # a paid hobby's gigs are work (fees, bookings, a booked wedding), the hobby itself real.
    assert classify(text, path=MEMORY, section=f"Long-term Memory > {heading}").realm == "work"


@pytest.mark.parametrize(
    "heading", ["Bills (paid)", "Practice", "Band", "Paid off", "Gigs I went to"]
)
def test_a_heading_naming_no_paid_work_gives_no_job(heading: str) -> None:
    text = "- 2026-12-12 wedding of Ana & Joe at the Grange: load-in 16:00"
    assert classify(text, path=MEMORY, section=f"Long-term Memory > {heading}").realm == "real"


USER = "/home/a/.openclaw/workspace/USER.md"


@pytest.mark.parametrize(
    "text",
    [
        "I volunteer three days a week as shift lead at Northside Food Bank",
        "- Volunteers at the Riverside hospice on Tuesdays, as a driver",
        "She volunteers for the Samaritans as a listener",
        "每周六在社区食物银行做志愿者，负责排班",
        "在红十字会当义工，周三下午",
    ],
)
def test_volunteering_for_an_organisation_is_stated_as_work(text: str) -> None:
    # tests/quality README, sixth set: volunteering for a charity is work (an organisation,
    # its team, its clients); TAXONOMY.md, Realm: work is a job, employer, team or clients.
    from memctl.classify.rules import text_roles

    assert classify(text, path=USER).realm == "work", text
    assert "job statement" in text_roles(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Never text the volunteers from a script unless I have read it first",
        "Each Saturday session needs at least 6 volunteers",
        "Send the rota to all volunteers on Friday",
        "新志愿者们第一次排班要配一个老志愿者",
    ],
)
def test_an_organisations_volunteers_are_its_team(text: str) -> None:
    assert classify(text, path="/home/a/.codex/AGENTS.md").realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "I volunteered at the food bank until 2019",
        "My mum volunteers at the hospice shop",
        "退休前在红十字会做过志愿者",
    ],
)
def test_a_past_or_someone_elses_volunteering_is_no_job_statement(text: str) -> None:
    from memctl.classify.rules import text_roles

    assert "job statement" not in text_roles(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Mara is a landscape architect at a firm in Delft; she works from home on Mondays",
        "Jonas teaches German and history at a secondary school in Rotterdam.",
        "- Priya works as a radiographer at the county hospital",
    ],
)
def test_a_job_stated_of_a_person_named_in_a_file_about_the_user_is_work(text: str) -> None:
    # A file about the user (USER.md) names the user, or two people sharing one agent, as
    # the subject of its lines (sixth set: a couple are both the user, each one's job work).
    assert classify(text, path=USER).realm == "work", text
    # Elsewhere a person named is anyone (a friend's job is a passing mention: real).
    assert classify(text, path="/home/a/.openclaw/workspace/MEMORY.md").realm == "real", text


@pytest.mark.parametrize(
    "text",
    [
        "My sister is a nurse at St James's",
        "Partner: Sam, a teacher; they're not married",
        "This is a reminder at 9",
        "There is a meeting at the school on Friday",
        "Mara was a landscape architect in Delft until 2020",
        "Mum is a retired nurse",
    ],
)
def test_a_relatives_job_or_no_job_in_a_file_about_the_user_stays_real(text: str) -> None:
    assert classify(text, path=USER).realm == "real", text


@pytest.mark.parametrize(
    "text",
    [
        "Inventory photos for each move-in are in Drive; compare them at check-out",
        "Home contents inventory for the insurer is in ~/docs/house",
        "Ansible inventory lives in ops/hosts.ini",
    ],
)
def test_an_inventory_alone_is_no_shops_stock(text: str) -> None:
    # A let flat's or a home's list of contents, a playbook's hosts: "inventory" names a shop's
    # stock no more often than these (TAXONOMY.md, Realm: a business is work; sixth set: letting
    # one's own flats is personal investing, real).
    assert classify(text, path="/home/a/.hermes/memories/MEMORY.md").realm != "work", text


def test_a_shops_stock_words_still_say_work() -> None:
    text = "Restock the oat milk when fewer than 6 cartons are left; the supplier delivers Fridays"
    assert classify(text, path="/home/a/.hermes/memories/MEMORY.md").realm == "work"
