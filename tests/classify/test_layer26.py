"""Layer round 26 (rules read from the dev halves' misses, checked on the test halves by
figures). Each test is an invented line of the kind the rule is written for, not a line of a
gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "/home/a/.openclaw/workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "- 每天 6 点起床，晚上 10 点半前睡。",
        "- 一般 11 点睡，7 点起",
        "- Usually wakes at 6 and is in bed by 22:30",
        "- Gets up at 5 most days",
        "- 不喝酒，聚餐帮我订能喝茶的馆子。",
        "- Doesn't drink alcohol; suggest places with good tea",
        "- Non-smoker, and hates smoky pubs",
    ],
)
def test_ones_own_rhythm_and_habits_are_a_profile(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user and general tastes (working style):
    # when they sleep and rise, that they do not drink or smoke.
    assert classify(text, path=MEMORY).layer == "profile", text


@pytest.mark.parametrize(
    "text",
    [
        "- 每天 6 点叫我起床",
        "- Wake me at 6 on race days",
        "- 提醒我 11 点前睡觉",
        "- 店里 9 点前不喝酒的客人不接待",
    ],
)
def test_a_wake_up_call_or_a_reminder_to_sleep_is_no_habit(text: str) -> None:
    # A task for the assistant, or someone else's rule.
    assert classify(text, path=MEMORY).layer != "profile", text


PROJECT = "/home/a/code/x/AGENTS.md"
GLOBAL = "/home/a/.codex/AGENTS.md"


@pytest.mark.parametrize("path", [PROJECT, GLOBAL])
@pytest.mark.parametrize(
    "text",
    [
        "- Prefer polars over pandas in new code.",
        "- Prefer xarray over bare NumPy arrays for gridded data.",
        "- Prefer small pure functions and dataclasses over class hierarchies.",
    ],
)
def test_a_choice_between_a_code_bases_tools_is_a_how_to(text: str, path: str) -> None:
    # TAXONOMY.md, procedural: standing how-to and project knowledge (task rules, configs); a
    # choice of library or construct in code is a rule of the code, not a taste of the person
    # (profile) nor their own life (realm real).
    c = classify(text, path=path)
    assert c.layer == "procedural", text
    assert not (c.realm == "real" and c.realm_cued), text


@pytest.mark.parametrize(
    "text", ["- Prefers British spelling over American.", "- Prefers tea over coffee at 9"]
)
def test_a_taste_of_the_person_stays_a_taste(text: str) -> None:
    assert classify(text, path=GLOBAL).layer == "profile", text
