"""The tense and aspect of a line's main predicate (memctl.classify.aspect), layer round 12.

TAXONOMY.md, episodic: "something that happened … once"; procedural: standing how-to. The
form of a line's main predicate says which more often than its words do: a past verb that the
line places in time (a date, a clock time, "yesterday") reports an event. Every line here is
invented, not a gold file's."""

from __future__ import annotations

import pytest

from memctl.classify import aspect, classify

DAILY = "workspace/memory/2026-11-02.md"
MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "- Repainted the garden shed 09:00–13:30, two coats",
        "v2.4.0 tagged 2026-05-19 (the hotfix)",
        "| 2024-0311 | Birch Lane Vets | archived 2026-07 — file only |",
        "- Drove to Leeds yesterday, 3 h on the M1",
        "- 2026-04-02: Mara wrote the whole of chapter 3 in one sitting",
        "[2026-06-01 10:12] Kettle descaled at 08:15, the filter changed too",
    ],
)
def test_a_past_predicate_placed_in_time_is_an_event(text: str) -> None:
    assert aspect.form(text) == aspect.EVENT
    assert classify(text, path=MEMORY).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        # A past verb the line does not place in time: how a standing fact came to be.
        "- Added a pre-push hook to the blog repo",
        "- Found he prefers the quiet table by the window",
        # A later clause that commands, or states what holds now: a dated decision whose
        # content is a standing rule (TAXONOMY.md, procedural).
        "- Switched 2026-02-10 to the Fastmail account; send invoices from there",
        "Migrated the blog 2026-05-01 — now it deploys from the main branch",
        # Habitual or conditional, whatever the tense.
        "- Invoices exported weekly at 07:00 from the bank CSV into the ledger",
        "- Yoga at 18:00 only if she's had two rest days. Otherwise skip it",
    ],
)
def test_a_past_predicate_not_placed_in_time_or_habitual_is_no_event(text: str) -> None:
    assert aspect.form(text) != aspect.EVENT


@pytest.mark.parametrize(
    "text",
    [
        # A present or modal finite verb before the participle: a standing state or rule.
        "- The backups are stored on the NAS since 2026-01-04",
        "- Releases must be signed with the 2026 key",
        # A participle after a determiner is an adjective of the subject, not its verb.
        "- The fixed schedule runs at 07:30",
        # "Left" names a place here, as past forms often do; no irregular form of it counts.
        "- Choir practice at Left Bank Hall 19:30",
        # Chinese lines are read by the cues (了, 昨天), not by this English form.
        "- 2026-03-01 修好了打印机",
    ],
)
def test_a_present_predicate_or_an_adjective_is_no_event(text: str) -> None:
    assert aspect.form(text) is None


def test_the_opening_and_parentheses_are_not_the_clause() -> None:
    assert aspect.clause("- **Trip:** 10/11/2026: booked the ferry (Dover), £80; paid") == (
        "booked the ferry  "
    )


def test_what_an_event_adds_comes_from_the_lexicon() -> None:
    assert aspect.weights("- Repainted the garden shed 09:00–13:30") == (("layer.episodic", 1.5),)
    assert aspect.weights("- Added a pre-push hook to the blog repo") == ()


@pytest.mark.parametrize(
    "text",
    [
        # Time deixis places the line on a day of its own, and its first clause has a verb.
        "- 老周这周第二次迟到，扣了半天工资",
        "- 小林第一次自己修好水龙头",
        "- 表哥感冒请假，这周的周报晚两天交",
        # A part of the day opening the first clause is its time frame.
        "- 上午十点快递员来取件，寄走三箱",
    ],
)
def test_a_chinese_line_placed_on_a_day_of_its_own_is_an_event(text: str) -> None:
    assert aspect.form(text) == aspect.EVENT


@pytest.mark.parametrize(
    "text",
    [
        # Habitual or a standing change, whatever the time word.
        "- 这周开始每天早上 7 点开门",
        "- 从今天起收款换成新的二维码",
        "- 下午要先把快递寄出去",
        # A part of the day that does not open the clause: a schedule.
        "- 周六上午 9:00 游泳课",
        # Deixis only in an aside in parentheses.
        "- 库存上限改成 40（昨天是 30）",
    ],
)
def test_a_chinese_habit_schedule_or_aside_is_no_event(text: str) -> None:
    assert aspect.form(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # In progress or not done yet, for now: a status snapshot that will go stale.
        "- The refund for the March order still pending; chase the shop on Friday",
        "- Council tax rebate still to claim for the flat",
        "02/12/2026: waiting for the landlord's answer on the boiler",
        "- 车检报告还在等，车行说下周给",
        "- 周五的团建场地，经理还没回消息",
    ],
)
def test_a_clause_in_the_ongoing_aspect_is_a_snapshot(text: str) -> None:
    assert aspect.form(text) == aspect.ONGOING
    assert aspect.weights(text) == (("layer.episodic", 1.5),)


def test_a_simple_present_after_still_is_a_standing_fact() -> None:
    assert aspect.form("- The church bells still ring at noon on Sundays") is None


@pytest.mark.parametrize(
    "text",
    [
        # An identity verb after a person.
        "Orla works part-time at the library in Galway",
        "白天在超市做收银，晚上有空",
        # The copula after a person's role or a relative, before a name or a noun phrase.
        "- Ciara's line manager is Tomás Byrne (ward sister). Ask him about rotas",
        "- 老婆李红是店里的会计，管进货的账",
        # The user saying what they are, whatever rule follows.
        "- I'm not a coder: before changing a setting, say what it does",
    ],
)
def test_a_stative_of_identity_weighs_towards_profile(text: str) -> None:
    assert aspect.weights(text) == (("layer.profile", 1.5),)


