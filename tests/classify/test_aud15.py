"""Audience, fifteenth round (TAXONOMY.md, Audience): health told as what one is or by the
tests that look for it, and family and money in more forms. Every line here is invented; none
is copied from a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "line",
    [
        # What one is by a condition.
        "- He's asthmatic; keep the inhaler in the van's glovebox",
        "- Celiac, so any catering order needs a separate tray",
        "- Diabetic since her teens, carries jelly babies on shift",
        # A condition by its name, the scope that looks for it.
        "- 爷爷尿酸偏高，饭局少点啤酒",
        "- 十二指肠溃疡还没好，夜宵别点辣的",
        "- 下个月约了肠镜，前一天只能喝流食",
        "- Colonoscopy booked for 14 March, no solid food the day before",
        # A glucose reading, its lows and highs.
        "- Ran high (13.4) after the conference lunch, corrected and fine",
        "- 早上空腹血糖 6.8，比上周高一点",
        # The diet an intolerance keeps.
        "- Oat or lactose-free milk for Sam's coffee",
        "- 给小米买无乳糖酸奶",
    ],
)
def test_a_condition_one_has_and_its_tests_are_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- The tide went low early; launch from the north slip",
        "- Stock ran low on the 12 mm bolts, reorder on Monday",
        "- Server load went high during the import, add a worker",
    ],
)
def test_low_and_high_with_no_reading_stay_public(line: str) -> None:
    assert classify(line).audience == "public"
