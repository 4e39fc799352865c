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
    ],
)
def test_a_relatives_shop_a_wish_or_a_plain_introduction_is_no_job_statement(text: str) -> None:
    # Not the user's business (a relative's, one wished for, one held before), nor a
    # self-introduction that names no post.
    assert classify(text, path=MEMORY, section="Memory > 用户").realm != "work", text
