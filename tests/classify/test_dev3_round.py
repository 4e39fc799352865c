"""Realm, audience and layer rules of the dev3 round (issue 10): each test is an invented line
of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, kin, scope_realms

MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # A law firm: attorneys, courts, filings, matters.
        "Pleadings go out on the firm letterhead, Arial 11",
        "Depositions are booked through the litigation assistant",
        "State court answers are due 21 days after service",
        "开庭前三天把证据目录发给主办律师",
        "案件编号统一写成 2027-民-031 这种格式",
        # On call for a service: pages, incidents, postmortems, handovers.
        "After a page, write the handover note before going back to sleep",
        "Postmortem drafts live in the ops wiki under /incidents",
        "值班手机每周一早上交接，交接前清空未确认告警",
        "On-call rule: acknowledge a P1 page within five minutes",
        "Post-mortem drafts are due two working days after the incident",
        # A researcher's contract and lab, a writer's publisher and manuscript.
        "Postdoc contract ends in March; the fellowship application is due in May",
        "博士后合同到 2028 年，基金申请 9 月截止",
        "The publisher wants the manuscript as a single .docx",
        "Advance for book 2 arrives in two parts",
        "交稿前先把字数统计发给出版社的责编",
    ],
)
def test_the_vocabulary_of_a_jobs_world_is_work(text: str) -> None:
    # TAXONOMY.md, Realm: "work — a job, employer, team, clients or a business product".
    c = classify(text, path=MEMORY, section="Notes")
    assert (c.realm, c.realm_cued) == ("work", True), text


@pytest.mark.parametrize(
    "text",
    [
        "It doesn't matter which editor I use for notes",
        "Home Assistant alerts go to my phone",
        "Reading a novel before bed, no screens after 23:00",
    ],
)
def test_words_shared_with_ones_own_life_say_no_job(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").realm != "work", text


def test_a_section_whose_lines_agree_lends_its_realm_when_the_file_does_not() -> None:
    # TAXONOMY.md, Realm, by scope: a writer's notes mix her life, her job and her story.
    path = "workspace/MEMORY.md"
    lines = [
        ("MEMORY > Me", "real", True),
        ("MEMORY > Me", "work", True),
        ("MEMORY > Me", "real", False),
        ("MEMORY > Novel 2", "work", True),
        ("MEMORY > Novel 2", "work", True),
        ("MEMORY > Novel 2", "real", False),  # "Chapters live in the Drafts folder"
        ("MEMORY > Novel 2 > Progress", "real", False),  # a table row under its own heading
        ("MEMORY > Novel 2 > Canon", "fictional", True),
        ("MEMORY > Novel 2 > Canon", "fictional", True),
        ("MEMORY > Novel 2 > Canon", "real", False),
    ]
    lines = [(section, "…", realm, cued) for section, realm, cued in lines]
    assert scope_realms(lines, path) == [
        None, None, None,  # a mixed section lends nothing (nor does the file above it)
        None, None, "work",
        "work",  # from the heading above
        None, None, "fictional",
    ]  # fmt: skip
    # A file whose lines agree speaks for all of them, as before.
    agree = [("A", "…", "work", True)] * 5 + [("B", "…", "real", True)] * 2
    agree += [("B", "…", "real", False)]
    assert scope_realms(agree, path)[-1] == "work"
    # A global instructions file settles nothing by its sections or the person's life (one
    # line of the job neither); a project file's real lines do not count. (Since realm6, a
    # global file with a few lines besides the job statement that say work gives its rules
    # the job: tests/classify/test_scope.py.)
    one_job = [line for line in lines if line[2] != "work"] + [lines[1]]
    assert scope_realms(one_job, "/home/a/.codex/AGENTS.md") == [None] * len(one_job)
    project = [("R", "…", "real", True)] * 2 + [("R", "…", "unknown", False)]
    assert scope_realms(project, "/home/a/code/x/CLAUDE.md") == [None, None, None]


@pytest.mark.parametrize(
    "owner",
    [
        "quill is my own side project, nothing to do with my job",
        "This repo is a personal project of mine (GPL, on Codeberg)",
        "这是我自己的开源项目，和公司无关",
        "个人业余项目，代码放在自己的 Gitea 上",
    ],
)
def test_a_project_file_that_says_the_project_is_the_users_own_is_real(owner: str) -> None:
    # Guideline 19: coding-project rules are unknown unless the text says whose project it is;
    # the user's own project is their own life (TAXONOMY.md, Realm: personal projects are real).
    path = "/home/a/code/quill/CLAUDE.md"
    rules = ["Run the formatter before each commit", "Keep the public API small"]
    lines = [("CLAUDE", owner, *_said(owner, path))] + [
        ("CLAUDE > Rules", r, "unknown", False) for r in rules
    ]
    assert scope_realms(lines, path)[1:] == ["real", "real"]
    # Without that line the rules stay unknown.
    assert scope_realms(lines[1:], path) == [None, None]


def _said(text: str, path: str) -> tuple[str, bool]:
    c = classify(text, path=path, section="CLAUDE")
    return c.realm, c.realm_cued


def test_my_project_alone_says_not_whose_it_is() -> None:
    from memctl.classify.rules import text_roles

    for text in ("My project uses uv", "我的项目经理是老王", "It does not work on Windows"):
        assert "own project" not in text_roles(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Scene: the two detectives meet at the ferry terminal at night",
        "New canon: the captain has been blind in one eye since the war",
        "新设定：女主从小怕水",
    ],
)
def test_a_scene_or_the_storys_canon_is_fiction(text: str) -> None:
    # TAXONOMY.md, Realm: "fictional — role-play, story and game content"; tests/quality README,
    # third set: the story bible (canon, world facts) is fictional.
    assert classify(text, path=MEMORY, section="Notes").realm == "fictional", text


def test_a_camera_or_a_printer_is_no_canon() -> None:
    assert classify("Canon printer in the study is the default", path=MEMORY).realm != "fictional"


def test_a_heading_without_lines_of_its_own_speaks_by_its_subsections() -> None:
    # A day's title over its sections: "Alerts" says nothing, the day's other sections do.
    day = "2027-03-02 on call"
    lines = [
        (f"{day} > Notes", "…", "work", True),
        (f"{day} > Notes", "…", "work", True),
        (f"{day} > Notes", "…", "real", False),
        (f"{day} > Alerts", "…", "real", False),
    ]
    assert scope_realms(lines, "workspace/memory/2027-03-02.md") == [None, None, "work", "work"]


@pytest.mark.parametrize(
    "text",
    [
        # Family routines: a child's school, care and classes (README third set: private).
        "接送：朵朵 8:00 到校，周五 15:30 放学",
        "托育费每月 5 号交，2,800",
        "家长会下周四晚上七点，在二楼教室",
        "大宝周六上午钢琴课，二宝跟着去",
        "School run: Mondays and Thursdays, pickup at 15:10",
        "Daycare closes at 18:00 on Fridays",
        # Health: a hospital visit, a fever, a vaccine (TAXONOMY.md, Audience).
        "周四下午去医院复查胃镜结果",
        "Was in hospital for two nights after the fall",
        "上周发烧 39 度，在家休息了三天",
        "Flu vaccine booked for the 14th at the GP",
        # A business's money: GMV, sales, revenue (README third set: a business's money).
        "上个月 GMV 6.3万，退货率 4%",
        "三家店合计约 12.5万",
        "Q3 revenue came in at 48k, ahead of plan",
    ],
)
def test_family_routines_health_and_a_business_money_are_private(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").audience == "private", text


@pytest.mark.parametrize(
    "text",
    [
        "Only what the package root exports is public; the rest is private and can change",
        "Private methods get a leading underscore",
        "Set the margin to 8px on cards",
        "流水线每晚跑一次",
        "The hospital wifi blocks the chat app; send from mobile data",
        "日报里营业额只写整数",
    ],
)
def test_code_visibility_a_workplace_and_a_report_field_are_no_private_matter(text: str) -> None:
    assert classify(text, path=MEMORY, section="Rules").audience == "public", text


def test_a_heading_of_legal_matters_makes_its_rows_private() -> None:
    # README third set: a line naming a client with a fact about their matter is private.
    row = "2027-0031 | Harbour Tiles Ltd | lease dispute | hearing 2027-04-02"
    assert classify(row, path=MEMORY, section="MEMORY > Open matters").audience == "private"
    assert classify(row, path=MEMORY, section="MEMORY > Releases").audience == "public"


def test_a_heading_naming_the_users_devices_makes_its_rows_profile() -> None:
    # Guideline 14: the user's devices, OS and home network are profile.
    row = "Study | Hue motion sensor | binary_sensor.study_motion | AAA batteries"
    assert classify(row, path=MEMORY, section="MEMORY > Devices").layer == "profile"
    line = "Zigbee coordinator: a ConBee III on the living-room shelf, channel 25"
    assert classify(line, path=MEMORY, section="MEMORY > Home setup").layer == "profile"


def test_a_story_bible_heading_makes_its_world_facts_procedural() -> None:
    # README third set: the story bible (canon, world facts) is procedural/fictional.
    line = "The harbour master's daughter is the one who keeps the ledger"
    c = classify(line, path=MEMORY, section="MEMORY > Novel > Story bible")
    assert (c.layer, c.realm) == ("procedural", "fictional")


def test_a_heading_with_a_sessions_time_span_makes_its_lines_events() -> None:
    # README third set: role-play session logs are episodic; the heading gives the session.
    line = "The detectives search the boathouse and find a wet coat"
    section = "2027-01-09 > #story, 21:00–22:30"
    assert classify(line, path=MEMORY, section=section).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    ["Reply in the language the message was written in", "跟我说英文，笔记里的中文照中文回"],
)
def test_the_reply_language_is_a_taste_of_the_user(text: str) -> None:
    # Guideline 15: the user's language and answer-style preferences are profile.
    assert classify(text, path=MEMORY, section="Notes").layer == "profile", text


@pytest.mark.parametrize(
    "text",
    [
        "快递改成满 199 包邮（之前是满 249）",
        "2027-02-01 群发上限调到 500（原来是 300）",
        "Backup retention now 30 days (was 14)",
    ],
)
def test_a_changed_standing_value_keeps_its_layer(text: str) -> None:
    # README third set: a dated change of a standing value keeps the layer of the fact it
    # changes; most such values (limits, prices, settings) are procedural.
    assert classify(text, path=MEMORY, section="Notes").layer == "procedural", text


def test_an_exhibit_number_is_no_ex_partner() -> None:
    # "Ex. 1", "Ex. B" abbreviate an exhibit; "my ex" and an ex-husband stay family.
    c = classify("Exhibits: ours are Ex. 1, 2…, theirs Ex. A, B…", path=MEMORY, section="Notes")
    assert c.audience == "public"
    assert classify("My ex still has the spare key", path=MEMORY).audience == "private"
    assert classify("Her ex-husband moved to Leeds", path=MEMORY).audience == "private"


def test_a_firms_partner_is_no_relative() -> None:
    # kin learns relatives from kinship words; a partner of a law firm or a business is a
    # job's title (the line's realm is work), not family.
    lines = ["Her supervising attorney is Ruth Okoye (partner)", "Okoye signs every filing"]
    assert kin.names(lines) == frozenset()
    assert kin.names(["Lives with Sam (partner) in Leith"]) == {"Sam"}


def test_the_child_picked_up_is_family() -> None:
    # README third set: family routines are private, the family members too; a child is
    # named after 接送 (the school pickup) as after a kinship word.
    assert "朵朵" in kin.names(["接送：朵朵 8:00 到校，16:00 放学"])


@pytest.mark.parametrize(
    "text",
    [
        "04:10 inc-20270301-dns：主库切到备库，影响：登录失败约 6 分钟",
        "05:00 故障恢复，告警解除",
        "小王周五请假，值班换人",
        "今天共 12 条告警，2 条误报",
        "02:10 paged for disk pressure, failed over to the replica",
    ],
)
def test_an_incident_its_course_a_leave_and_a_days_count_are_events(text: str) -> None:
    # TAXONOMY.md, episodic: an incident, something that happened once, a status snapshot.
    assert classify(text, path="workspace/memory/2027-03-01.md", section="Notes").layer == (
        "episodic"
    ), text


@pytest.mark.parametrize(
    "text",
    [
        "On-call rule (standing): page the secondary after 10 minutes",
        "新规矩：周五下午不上线",
        "记住：切换后先清缓存",
    ],
)
def test_a_rule_named_as_such_is_standing(text: str) -> None:
    # Guideline 13: dated lines that state a standing rule or a lesson are procedural, also
    # under a day's heading.
    c = classify(text, path="workspace/memory/2027-03-01.md", section="2027-03-01 > 今日")
    assert c.layer == "procedural", text


def test_an_alerts_heading_makes_its_rows_events() -> None:
    row = "03:12 | `DiskFull` db-2 | P2 | cleaned the WAL, ok"
    c = classify(row, path="workspace/memory/2027-03-01.md", section="2027-03-01 > Alerts")
    assert c.layer == "episodic"


def test_canon_set_in_a_session_is_standing() -> None:
    # README third set: the story bible (canon) is procedural, though a session set it.
    line = "New canon from tonight: the ferryman cannot swim"
    c = classify(
        line, path="workspace/memory/2027-01-09.md", section="2027-01-09 > #story, 21:00–22:30"
    )
    assert (c.layer, c.realm) == ("procedural", "fictional")


@pytest.mark.parametrize(
    "text",
    ["Don't add dependencies; write it yourself or ask", "不要引入新的依赖，标准库能做就用标准库"],
)
def test_a_rule_about_the_projects_dependencies_is_a_coding_rule(text: str) -> None:
    # Guideline 15: project coding rules are procedural; as "coding rule" (never import…).
    assert classify(text, path="/home/a/code/x/CLAUDE.md", section="Rules").layer == "procedural"


def test_a_word_count_as_it_stands_is_a_status() -> None:
    # TAXONOMY.md, episodic: a status snapshot that will go stale.
    line = "Word count now 62,400 of the 90k target"
    assert (
        classify(line, path="workspace/memory/2027-01-09.md", section="Morning").layer == "episodic"
    )


def test_the_childs_school_notices_and_homework_are_family() -> None:
    line = "学校通知都在班级 App 里，家庭作业每天 19:00 前发"
    assert classify(line, path=MEMORY, section="Notes").audience == "private"


@pytest.mark.parametrize("text", ["房子下周交接，钥匙放物业", "作文字数 800 以内"])
def test_a_handover_or_a_word_count_alone_is_no_job(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes").realm != "work", text


def test_switching_an_input_method_is_no_failover() -> None:
    assert classify("打字时切到英文输入法", path=MEMORY, section="Notes").layer != "episodic"


def test_a_heading_that_only_says_what_matters_holds_no_legal_matters() -> None:
    c = classify("Sleep before midnight", path=MEMORY, section="MEMORY > What matters to me")
    assert (c.realm, c.audience) != ("work", "private")
    assert c.audience == "public"
