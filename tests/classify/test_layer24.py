"""Layer round 24 (rules read from the dev halves' misses, checked on the test halves by
figures). Each test is an invented line of the kind the rule is written for, not a line of a
gold file."""

from __future__ import annotations

import pytest

from memctl.classify import aspect, classify

USER = "workspace/USER.md"
MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        ("- 每周四下午 5 点去学校接儿子，那天下午别给我排会", USER, "USER.md > Context"),
        ("女儿 5 岁，周一、周三下午 4 点去托班接她，这两天下午不要约人。", USER, None),
        (
            "- 老公在医院上夜班，他下夜班那天上午别给我排课，我要在家看孩子。",
            MEMORY,
            "MEMORY.md > 我",
        ),
        (
            "- I walk the dog at 12:30 every weekday — don't schedule anything over lunch.",
            "home/.codex/AGENTS.md",
            "Global instructions > About me",
        ),
    ],
)  # fmt: skip
def test_a_booking_limit_after_the_fact_is_a_rule(
    text: str, path: str, section: str | None
) -> None:
    # TAXONOMY.md, procedural: task rules; the fact about the person's days is its reason.
    assert classify(text, path=path, section=section).layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        # Addressing someone is the relationship, not a booking limit.
        "- 叫她“敏姐”就行，别叫刘经理。",
        # A fact about the person's days with no limit on booking them stays theirs.
        "- 每周四下午 5 点去接儿子下钢琴课。",
    ],
)
def test_no_booking_limit_without_a_verb_of_booking(text: str) -> None:
    assert classify(text, path=USER, section="USER.md > Context").layer != "procedural"


DAILY = "workspace/memory/2026-11-12.md"


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        (
            "Drafted the grant summary with Maya (docs/grant/summary.md); she still has to trim"
            " it to 300 words.",
            "projects/grant/memory/project_grant.md",
            "Grant notes > 2026-11-12",
        ),
        ("- 11 月的货款：共 52 笔，还有 6 笔对不上在等供应商回话", DAILY, "2026-11-12"),
        ("- 小周 | 科目三 | 夜间灯光还不熟，直线行驶没问题", MEMORY, "MEMORY.md > 学员"),
    ],
)  # fmt: skip
def test_what_is_still_to_do_is_a_snapshot(text: str, path: str, section: str) -> None:
    # TAXONOMY.md, episodic: a status snapshot that will go stale.
    assert classify(text, path=path, section=section).layer == "episodic"


def test_a_word_that_holds_zai_deng_is_no_waiting() -> None:
    # 存在等 ("there are … and the like") waits for nothing.
    assert aspect.form("接口存在等待超时的问题") is None
    assert aspect.form("还有 6 笔在等供应商回话") == aspect.ONGOING


@pytest.mark.parametrize(
    ("text", "path", "section"),
    [
        (
            "- 主角沈砚，1930 年代上海照相馆的学徒，能在底片上看见死者的最后一眼。",
            MEMORY,
            "Long-term Memory > 小说《暗房》",
        ),
        (
            "- 海岛的设定：老海龟住在灯塔顶上，好朋友是海鸥阿白，涨潮时小路会消失。",
            MEMORY,
            "MEMORY.md > 睡前故事",
        ),
        (
            "The Ashen Vale is a frozen valley: its only town, Corbel, was built inside a dead"
            " dragon's ribs.",
            "code/ashen-vale/AGENTS.md",
            "Ashen Vale — GM notes > World",
        ),
    ],
)
def test_a_storys_cast_and_world_are_its_bible(text: str, path: str, section: str) -> None:
    # tests/quality README, third set: the story bible (canon, world facts) is procedural.
    assert classify(text, path=path, section=section).layer == "procedural"


@pytest.mark.parametrize("section", ["World news", "World Cup trip"])
def test_a_heading_that_goes_on_after_world_names_no_story_world(section: str) -> None:
    # "## World" and "## Campaign world" name a story's world; "World news" a topic of the
    # user's life, which no story bible takes out of the other channels.
    assert classify("- Read the morning briefing before nine", section=section).realm != "fictional"
