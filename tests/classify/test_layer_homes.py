"""Layer judgments on personal homes (sixth round): what the user holds and has arranged, the
routines of caring for someone, limits phrased without "never". Each test is an invented line
of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, rules

MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "Garage on Mill Lane rented from Mrs Okafor since 2023-05, paid quarterly",
        "Allotment plot 14 from April 2022, shared with Dev",
        "Car loan with Santander, fixed 6.9% until 2028-01",
        "Boiler warranty with Vaillant, expires 2031",
        "Home insurance: Aviva policy HX-448120, renews 2027-05-01",
        "居住证有效期到 2028-06-30",
    ],
)
def test_the_term_an_arrangement_runs_for_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user, also what they hold (sixth set: a
    # tenancy, a mortgage, a permit and its validity); the date is the term's, not an event's.
    assert classify(text, path=MEMORY).layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "Mum visits from 2027-05-02 to 2027-05-20 for the christening",
        "Grafana API token: [REDACTED:api_key] (expires 2027-03)",
        "The VPS has been down since 2026-11-30, ticket open with Hetzner",
        "Since 2026-11-01 all invoices go through Xero",
    ],
)
def test_a_span_or_a_credentials_expiry_is_no_arrangement(text: str) -> None:
    # A stay with its end happens once (episodic), so does an outage since a day; a token set
    # up for the agent is setup; a rule opening on the day it starts is a dated rule.
    assert "a term an arrangement runs for" not in rules.explain(text, path=MEMORY)


@pytest.mark.parametrize(
    "text",
    [
        "不要自己提交报名表，填好以后发给我看",
        "别擅自回复房东的邮件，先起草",
    ],
)
def test_acting_on_its_own_in_the_users_name_is_a_limit(text: str) -> None:
    # TAXONOMY.md, boundary: a limit on the assistant's authority (what it may send or submit
    # in the user's name), though the line says what to do instead.
    assert classify(text, path="code/forms/CLAUDE.md", section="Rules").layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "妈妈住院的事不要发到亲戚群里",
        "孩子的照片别发朋友圈",
    ],
)
def test_posting_where_others_read_is_a_limit_on_disclosure(text: str) -> None:
    # TAXONOMY.md, boundary: what it must not disclose; sixth set: "don't post his illness to
    # the family group" is boundary, also under a rules heading.
    assert classify(text, path=MEMORY, section="规则").layer == "boundary"


def test_sending_the_user_a_message_is_no_disclosure() -> None:
    assert "a limit on disclosure" not in rules.explain("别在早上发消息给我", path=MEMORY)


@pytest.mark.parametrize(
    "text",
    [
        "妈妈晚饭后吃阿托伐他汀 20mg 一片",
        "Metformin 500mg with dinner",
    ],
)
def test_a_dose_at_its_time_of_day_is_the_schedule(text: str) -> None:
    # Sixth set: a parent's medication schedule is procedural, also under a heading of news.
    assert classify(text, path=MEMORY, section="近况").layer == "procedural"


def test_a_dose_taken_once_is_no_schedule() -> None:
    c = classify("今天早上吃了两片布洛芬 200mg", path=MEMORY, section="Notes")
    assert c.layer == "episodic"


@pytest.mark.parametrize(
    "text",
    ["外婆家地址：江岸区胜利街 12 号 2 单元", "Home address: 4 Mill Lane, Hebden Bridge"],
)
def test_a_postal_address_as_the_label_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: where they and their family live is a stable fact about them.
    assert classify(text, path=MEMORY).layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "IP 地址：192.168.1.20",
        "Server address: 10.0.0.2",
        "后台地址：http://192.168.1.5:8080",
        "Dashboard address: https://grafana.lan",
    ],
)
def test_a_machines_address_is_no_postal_address(text: str) -> None:
    assert "an address as the line's label" not in rules.explain(text, path=MEMORY)


@pytest.mark.parametrize(
    "text",
    [
        "PC: Ryzen 5 5600, RTX 3060, Minecraft runs on the box",
        "电脑：Windows 11，i5-12400，Steam 装在 E 盘",
    ],
)
def test_the_users_machine_as_the_label_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: the user's devices, though a program's place on it is named too.
    assert classify(text, path=".hermes/memories/USER.md").layer == "profile"


def test_a_condition_with_its_dose_stays_a_fact_about_the_person() -> None:
    # "standing condition": a chronic condition is profile though a reminder comes with it.
    c = classify("高血压，每天早上吃一片氨氯地平 5mg", path=MEMORY, section="Notes")
    assert c.layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "晚上 22:30 以后只回复“早点睡”",
        "23 点以后不要再发提醒",
        "After 21:30 only answer 'go to bed'",
        "No messages to Sam after 21:00 on school nights",
    ],
)
def test_a_cut_off_on_when_it_speaks_is_a_limit(text: str) -> None:
    # Sixth set: a time-of-day cut-off binding the assistant is boundary, without "never".
    assert classify(text, path=MEMORY, section="Notes").layer == "boundary"


def test_free_after_a_time_is_no_cut_off() -> None:
    # When the user is free is a fact about them; nothing binds the assistant.
    assert "a cut-off on when it speaks" not in rules.explain("工作日 17:30 以后才有空弄 mod")


@pytest.mark.parametrize(
    "text",
    [
        "A viewing is confirmed only once the tenant has replied",
        "只有付了定金才算订下，订下后再发合同",
    ],
)
def test_a_step_done_only_once_a_condition_holds_is_a_rule(text: str) -> None:
    # TAXONOMY.md, procedural: a task rule, though its verb reads as a thing done.
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


def test_the_one_channel_never_another_is_a_limit() -> None:
    # TAXONOMY.md, boundary: a channel it must never use, set against the one it may.
    text = "Invoices go out from the shop's Gmail only, never from Jo's work address"
    assert classify(text, path=MEMORY).layer == "boundary"


def test_one_tool_never_another_stays_know_how() -> None:
    assert "the one channel, never another" not in rules.explain("Use pnpm only, never npm")


@pytest.mark.parametrize(
    "text", ["Band practice will move to Tuesdays from January", "Lessons move to the evening"]
)
def test_a_time_moved_is_no_move_of_house(text: str) -> None:
    assert "durable fact" not in rules.explain(text, path=MEMORY)


def test_moving_house_is_a_durable_fact() -> None:
    assert "durable fact" in rules.explain("Moving to Leeds in the spring", path=MEMORY)


@pytest.mark.parametrize(
    "text", ["- Aktenzeichen 7.1-NE-0044120", "Passport no. C01X00T47", "- 护照号 E98765432"]
)
def test_an_official_number_as_the_label_is_profile(text: str) -> None:
    # Sixth set: a case number, a passport number are profile, also under a status heading.
    c = classify(text, path="code/papers/CLAUDE.md", section="Papers > Current status")
    assert c.layer == "profile"


def test_a_payments_reference_is_no_official_number() -> None:
    text = "Deposit protected with the DPS, ref DPS-7710-0042"
    assert "an official number as the line's label" not in rules.explain(text, path=MEMORY)
