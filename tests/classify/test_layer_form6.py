"""Layer judgments read from the form of a statement (issue 10, sixth round). Each test is an
invented line of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/memory/MEMORY.md"
USER = "workspace/USER.md"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("妈妈周二、周四上午去医院透析，这两天上午不要约人", USER),
        ("老婆在医院上夜班，早上 8 点前别打给她", USER),
        ("女儿周六下午上钢琴课，我送她去，那段时间别找我", USER),
        ("Don't send invoices on Fridays after 15:00, the office is closed", MEMORY),
    ],
)
def test_a_time_kept_clear_for_the_agent_is_a_rule(text: str, path: str) -> None:
    # TAXONOMY.md, procedural: task rules; the fact it starts from is not what is kept.
    assert classify(text, path=path, section=None).layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        # Someone approves first (the authority stays with a person).
        "报价单不要直接发给客户，先给王经理确认",
        "Don't send the invoice to the client until Dana approves it",
        # A prohibition opening a later sentence.
        "Patient notes are sensitive. Never paste them into a chatbot or a search box.",
        # Not to be passed on.
        "学员的成绩只记在这里，不外传",
        "Tenant files are strictly confidential",
        # A lane handed on.
        "法律问题我不回答，一律转给律师助理",
    ],
)
def test_a_limit_on_the_assistant_is_a_boundary(text: str) -> None:
    # TAXONOMY.md, boundary: lanes it must stay in, what it must not disclose; tests/quality
    # README, fifth set: not messaging clients on its own is a limit on its authority.
    assert classify(text, path=MEMORY, section="MEMORY > 工作规则").layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "不要一次改太多，先给我看 diff",
        # (A Chinese prohibition opening a later sentence is method advice as often:
        # "纠错的时候：先给正确句子…。不要一次纠超过 3 个错".)
        "批改时先标出错句，再写评语。不要一次改超过三处",
    ],
)
def test_advice_phrased_as_dont_stays_procedural(text: str) -> None:
    assert classify(text, path=MEMORY, section="MEMORY > 工作规则").layer == "procedural"


DAY = "workspace/memory/2026-03-04.md"


@pytest.mark.parametrize(
    "text",
    [
        # The part of the day it happened at opens the line.
        "上午快递送来的打印纸少一箱，已拍照发给房东",
        "下午物业上门检查燃气管道，一切正常",
        # What is left, as it stands.
        "咖啡豆只剩 2 包，周五补货",
        "Printer toner: only 2 cartridges left in the cupboard",
    ],
)
def test_a_day_report_or_a_stock_as_it_stands_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic: something that happened once, a status snapshot that will go stale.
    assert classify(text, path=DAY, section="2026-03-04").layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "早上 7 点提醒她吃药",
        "晚上 10 点后不要发消息",
    ],
)
def test_a_time_of_day_that_recurs_is_no_event(text: str) -> None:
    assert classify(text, path=DAY, section="2026-03-04").layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "怀孕 28 周，预产期 2027-02-10；不能提重物",
        "血糖偏高，饭后要散步",
    ],
)
def test_a_standing_condition_of_the_body_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user; a due date is the pregnancy's.
    assert classify(text, path=MEMORY, section="MEMORY > 个人").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "From 1 March the office opens at 8:00 instead of 9:00, Mondays included",
        "从 12 月起房租涨到 4500 元，月底前转给房东",
    ],
)
def test_a_change_from_a_day_on_is_a_rule(text: str) -> None:
    # TAXONOMY.md, procedural: dated decisions whose content is still a standing rule.
    assert classify(text, path=DAY, section="2026-03-04").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "只在 #武侠 里用掌门的口吻说话，其他频道照常",
        "只在跑团群里扮演店主，别处不要",
        "Speak as the innkeeper only in #tavern",
    ],
)
def test_a_persona_kept_to_one_channel_is_a_boundary(text: str) -> None:
    # tests/quality README, fifth set: the rule keeping the persona in its channel is boundary.
    assert classify(text, path=MEMORY, section=None).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "感冒药每人每次最多两盒，要看身份证",
        "The owner is a stickler: at most two per customer",
    ],
)
def test_a_quantity_limit_is_a_rule(text: str) -> None:
    assert classify(text, path=DAY, section="2026-03-04").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "Mira's birthday is 2026-05-02. She wants a reminder on the 25th to order the cake",
        "Jo's birthday is 9 June — remind her by 2026-06-01 to post the card",
        "婆婆生日是 8 月 3 日，提醒我 28 号订蛋糕",
    ],
)
def test_a_birthday_prepared_for_once_is_an_event(text: str) -> None:
    assert classify(text, path=DAY, section="2026-03-04 > Personal").layer == "episodic"


def test_a_birthday_with_a_standing_reminder_is_no_event() -> None:
    text = "Mum's birthday is 3 May; remind me a week before every year"
    assert classify(text, path=USER, section="About").layer != "episodic"


FEEDBACK = ".claude/projects/-home-ana-code-shop/memory/feedback_deploys.md"


def test_the_incident_behind_a_rule_is_an_event() -> None:
    text = "**Why:** in May a deploy from a stale branch shipped last week's `settings.py` to prod"
    section = "Deploy feedback — Always deploy from main; never from a feature branch"
    assert classify(text, path=FEEDBACK, section=section).layer == "episodic"


def test_a_reason_that_is_no_event_stays_with_the_rule() -> None:
    text = "**Why:** the payment provider rejects unsigned webhooks"
    section = "Deploy feedback — Always verify webhook signatures"
    assert classify(text, path=FEEDBACK, section=section).layer != "episodic"


def test_what_to_call_them_opening_the_line_is_relationship() -> None:
    text = '叫她"周老师"，她喜欢这样'
    assert classify(text, path=MEMORY, section="Long-term Memory > Preferences").layer == (
        "relationship"
    )


def test_released_on_a_day_is_an_event() -> None:
    text = "v2.3.0 released 2026-04-11 (the hotfix for the broken wheel)"
    section = "Releases — How to cut a release > How to apply"
    assert classify(text, path=FEEDBACK, section=section).layer == "episodic"


def test_an_instruction_on_a_condition_is_a_rule_in_a_user_file() -> None:
    text = "When he writes to his landlord, reply in Dutch, formal 'u'"
    assert classify(text, path=USER, section="About Your Human > Context").layer == "procedural"


def test_a_no_under_a_measured_condition_is_an_operating_rule() -> None:
    text = "No mowing when the grass is wet or above 30 °C"
    assert classify(text, path=MEMORY, section="Long-term Memory > Garden").layer == "procedural"


def test_a_bare_no_stays_a_boundary() -> None:
    text = "No diet advice unless asked"
    assert classify(text, path=MEMORY, section="Long-term Memory > Garden").layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "Payroll export goes out on the last Friday of each month: CSV to the bookkeeper",
        "Back up the photo library each week to the NAS",
    ],
)
def test_each_period_is_a_routine(text: str) -> None:
    assert classify(text, path=FEEDBACK, section="Seed round — 2027-01-31").layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "- On leave 3–14 August, walking the Camino",
        "- 12 月 20 日到 28 日休年假，回老家",
    ],
)
def test_away_for_a_span_is_an_event(text: str) -> None:
    assert classify(text, path="home/.codex/AGENTS.md", section="AGENTS.md > Me").layer == (
        "episodic"
    )


def test_times_of_a_day_that_recur_are_a_routine() -> None:
    text = "Eye drops reminder 07:00 / 19:00 still wanted (she confirmed)"
    assert classify(text, path=DAY, section="2026-03-04 > Evening").layer == "procedural"


def test_a_stance_asked_of_the_assistant_is_relationship_in_a_user_file() -> None:
    # tests/quality guideline 17: who does what between user and agent is relationship.
    text = "She wants me to push back when an estimate looks wrong, even when she wrote it"
    section = "USER.md - About Your Human > Preferences"
    assert classify(text, path=USER, section=section).layer == "relationship"


@pytest.mark.parametrize(
    "text", ["支付宝账号 lin_0412@163.com", "PayPal account: j.moss@example.org"]
)
def test_a_payment_account_is_profile(text: str) -> None:
    assert classify(text, path="home/.hermes/memories/MEMORY.md", section=None).layer == "profile"


@pytest.mark.parametrize(
    "text",
    ["Insurance and the car are Tom's job; don't ask Ana about them", "报税都归燕姐管，别问老板"],
)
def test_whose_job_a_matter_is_is_a_rule(text: str) -> None:
    assert classify(text, path=MEMORY, section="Long-term Memory > Accounts").layer == "procedural"
