"""Audience, twenty-first round (TAXONOMY.md, Audience): conditions named by their medical
word-form, groups a job serves counted or taken whole, and kinds of record named by a private
topic. Every line here is invented; none is copied from a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify


@pytest.mark.parametrize(
    "line",
    [
        # A disease of a tissue or an organ, by its -opathy.
        "- Peripheral neuropathy in both feet, so no long walking tours",
        "- Achilles tendinopathy flared again, swap the hill reps for cycling",
        # A developmental condition.
        "- I'm dyslexic: keep summaries short and never in italics",
        "- She has dyspraxia, so no handwritten forms, send the PDF",
        # A back or a joint that hurts, told with how much or how often.
        "- 老周说膝盖又疼了，这周的深蹲换成臀桥",
        "- 颈椎一直酸，下午提醒我起来活动",
    ],
)
def test_a_condition_by_its_medical_word_form_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- Replies should show empathy before the fix",
        "- 这个排期真头疼，先列出三种方案",
        "- The telepathy subplot is dropped from book two",
    ],
)
def test_words_that_only_look_like_a_condition_stay_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        # Counted by the tens: a class, a ward, a gym's roll.
        "- 大一班今年 31 个孩子，午睡分两个房间",
        "- 她在儿科病房，一个人管 12 个孩子",
        "- Year 4 has 27 children this term, two of them new",
        # Taken whole.
        "- 每个孩子的家长都要加进群里，通知统一发",
        "- 任何会员的体检报告都只存在前台电脑",
        # A standing rule for each new one from now on.
        "- 今后新学员报名都要先填一张健康问卷，有哮喘的要家长签字",
    ],
)
def test_a_group_counted_or_taken_whole_names_no_one(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        # A family's own few children.
        "- 我们家 2 个孩子，老大周三游泳",
        # A rule over every payment is about a sum, not a group.
        "- Set aside £300 of every client payment for the tax bill",
    ],
)
def test_a_familys_children_and_a_sums_rule_stay_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        # A kind of record a job keeps, named by a private topic, with no one's value.
        "- The nightly job copies the loan-book data into the warehouse",
        "- Never paste salary spreadsheets into the team chat",
        "- A test fixture once held 12 real mortgage account numbers",
        # A list or a form a class or a gym keeps.
        "- 过敏名单每学期开学前更新，贴在教室门后",
        "- 体检登记表收齐后交给前台，原件锁进柜子",
    ],
)
def test_a_kind_of_record_named_by_a_private_topic_is_public(line: str) -> None:
    assert classify(line).audience == "public"


@pytest.mark.parametrize(
    "line",
    [
        # One's own or another's record, or a sum beside it.
        "- My mortgage account numbers are in the blue folder",
        "- Income spreadsheet says £4,200 came in for November",
        "- 她的过敏名单：花生、芒果",
    ],
)
def test_ones_own_record_or_a_sum_stays_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        # A sum by the month with a thousands separator.
        "- 停车费每个月 1,200，年底一次交清",
        # A house's price or its down payment in 万 or in tenths.
        "- 看中的那套总价 480 万，首付三成",
        # A rent's deposit terms.
        "- 新房子押一付三，下周签",
        # A sum to be transferred to or from the person.
        "- 周五前把 3,500 打给装修队",
    ],
)
def test_a_persons_money_in_chinese_written_forms_is_private(line: str) -> None:
    assert classify(line).audience == "private"


@pytest.mark.parametrize(
    "line",
    [
        "- 每个月 1 号检查一次备份",
        "- 把 3 个文件转给设计组",
    ],
)
def test_a_day_of_the_month_or_a_count_is_no_sum(line: str) -> None:
    assert classify(line).audience == "public"
