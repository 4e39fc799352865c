"""Layer round 19. Each test is an invented line of the kind the rule is written for, not a
line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

AGENTS = ".codex/AGENTS.md"
MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "- American spelling in docs and commit messages.",
        "- Replies in two bullets max when I'm on the phone",
        "- Dutch or English, whichever I wrote in.",
        "- Show the diff first, then a sentence on the risk.",
        "- Explain as if to a chemist: formulas fine, no sales talk.",
        "- 我用什么语言你就用什么语言回复",
    ],
)
def test_answer_style_is_a_taste_of_the_person(text: str) -> None:
    # TAXONOMY.md, profile: general tastes, language and explanation style, also in an
    # AGENTS.md, whose lines otherwise lean procedural.
    assert classify(text, path=AGENTS, section="Global instructions").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "- Parish names: Irish spelling first, English in brackets",
        "- Always run `terraform plan` first and show me the diff",
    ],
)
def test_a_task_rule_naming_spelling_or_a_diff_stays_procedural(text: str) -> None:
    assert classify(text, path=AGENTS, section="Global instructions").layer == "procedural"


FEEDBACK = ".claude/projects/-home-kim-code-shop/memory/feedback_prices.md"
RULE = "Prices come from the price sheet — never type a price from memory"


@pytest.mark.parametrize(
    "text",
    [
        "**Why:** at the spring fair 40 listings went out with the wrong prices.",
        "**Why:** in week 3 the shop manager said the old price list wasn't taken down.",
        "**Why:** in May a batch of invoices with old prices landed in a client's inbox.",
    ],
)
def test_a_time_adverbial_opening_the_reason_places_its_incident(text: str) -> None:
    # TAXONOMY.md, episodic: the incident behind a rule, told after a time adverbial that
    # hides its verb from the predicate's window (tests/quality README, third set: "**Why:**"
    # telling an incident is episodic).
    assert classify(text, path=FEEDBACK, section=RULE).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "- In marketing copy we use the shop's name in full.",
        "- On Mondays the courier collects at 11:00.",
    ],
)
def test_no_time_adverbial_no_incident(text: str) -> None:
    # A preposition before no time word, or a habitual weekday, places nothing once.
    assert classify(text, path=MEMORY, section="Shop").layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "- 新家地址：江干区秋涛路 66 号 2 幢 1101",
        "- 摊位在花鸟市场 D 区 8 号。",
        "Home mooring: Helford River, buoy 22.",
        "Flat C: 22 Mill Lane, Hove BN3 1AB, let since 2025, £900 a month, due on the 5th.",
    ],
)
def test_where_the_persons_place_is_is_a_fact_about_them(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user; the address of their home, shop,
    # stall, flat or mooring, also beside a rent's day of the month.
    assert classify(text, path=MEMORY, section="Long-term Memory > Notes").layer == "profile"


@pytest.mark.parametrize("text", ["- NAS 地址 10.0.0.8，ssh 用 key", "- Shop: open 9:00–17:00"])
def test_a_host_or_opening_hours_is_no_address(text: str) -> None:
    assert classify(text, path=MEMORY, section="Long-term Memory > Notes").layer != "profile"