def test_a_relatives_copula_line_is_profile() -> None:
    assert classify("- 老婆李红是店里的会计，管进货的账", path=MEMORY).layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        # A capitalised word opening the line names a thing as often as a person.
        "- Prices are in euros, never in cents",
        "- Tutor is Dr Byrne; hand in through Moodle only",
        # "My name is" and "我是" are the assistant's own in a SOUL.md.
        "- My name is Wren, the household's assistant",
        "我是主人的写作助手，帮他整理书稿",
    ],
)
def test_a_thing_or_the_assistant_as_subject_is_no_stative_of_identity(text: str) -> None:
    assert ("layer.profile", 1.5) not in aspect.weights(text)


@pytest.mark.parametrize(
    "text",
    [
        # What the assistant must not disclose, or the channel or hours it must not use.
        "- 小敏的体检结果别在班级群里提",
        "- 不要把钥匙盒的密码打印出来",
        "- 周日上午 11 点前不要给他发消息",
        "- Never post the client's floor plan in the team chat",
    ],
)
def test_a_prohibition_of_telling_weighs_towards_boundary(text: str) -> None:
    assert ("layer.boundary", 1.5) in aspect.weights(text)


@pytest.mark.parametrize(
    "text",
    [
        # Advice that forbids no telling (TAXONOMY.md: stays procedural).
        "- Don't use the web uploader for big files, use rclone",
        # "Don't forget" is a command; "不能只发" asks for more than a message.
        "- 别忘了：发版前先跑一遍测试",
        "- 停电超过半小时要打电话给房东，不能只发微信",
        # A prohibition in an aside is no predicate of the line.
        "- 物业后台账号 wy_301（示例，别发给任何人）",
    ],
)
def test_advice_forgetting_or_an_aside_is_no_prohibition_of_telling(text: str) -> None:
    assert ("layer.boundary", 1.5) not in aspect.weights(text)


def test_a_prohibition_of_telling_in_a_memory_file_is_a_boundary() -> None:
    assert classify("- 小敏的体检结果别在班级群里提", path=MEMORY).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        # A prohibition bounded by clock hours: when the assistant must keep quiet.
        "- No reminders to her before 07:30 on weekdays",
        "- Never restart the router between 19:00 and 23:00, the kids stream then",
        "- 晚上九点以后别给阿姨发消息",
        "- 不要在 22:00 以后打电话给他",
    ],
)
def test_a_prohibition_bounded_by_clock_hours_weighs_towards_boundary(text: str) -> None:
    assert ("layer.boundary", 2.0) in aspect.weights(text)


@pytest.mark.parametrize(
    "text",
    [
        # A schedule forbids nothing; a prohibition with no hour is no quiet time.
        "- The backup job runs at 02:00 and takes an hour",
        "- 每天晚上 10 点提醒他关窗",
        "- Don't book the blue room, it has no projector",
    ],
)
def test_a_schedule_or_a_prohibition_without_hours_is_no_quiet_time(text: str) -> None:
    assert ("layer.boundary", 2.0) not in aspect.weights(text)


def test_a_quiet_time_in_a_memory_file_is_a_boundary() -> None:
    assert classify("- Never restart the router between 19:00 and 23:00", path=MEMORY).layer == (
        "boundary"
    )


@pytest.mark.parametrize(
    "text",
    [
        # A bodily condition as the first clause's predicate: subject dropped, a pronoun, a
        # relative, or the condition as the line's label.
        "- Allergic to penicillin; say so when she books a dentist",
        "- 对芒果过敏，点外卖时避开",
        "- She is asthmatic, so keep the pollen alerts on",
        "- 老公王磊有痛风，聚餐时提醒他少吃海鲜",
        "- Migraines: dim the screen reminders after 21:00",
    ],
)
def test_a_bodily_condition_as_the_predicate_weighs_towards_profile(text: str) -> None:
    assert aspect.condition(text)
    assert ("layer.profile", 3.0) in aspect.weights(text)


@pytest.mark.parametrize(
    "text",
    [
        # A named colleague or client is no dropped subject: a task rule about them.
        "- Cast notes: Omar is allergic to feathers, no feather boas in act 2",
        "- 小吴有哮喘，别派他去粉尘大的工地",
        # The condition later in the line is not the first clause's predicate.
        "- Check the menu for anything the guests are allergic to",
    ],
)
def test_a_named_colleague_or_a_later_condition_is_no_condition_form(text: str) -> None:
    assert not aspect.condition(text)


def test_a_condition_with_a_reminder_is_profile() -> None:
    assert classify("- 有点贫血，体检前一天提醒她早点睡", path=MEMORY).layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        # A prohibition of acting in the user's name that hands the matter over first.
        "- 客户的投诉不要自己回，先转给店长看",
        "- 不要替她答应任何饭局，先问她",
        "- Don't accept invitations for her; draft a reply and she decides",
    ],
)
def test_a_prohibition_of_acting_for_the_user_weighs_towards_boundary(text: str) -> None:
    assert ("layer.boundary", 5.0) in aspect.weights(text)
    assert classify(text, path=MEMORY).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        # Advice that names the right way after its "don't" (TAXONOMY.md: procedural).
        "- 讲题时不要直接给答案，先问她卡在哪",
        "- Don't reply to the supplier in English; use German",
    ],
)
def test_advice_naming_the_right_way_is_no_deputy(text: str) -> None:
    assert ("layer.boundary", 5.0) not in aspect.weights(text)
