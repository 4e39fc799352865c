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
        "- 那条视频又炎上了，先别回评论",
        "- Leave the build machine on overnight",
    ],
)
def test_words_near_health_that_name_none_stay_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "- Studio prices: portrait session 1 h £120, family session 2 h £200",
        "Massage therapy prices 2027: 30 min €40, 60 min €70",
        "- Packages: basic €300, full €650, add-on album €90",
        "- 校对报价：中文每千字 40 元，英文每千字 60 元",
        "- 价目表：洗剪吹 45 元，染发 180 元起",
    ],
)
def test_a_labelled_list_of_prices_is_public(line: str) -> None:
    # A price list every buyer sees (tests/quality README: a retail price, the published
    # packages, a rate list for all pupils are public).
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "- 装修报价：12 万元，下周签",
        "- 婚庆报价：A 家 8800 元，B 家 12000 元",
        "- Prices: our flat sold for £410,000",
        "- Mortgage rates: 4.2% fixed, £1,150 a month, £980 after the remortgage",
        "- Fees: school fees £3,000 a term, £450 for the trip",
    ],
)
def test_one_sum_or_a_persons_own_money_is_no_price_list(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- Store card: Argos ending 2290",
        "- Pay the club into the Nationwide account 20-41-09 / 73310442",
        "- 场地租王家的，每年 4500，年初付清",
        "- Storage unit: 1,200 a year, paid in January",
    ],
)
def test_an_account_by_its_digits_and_a_sum_by_the_year_are_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- 每年 11 月初换季，先收夏装",
        "- Account settings live under the gear icon",
        "- Weekly report ending 2026-11-30 is in the shared drive",
    ],
)
def test_a_date_by_the_year_or_an_account_screen_is_no_sum(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        "- 快递单上只写手机号后四位，不写全名",
        "- 会员卡按手机号查，查不到就新建",
        "- 网银用妈妈的手机号注册的，别改",
        "- The booking form asks for a phone number; leave it blank",
        "- 导出的名单里有 40 个身份证号格式不对，先别导入",
    ],
)
def test_an_identity_field_named_with_no_value_is_public(line: str) -> None:
    # The field names a kind of data, no one's number (TAXONOMY.md, Audience: identity
    # numbers). A line naming a relative keeps the family cue.
    expected = "private" if "妈妈" in line else "public"
    assert classify(line).audience == expected


@pytest.mark.parametrize(
    "line",
    [
        "- 手机号 139 2654 8831，晚上别打",
        "- 身份证号 330106199001******（只记前几位）",
        "- Phone number: +44 7700 900123",
        "- 护照号 E12345678，2029 年到期",
    ],
)
def test_an_identity_field_with_its_value_stays_private(line: str) -> None:
    assert classify(line).audience == "private"


def test_a_date_is_no_value_of_an_identity_field() -> None:
    assert classify("- 2026-03-02 起会员登记只收手机号，不收身份证").audience == "public"
    assert classify("- 会员 王先生 手机号 1392654").audience == "private"


def test_an_identity_field_in_a_row_read_below_its_header_is_public() -> None:
    assert classify("字段 | 说明\n手机号 | 会员登录用，不导出").audience == "public"
    assert classify("姓名 | 手机号\n王先生 | 139 2654 8831").audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- 身份证下个月到期，记得去补办",
        "- 身份证丢了，周一去派出所挂失",
        "- Passport number changes when it is renewed next spring",
    ],
)
def test_an_identity_document_expiring_or_lost_stays_private(line: str) -> None:
    # Like a permit's validity (TAXONOMY.md, Audience: identity papers), a document's own
    # expiry or loss is the person's, though no number is given.
    assert classify(line).audience == "private"
