"""A relative's job, stated with the kinship word as the line's subject, is the user's family
life, not the user's job (TAXONOMY.md, Realm: work is the user's job, employer, clients or
business). realm9 read whose job it is from a relative's learnt name ("Tom is a chef"); a line
that opens with the kinship word itself ("老公在…做…", "My wife works as…") needs no name."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "text",
    [
        "女朋友在省人民医院做护士，经常上夜班",
        "- 老公在县城的学校当老师，住校",
        "- 爸爸在县医院当医生，周末才回家",
        "- **家里：** 妈妈开了一家花店的，周末去帮忙",
    ],
)
def test_a_relatives_job_is_the_users_life(text: str) -> None:
    c = classify(text)
    assert (c.realm, c.audience) == ("real", "private"), text


@pytest.mark.parametrize(
    "text",
    [
        "在一家物流公司做仓储主管",
        "- 在市第一医院当护士，三班倒",
        # A kinship word later in the line is not its subject: the user's own job.
        "- 在一家物流公司做仓储主管，老公在家带孩子",
    ],
)
def test_the_users_own_job_stays_work(text: str) -> None:
    assert classify(text).realm == "work", text


@pytest.mark.parametrize(
    "text", ["- I DM a D&D 5e campaign for four old schoolmates", "- I run a D&D campaign online"]
)
def test_running_a_game_whose_name_holds_an_ampersand_is_the_users_pastime(text: str) -> None:
    # "running a game": its logistics are the user's life; the game's name may hold "&".
    assert classify(text).realm == "real", text
