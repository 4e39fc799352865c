"""Audience, fifteenth round (TAXONOMY.md, Audience): health told as what one is or by the
tests that look for it, and family and money in more forms. Every line here is invented; none
is copied from a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, kin


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


@pytest.mark.parametrize(
    "line",
    [
        # A family's state: divorced, a child's custody, co-parenting.
        "- Divorced in 2023, keeps the house in Leith",
        "- Custody arrangement: alternate weekends, Wednesdays for dinner",
        "- Co-parenting app is where the school forms go",
        # Grandchildren in the short form.
        "- The grandkids come every second Saturday; hide the soldering iron",
        # A partner given as a bold label.
        "**Partner:** Lena, works in a bakery; she starts at 4",
        # A quarrel between the people of a home.
        "- 他俩周末又吵了一架，别提装修的事",
        "- We had a fight about the move; don't bring up the new flat",
        "- They argued again over the car",
    ],
)
def test_a_family_state_a_partner_label_and_a_quarrel_are_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- Keep the chain of custody form with every sample bag",
        "- Custody of evidence: log who takes the drive out of the safe",
        "- **Partner API:** keys rotate every 90 days",
        "- The knights had a fight with the ogre at the bridge",
    ],
)
def test_custody_of_evidence_a_partner_api_and_a_story_fight_stay_public(line: str) -> None:
    realm = classify(line).realm
    assert classify(line).audience == "public" or realm == "fictional"


def test_children_one_has_custody_of_are_learnt_as_kin() -> None:
    said = "- Shares custody of Ada (7) and Max (4) with Tom, alternate weeks"
    found = kin.names([said])
    assert {"Ada", "Max"} <= found
    assert classify("- Ada: ballet on Thursdays 17:00", relatives=found).audience == "private"


def test_a_partner_in_a_bold_label_is_learnt_as_kin() -> None:
    found = kin.names(["**Partner:** Lena, works in a bakery"])
    assert "Lena" in found
    assert (
        classify("- Lena starts at 4, keep mornings quiet", relatives=found).audience == "private"
    )


def test_a_name_after_叫_that_jieba_would_cut_with_叫_is_learnt() -> None:
    # jieba cuts 叫安 + 迪: the glue word gets a space after it before the cut.
    found = kin.names(["- 男朋友叫安迪，在银行上班"])
    assert "安迪" in found
    assert classify("- 安迪周六生日，提醒订蛋糕", relatives=found).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        # Where a named party's payment stands, with or without its sum.
        "- 2026-10-02: the Okafors booked the garden room for May, retainer received",
        "| 2027-03-14 | Lucy & Dev | Mill Barn | deposit paid |",
        "- Kofi hasn't paid the October invoice yet",
        "- 水电费小许的那份还没转给我",
        "- 婚庆那边尾款已付，发票下周寄",
    ],
)
def test_a_named_partys_payment_done_or_owed_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- A date is held only once the deposit is in",
        "- Deposit paid before the keys go out, never after",
        "- 第三章稿子还没交，周五前提醒一次",
    ],
)
def test_a_rule_about_payments_and_a_task_not_done_stay_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "- 这个月起我的提成涨到 12%",
        "- 车贷还剩 14 期，每期从工资卡扣",
        "- 平台押的保证金是五千，退店才退",
        "- 交强险和商业险都在人保，明年 4 月续",
        "- Van insurance with Zenith, renews in August",
        '- Groceries come out of the Starling pot "Food"',
        '- VAT goes into the "Tax 2027" account every quarter',
    ],
)
def test_a_persons_money_in_more_words_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- 工资条模板：姓名 / 底薪 / 提成 / 实发",
        "- 开店前要先交保证金，金额看类目",
        "- Insurance questions go to the broker, not to me",
        "- Log in as the deploy user, never as root",
    ],
)
def test_a_payslips_columns_a_rule_about_deposits_and_insurance_stay_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "- 韵达月结价：首重 2.8 元，续重 0.8 元/kg",
        "- 找李叔收土鸡蛋，今年是 9 元/斤，月底结",
        "- 空运头程走「捷达货代」，每公斤 32 元",
        "- 面粉进价下月起涨 5%",
        "- Courier rate from Parcelwise is £3.10 a parcel, ours only",
    ],
)
def test_what_a_business_pays_its_suppliers_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- 进货单每周三下，干货只下一次",
        "- 鸡蛋零售 12 元/斤，周末不打折",
        # A buying price per unit alone is a price anyone may know (second set).
        "- 黄油进价每块 18 元",
        "- Ask the courier for its rates before the Christmas rush",
    ],
)
def test_the_order_sheet_and_the_selling_price_stay_public(line: str) -> None:
    assert classify(line).audience == "public"
