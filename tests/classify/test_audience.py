"""Audience (TAXONOMY.md, Audience): shapes of private data and rules that only name a kind of
data (tests/quality README, the labelling decisions of each gold set)."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "line",
    [
        "Never write a confidential source's real name anywhere",
        "- Everything about a client or a matter is confidential. Never paste it into a chat.",
        "Anything naming a private individual accused of wrongdoing goes past the editor",
        "工作：某银行外包测试，项目保密，不聊具体项目名。",
        "> 客户信息只在这里，不外传。",
        "Reminders go to the family group only when he says so; default is private chat.",
    ],
)
def test_a_rule_of_confidentiality_marks_nothing_private(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "私密：用户在准备跳槽。",
        "年终奖打算拿去还房贷，不要跟别人说。",
        "Keep this private: my salary",
    ],
)
def test_a_line_marked_private_stays_private(line: str) -> None:
    assert classify(line).audience == "private"
