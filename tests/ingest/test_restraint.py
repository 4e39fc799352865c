"""Restraint: which user messages become memories (seed 001, section 五). Narrow on purpose —
ordinary chat, role-play talk and questions must add nothing."""

from __future__ import annotations

import pytest

from memctl.ingest.restraint import NOT_MEMORABLE, TOO_LONG, judge, rules


def test_the_seed_case_keeps_the_fact_without_the_prefix() -> None:
    verdict = judge("记住：E2E041 我的测试标记是蓝鲸")
    assert (verdict.category, verdict.text, verdict.reason) == (
        "remember",
        "E2E041 我的测试标记是蓝鲸",
        None,
    )


@pytest.mark.parametrize(
    ("message", "fact"),
    [
        ("记一下，周五要交房租", "周五要交房租"),
        ("别忘了我下周三去体检", "我下周三去体检"),
        ("请帮我记住：车停在 B2-117", "车停在 B2-117"),
        ("不要忘记给妈妈打电话", "给妈妈打电话"),
        ("  记住 我的工位在 7 楼  ", "我的工位在 7 楼"),
        ("Remember: the wifi password is on the fridge", "the wifi password is on the fridge"),
        ("remember that my locker is 42", "my locker is 42"),
        ("Please remember I take the 8:15 train", "I take the 8:15 train"),
        ("Don't forget my sister's name is Ana", "my sister's name is Ana"),
        ("Note: the server reboots at 3am", "the server reboots at 3am"),
        ("keep in mind that I work night shifts", "I work night shifts"),
    ],
)
def test_explicit_remember_requests(message: str, fact: str) -> None:
    assert (judge(message).category, judge(message).text) == ("remember", fact)


@pytest.mark.parametrize(
    ("category", "message"),
    [
        ("address", "叫我小林就好"),
        ("address", "以后称呼我林老师"),
        ("address", "我的名字是林晓"),
        ("address", "你就叫小七吧"),
        ("address", "Call me Lin"),
        ("address", "My name is Lin Xiao"),
        ("address", "Your name is Echo from now on"),
        ("address", "I go by Sam at work"),
        ("preference", "我喜欢喝乌龙茶"),
        ("preference", "我不太喜欢香菜"),
        ("preference", "我讨厌下雨天开车"),
        ("preference", "我最爱的电影是《千与千寻》"),
        ("preference", "以后请用简体中文回答"),
        ("preference", "I really like dark roast coffee"),
        ("preference", "I hate long meetings"),
        ("preference", "I hate it when the build breaks at night"),
        ("preference", "I prefer tabs over spaces"),
        ("preference", "My favourite band is Radiohead"),
        ("preference", "I'm a fan of Formula 1"),
        ("diet", "我对花生过敏"),
        ("diet", "我海鲜过敏，点菜注意"),
        ("diet", "我吃素"),
        ("diet", "我不吃辣"),
        ("diet", "我乳糖不耐"),
        ("diet", "I'm allergic to penicillin"),
        ("diet", "I am vegetarian"),
        ("diet", "I'm lactose intolerant"),
        ("diet", "I don't eat pork"),
        ("diet", "I can't eat gluten"),
        ("dates", "我的生日是 7 月 19 日"),
        ("dates", "我妈的生日在腊月"),
        ("dates", "下个月是我们的结婚纪念日"),
        ("dates", "My birthday is on March 3"),
        ("dates", "Our anniversary is next Friday"),
        ("dated_event", "我 2026-04-01 要去东京出差"),
        ("dated_event", "3月15日我搬家"),
        ("dated_event", "On Jan 5 we are moving to Berlin"),
        ("dated_event", "I start the new job 12 Feb"),
    ],
)
def test_each_category_in_both_languages(category: str, message: str) -> None:
    verdict = judge(message)
    assert (verdict.category, verdict.text) == (category, message)


@pytest.mark.parametrize(
    "message",
    [
        "今天天气不错",
        "帮我写一个 Python 脚本",
        "hello",
        "Thanks!",
        "继续",
        "今天是 2026-03-01",
        "What do you think about Rust",
        "Let's continue the story",
        "我们来聊聊这个设定",
        "设定一下明早七点的闹钟",
        "这段剧情有点拖沓",
        "主角的人设要改一下",
        "这个世界观很宏大",
        "我喜欢这段剧情",
        "那个角色设定我喜欢",
        "剧情里主角对花生过敏",
        "人设：她的生日是 5 月 1 日",
        "世界观设定：这个大陆的人都不吃肉",
        "The hero is allergic to silver",
        "In the story her birthday is in May",
        "素食餐厅推荐一下",
        "我对什么都不过敏",
    ],
)
def test_ordinary_and_role_play_chat_is_not_memorable(message: str) -> None:
    verdict = judge(message)
    assert (verdict.category, verdict.reason) == (None, NOT_MEMORABLE)


@pytest.mark.parametrize(
    "message",
    [
        "I like it",
        "I like how you explained that",
        "I love this answer!",
        "我喜欢这个回答",
        "我喜欢你刚才说的",
        "我不喜欢这个方案，重写一下",
    ],
)
def test_feedback_on_the_conversation_is_not_a_preference(message: str) -> None:
    assert judge(message).category is None


@pytest.mark.parametrize(
    "message",
    [
        "我喜欢什么？",
        "我喜欢什么",
        "你知道我对什么过敏吗",
        "我对什么过敏",
        "我的生日是哪天呢",
        "我的生日是几号",
        "你叫什么",
        "你叫什么名字",
        "我叫什么名字",
        "你的名字叫什么",
        "Do I like tea?",
        "What's my name?",
        "what do I like",
        "Is my birthday in March",
    ],
)
def test_questions_are_not_memorable(message: str) -> None:
    verdict = judge(message)
    assert (verdict.category, verdict.reason) == (None, NOT_MEMORABLE)


@pytest.mark.parametrize(
    "message",
    ["记住：", "remember", "remember when we went to Kyoto", "do you remember my name",
     "note that down", "Remember how we fixed the build?"],
)  # fmt: skip
def test_remember_words_without_a_fact_to_keep(message: str) -> None:
    assert judge(message).category is None


def test_long_messages_are_pasted_material_unless_explicitly_remembered() -> None:
    limit = rules().max_chars
    pasted = "我喜欢" + "很长的粘贴内容" * (limit // 7 + 1)
    assert len(pasted) > limit
    assert (judge(pasted).category, judge(pasted).reason) == (None, TOO_LONG)
    kept = judge("记住：" + pasted)
    assert (kept.category, kept.text) == ("remember", pasted)


def test_rules_load_from_the_data_file() -> None:
    r = rules()
    assert r.max_chars == 400
    assert set(r.categories) == {"address", "preference", "diet", "dates"}
    assert r.remember and r.questions and r.event_date and r.event_subject
