"""Realm and audience by scope: what a heading, a file or a file's other lines say about a
line that says nothing itself (TAXONOMY.md, Realm and Audience; tests/quality README,
guidelines 18-20). Examples are invented."""

from __future__ import annotations

import pytest

from memctl.classify import classify, file_realm, kin

GLOBAL = "/home/a/.codex/AGENTS.md"


def test_a_heading_about_the_persons_own_life_makes_its_lines_real() -> None:
    # A line about a machine or a habit says nothing of whose life it is; the heading does.
    for section in ("AGENTS > About me", "AGENTS > Homelab (Pi)", "MEMORY > 个人", "USER > 家庭"):
        c = classify("Ubuntu 盒子跑 docker compose，配置在 /srv/box", section=section, path=GLOBAL)
        assert (c.realm, c.realm_cued) == ("real", True), section
    # Not a heading that only contains such a word, nor the nearest heading about the work.
    c = classify("Ubuntu 盒子跑 docker compose", section="About me > Work", path=GLOBAL)
    assert c.realm == "work"
    rule = classify("Run the linter first", section="CLAUDE > Rules", path=GLOBAL)
    assert rule.realm_cued is False
    for section in ("MEMORY > Personal brand", "CLAUDE > Health checks", "运维 > 健康检查"):
        c = classify("Ping /healthz every minute", section=section)
        assert (c.realm, c.realm_cued) != ("real", True), section


def test_a_global_instructions_file_spreads_no_realm_to_its_coding_rules() -> None:
    # ~/.codex/AGENTS.md holds every project's rules beside the user's own life: lines about
    # the person (real) or their job (work) say nothing of whose each code base is
    # (guideline 19), so its uncued rules keep their own guess.
    assert file_realm([("real", True)] * 10, GLOBAL) is None
    assert file_realm([("real", True)] * 10 + [("work", True)] * 3, GLOBAL) is None
    assert file_realm([("real", True)] * 10, "/home/a/.claude/CLAUDE.md") is None
    # A memory file still pools.
    assert file_realm([("real", True)] * 10, "/home/a/notes/MEMORY.md") == "real"


def test_what_the_user_calls_theirs_is_their_own_life() -> None:
    # In an instructions file (whose path leans away from real life) nothing else tells.
    repo = "/home/a/code/x/AGENTS.md"
    assert classify("记住：我的 Gitea 登录名叫 lin-dev，放私人脚本", path=repo).realm == "real"
    assert classify("Keep my dotfiles repo in sync", path=repo).realm == "real"
    # A stronger cue still wins: my character is the story's, my client's site the job's.
    assert classify("我的角色是一个流浪剑客").realm == "fictional"
    assert classify("Deploy my client's shop site on Fridays").realm == "work"


def test_every_kinship_word_makes_a_line_private_family() -> None:
    # TAXONOMY.md, Audience: family is private; kinship terms of both languages, not names.
    for line in (
        "和老伴两个人住在城东",
        "外孙女每年寒假来住两周",
        "每周六去舅舅家吃饭",
        "家里一直反对她辞职",
        "Partner Alex does the school run on Mondays",
        "Her fiancé works nights too",
        "Grandma's care home visits are on Sundays",
        "My niece stays over at Easter",
    ):
        c = classify(line)
        assert (c.audience, c.realm) == ("private", "real"), line
    # Not a business partner, nor a home that is only where a machine sits.
    assert classify("Our payment partner API rotates keys monthly").audience == "public"
    assert classify("家里还有一台 NUC 跑备份").audience == "public"


def test_relatives_are_the_names_a_kinship_word_introduces() -> None:
    # TAXONOMY.md, Audience: family is private, also where a later line names the person
    # without the kinship word ("Ivy's swim class", "阿宁周五来"); found from the file's lines.
    lines = [
        "Husband Marco, daughter Ivy (9, Year 5)",
        "Priya (sister) lives in Bristol",
        "女儿阿宁在读初二，老公叫陈涛",
        "女儿在杭州上学",  # no name: nothing is learnt ("在杭" is no one)
        "Father O'Brien leads the parish choir",  # a title, not a relative with a name
    ]
    found = kin.names(lines)
    assert found == frozenset({"Marco", "Ivy", "Priya", "阿宁", "陈涛"})
    assert kin.names_any("Ivy's swim class moved to Thursdays", found)
    assert kin.names_any("阿宁周五来店里帮忙", found)
    assert kin.names_any("- 陈涛出差到周三", found)
    assert not kin.names_any("Ivybridge depot closes at six", found)
    assert not kin.names_any("在杭州开会", found)
    assert not kin.names_any("anything", frozenset())


