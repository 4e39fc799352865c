"""A business's tariff, what it charges each customer for a unit of what it sells, is told to
anyone (memctl/data/classify.toml, cue "a business's tariff"); a price agreed with one client,
a fee still owed and one's pay by the hour stay private. Lines invented."""

from __future__ import annotations

import pytest

from memctl.classify import classify

PATH = "/h/.openclaw/workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "- 瑜伽小班课 150 元一节，月卡 1,200",
        "- 校对服务每千字 45 元，加急另加 20%",
        "- 上门费 30 元，修好了从工钱里扣",
        "- 学费：全日制 6,800，周末班 5,200，含教材",
        "Call-out fee £60, then £45 an hour for parts and labour",
        "- studio customers pay €25/month per seat; invoices by e-mail",
        "Prices from March: single room £95, double £120, breakfast included",
    ],
)
def test_a_businesss_tariff_is_public(text):
    assert classify(text, path=PATH).audience == "public"


@pytest.mark.parametrize(
    "text",
    [
        "- 新客户「远帆科技」：单价谈到每千字 300 元",
        "- 从下月起单价涨到每千字 320 元（小周谈下来的）",
        "| 李同学 | 科目二 | 学费还差 800 没交 |",
        "家教课时费 200 元/小时",
        "本月营业额 3.2 万元",
    ],
)
def test_an_agreed_price_a_fee_owed_and_ones_pay_stay_private(text):
    assert classify(text, path=PATH).audience == "private"
