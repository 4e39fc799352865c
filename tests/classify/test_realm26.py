"""Realm rules of the twentieth session's round (realm26): each test is an invented line of the
kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, scope_realms
from memctl.classify.rules import text_roles

USER = "/home/a/.hermes/memories/USER.md"


@pytest.mark.parametrize(
    "text",
    [
        "Ana Reis, professional dive instructor and PADI examiner, works out of Sagres.",
        "- Tom Hale (汤姆), senior welder for Clyde Marine, based in Govan",
        "Mei Tan (陈美), freelance illustrator; mostly picture books",
    ],
)
def test_a_person_named_then_a_trade_states_the_job(text: str) -> None:
    # TAXONOMY.md, Realm: a job is work. The trade is the name's apposition, whatever follows
    # it (a second trade after "and") and whatever the name carries (a name in another script).
    c = classify(text, path=USER)
    assert "job statement" in text_roles(text), text
    assert (c.realm, c.layer) == ("work", "profile"), text


@pytest.mark.parametrize(
    "text",
    [
        "Wen Li (李文), 2nd-year PhD in chemistry at Leeds; demonstrates undergrad labs",
        "- PhD student at Imperial, third year, on battery electrolytes",
        "I'm a postdoc at the Crick, in a structural biology lab",
        "- 我在浙大读博，方向是计算语言学",
        "用户是清华的在读博士，做图神经网络",
    ],
)
def test_doctoral_research_is_a_job(text: str) -> None:
    # A doctorate is research done for a university, with a supervisor, a lab and a stipend:
    # the researcher's job (TAXONOMY.md, Realm: a job, employer, team), as a researcher's is.
    assert "job statement" in text_roles(text), text
    assert classify(text, path=USER).realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- 男朋友在伦敦读博，每个月见一次",
        "- My sister is doing a PhD at Leeds",
        "Ruth Okafor, retired librarian, lives in Easton",
        "- Was a PhD student at Leeds until 2019",
        "- Thinking about a PhD after the master's",
    ],
)
def test_someone_elses_a_past_or_a_wished_for_doctorate_states_no_job(text: str) -> None:
    assert "job statement" not in text_roles(text), text


STORY = [
    ("Notes", t, (c := classify(t, section="Notes")).realm, c.realm_cued)
    for t in (
        "- Kestra is a tiefling rogue with a stolen map",
        "- The campaign's villain is the eel-king",
        "- NPC: Brother Ambrose, an old monk who chronicles the party",
    )
]


@pytest.mark.parametrize(
    "text",
    [
        "- `bot/` is a small discord.py bot: `uv run python bot/main.py`.",
        "- 写作软件以前用手机备忘录，现在换成「墨者写作」了，章节都在里面。",
        "- 小说的内容不要发到骑手群。",
        "- We play every other Saturday from 14:00 on Discord",
        "- 每周五下午 3:30 是故事时间，讲 15 分钟左右。",
        "- Next session 5 December; Tom can't come",
        "- 在番茄小说连载，笔名「川流不息」，还没签约。",
    ],
)
def test_a_storys_logistics_take_no_fiction_from_its_section(text: str) -> None:
    # TAXONOMY.md, Realm: fictional is role-play, story and game content, which only role-play
    # channels see; where the story is kept or written, when it is played, who comes and where
    # it may be posted are the person's life (tests/quality README, gold-set-2 decisions: a
    # game's logistics — reminders, dice bot, map tool, draft folder — are real).
    c = classify(text, section="Notes")
    lines = [*STORY, ("Notes", text, c.realm, c.realm_cued)]
    assert scope_realms(lines)[-1] != "fictional", text


@pytest.mark.parametrize(
    "text",
    [
        "- Merrow sank 300 years ago; the salt-priests still rule the coast",
        "- 刺猬球球的刺是软的，只在害怕时才竖起来",
        "- At midnight the eel-king rises under the lighthouse",
    ],
)
def test_a_storys_own_content_still_takes_its_sections_fiction(text: str) -> None:
    c = classify(text, section="Notes")
    lines = [*STORY, ("Notes", text, c.realm, c.realm_cued)]
    assert c.realm == "fictional" or scope_realms(lines)[-1] == "fictional", text


@pytest.mark.parametrize(
    "text",
    [
        "- 在番茄小说连载，笔名「川流不息」，还没签约。",
        "- 写作软件以前用手机备忘录，现在换成「墨者写作」了，章节都在里面。",
        "- 小说的内容不要发到骑手群。",
    ],
)
def test_a_storys_logistics_under_the_storys_heading_are_not_the_story(text: str) -> None:
    c = classify(text, path="/h/.picoclaw/workspace/memory/MEMORY.md", section="小说《霓虹骑士》")
    assert c.realm != "fictional", text


@pytest.mark.parametrize(
    "text",
    ["- 主角陆鸣，2077 年广州的外卖骑手，能听见城市 AI 说话。", "- 主角和魔鬼签约，换来十年寿命"],
)
def test_a_storys_content_under_its_heading_is_the_story(text: str) -> None:
    c = classify(text, path="/h/.picoclaw/workspace/memory/MEMORY.md", section="小说《霓虹骑士》")
    assert c.realm == "fictional", text


def test_a_role_played_at_its_weekly_time_is_the_story() -> None:
    text = "每周五晚上用日语和用户聊 15 分钟，我扮演居酒屋店员「田中さん」，说关西腔。"
    assert classify(text, path="/h/.hermes/memories/MEMORY.md").realm == "fictional"


def test_a_storys_bot_settings_are_no_story() -> None:
    text = "DICE_CHANNEL=salt-crown-rolls"
    lines = [*STORY, ("Notes", text, (c := classify(text, section="Notes")).realm, c.realm_cued)]
    assert scope_realms(lines)[-1] != "fictional"


@pytest.mark.parametrize(
    "text",
    [
        "- 老婆在店里管账。",
        "- 老公是店里的大厨，管后厨",
        "- 我妈周末在店里帮忙收银",
        "- Her brother helps at the café on Saturdays",
    ],
)
def test_a_relatives_post_in_the_business_is_the_business(text: str) -> None:
    # TAXONOMY.md, Realm: work is a business and its staff; a relative who keeps its accounts
    # or cooks in its kitchen is its staff (the line stays private: family).
    c = classify(text, path="/h/.nanobot/workspace/memory/MEMORY.md")
    assert c.realm == "work", text


@pytest.mark.parametrize(
    "text", ["- 周末和老婆在店里吃了饭", "- 我妈在店里买了件外套", "- My husband does the dishes"]
)
def test_a_visit_to_a_shop_is_no_post_in_it(text: str) -> None:
    assert classify(text, path="/h/.nanobot/workspace/memory/MEMORY.md").realm != "work", text


def test_a_relative_at_the_head_of_a_line_about_the_business_is_still_family() -> None:
    # TAXONOMY.md, Audience: family is private. The line is the business's (a post in it), but
    # the wife it names is the user's: a later line naming her by name is family.
    from memctl.classify import kin

    assert classify("- 老婆张敏在店里管账。").realm == "work"
    assert kin.introduced("- 老婆张敏在店里管账。") == {"张敏"}
    assert kin.introduced("- Wife Megan helps at the café on Saturdays") == {"Megan"}
    # A partner of a firm is a job's title, a client's wife the client's.
    assert kin.introduced("- Partner Sam Reid signs off every client filing at the firm") == set()
    assert kin.introduced("- Client Tom's wife Mary handles their invoices") == set()


GLOBAL = "/home/a/.codex/AGENTS.md"


def test_a_global_files_toolchain_rules_say_no_ones_code() -> None:
    # Guideline 19: whose code a rule is about is said in the file or not at all. A global
    # file whose rules serve the job gives the job its uncued rules, but a rule about the
    # languages and tools of any code base ("Python 3.12 with uv and ruff", "never git push
    # --force") says nothing of whose code it is: it keeps no realm.
    texts = [
        "- I'm Ana Ruiz, a tax adviser at Ruiz & Sol, a small practice in Valencia.",
        "- Never upload client files anywhere.",
        "- Monthly pack for clients: P&L, balance sheet, cash flow.",
        "- Money is Decimal, never float.",
        "- Python 3.12 with uv and ruff; tests with pytest.",
        "- Prefer small pure functions and dataclasses over class hierarchies.",
        "- Never run `git push --force`, on any remote.",
    ]
    lines = [(None, t, (c := classify(t, path=GLOBAL)).realm, c.realm_cued) for t in texts]
    assert scope_realms(lines, GLOBAL)[3:] == ["work", None, None, None]


@pytest.mark.parametrize("heading", ["How to work with me", "Working with me", "How I work"])
def test_a_heading_on_how_to_work_with_the_person_names_no_job(heading: str) -> None:
    # TAXONOMY.md: working style is a general taste of the person (profile); "work with me"
    # is collaborating, not a job or an employer (Realm: work).
    c = classify("- Show the diff first, then one line on why.", path=GLOBAL, section=heading)
    assert not (c.realm == "work" and c.realm_cued), heading


@pytest.mark.parametrize("heading", ["Work", "Work notes", "At work", "Day job"])
def test_a_heading_naming_work_still_names_the_job(heading: str) -> None:
    c = classify("- Standup at 9:30, then code review", section=heading)
    assert c.realm == "work", heading


@pytest.mark.parametrize(
    "text",
    [
        "Dana Whitfield is the CTO and co-founder of Ledgerly, a bookkeeping SaaS",
        "Sam is the owner of Crumbs, a bakery in Leith",
        "- Priya is head of data at Northwind",
    ],
)
def test_a_post_of_the_person_a_file_about_the_user_names_is_a_job(text: str) -> None:
    # TAXONOMY.md, Realm: a job, an employer, a business; a post held there is stated as
    # "is the <post> of <company>" as often as "is a <trade>".
    path = "/h/.claude/projects/-home-dana-code-x/memory/user_role.md"
    c = classify(text, path=path, section="User role — Who Dana is")
    assert (c.realm, c.realm_cued) == ("work", True), text
