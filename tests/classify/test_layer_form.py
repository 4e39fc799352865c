"""Layer judgments read from the form of a statement (issue 10, fifth round): who its subject
is, its tense and aspect, the heading it sits under. Each test is an invented line of the kind
the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, rules

MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "我是用户的记账助手，负责每月对账和提醒还款",
        "I'm your study assistant for the bar exam",
        "每周六早上用法语和用户聊天，我扮演巴黎面包店的店员",
        "On Tuesdays I voice the innkeeper Marta so he can practise German",
    ],
)
def test_the_assistant_speaking_of_itself_is_persona(text: str) -> None:
    # TAXONOMY.md, persona: who the assistant is, a role prompt, a character it voices.
    assert classify(text, path=MEMORY, section="Notes").layer == "persona"


@pytest.mark.parametrize(
    "text",
    [
        "I play volleyball with Ben on Sundays",
        "剧本杀《雾港》里我扮演船长",
        "I'm a teaching assistant at the university, Tuesdays and Thursdays",
        "我是一名教学助理，周二周四上课",
    ],
)
def test_playing_a_game_is_no_role_of_the_assistant(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer != "persona"


def test_the_user_on_their_job_is_no_assistant() -> None:
    c = classify("我是做 AI agent 开发的，主要写 Python", path="workspace/USER.md", section="About")
    assert c.layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "- whether to move the newsletter to Buttondown",
        "要不要把会员改成按月付费，还在考虑",
        "**新账号**：【规划中】开一个讲手工皂的小红书号",
        "Maybe we should rent the cabin in March instead",
    ],
)
def test_an_undecided_idea_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic; gold set 3: ideas not yet decided are episodic.
    assert classify(text, path=MEMORY, section="Notes").layer == "episodic"


@pytest.mark.parametrize("section", ["Shop > Open questions", "店铺 > 待定"])
def test_lines_under_a_heading_of_open_questions_are_events(section: str) -> None:
    c = classify("Switch the card reader to SumUp, lower fees", path=MEMORY, section=section)
    assert c.layer == "episodic"


def test_a_decided_rule_is_no_idea() -> None:
    c = classify("每周一早上把上周的订单汇总发给我", path=MEMORY, section="Notes")
    assert c.layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "The landlord hates texts after 8 pm. Send an e-mail instead.",
        "Q3 budget is 12k, headcount frozen — use these numbers in the deck",
        "3 班王同学对花粉过敏，春游时要留意",
        "Zigbee plugs drop off behind the fridge; pair them in the hallway",
    ],
)
def test_an_instruction_after_a_fact_makes_it_know_how(text: str) -> None:
    # TAXONOMY.md, procedural: a task rule or a lesson; the imperative clause says the agent is
    # to act on the fact, whoever the fact is about.
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        ("对花生过敏（轻度），聚餐订餐时要提醒", "profile"),
        ("后天要搬家，需要提醒他约车", "episodic"),
    ],
)
def test_a_reminder_keeps_the_layer_of_what_it_is_about(text: str, layer: str) -> None:
    assert classify(text, path="workspace/USER.md", section="Notes").layer == layer


@pytest.mark.parametrize(
    "text",
    [
        "[2026-10-12 20:05] 用户决定：以后快递只走顺丰，不再用中通。",
        "决定：晨跑从每周三次改成四次，周日休息。",
        "We decided to always squash-merge feature branches.",
    ],
)
def test_a_decision_whose_content_stands_is_a_rule_in_a_log_too(text: str) -> None:
    # TAXONOMY.md, procedural: dated decisions whose content is still a standing rule.
    c = classify(text, path="workspace/memory/HISTORY.md", section=None)
    assert c.layer == "procedural"


def test_a_decision_of_one_day_stays_an_event() -> None:
    c = classify("决定这周六去杭州看展", path="workspace/memory/HISTORY.md", section=None)
    assert c.layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "Wants the weekly summary in bullet points, no tables",
        "Speaks Portuguese at home, English at work",
        "在成都一家医院做护士，三班倒",
    ],
)
def test_a_note_about_the_user_with_the_subject_dropped_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: a verb of a person's life opening the line has the user as subject.
    assert classify(text, path=MEMORY, section="Notes").layer == "profile"


def test_software_with_the_subject_dropped_is_know_how() -> None:
    c = classify("Runs on port 8080 behind Caddy, restart with systemctl", path=MEMORY)
    assert c.layer == "procedural"


@pytest.mark.parametrize(
    ("text", "layer"),
    [
        ("Time is entered in 0.5 h blocks, same day", "procedural"),
        ("Passport renewed in 2025, valid until 2035", "episodic"),
        ("Boiler serviced on 3 March by the landlord's plumber", "episodic"),
    ],
)
def test_a_past_verb_with_a_day_is_an_event_but_not_with_an_amount(text: str, layer: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == layer


def test_the_nth_time_is_no_story_event() -> None:
    # "第二次" is "a second time"; a rule said again under a day's log stays a rule.
    c = classify(
        "记住：CDN 缓存要手动清（第二次踩坑了）",
        path="memory/2026-05-04.md",
        section="2026-05-04 > 今日",
    )
    assert c.layer == "procedural"
    assert classify("第3次跑团：调查员进了钟楼", path=MEMORY).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "Remember that my MRI scan is on 2027-02-04",
        "Ben's graduation is on June 12, book the train",
        "搬家定在 2027 年 3 月 6 日",
    ],
)
def test_a_thing_said_to_fall_on_a_day_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic; guideline 10: a dated event the user asks to remember.
    c = classify(text, path="sessions/telegram_1.jsonl", category="remember")
    assert c.layer == "episodic"


@pytest.mark.parametrize(
    "text",
    ["My birthday is on March 5", "Our wedding anniversary is on June 3", "生日是 2019-06-01"],
)
def test_a_yearly_day_stays_a_fact_about_the_user(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "profile"


def test_a_taste_after_a_label_is_no_instruction() -> None:
    # "prefer" after a label is the user's taste with the subject dropped, not an imperative.
    for text in ("Seats: prefer the aisle", "Music while working. Prefer lo-fi, no lyrics"):
        assert classify(text, path=MEMORY, section="Travel").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "Writes to /var/log/backup.log, rotated weekly",
        "Reads from the queue every 5 s and retries three times",
        "按计划中的步骤执行迁移，先备份再切换",
        "遇到未定义的变量时先看 .env.example",
    ],
)
def test_software_and_plans_in_force_are_know_how(text: str) -> None:
    # Neither the subject-dropped user (a program writes to a file) nor an undecided idea
    # (计划中的步骤 is the plan in force, 未定义 is "undefined").
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    ["助手叫阿青，说话温和，不用敬语", "The assistant goes by Juno and answers in short lines"],
)
def test_the_assistant_as_subject_is_persona(text: str) -> None:
    # TAXONOMY.md, persona: "助手叫小满，说话直接，不用敬语" (its own example); the address words
    # after it do not make it the relationship.
    assert classify(text, path=MEMORY, section="Notes").layer == "persona"


@pytest.mark.parametrize(
    "text",
    ["2026-04-02 | 网上的报价不可全信，必须先核实", "2026-04-02 截图里的数字不准，必须对照原表"],
)
def test_an_obligation_is_a_rule_even_dated(text: str) -> None:
    # Guideline 13: "2026-02-17 | AI文章不可全信，必须先验证" is procedural.
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


@pytest.mark.parametrize(
    ("text", "section"),
    [
        ("Patient records stay confidential, whoever calls.", "Clinic"),
        ("会员资料只在这里，不外传。", "会员回访"),
        ("Tenant details are confidential. Never paste their names into outside tools.", "Lets"),
        ("学生成绩不要转发到家长群", "班级"),
    ],
)
def test_a_limit_on_disclosure_is_a_boundary(text: str, section: str) -> None:
    # TAXONOMY.md, boundary: what the assistant must not disclose, whatever job's data it is.
    assert classify(text, path=MEMORY, section=section).layer == "boundary"


@pytest.mark.parametrize(
    "text", ["Send the weekly summary to the user on Fridays", "客户资料都在 CRM 里"]
)
def test_where_data_goes_without_a_limit_is_no_boundary(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer != "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "Only in #kitchen do you speak as Chef Arno, not in any other channel.",
        "The pirate voice stays in #deck. Never use it anywhere else.",
        "只在 #江湖 群里用掌柜的口吻说话，其他群正常聊。",
        "只在读书会频道扮演书童，别的频道不要。",
    ],
)
def test_a_lane_the_assistant_stays_in_is_a_boundary(text: str) -> None:
    # TAXONOMY.md, boundary: "lanes it must stay in", though the line names a persona.
    assert classify(text, path=MEMORY, section="Notes").layer == "boundary"


def test_a_channel_named_without_a_lane_is_no_boundary() -> None:
    assert classify("Post the timeline in #ops within an hour", path=MEMORY).layer != "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "冰箱里只剩 2 盒牛奶，已经加进购物单",
        "截至 11-20 已收定金 3 家",
        "Only 3 left in the bulk pack",
    ],
)
def test_a_count_of_what_is_left_is_a_snapshot(text: str) -> None:
    # TAXONOMY.md, episodic: a status snapshot that will go stale.
    assert classify(text, path=MEMORY, section="Notes").layer == "episodic"


def test_a_current_setup_is_no_snapshot() -> None:
    assert classify("Current stack: Go + Postgres", path=MEMORY).layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "**Why:** in May a mocked suite passed while the real migration failed",
        "Last week the backup job wrote to the wrong bucket",
        "上个月群里发错了一张报价单，被客户看到了",
    ],
)
def test_a_past_time_opening_the_line_tells_an_event(text: str) -> None:
    # TAXONOMY.md, episodic; third set: a **Why:** telling an incident is episodic, also under
    # the rule's heading.
    c = classify(text, path="memory/feedback_backups.md", section="Never skip the dry run")
    assert c.layer == "episodic"


def test_a_weekday_routine_is_no_past_time() -> None:
    assert classify("On Tuesdays I voice the innkeeper Marta", path=MEMORY).layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        # A login, an account or a Wi-Fi network given with its values (import redacts the
        # secret; the mark stands for it): the user's own setup.
        "- Clinic portal login: maya@example.org / [REDACTED:password]",
        "- 仓库后台账号 cang_0815，密码 [REDACTED:password]",
        "- 家里 Wi-Fi：Home_5G，密码 [REDACTED:password]",
    ],
)
def test_a_login_with_its_values_is_profile(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        # A login named with no value: how-to.
        "- Log in with the shared account first, then open the rota page",
        "- 先登录后台再导出订单",
    ],
)
def test_a_login_without_values_stays_procedural(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        # A standing thing held by the user, with the date its term ends or renews: the date
        # bounds the fact, it reports no event.
        "- Home insurance with Aviva, renews 12 April",
        "- Fishing licence valid until 2027-09-30",
        "- Phone contract €18/month until 2027-11",
        "- 租约到 2028-02-28，押一付三",
        "- 电动车保险 2027-05 到期",
    ],
)
def test_a_term_that_ends_on_a_date_is_profile(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "profile"


def test_a_leave_until_a_date_is_no_term_of_a_thing_held() -> None:
    assert "a term that ends on a date" not in rules.explain(
        "- Priya is on parental leave until 2027-02; Tom covers her clients"
    )


@pytest.mark.parametrize(
    ("text", "standing"),
    [
        # "以后" after a clock hour or a day is that time, not "from now on".
        ("- 晚上九点以后别打他电话", False),
        ("- 下班以后不要发工作消息", False),
        ("- 以后对账单都按月份建文件夹", True),
    ],
)
def test_yihou_after_an_hour_is_no_standing_decision(text: str, standing: bool) -> None:
    assert ("standing decision" in rules.explain(text)) is standing


@pytest.mark.parametrize(
    "text",
    [
        # A standing value from the day the line is written on, since a date, or what was used
        # before and what is used now: it holds from then on, whatever the line's day.
        "- 今天起快递统一走顺丰，中通停用",
        "- Invoices in Xero since 2026-09-01",
        "- 记账以前用纸本，现在换成随手记了",
    ],
)
def test_a_standing_value_from_a_day_on_is_no_event(text: str) -> None:
    c = classify(text, path="workspace/memory/2026-11-03.md", section="2026-11-03")
    assert c.layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        # A day that comes back each month or year: a routine, whatever amount or wage it names.
        "- 保姆工资每月 8 号转给她",
        "- Water bill paid on the 15th by direct debit",
        "- 车位费每年 3 月初交",
    ],
)
def test_a_day_of_each_month_or_year_is_a_routine(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural"


def test_a_day_of_a_named_month_is_no_monthly_day() -> None:
    assert "a day of each month or year" not in rules.explain(
        "- The parcel arrives on the 3rd of May"
    )


@pytest.mark.parametrize(
    "text",
    [
        # Something that will happen once, placed on its day.
        "- 他爸爸 3 月 12 号来北京看病，住两晚",
        "- 外婆下周四去医院拆线",
        "- Her dad has a knee operation on 9 March; she takes the week off",
    ],
)
def test_a_one_off_on_a_day_to_come_is_episodic(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        # A day that comes back, or a start from a day: those stand.
        "- 每月 10 号去银行还房贷",
        "- 从 12 月 1 号起去新校区上课",
    ],
)
def test_a_day_that_comes_back_or_a_start_is_no_one_off(text: str) -> None:
    assert "a one-off on a day" not in rules.explain(text)


@pytest.mark.parametrize(
    "text",
    [
        # A prohibition of passing something into a group chat: a channel not to use for it.
        "- 孩子的成绩不要发到家族群",
        "- 店里的账不要在业主群里提",
        "- 体检报告只给她本人，不转到群里",
    ],
)
def test_a_prohibition_of_posting_into_a_group_is_a_boundary(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").layer == "boundary"