def test_more_names_than_a_family_has_teach_nothing() -> None:
    # A story's cast or generated text, not a family (classify.toml, [kin] most_names).
    first = ["Ada", "Bea", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lu", "Mo"]
    cast = [f"sister {name}" for name in first]
    assert kin.names(cast[:3]) == frozenset({"Ada", "Bea", "Cal"})
    assert kin.names(cast) == frozenset()


def test_a_relative_named_alone_is_private_but_not_in_a_story() -> None:
    family = frozenset({"Ivy", "阿宁"})
    assert classify("Ivy's swim class moved to Thursdays", relatives=family).audience == "private"
    assert classify("阿宁周五来店里帮忙", relatives=family).audience == "private"
    assert classify("Ivy's swim class moved to Thursdays").audience == "public"
    story = "In the story, Ivy is the smuggler's daughter who betrays the crew"
    assert classify(story, relatives=family).audience == "public"


def test_an_age_is_a_private_detail_of_a_person() -> None:
    # Guideline 20: a real name given with age and schooling is private; the age is the detail.
    ages = ["李秀英，72 岁，退休前在纺织厂当会计", "Rosa, 81 years old, widowed"]
    ages.append("Aged 64, lives alone")
    for line in ages:
        assert classify(line).audience == "private", line
    # An age range of an audience, a product's rating or a version is no one's age.
    assert classify("目标读者 25-35 岁的租房青年").audience == "public"
    assert classify("Node 18 is the oldest runtime we support").audience == "public"


def test_a_user_name_given_with_its_value_is_an_account_identifier() -> None:
    # TAXONOMY.md, Audience: account identifiers are private.
    assert classify("我的 Gitea 用户名是 lin-dev").audience == "private"
    assert classify("Forum username: quietfern").audience == "private"
    assert classify("用户名为空时提示重新登录").audience == "public"


def test_a_unit_price_of_goods_is_no_sum_of_the_users() -> None:
    # TAXONOMY.md, Audience: the user's money (balances, budgets, spend) is private; what a
    # litre of milk costs from a supplier is a price anyone may know.
    prices = ["燕麦奶进价：每盒 9.5 元", "供应商说下月起椰浆每桶涨 3 元"]
    prices.append("Oat milk is £1.80/litre wholesale")
    for line in prices:
        assert classify(line).audience == "public", line
    assert classify("本月营业额 3.2 万元").audience == "private"
    assert classify("家教课时费 200 元/小时").audience == "private"


def test_the_job_one_does_is_work_even_under_a_heading_about_the_person() -> None:
    # tests/quality README: the user's job and employer are work; TAXONOMY.md: a business is.
    about = "USER > About me"
    assert classify("我是林川，在杭州一家物流公司做仓储系统", section=about).realm == "work"
    shop = classify("**Notes:** 开花店的，一个人看店", section=about, path="USER.md")
    assert shop.realm == "work"
    # A passing mention of a job beside the person's name and city stays their life.
    assert classify("用户是产品经理，在杭州工作。", path="USER.md").realm == "real"


def test_a_work_rota_is_the_jobs() -> None:
    assert classify("December rota came in: nights 2-5, long day 9").realm == "work"
    assert classify("排班表每月 25 号出，出了就把夜班加进日历").realm == "work"


def test_work_words_are_covered_in_both_languages() -> None:
    # TAXONOMY.md, Realm: a job, an employer, a team, clients or a business is work. Each
    # language has the words the other one has.
    for line in (
        "公司的代码仓库都在内网 GitLab 上",
        "下班前把今天的进度同步到群里",
        "周三下午团建，不排会",
        "Submit the expense report by the 5th",
        "Overtime has to be approved by the department head",
        "Business trip to Lyon next month, book the train",
    ):
        assert classify(line).realm == "work", line
    # Not a unit of measure, nor one's own shopping.
    assert classify("单位：毫升").realm != "work"


def test_private_topics_are_covered_in_both_languages() -> None:
    # TAXONOMY.md, Audience: health, money, relationships and identity numbers are private;
    # each language has the words the other one has.
    for line in (
        "周四上午去医院复诊，挂号已约好",  # health
        "Migraines most Mondays; keep the screen dim",
        "Monthly budget for groceries is tight this term",  # money
        "养老金下个月开始发",
        "Pension pot is with Aviva",
        "下周六去相亲，别在群里提",  # relationships
        "Got married in 2019 in Porto",
        "Driving licence number is in the blue folder",  # identity numbers
        "驾照号码抄在备忘录里",
    ):
        assert classify(line).audience == "private", line
    # A hospital as a workplace, a load balancer, an engaged audience are not.
    assert classify("The hospital wifi blocks Telegram on the wards").audience == "public"
    assert classify("Put the load balancer in front of both nodes").audience == "public"


def test_a_taste_is_the_persons_own_in_a_business_file() -> None:
    # Guideline 18: in a workspace that runs a business, the person's style is real; a taste
    # says so itself, so the file's work realm does not reach it.
    c = classify("偏好 | 只看结论，不要铺垫", path="/w/MEMORY.md", section="MEMORY > 店铺资料")
    assert (c.realm, c.realm_cued) == ("real", True)


def test_how_to_speak_to_the_person_is_their_relationship_with_the_assistant() -> None:
    # TAXONOMY.md, Realm: the assistant's persona and the relationship are real too, also in
    # a shop's daily note.
    daily = "/w/memory/2026-03-02.md"
    lines = ["他说说话随意点，别太正式", "跟她说话别用敬语", "Talk to her like a friend"]
    for line in lines:
        c = classify(line, path=daily)
        assert (c.realm, c.realm_cued) == ("real", True), line


def test_ones_client_or_boss_is_not_made_ones_own_life() -> None:
    assert classify("我的客户周五要看报价单").realm == "work"
    assert classify("My manager wants the deck by Friday").realm == "work"


def test_scopes_say_which_realms_a_section_settled() -> None:
    # memctl.classify.home lets the job's realm take only what no section settled: a section
    # of the person's life keeps its uncued lines real even in a job's home.
    from memctl.classify import scopes

    lines = [
        ("M > 家庭", "a", "real", True),
        ("M > 家庭", "b", "real", True),
        ("M > 家庭", "c", "real", False),
        ("M > Notes", "d", "real", False),
    ]
    # d takes the realm the lines under the title "M" agree on, which only its sibling
    # section said: no section of its own settled it.
    assert scopes(lines, "/h/ws/MEMORY.md") == [
        (None, False), (None, False), ("real", True), ("real", False),
    ]  # fmt: skip
    # When the file settles a line, its section did not.
    many = [("M > 家庭", str(i), "real", True) for i in range(5)] + [
        ("M > Notes", "x", "real", False)
    ]
    assert scopes(many, "/h/ws/MEMORY.md")[-1] == ("real", False)


def test_a_time_zone_named_after_a_place_or_its_label_is_the_persons_own() -> None:
    # TAXONOMY.md, profile: the user's time zone; guideline 18: real in a business's notes too.
    for text in (
        "- Shenzhen, Asia/Shanghai.",
        "- 住杭州滨江，时区 Asia/Shanghai；早班 6 点到岗",
        "- Time zone Australia/Hobart. Up at 5 in harvest",
        "Time zone America/Los_Angeles",
    ):
        c = classify(text, section="MEMORY > 店里", path="/h/ws/MEMORY.md")
        assert (c.realm, c.realm_cued, c.layer) == ("real", True, "profile"), text
    # A server's or a job's zone is setup.
    for text in ("cron 用 TZ=Asia/Shanghai 跑", "ln -s /usr/share/zoneinfo/Asia/Shanghai /etc/x"):
        assert classify(text, path="/h/ws/MEMORY.md").realm_cued is False, text


def test_the_language_one_writes_and_short_replies_are_the_persons_tastes() -> None:
    # Guideline 15: the user's language and answer style are profile, also in a CLAUDE.md.
    for text in (
        "Dana writes British English. Suggest edits as a diff.",
        "Keep chat replies short.",
    ):
        c = classify(text, section="site > Writing", path="/h/code/site/CLAUDE.md")
        assert (c.realm, c.realm_cued, c.layer) == ("real", True, "profile"), text
    assert classify("The exporter writes English subtitles to out/").realm_cued is False


def test_a_project_file_that_says_it_serves_an_employers_unit_is_the_jobs() -> None:
    # Guideline 19: a coding project's rules are unknown unless the text says whose project
    # it is; one that serves an employer's desk or a client is a job's (TAXONOMY.md, Realm).
    from memctl.classify import scope_realms

    path = "/h/code/courts/CLAUDE.md"
    head = "Scrapers for the Harbour Gazette's courts desk. Dana owns this repo."
    c = classify(head, path=path)
    assert (c.realm, c.realm_cued) == ("work", True)
    rules = ["Never edit anything in data/raw/.", "Run make test before pushing."]
    lines = [(None, head, c.realm, True)] + [(None, r, "unknown", False) for r in rules]
    lines.append(("courts > Writing", "Keep chat replies short.", "real", True))
    assert scope_realms(lines, path) == [None, "work", "work", None]
    # The same rules with no word of whose they are stay unknown.
    assert scope_realms(lines[1:], path) == [None, None, None]
    for text in ("为报社数据组做的爬虫", "Tools for the clinic's front office"):
        assert classify(text, path=path).realm == "work", text
    for text in ("A toy for my cat's feeder", "Bot for the city's bus times"):
        assert classify(text, path=path).realm != "work", text


def test_the_persons_phone_and_plain_answers_are_theirs_in_a_jobs_notes() -> None:
    # TAXONOMY.md, profile: devices and general tastes (answer style) are the person's own.
    for text in (
        "- Phone is an old Pixel 4 with one bar in the back paddock",
        "- 手机：iPhone 15，电信卡",
        "- Wants plain answers and metric units.",
    ):
        c = classify(text, section="MEMORY > About Sam", path="/h/ws/MEMORY.md")
        assert (c.realm, c.realm_cued, c.layer) == ("real", True, "profile"), text
    assert classify("- Phone numbers of drivers are in drivers.xlsx").realm_cued is False


def test_the_rule_keeping_a_persona_in_its_channel_is_the_users_own_life() -> None:
    # tests/quality, fifth set: the rule keeping the persona in its channel is real; the
    # role-play it names is not its realm.
    for text in (
        "只在问剑录频道扮演玄机子，别的频道不要。",
        "只在 #问剑录 里用玄机子的口吻说话，其他频道正常聊天。",
        "Play the innkeeper only in #tavern, never in other channels.",
    ):
        assert classify(text, path="/h/.hermes/memories/MEMORY.md").realm == "real", text
    assert classify('#问剑录 频道：我扮演"玄机子"，自称"贫道"').realm == "fictional"


def test_a_line_naming_a_role_plays_channel_and_saying_nothing_else_is_the_storys() -> None:
    # TAXONOMY.md, Realm: role-play content is fictional. The story line introduces the
    # channel (#问剑录) and the names it quotes; an uncued line naming one is the story's,
    # a line that says its own realm keeps it.
    from memctl.classify import scope_realms

    path = "/h/.hermes/memories/MEMORY.md"
    texts = [
        '#问剑录 频道：我扮演"玄机子"，自称"贫道"',
        "问剑录设定：五行灵根",
        "问剑录第 3 回：下山历练",
        "只在 #问剑录 里用玄机子的口吻，其他频道正常聊天",
        "每周六上午上吉他课",
    ]
    lines = [(None, t, (c := classify(t, path=path)).realm, c.realm_cued) for t in texts]
    assert [r for _, _, r, _ in lines] == ["fictional", "real", "real", "real", "real"]
    assert scope_realms(lines, path) == [None, "fictional", "fictional", None, None]
    # With no story line, the same names teach nothing.
    assert scope_realms(lines[1:], path) == [None, None, None, None]


def test_a_customers_health_under_a_heading_naming_the_customers_is_the_jobs() -> None:
    # TAXONOMY.md, Realm: clients are work; a customer's illness is still private.
    line = "- 张阿姨：高血压，每月 5 号来拿药"
    c = classify(line, section="MEMORY > 慢病顾客随访", path="/h/ws/MEMORY.md")
    assert (c.realm, c.audience) == ("work", "private")
    c = classify("- Mr Byrne: diabetic, insulin refill due Friday", section="NOTES > Patients")
    assert c.realm == "work"
    assert classify("- 高血压，在吃氨氯地平", section="MEMORY > 个人").realm == "real"


def test_a_global_file_whose_rules_serve_the_job_gives_them_the_job() -> None:
    # Guideline 19: whose rules these are is said in the file or not at all. A job statement
    # alone does not say it (a developer keeps personal projects too); rules about the job's
    # clients do, unless a line says the user keeps projects of their own.
    from memctl.classify import scope_realms

    texts = [
        "- I'm Ana Ruiz, a tax adviser at Ruiz & Sol, a small practice in Valencia.",
        "- Never upload client files anywhere.",
        "- Monthly pack for clients: P&L, balance sheet, cash flow.",
        "- Money is Decimal, never float.",
        "- Reply in Spanish.",
    ]
    lines = [(None, t, (c := classify(t, path=GLOBAL)).realm, c.realm_cued) for t in texts]
    assert [r for _, _, r, _ in lines] == ["work", "work", "work", "unknown", "real"]
    assert scope_realms(lines, GLOBAL) == [None, None, None, "work", None]
    # The job statement and one such rule: nothing said.
    assert scope_realms(lines[:2] + lines[3:], GLOBAL) == [None] * 4
    own = "- 我的个人项目都放在 GitHub 上"
    mine = [*lines, (None, own, "real", True)]
    assert scope_realms(mine, GLOBAL) == [None] * 6


def test_a_pregnancy_check_up_is_the_persons_health() -> None:
    # TAXONOMY.md, Audience: health is private; Realm: the user's own life.
    c = classify("- 产检：唐筛结果正常，下次 12 月 12 日", path="/h/ws/memory/2026-11-28.md")
    assert (c.realm, c.realm_cued, c.audience) == ("real", True, "private")


def test_a_machine_of_the_workplace_is_the_jobs_even_in_a_profile() -> None:
    # tests/quality, fifth set: a device line about the office machine that runs the job's
    # software is profile/work; the person's own machines stay real.
    for text, path, section in (
        ("- Office laptop: Windows 11, Excel 365", GLOBAL, "AGENTS > About me"),
        (
            "设备：iPad 日常用，事务所里一台 Windows 工作站跑 CAD",
            "/h/.hermes/memories/USER.md",
            None,
        ),
    ):
        c = classify(text, path=path, section=section)
        assert (c.realm, c.layer) == ("work", "profile"), text
    assert classify("- Home office: a standing desk and a 27-inch monitor").realm != "work"
    assert classify("- MacBook Pro M3 for everything", path="/h/ws/USER.md").realm == "real"


def test_a_games_logistics_are_the_players_own_life() -> None:
    # tests/quality README, second and fourth sets: when and where the group meets and who
    # runs the game are real; what happens inside it is fiction.
    path = "/h/.openclaw/workspace/MEMORY.md"
    for text in (
        "- Sessions 19:00–23:00 CET, the DM is Ravi; five players",
        "- Game on Roll20, voice on the group's Discord",
        "- Never post in the group's Discord for me",
        "KP是老周，每次开团前一天提醒我",
    ):
        c = classify(text, path=path, section="MEMORY > The table")
        assert (c.realm, c.realm_cued) == ("real", True), text
    # A session of a job or of a login is no game's, a direct message no DM's.
    assert classify("Session tokens expire after 30 minutes").realm_cued is False
    assert classify("Twitter DM is the best way to reach the shop").realm_cued is False


def test_a_heading_over_the_players_character_makes_its_lines_the_storys() -> None:
    # Fourth set: a player's own character (name, backstory, stats) is fictional, though a
    # line names a "Brother" or a lost sister.
    path = "/h/.openclaw/workspace/MEMORY.md"
    for section in ("MEMORY > My character", "MEMORY > Character sheet", "MEMORY > 角色卡"):
        c = classify("- Stats: STR 10 / DEX 14, AC 16", path=path, section=section)
        assert (c.realm, c.realm_cued) == ("fictional", True), section


def test_a_file_lends_fiction_only_when_nearly_all_its_lines_are_the_storys() -> None:
    # TAXONOMY.md, Realm: only role-play channels see fiction. A player's notes with the
    # group's logistics beside the character sheet (7 of 10 lines the story's) lend no realm:
    # their sections speak. A story file (9 of 10) lends it; real life lends at 0.6 still.
    path = "/h/.openclaw/workspace/MEMORY.md"
    assert file_realm([("fictional", True)] * 7 + [("real", True)] * 3, path) is None
    assert file_realm([("fictional", True)] * 9 + [("real", True)], path) == "fictional"
    assert file_realm([("real", True)] * 7 + [("fictional", True)] * 3, path) == "real"


def test_a_cue_too_weak_to_say_fiction_leaves_the_line_to_its_scope() -> None:
    # A passing "story" (fiction mention, below fictional_min) names no realm: a rule of a
    # newsroom's project file ('… the online story gets a dated note') takes the realm its
    # file gives (here the job's, from the line saying whose the project is); only a line
    # leaning on missing context (a vague reference) says unknown itself.
    from memctl.classify import scope_realms

    path = "/h/code/desk/CLAUDE.md"
    texts = [
        "Scrapers and notebooks for the Bristol Evening Post's data desk",
        "A correction is never made silently: the online story gets a dated note",
    ]
    lines = [(None, t, (c := classify(t, path=path)).realm, c.realm_cued) for t in texts]
    assert lines[1][2:] == ("unknown", False)
    assert scope_realms(lines, path)[1] == "work"
    vague = classify("他说那件事下次再说", path=path)
    assert (vague.realm, vague.realm_cued) == ("unknown", True)


def test_how_a_company_counts_and_raises_its_money_is_the_business() -> None:
    # TAXONOMY.md, Realm: a business is work; third set: its money is private and the job's.
    for text in (
        "Monthly burn is about 40k EUR, runway 11 months",
        "Raising a 2 M EUR seed round; 600k committed",
        "Investor update goes out on the first Monday: metrics, wins, asks",
        "Never share the cap table outside the founders",
        "MRR by cohort lives in Metabase",
        "A 轮融资估值谈到 8000 万",
    ):
        c = classify(text, path="/h/.claude/projects/-home-x/memory/project_round.md")
        assert (c.realm, c.realm_cued) == ("work", True), text
    # One's own savings are not a company's money.
    for text in ("Rebalance the index funds once a year", "每月定投 2000 元指数基金"):
        assert classify(text, path="/h/.openclaw/workspace/MEMORY.md").realm != "work", text


@pytest.mark.parametrize(
    "text",
    [
        "用户要求：给客户的回复先让主管看过再发",
        "用户确认：以后供应商的样品先寄到仓库，不寄公司",
        "用户交代：客户的合同扫描件只发到工作邮箱",
    ],
)
def test_the_user_reporting_what_follows_is_not_its_subject(text) -> None:
    # "用户要求：…" reports the user's words; what the words are about (the clients) says the
    # realm, as "用户说：…" does.
    c = classify(text, path="/h/.nanobot/workspace/memory/HISTORY.md")
    assert (c.realm, c.realm_cued) == ("work", True)


def test_the_user_as_the_subject_of_a_fact_is_still_their_life() -> None:
    c = classify("用户住在杭州滨江，周末去爬山", path="/h/.nanobot/workspace/memory/MEMORY.md")
    assert (c.realm, c.realm_cued) == ("real", True)
