"""Realm, fifteenth round: a self-employed person's trade, their shop, their clients and their
pay are work (TAXONOMY.md, Realm: "a job, employer, team, clients or a business product"),
also where no line says "my job". The home's vote (memctl.classify.home) learns the trade from
the line introducing the person, and counts as the person's life only what a line's own words
say of a life (not its heading, not a note that the user said it, not a client's family).
Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import classify, home, rules

MEMORY = "/h/.nanobot/workspace/memory/MEMORY.md"
ENTRIES = "/h/.hermes/memories/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # Running a business by its name, in a clause of the line introducing the person.
        "- 孙磊，在开封夜市开「老孙烤冷面」，熟客都叫他磊子。",
        "何静，32 岁，在家打理网店「小鹿手作」，自己打包发货",
        # Gig work for a platform.
        "周末在城东跑饿了么外卖",
        "- 晚上和周末跑网约车，车是租的",
    ],
)
def test_a_self_employed_trade_is_a_job_statement(text):
    c = classify(text, path=MEMORY)
    assert (c.realm, c.realm_cued, c.layer) == ("work", True, "profile")
    assert rules.JOB_STATEMENT in rules.text_roles(text)


@pytest.mark.parametrize(
    "text",
    [
        "妈妈在夜市开「老孙烤冷面」",  # a relative's business
        "以前跑过滴滴，现在不跑了",  # one held before
        "打开「设置」把通知关掉",  # opening a menu
        "点开「订单」页看物流",
    ],
)
def test_a_relatives_trade_a_former_one_or_a_menu_is_no_job_statement(text):
    assert rules.JOB_STATEMENT not in rules.text_roles(text)


def test_the_users_own_commission_is_their_jobs_pay():
    # Base pay and commission are a job's, also in the person's own words ("我的").
    c = classify("我的课时提成是每节课价的 40%。", path=MEMORY)
    assert (c.realm, c.realm_cued) == ("work", True)


BOILERPLATE = "（这条信息来自用户在多次对话中的陈述，可能随时间变化，使用前请确认。）"


def test_a_note_that_the_user_said_it_gives_no_real_life():
    # A hermes entry closed by the memory tool's provenance sentence: the shop's rule is the
    # shop's, whoever said it.
    c = classify(f"进货找城北的供应商老马，每月底结一次。\n{BOILERPLATE}", path=ENTRIES)
    assert (c.realm, c.realm_cued) == ("work", True)
    # The person's life stays theirs under the same sentence.
    c = classify(f"用户对花生过敏，点外卖要避开。\n{BOILERPLATE}", path=ENTRIES)
    assert c.realm == "real"


def _line(i, realm="real", cued=False, text=None, layer="procedural"):
    return home.Line(i, text or f"line {i}", realm, cued, layer, "public", False, False)


STATEMENT = home.Line(
    1, "- 孙磊，在夜市开「老孙烤冷面」", "work", True, "profile", "public", False, False
)


def test_a_line_real_only_by_its_heading_does_not_vote_against_the_job():
    # Under "## 个人": the heading says real, the lines' own words say nothing ("line 5").
    evidence = home.Evidence()
    work = [_line(i, "work", cued=True) for i in (2, 3, 4)]
    own = [_line(i, "real", cued=True) for i in (5, 6, 7, 8)]
    evidence.add(MEMORY, [STATEMENT, *work, *own, _line(9)])
    assert not rules.says_realm("line 5")
    assert evidence.serves_job({})


def test_a_line_whose_own_words_tell_a_life_still_votes():
    evidence = home.Evidence()
    work = [_line(i, "work", cued=True) for i in (2, 3, 4)]
    life = [
        _line(5, "real", True, "Her mum is back in hospital on Friday"),
        _line(6, "real", True, "女儿周六学钢琴，他去接"),
        _line(7, "real", True, "Loves long walks with the dog"),
    ]
    evidence.add(MEMORY, [STATEMENT, *work, *life, _line(8)])
    assert all(rules.says_realm(line.text) for line in life)
    assert not evidence.serves_job({})  # 3 of 6


def test_a_line_cued_real_life_naming_the_people_a_job_serves_votes_for_the_job():
    # A client's family or a guest's phone number is no part of the person's life.
    evidence = home.Evidence()
    work = [_line(i, "work", cued=True) for i in (2, 3)]
    serving = [
        _line(4, "real", True, "Never put guests' names in the family group chat"),
        _line(5, "real", True, "客户的身份证照片不要转发到家里的群"),
    ]
    life = [_line(6, "real", True, "Her mum is back in hospital on Friday")]
    evidence.add(MEMORY, [STATEMENT, *work, *serving, *life, _line(7)])
    assert evidence.said == {"work": 4, "real": 1}
    assert evidence.serves_job({})


@pytest.mark.parametrize(
    "text",
    [
        "- 新会员第一次课先做体态评估",  # a studio's or a shop's members
        "只写草稿，不要直接回复买家",  # a seller's buyers
        "Owners pay for fuel and marina fees",  # the owners a trade works for
    ],
)
def test_know_how_naming_a_trades_own_people_counts_as_the_jobs(text):
    evidence = home.Evidence()
    statement = home.Line(
        1, "- 孙磊，在夜市开「老孙烤冷面」", "work", True, "profile", "public", False, False
    )
    work = [_line(i, "work", cued=True) for i in (2, 3)]
    life = [_line(4, "real", True, "Her mum is back in hospital on Friday")]
    evidence.add(MEMORY, [statement, *work, *life, _line(5), _line(6, text=text)])
    assert not evidence.serves_job({5: "line 5", 6: "line 6"})  # 2 of 3: not enough lines
    assert evidence.serves_job({5: "line 5", 6: text})  # 3 of 4
