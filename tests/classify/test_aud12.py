"""Audience, twelfth round (TAXONOMY.md, Audience): more forms of private data, and forms that
name a kind of data with no value of its own. Every line here is invented; none is copied from
a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "line",
    [
        # A condition named by its form: an inflammation (…炎), an -itis, an apnoea.
        "- 老毛病鼻炎，换季时提醒他带纸巾",
        "- Bronchitis again this winter, keep the calls short",
        "- Obstructive sleep apnoea, sleeps with the machine on",
        # An aid the body needs.
        "- The guest at table 4 uses a wheelchair; the venue needs a ramp",
        "- 三号桌的客人坐轮椅，订一楼的厅",
        "- Bring the spare CPAP mask on every trip",
        "- Has hearing aids; speak clearly on calls",
        # A leave for health, a health certificate.
        "- Priya is on maternity leave until June; Omar covers her tickets",
        "- 林姐休产假到明年三月",
        "- Medical certificate renews 2027-05-01",
    ],
)
def test_a_condition_an_aid_or_a_health_leave_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- Sheep crutching in March, shearing in October",
        "- 夏天炎热，下午三点后再浇水",
        "- Leave the build machine on overnight",
    ],
)
def test_words_near_health_that_name_none_stay_public(line: str) -> None:
    assert classify(line).audience == "public"
