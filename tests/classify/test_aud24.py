"""A rule that something is not to be said in a group chat is a limit on disclosure (boundary),
no mark of confidence on the line itself (TAXONOMY.md, Audience: private is what the line tells
of health, family, money, identity…). The line is private when what it keeps out of the group
is such a fact ("我膝盖手术的事", a bonus being negotiated), public when it names a kind of
thing only ("公司的事", "订单的细节")."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "text",
    [
        "- 公司的事（机房、报警、客户名字）不要在球队群里说。",
        "- 领导交代：别在任何群里提订单的细节",
    ],
)
def test_a_group_limit_on_a_kind_of_thing_is_public(text: str) -> None:
    c = classify(text)
    assert (c.layer, c.audience) == ("boundary", "public"), text


@pytest.mark.parametrize(
    "text",
    ["- 不要在业主群里提我胃出血住院的事。", "- 她在跟老板谈涨工资，这事别在任何群里提。"],
)
def test_a_group_limit_on_a_private_fact_stays_private(text: str) -> None:
    assert classify(text).audience == "private", text
