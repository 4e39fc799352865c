"""Realm, eleventh round (side branch): a private line of a job's home is private for what it
holds (an amount, a login, a confidence) or for whose life it tells (a cold, a relative); only
the second keeps it the person's own (TAXONOMY.md: audience and realm are two questions; the
seventh set's decisions: a small business's prices, staff pay and platform logins are private
and the business's). Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import home, kin, rules


@pytest.mark.parametrize(
    "text",
    [
        "报价从下月起涨到每千字 300 元",
        "Rate goes up to £45 an hour from March",
        "The Figma licence sits on Ana's work login ana.k@example.com",
    ],
)
def test_an_amount_or_a_login_leans_to_no_realm(text):
    assert not rules.says_realm(text)


@pytest.mark.parametrize(
    "text",
    ["血压偏高，医生让少喝酒", "Her knee hurts after long runs", "Mum's hip surgery is on the 3rd"],
)
def test_a_health_or_family_word_leans_to_the_persons_life(text):
    assert rules.says_realm(text)


def _line(i: int, text: str, audience: str = "private", cued: bool = False) -> home.Line:
    realm = "work" if cued else "real"
    return home.Line(i, text, realm, cued, "procedural", audience, False, False)


@pytest.mark.parametrize(
    ("job", "private"),
    [
        ("- 自己开一家装修小店，做了 8 年", "- 瓷砖从下月起每箱涨到 85 元"),
        ("- Runs a two-chair barber shop in Leith", "- Booking app login: shop01 / in the drawer"),
    ],
)
def test_a_private_line_that_holds_an_amount_or_a_login_may_take_the_job(job, private):
    evidence = home.Evidence()
    statement = home.Line(1, job, "work", True, "profile", "public", False, False)
    work = [_line(i, f"rule {i}", "public", cued=True) for i in (2, 3, 4)]
    evidence.add("/h/ws/MEMORY.md", [statement, *work, _line(5, private)])
    assert evidence.candidates == [5]
    assert evidence.serves_job({5: private})


@pytest.mark.parametrize(
    ("intro", "private", "ill"),
    [
        ("- 女儿小满，9 岁，读三年级", "- 别在任何群里提小满的成绩", "- 血压偏高，医生让少喝酒"),
        ("- Daughter Ivy, 9", "- Never mention Ivy's grades in the group", "- Her knee hurts"),
    ],
)
def test_a_private_line_naming_a_relative_or_a_life_word_stays_the_persons(intro, private, ill):
    evidence = home.Evidence()
    statement = home.Line(1, "Works at Acme", "work", True, "profile", "public", False, False)
    relative = home.Line(2, intro, "real", True, "profile", "private", False, False)
    evidence.add("/h/ws/MEMORY.md", [statement, relative, _line(3, ill), _line(4, private)])
    assert evidence.candidates == []


@pytest.mark.parametrize(
    "text",
    [
        "- Studio Wi-Fi: network Loft-Staff, the password is on the router",
        "- 店里的收银机每周一清一次",
    ],
)
def test_a_profile_line_that_says_no_realm_may_take_the_job_but_does_not_vote(text):
    evidence = home.Evidence()
    statement = home.Line(1, "Works at Acme", "work", True, "profile", "public", False, False)
    work = [_line(i, f"rule {i}", "public", cued=True) for i in (2, 3, 4)]
    profile = home.Line(5, text, "real", False, "profile", "public", False, False)
    cued_profile = home.Line(6, "Lives in Leeds", "real", True, "profile", "public", True, False)
    evidence.add("/h/ws/MEMORY.md", [statement, *work, profile, cued_profile])
    assert evidence.candidates == [5]
    assert evidence.said == {"work": 3}


def test_a_channel_named_in_two_words_is_found_as_the_story_writes_it():
    names = home.story_names(["In #dice-night I am Brannoc, a dwarf smith of the Ember Hills"])
    assert kin.names_any("No swearing in #dice-night, even if the table asks", names)
    assert not kin.names_any("Dice night moved to Friday", names)
    names = home.story_names(["#雾港夜谈 频道：我扮演船长「老锚」"])
    assert kin.names_any("雾港夜谈第 3 回：船沉了", names)
