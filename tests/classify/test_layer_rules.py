"""Layer judgments from TAXONOMY.md's definitions (issue 10, third round): each test is an
invented line of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify
from memctl.classify.rules import explain

MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "糖尿病，每天早晚各打一次胰岛素",
        "Has asthma; keeps an inhaler in the car and uses it twice a day",
        "乳糖不耐受，点咖啡时换燕麦奶",
    ],
)
def test_a_standing_condition_is_a_fact_about_the_user(text: str) -> None:
    # TAXONOMY.md, profile: stable facts about the user, though a routine comes with them.
    assert classify(text, path=MEMORY, section="Notes").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "老公叫陈立，儿子 5 岁，周六上午学游泳",
        "Partner Alex, daughter Mia (9), both vegetarian at home",
    ],
)
def test_a_family_member_with_a_fact_is_profile(text: str) -> None:
    assert classify(text, path=MEMORY, section="Misc").layer == "profile"


def test_an_operation_on_a_date_stays_an_event() -> None:
    c = classify("妈妈 11 月 3 号做膝盖手术，要提前一天提醒", path=MEMORY, section="Notes")
    assert c.layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "Called the landlord about the boiler; he didn't pick up.",
        "Back from the conference in Porto, tired",
        "换了新的路由器",
    ],
)
def test_a_past_tense_report_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic: something that happened once (past-tense event verbs).
    assert classify(text, path="memory/2026-05-04.md", section="2026-05-04").layer == "episodic"


def test_a_participle_describing_a_state_is_no_report() -> None:
    c = classify("Based in Leeds, works nights at the hospital", path="USER.md")
    assert c.layer == "profile"


def test_a_prohibition_that_is_the_whole_clause_is_a_boundary() -> None:
    # TAXONOMY.md, boundary: what the assistant must never do, wherever the clause sits.
    text = "用户交代：以后不管多忙，都不要在周日给他发工作提醒。"
    assert classify(text, path=MEMORY).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "写周报时不要直接贴原始数据，先整理成三条要点。",
        "Bookings go through the front desk, never straight to the chef",
        "If the sync fails at night, retry in the morning; don't page her",
    ],
)
def test_a_dont_that_names_the_right_way_or_sits_inside_advice_is_procedural(text: str) -> None:
    # TAXONOMY.md, boundary: advice phrased as "don't" stays procedural (guideline 16).
    assert classify(text, path=MEMORY).layer == "procedural"


def test_a_limit_on_authority_still_wins_over_the_command_it_names() -> None:
    assert classify("never `git push --force`; she reviews first", path=MEMORY).layer == "boundary"


@pytest.mark.parametrize(
    "text",
    [
        "倾向务实的方案，避免引入 Redis、Kafka 这种组件",
        "Prefers voice notes over long texts when she is driving",
    ],
)
def test_a_taste_with_its_subject_dropped_is_profile(text: str) -> None:
    # TAXONOMY.md, profile: general tastes, working style.
    assert classify(text, path=MEMORY).layer == "profile"


def test_what_the_user_uses_is_no_imperative() -> None:
    c = classify("用的是小米 14，屏幕字调大了", path=MEMORY, section="User Information")
    assert c.layer == "profile"


def test_a_date_heading_leaves_the_heading_above_it_to_name_the_lines() -> None:
    # TAXONOMY.md: a date alone does not make a line episodic; "Lessons > 2026-04-02" is lessons.
    text = "Webhook 重试间隔设成 30 秒"
    for section in ("MEMORY > Lessons > 2026-04-02", "MEMORY > 经验教训 > 4月2日 周四"):
        assert explain(text, path=MEMORY, section=section).count("lessons section") == 1, section
    assert "lessons section" not in explain(text, path=MEMORY, section="MEMORY > 2026-04-02")


@pytest.mark.parametrize(
    ("section", "text", "layer"),
    [
        ("Long-term Memory > Configuration", "Voice: 温柔的女声，语速 -10%", "procedural"),
        ("Notes > Tools", "用户的 Mac 上装了 ffmpeg 和 yt-dlp", "procedural"),
        ("MEMORY > 从 USER.md 整理过来", "每天下午散步一小时，路线固定", "profile"),
        ("MEMORY > People", "Jonas — old flatmate, now in Munich", "profile"),
        ("SOUL > Vibe", "Dry, warm, a little nerdy", "persona"),
    ],
)
def test_a_heading_names_the_layer_of_the_lines_under_it(
    section: str, text: str, layer: str
) -> None:
    assert classify(text, path=MEMORY, section=section).layer == layer


def test_the_user_files_own_title_is_no_heading_about_the_user() -> None:
    # The file's name has its own cue; its title must not add a second one.
    assert "heading naming the user" not in explain(
        "Followers: 1,204", path="USER.md", section="USER.md - About Your Human"
    )


@pytest.mark.parametrize("heading", ["Incidents", "发生的事", "Open items", "近况"])
def test_a_heading_naming_events_leans_its_lines_to_episodic(heading: str) -> None:
    text = "Kitchen tap leaking, plumber Thursday"
    assert classify(text, path=MEMORY, section=f"MEMORY > {heading}").layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "Checkout page breaks on Safari 16 — TODO patch the `date` input polyfill",
        "Switched the newsletter from Mailchimp to Buttondown, lists exported",
        "论文进度：初稿 8,200 / 15,000 字",
    ],
)
def test_a_todo_a_change_or_a_progress_figure_is_an_event(text: str) -> None:
    # Guideline 13 (unchecked TODOs), TAXONOMY.md episodic (a one-off move, counts as of a day).
    assert classify(text, path="code/shop/CLAUDE.md", section="CLAUDE.md > Notes").layer == (
        "episodic"
    )


@pytest.mark.parametrize("text", ["Inhaler 08:30 / 20:30", "Uptime monitor runs 24/7 on the NAS"])
def test_times_and_round_the_clock_are_no_progress_figure(text: str) -> None:
    assert "progress figure" not in explain(text, path=MEMORY)


@pytest.mark.parametrize(
    "text",
    [
        "Note: my Bitbucket username is lan-feng, old repos live there",
        "备注：我的 Gitee 用户名是 lanfeng，老仓库在上面",
    ],
)
def test_the_users_own_account_is_profile(text: str) -> None:
    # Guideline 14: the user's accounts are profile.
    assert classify(text, path=MEMORY, section="Misc").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "He expects me to drive the migration and only ask when a choice is his to make",
        "授权我在他的服务器上装软件，装之前说一声",
    ],
)
def test_the_stance_asked_of_the_assistant_is_the_relationship(text: str) -> None:
    # Guideline 17: who does what between user and agent is relationship.
    assert classify(text, path=MEMORY, section="Notes").layer == "relationship"


def test_a_share_out_by_weekdays_is_a_routine() -> None:
    c = classify("From 2026-11-02 bins: Ana Mon/Thu, Leo Tue/Fri", path=MEMORY, section="Chores")
    assert c.layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "Went to the bank for the mortgage check, nothing to sign",
        "Had a long call with the plumber about the boiler",
        "The NAS went down overnight and came back after a reboot",
        "Kimi 余额 ¥41.2",
        "Bluesky followers 3,410",
    ],
)
def test_a_happening_an_incident_or_a_balance_as_it_stands_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic: happened once, an incident, counts and balances as of a date.
    assert classify(text, path="memory/2026-05-04.md", section="2026-05-04").layer == "episodic"


def test_how_the_user_is_called_with_the_user_as_object_is_the_relationship() -> None:
    # Guideline 17.
    assert classify("叫用户“师兄”，别叫全名", path="memories/USER.md").layer == "relationship"
    assert classify("叫用户去医院复查前先确认时间", path=MEMORY).layer != "relationship"


def test_a_limit_the_user_reported_asking_to_stop_is_a_boundary() -> None:
    c = classify("Asked me to stop posting her runs to the group chat", path=MEMORY)
    assert c.layer == "boundary"


def test_in_a_soul_file_the_first_person_is_the_assistant() -> None:
    # TAXONOMY.md, persona: who the assistant is; SOUL.md and IDENTITY.md are about it.
    assert classify("我叫阿澄，是她的写作搭档", path="workspace/SOUL.md").layer == "persona"


def test_when_x_colon_first_do_y_is_a_procedure() -> None:
    text = "断网时：先重启光猫，拍下路由器指示灯发给她"
    assert classify(text, path="memory/2026-05-04.md", section="2026-05-04 > 备忘").layer == (
        "procedural"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Domain fornoazul-test.pt expired on 2026-05-30, not renewing",
        "The investigators reached the chapel and found the ledger",
    ],
)
def test_a_past_event_word_or_a_thing_done_on_a_date_is_an_event(text: str) -> None:
    # TAXONOMY.md, episodic: a dated event, something that happened once.
    assert classify(text, path="memories/MEMORY.md").layer == "episodic"


@pytest.mark.parametrize(
    "text",
    ["Jellyfin 跑在 NAS 的 docker 里，端口 8096", "Paperless runs on the NAS, data under /volume1"],
)
def test_software_set_up_on_the_users_machine_is_procedural(text: str) -> None:
    # Guideline 14: software installed or configured for the agent is procedural.
    assert classify(text, path="memories/MEMORY.md").layer == "procedural"


def test_a_body_that_does_not_work_well_is_a_standing_condition() -> None:
    assert "standing condition" in explain("颈椎不好，久坐会头晕", path=MEMORY)


def test_the_nearest_heading_that_names_a_layer_decides() -> None:
    # A tools list kept under a boundaries heading is setup; a topic heading under
    # "User Preferences" leaves the preferences heading to speak for its lines.
    tools = classify(
        "Whisper large-v3 for transcripts", path=MEMORY, section="M > Boundaries > Tools"
    )
    assert tools.layer == "procedural"
    editor = classify(
        "VS Code with the Vim plugin", path=MEMORY, section="M > User Preferences > 编辑器"
    )
    assert editor.layer == "profile"


@pytest.mark.parametrize(
    "text", ["解释概念时请通俗一点，少用术语", "Keep explanations short and skip the history"]
)
def test_the_answer_style_is_the_users_taste_also_in_a_claude_md(text: str) -> None:
    # Guideline 15: answer-style preferences are profile, also in a CLAUDE.md.
    assert classify(text, path="code/app/CLAUDE.md", section="CLAUDE.md > 规范").layer == "profile"


def test_a_date_in_the_nearest_heading_names_no_layer() -> None:
    # "编辑器 (2026-02-19)" under "User Preferences": the preferences heading speaks in full.
    section = "MEMORY > User Preferences > 编辑器 (2026-02-19)"
    text = "VS Code + Vim 插件，字体 JetBrains Mono，dotfiles 用 git 管"
    assert classify(text, path=MEMORY, section=section).layer == "profile"


@pytest.mark.parametrize("text", ["乳糖不耐受", "有过敏性鼻炎，春天要备药"])
def test_a_standing_condition_stays_private(text: str) -> None:
    # The layer cue's words must not hide the health cue's words from it (jieba tokens).
    assert classify(text, path=MEMORY).audience == "private"


def test_under_a_log_heading_what_a_line_is_about_names_what_happened() -> None:
    # TAXONOMY.md, episodic: under "重要日期" a row names what was done that day, though its
    # words are a workflow's and a tool's.
    text = "Webhook 服务部署到 VPS + nginx 反代"
    assert classify(text, path=MEMORY, section="MEMORY > 重要日期").layer == "episodic"
    # …while technical content under a profile heading is setup (guideline 14).
    setup = classify("Deploy script at ~/bin/deploy.sh", path=MEMORY, section="M > Preferences")
    assert setup.layer == "procedural"
    # …and a line's own form still speaks under the log heading.
    rule = classify("以后部署前先跑 `make test`", path=MEMORY, section="MEMORY > 重要日期")
    assert rule.layer == "procedural"


@pytest.mark.parametrize(
    "text",
    [
        "学到了：钉钉 webhook 的签名要用毫秒时间戳",
        "Tried the official API first — it rate-limits hard, use gallery-dl",
        "换了推送时间，以后早上 8 点和晚上 8 点各推一次",
    ],
)
def test_a_lesson_or_a_decision_told_in_the_past_is_standing_know_how(text: str) -> None:
    # TAXONOMY.md, procedural: lessons and dated decisions whose content is a standing rule.
    c = classify(text, path="memory/2026-05-04.md", section="2026-05-04")
    assert c.layer == "procedural"


def test_the_users_mail_server_is_no_account() -> None:
    assert "the user's own account" not in explain("用户的邮箱服务器是 smtp.example.cn，端口 465")


@pytest.mark.parametrize(
    "text",
    [
        "Grafana hosted at 10.0.0.2:3000",
        "Office located at 5 Rue Oberkampf",
        "2 seats left on the plan",
    ],
)
def test_a_state_or_what_is_left_is_no_past_event(text: str) -> None:
    fired = explain(text, path=MEMORY)
    assert "done on a date" not in fired and "past event words" not in fired


def test_a_to_do_list_as_a_thing_is_no_to_do_marker() -> None:
    assert "to-do marker" not in explain("每周日晚上帮用户列下周的待办清单", path=MEMORY)
    assert "to-do marker" in explain("待办：续签租房合同", path=MEMORY)


def test_a_le_opening_needs_its_subject_dropped() -> None:
    assert "了 opening" not in explain("用户换了工作，现在在做运维", path=MEMORY)
