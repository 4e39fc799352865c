"""Realm, thirteenth round: the person's own life keeps `real` against a job's vote. A line
about the person's body (a condition, an aid the body needs) is theirs whatever their job
(TAXONOMY.md, Realm: real is the user's own life; Audience: health is private), so a home
that serves a job does not take it as know-how it keeps private only for what it holds. A
leave or a health certificate may be a job's paperwork (a driver's medical card) and leans to
no realm. Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import classify, home, rules

MEMORY = "/h/.openclaw/workspace/MEMORY.md"

BODY = [
    "- CPAP mask strap snapped, a new one is on order",
    "- Sleep apnoea, the machine goes in the overnight bag",
    "- Knee bursitis flares after long shifts, ice it first",
    "- 胃炎又犯了，提醒她先吃东西再睡",
    "- 出门要带拐杖",
    "- Her new hearing aids arrive on Monday",
]


@pytest.mark.parametrize("text", BODY)
def test_a_condition_or_an_aid_of_the_body_leans_to_a_life(text):
    c = classify(text, path=MEMORY)
    assert rules.says_realm(text)
    # A lean, not a cue: the line says no realm of its own, and stays private.
    assert (c.realm, c.realm_cued, c.audience) == ("real", False, "private")


@pytest.mark.parametrize(
    "text",
    [
        "- Forklift medical certificate renewed, valid to 2028-01-31",
        "- 病假条周五前交",
        "- Maternity leave cover starts on the 3rd",
    ],
)
def test_a_leave_or_a_health_certificate_is_private_but_leans_to_no_realm(text):
    assert classify(text, path=MEMORY).audience == "private"
    assert not rules.says_realm(text)


def _evidence(private: str) -> home.Evidence:
    evidence = home.Evidence()
    statement = home.Line(
        1, "- Dee Park, night porter at the Grand", "work", True, "profile", "public", False, False
    )
    rules_ = [
        home.Line(i, f"rule {i}", "work", True, "procedural", "public", False, False)
        for i in (2, 3, 4)
    ]
    line = home.Line(5, private, "real", False, "procedural", "private", False, False)
    evidence.add(MEMORY, [statement, *rules_, line])
    return evidence


@pytest.mark.parametrize("text", BODY)
def test_a_job_home_keeps_a_line_of_the_body_the_persons(text):
    assert _evidence(text).candidates == []


def test_a_job_home_takes_a_certificate_of_the_job():
    evidence = _evidence("- Forklift medical certificate renewed, valid to 2028-01-31")
    assert evidence.candidates == [5]


def _work_file(
    section: str, line: str, cued: bool = False
) -> list[tuple[str | None, str, str, bool]]:
    """A job's MEMORY.md: six lines that say work, and `line` under `section`."""
    job = [("Memory > Rules", f"- Check the tyres before run {n}", "work", True) for n in range(6)]
    return [*job, (section, line, "real", False)]


@pytest.mark.parametrize(
    ("section", "line"),
    [
        ("Memory > Likes", "- Audiobooks on the long drives: crime, lately Tana French"),
        ("Memory > Taste", "- Short answers, one question at a time"),
        ("Memory > Sleep", "- Lights out by 23:00 on a work night"),
        ("Memory > 作息", "- 夜班后第二天中午前不要发消息"),
        ("Memory > 喜好", "- 咖啡只喝美式，不加糖"),
    ],
)
def test_a_line_under_a_heading_of_the_persons_tastes_or_rest_takes_no_work(section, line):
    from memctl.classify import scopes

    # Set apart by its section: neither the file's work nor the home's job (home.Evidence).
    assert scopes(_work_file(section, line), MEMORY)[-1] == (None, True)


@pytest.mark.parametrize("section", ["Memory > Client likes", "Memory > Sleep schedule app"])
def test_a_heading_that_only_holds_such_a_word_still_takes_the_files_work(section):
    from memctl.classify import scopes

    assert scopes(_work_file(section, "- Load the van by 07:00"), MEMORY)[-1][0] == "work"


@pytest.mark.parametrize(
    "text",
    [
        "- Paid $0.71/mile loaded from March (was $0.66)",
        "- Day rate is £280 a day for second shooting",
        "- Agency pays €22 per hour for weekend shifts",
        "- 时薪 28 元，周末加倍",
        "- 下个月起课时费涨到 200 元/小时",
    ],
)
def test_a_rate_of_pay_by_the_unit_of_work_is_the_jobs(text):
    c = classify(text, path=MEMORY, section="Memory > Likes")
    assert (c.realm, c.realm_cued) == ("work", True)


@pytest.mark.parametrize(
    "text",
    [
        "- Parking at the station is £2 an hour",
        "- Rent is £950 a month, paid on the 1st",
        "- Diesel was $3.89 per gallon in Ontario",
    ],
)
def test_a_price_or_a_sum_by_the_month_is_no_rate_of_pay(text):
    assert classify(text, path=MEMORY).realm != "work"
