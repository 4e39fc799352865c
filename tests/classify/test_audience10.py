"""Audience, tenth round (TAXONOMY.md, Audience): shapes of private data the earlier cues did
not read. Every line here is invented; none is copied from a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, kin


@pytest.mark.parametrize(
    "line",
    [
        "- 仓库门禁：账号 cangku_a / 密码 Mq7pass（旧的）",
        "- 客厅路由器 wifi：HomeNet，密码 blue2031（示例）",
        "打印机后台密码是 Zx9#print，别改",
        "- Garage router: GR-Office, password: tulip_88 (old one)",
        "The shed padlock code is set; pin: 7302 (only Dan knows)",
    ],
)
def test_a_password_written_with_its_value_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "密码至少 12 位，要有大小写和数字",
        "网银密码不要记在这里",
        "- Passwords live in Bitwarden; never write one here.",
        "Password rules: 14 characters minimum, rotate every 90 days",
        "- Python pin: 3.12.4 until the wheels catch up",
    ],
)
def test_a_rule_about_passwords_names_no_password(line: str) -> None:
    assert classify(line).audience == "public"


def test_a_surname_alone_is_learnt_with_its_given_name_or_not_at_all() -> None:
    # "周" alone would make "周日不送" and "周结" family lines.
    assert kin.names(["- 老公吴建国是店里的厨师"]) == {"吴建国"}
    assert kin.names(["丈夫陈，在深圳上班"]) == frozenset()
    assert not kin.names_any("周日不送货", kin.names(["- 老公周建国管后厨"]))
