"""Layer round 25 (rules read from the dev halves' misses, checked on the test halves by
figures). Each test is an invented line of the kind the rule is written for, not a line of a
gold file."""

from __future__ import annotations

import pytest

from memctl.classify import aspect, classify, rules

MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("- 不记录任何客户的手机号和住址，只用订单号", "MEMORY.md > 售后"),
        (
            '- Haldane Studio books me as "lead illustrator"; on their calls never say I run my own'
            " studio or mention my other clients.",
            "MEMORY.md > Clients",
        ),
        (
            "- Never put anything from `notes/private/` into text the readers see (posts).",
            "Blog notes > How to help",
        ),
    ],
)
def test_what_must_not_be_recorded_or_said_is_a_boundary(text: str, section: str) -> None:
    # TAXONOMY.md, boundary: what the assistant must not disclose.
    assert classify(text, path=MEMORY, section=section).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        # Reminding and explaining withhold nothing.
        "- 周末不提醒她吃药，她自己记得",
        "- 报价单不说明运费，运费另算",
        # Putting something in a calendar is booking it, not telling anyone.
        "- Don't put anything in her calendar before 10am.",
        # A phrase never to say is a way of speaking (persona), not something kept from anyone.
        '- Never say "Great question" or "Hope this helps".',
        "- 回复里不说“亲”，也不用感叹号",
    ],
)
def test_reminding_booking_or_a_way_of_speaking_withholds_nothing(text: str) -> None:
    assert not _withheld(text)


def _withheld(text: str) -> bool:
    """Whether one of aspect.toml's [withheld] patterns matches `text` (as aspect.weights reads
    it: without its asides)."""
    plain = aspect._plain(text)
    return any(gate.pattern.search(plain) for gate in aspect._lexicon().withheld)


@pytest.mark.parametrize(
    "text",
    [
        "26/11/2026: Lisbon trip with her brother, four days in June 2027.",
        "- 03/12/2026 the boiler service is booked for 9:00",
    ],
)
def test_a_date_with_slashes_is_no_path(text: str) -> None:
    # A day written 26/11/2026 opens the line with its date, not a file path: no reference
    # for technical work (its procedural weight).
    assert "technical reference" not in rules.explain(text, path=MEMORY)


def test_a_path_is_still_a_technical_reference() -> None:
    assert "technical reference" in rules.explain("Backups go to /srv/backup/daily", path=MEMORY)


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        ("- 主力收 5–10 万的国产电动车；电池衰减超过 20% 的不收。",
         MEMORY, "Long-term Memory > 收车"),
        ("- Dog Pepper rides along in the van; plan a walk stop every 3 hours",
         MEMORY, "MEMORY.md > Road"),
    ],
)  # fmt: skip
def test_a_word_that_names_a_thing_states_no_fact_about_the_user(
    text: str, path: str, section: str
) -> None:
    # TAXONOMY.md, profile: stable facts about the user. A dog by name and 主力 name a thing;
    # what the line says of them is a task rule. ("the kids" stays a durable fact: without it
    # a held-out half lost three lines of realm for one of layer.)
    assert classify(text, path=path, section=section).layer != "profile"


@pytest.mark.parametrize(
    "text",
    [
        "- 用户的主力机是 ThinkPad X1 Carbon",
        "- My dog Biscuit is a 9-year-old collie",
        "- Lives in Leeds with a cat called Miso",
    ],
)
def test_what_a_person_has_is_still_a_fact_about_them(text: str) -> None:
    assert classify(text, path="workspace/USER.md", section="USER.md > Context").layer == "profile"


DAILY = "workspace/memory/2026-11-24.md"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("- Van #2 due for its MOT at the Kwik Fit on 12/03; no jobs that morning", "2026-11-24"),
        ("- Send the edited gallery first; album proofs by Friday", "2026-11-24 > Tomorrow"),
        ("- 把 6 张没回的报价单再问一遍", "2026-11-24 > 明天"),
    ],
)
def test_what_is_due_by_a_coming_day_is_a_plan_for_once(text: str, section: str) -> None:
    # TAXONOMY.md, episodic: something that will happen once.
    assert classify(text, path=DAILY, section=section).layer == "episodic"


def test_a_day_of_the_month_that_comes_back_is_no_deadline() -> None:
    text = "- Quarterly VAT: send the accountant the export by the 10th of the next month."
    assert classify(text, path=MEMORY, section="MEMORY.md > Invoicing").layer == "procedural"


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        ("- October NPS: 41.", "code/helpdesk/AGENTS.md", "AGENTS.md > Team"),
        (
            "[2026-12-01 09:05] 老板让我汇总11月数据：天猫 GMV 3.6万，京东 1.9万，退款率 2.1%。"
            "已发周报。",
            "workspace/memory/HISTORY.md",
            None,
        ),
    ],
)
def test_a_months_figures_are_a_snapshot(text: str, path: str, section: str | None) -> None:
    # TAXONOMY.md, episodic: a status snapshot that will go stale.
    assert classify(text, path=path, section=section).layer == "episodic"


def test_a_reading_taken_is_a_snapshot() -> None:
    # "- 2026-10-12 查的空腹血糖 7.8", its date cut into ts by the reader: the reading of a day.
    found = classify(
        "查的空腹血糖 7.8",
        path=MEMORY,
        section="MEMORY.md > 就诊和预约",
        dated=True,
        ts="2026-10-12",
    )
    assert found.layer == "episodic"


def test_a_month_that_names_a_rule_is_no_figure() -> None:
    text = "- December rule: no deploys after the 18th"
    found = classify(text, path="code/app/AGENTS.md", section="AGENTS.md > Release")
    assert found.layer != "episodic"


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        ("He likes being called Rob, not Robert.", "home/.hermes/memories/MEMORY.md", None),
        (
            'Name: Siobhan Kelly ("Shiv" is fine, never "Ms Kelly")',
            "home/.hermes/memories/USER.md",
            None,
        ),
        (
            "- He named me Wren; talk to him like a co-founder, not like a helpdesk",
            MEMORY,
            "MEMORY.md > Tom",
        ),
    ],
)
def test_how_the_two_address_and_treat_each_other_is_the_relationship(
    text: str, path: str, section: str | None
) -> None:
    # TAXONOMY.md, relationship: how the two address each other and frame the relationship
    # ("treat me as a peer, not a tool").
    assert classify(text, path=path, section=section).layer == "relationship"


def test_a_pet_named_by_the_user_is_still_a_fact_about_them() -> None:
    text = "Lives in Galway with a dog named Bran."
    assert classify(text, path="home/.hermes/memories/USER.md").layer == "profile"
