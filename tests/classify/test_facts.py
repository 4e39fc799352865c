"""facts.extract: the (subject, predicate, value) triples supersede chains compare."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.classify.facts import Fact, extract


def fact(text: str) -> tuple[str, str, str, bool]:
    found = extract(text)
    assert found is not None, text
    return found.subject, found.predicate, found.value, found.certain


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("我住在上海", "上海"),
        ("现在住在上海了", "上海"),
        ("我搬家了，现在住在北京", "北京"),
        ("用户住在上海市", "上海"),
        ("坐标杭州，做产品", "杭州"),
        ("I live in Berlin", "berlin"),
        ("User lives in Berlin and works remotely for a US company.", "berlin"),
        ("moved to Paris", "paris"),
        ("I moved to Paris last year", "paris"),
        ("The user is 34 and based in Toronto.", "toronto"),
        ("Grew up in Lagos, moved to London at 18.", "london"),
    ],
)
def test_where_the_user_lives(text: str, value: str) -> None:
    assert fact(text) == ("user", "lives_in", value, True)


def test_the_same_place_said_two_ways_compares_equal() -> None:
    first, second = extract("我住在上海"), extract("现在住在上海了")
    assert first is not None and second is not None
    assert first == second and first.key == second.key == ("user", "lives_in")
    moved = extract("我搬家了，现在住在北京")
    assert moved is not None and moved.key == first.key and moved.value != first.value


@pytest.mark.parametrize(
    "text",
    ["我可能要搬去深圳", "thinking about moving to Lisbon next year", "I'm moving to Oslo soon"],
)
def test_hedged_moves_are_uncertain(text: str) -> None:
    subject, predicate, _, certain = fact(text)
    assert (subject, predicate, certain) == ("user", "lives_in", False)


@pytest.mark.parametrize(
    "text",
    [
        "我不住在上海了",
        "我女儿住在上海",
        "不要叫我老王",
        "We moved to Postgres last year",
        "用户今天去医院了",
        "今天天气不错",
    ],
)
def test_negated_unrelated_or_absent_facts_are_none(text: str) -> None:
    assert extract(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("叫我老王就行", ("user", "address_as", "老王")),
        ("Call me Sam, not Samuel.", ("user", "address_as", "sam")),
        ("用户希望被称为“陈老师”。", ("user", "address_as", "陈老师")),
        ("User prefers to be addressed by first name, Mei.", ("user", "address_as", "mei")),
        ('Address the user as "Dr. Patel" in emails.', ("user", "address_as", "dr. patel")),
        ("我叫李明，大家都叫我阿明。", ("user", "name", "李明")),
        ("User's name is Daniel Okafor.", ("user", "name", "daniel okafor")),
        ("以后你就叫小七", ("assistant", "name", "小七")),
        ("your name is Nova from now on", ("assistant", "name", "nova")),
        ('User calls the assistant "Jarvis".', ("assistant", "name", "jarvis")),
        ("用户叫我“小助”，我称呼他“老板”。", ("assistant", "name", "小助")),
        ("You are Hermes, a pragmatic assistant.", ("assistant", "name", "hermes")),
        ("用户在字节跳动做后端开发。", ("user", "employer", "字节跳动")),
        ("Works at Shopify as a staff engineer since 2021.", ("user", "employer", "shopify")),
        ("公司：望安科技 (Wonsec)", ("user", "employer", "望安科技")),
        ("用户在上海工作，周末回苏州。", ("user", "works_in", "上海")),
        ("用户是一名高中数学老师", ("user", "job", "高中数学老师")),
        ("User is a Product Manager.", ("user", "job", "product manager")),
        ("Main language is Rust; also writes Python.", ("user", "language", "rust")),
        ("用户主要用 Go 写后端，前端用 React。", ("user", "language", "go")),
        ("我习惯用vim，不要用nano。", ("user", "editor", "vim")),
        ("不要用 nano，用户只用 vim。", ("user", "editor", "vim")),
        ("Uses Neovim with a LazyVim config.", ("user", "editor", "neovim")),
        ("Editor: VS Code", ("user", "editor", "vscode")),
        ("用户主力系统是 Arch Linux", ("user", "os", "arch linux")),
        ("I'm vegetarian, no fish either.", ("user", "diet", "vegetarian")),
        ("我吃素", ("user", "diet", "vegetarian")),
        ("用户对花生严重过敏", ("user", "allergy", "花生")),
        ("User is allergic to penicillin.", ("user", "allergy", "penicillin")),
        ("Lactose intolerant, avoid dairy.", ("user", "intolerance", "lactose")),
        ("我不吃香菜", ("user", "avoids_food", "香菜")),
        ("我的生日是3月14日", ("user", "birthday", "03-14")),
        ("我的生日是1992年8月3日", ("user", "birthday", "1992-08-03")),
        ("我的生日是 5 月 1 日", ("user", "birthday", "05-01")),  # digits set off by spaces
        ("用户生日：1992 年 8 月 3 号", ("user", "birthday", "1992-08-03")),
        ("My birthday is March 14th", ("user", "birthday", "03-14")),
        ("I live in New York now", ("user", "lives_in", "new york")),
        ("The user is based in Lisbon these days.", ("user", "lives_in", "lisbon")),
        ("用户有一只橘猫叫团子。", ("user", "pet", "cat:团子")),
        ("My dog Biscuit is a 4-year-old beagle.", ("user", "pet", "dog:biscuit")),
        ("On March 12 the user adopted a second cat, Tofu.", ("user", "pet", "cat:tofu")),
        ("用户的时区是 UTC+8", ("user", "timezone", "utc+8")),
        ("用户今年30岁", ("user", "age", "30")),
        ("用户最喜欢的颜色是墨绿色", ("user", "favorite_color", "墨绿色")),
        ("Favourite food is ramen.", ("user", "favorite_food", "ramen")),
        ("用户母语是粤语", ("user", "native_language", "yue")),
        ("Prefers answers in English.", ("user", "reply_language", "en")),
        ("用户的老婆叫小雨", ("user", "partner", "小雨")),
        ("用户来自湖南长沙，很能吃辣。", ("user", "hometown", "湖南长沙")),
    ],
)
def test_common_facts(text: str, expected: tuple[str, str, str]) -> None:
    assert fact(text)[:3] == expected


def test_multi_valued_facts_key_on_their_value() -> None:
    peanuts, shellfish = extract("我对花生过敏"), extract("我对海鲜过敏")
    assert peanuts is not None and shellfish is not None
    assert peanuts.multi and peanuts.key != shellfish.key
    cat, dog = extract("我养了一只猫叫咪咪"), extract("我还养了一条狗叫旺财")
    assert cat is not None and dog is not None and cat.key != dog.key
    home = extract("我住在上海")
    assert home is not None and not home.multi and home.key == ("user", "lives_in")


def test_fact_is_a_frozen_value() -> None:
    f = Fact("user", "editor", "vim", True)
    with pytest.raises(AttributeError):
        f.value = "emacs"  # type: ignore[misc]
    assert f == Fact("user", "editor", "vim", True, False)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_fact_or_none(text: str) -> None:
    found = extract(text)
    assert found is None or (found.subject in ("user", "assistant") and found.value.strip())


@pytest.mark.parametrize(
    "text",
    [
        "这份资料来自客户的邮件",
        "这条信息来自用户在多次对话中提到的家乡和工作经历，仅供参考",
        "The report comes from Acme Research.",
        "The codebase switched to Rust last year",
        "项目的主力语言是 Go",
        "服务器搬到了新机房",
        # The plain verb's own subject is not the user (the user is "I live…" or "Lives…").
        "Chapters live in Scrivener, project `LeithKnife.scriv` in Dropbox",
        "Drafts reside in Google Docs",
        "My parents live in Taichung",
        "My grandparents moved to Tainan",
    ],
)
def test_a_trigger_in_a_clause_about_something_else_is_no_fact(text: str) -> None:
    assert extract(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("现在换成 Go 了", ("language", "go")),
        ("用户的主力编程语言是 Python", ("language", "python")),
        ("I switched to Rust last month", ("language", "rust")),
        ("编辑器换成了 VS Code", ("editor", "vscode")),
        ("用户现在在苏州生活", ("lives_in", "苏州")),
        ("去年搬到了深圳", ("lives_in", "深圳")),
    ],
)
def test_phrasings_and_changes_stated_as_the_change(text: str, expected: tuple[str, str]) -> None:
    assert fact(text)[1:3] == expected


def test_a_long_note_needs_its_subject_stated() -> None:
    filler = "这是一段很长的背景说明，讲的是部署流程和注意事项。" * 8
    assert extract(filler + "搬到了深圳。") is None
    assert fact(filler + "用户搬到了深圳。")[1:3] == ("lives_in", "深圳")


@pytest.mark.parametrize(
    "text",
    [
        "**重要：在此仓库中工作时，必须使用中文回复所有消息和说明。**",
        "**加入时间：** 2025年3月",
        "OpenClaw护城河：住在手机里，记得你的一切",
        "记忆系统三层架构，来自@wangray",
    ],
)
def test_values_that_point_instead_of_naming_are_no_fact(text: str) -> None:
    """Seen in real memory files: a demonstrative, a handle, the inside of a thing."""
    found = extract(text)
    assert found is None or found.predicate not in ("employer", "lives_in", "hometown"), found


def test_a_long_note_whose_fact_clause_names_the_user_still_gives_it() -> None:
    text = "User is a Product Manager. Primary workstation OS is macOS. Uses Hermes for planning."
    assert fact(text)[1:3] == ("job", "product manager")
