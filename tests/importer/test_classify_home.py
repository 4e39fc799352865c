"""A home's job decides the realm of its know-how (memctl.classify.home), at import and in
`memctl classify`: the user's job stated in USER.md makes the uncued formats of the daily notes
work; a personal home, or a job's home whose notes are the person's life, keeps real; a global
instructions file settles nothing."""

from __future__ import annotations

import orjson
import pytest

JOB = "# USER.md\n\n## Context\n\nWorks at Brightwater Vet Clinic as a small-animal vet.\n"
LIFE = "# USER.md\n\n## Context\n\nLikes climbing and sourdough baking.\nLives in Bristol.\n"
# A day's notes of the job: formats and schedules, most with no work word of their own; three
# name the clinic the job statement names, or the rota.
JOB_NOTE = (
    "# 2026-11-02\n\n## Notes\n\n"
    "- Discharge sheets use three parts: diagnosis, home care, recheck date\n"
    "- Brightwater invoices are exported as PDF every Friday\n"
    "- Lab results from Brightwater's analyser are pasted as a table\n"
    "- The rota is posted on Mondays\n"
    "- Mum's birthday dinner is booked every March\n"
)
DISCHARGE = "Discharge sheets use three parts: diagnosis, home care, recheck date"
# A day's notes of the person's own life, in the same shapes.
LIFE_NOTE = (
    "# 2026-11-02\n\n## Notes\n\n"
    "- Grocery list goes in the shared note\n"
    "- Sunday hikes start at 7, pack the blue rucksack\n"
    "- Water the balcony plants on Tuesdays\n"
    "- Bank statements are saved as PDF in ~/finance\n"
)
NOTE = "ws/memory/2026-11-02.md"


def _realms(query) -> dict[str, str]:
    return dict(query("SELECT content, realm FROM entries"))


def test_a_job_stated_in_user_md_makes_the_notes_formats_work(tree, import_json, query):
    import_json(tree({"ws/USER.md": JOB, NOTE: JOB_NOTE}))
    realms = _realms(query)
    assert realms[DISCHARGE] == "work"  # no word of the job: the home's evidence decides
    assert realms["Brightwater invoices are exported as PDF every Friday"] == "work"
    assert realms["Works at Brightwater Vet Clinic as a small-animal vet."] == "work"
    # The person's own life stays theirs.
    assert realms["Mum's birthday dinner is booked every March"] == "real"


def test_the_same_notes_alone_stay_real(tree, import_json, query):
    """Without the home's profile nothing says the job: the rule needs a stated job."""
    import_json(tree({NOTE: JOB_NOTE}))
    assert _realms(query)[DISCHARGE] == "real"


def test_a_personal_home_keeps_its_uncued_lines_real(tree, import_json, query):
    import_json(tree({"ws/USER.md": LIFE, NOTE: JOB_NOTE.replace("Brightwater", "the")}))
    realms = _realms(query)
    assert realms[DISCHARGE] == "real"
    assert realms["The rota is posted on Mondays"] == "work"  # its own word still says it


def test_a_job_home_whose_notes_are_the_persons_life_keeps_them_real(tree, import_json, query):
    import_json(tree({"ws/USER.md": JOB, NOTE: LIFE_NOTE}))
    realms = _realms(query)
    assert realms["Works at Brightwater Vet Clinic as a small-animal vet."] == "work"
    assert {realms[t] for t in realms if not t.startswith("Works at")} == {"real"}


def test_a_user_md_line_is_the_persons_own_in_a_job_home(tree, import_json, query):
    user = JOB + "Never send voice messages.\n"
    import_json(tree({"ws/USER.md": user, NOTE: JOB_NOTE}))
    realms = _realms(query)
    assert realms[DISCHARGE] == "work"
    assert realms["Never send voice messages."] == "real"


def test_a_global_instructions_file_still_settles_nothing(tree, import_json, query):
    """~/.codex/AGENTS.md holds every project's rules: its job statement does not make them
    the job's (guideline 19), whatever words they share."""
    rules = (
        "# Global\n\n"
        "- I work at Brightwater Vet Clinic as a developer\n"
        "- Brightwater repos use pnpm\n"
        "- Brightwater services log as JSON\n"
        "- Brightwater deploys go through the staging branch\n"
        "- Use two-space indentation\n"
    )
    # Notes beside it, in its home, that name the job's words: its job statement is no vote.
    notes = (
        "# Notes\n\n- Brightwater parcels go out on Fridays\n"
        "- Brightwater lab results as a table\n- Brightwater case notes use the SOAP layout\n"
    )
    root = tree({".codex/AGENTS.md": rules, ".codex/memory/notes.md": notes + LIFE_NOTE})
    import_json(root / ".codex" / "AGENTS.md", root / ".codex" / "memory" / "notes.md")
    realms = _realms(query)
    assert realms["Use two-space indentation"] == "unknown"
    assert realms["Brightwater repos use pnpm"] == "unknown"
    assert realms["Brightwater parcels go out on Fridays"] == "real"
    assert realms["Grocery list goes in the shared note"] == "real"


def test_classify_agrees_with_import(tree, import_json, run, query):
    import_json(tree({"ws/USER.md": JOB, NOTE: JOB_NOTE}))
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


def test_a_home_that_came_in_two_imports_is_read_whole(tree, import_json, run, query):
    """The second import's vote counts the first's lines too (table home_lines); `memctl
    classify`, which reads the home whole, agrees."""
    root = tree({"ws/USER.md": JOB, NOTE: JOB_NOTE})
    import_json(root / NOTE)
    assert _realms(query)[DISCHARGE] == "real"  # no job stated yet
    import_json(root / "ws" / "USER.md")
    assert _realms(query)[DISCHARGE] == "work"
    assert _realms(query)["Mum's birthday dinner is booked every March"] == "real"
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


# A day's notes under the day's title alone, whose lines that say a realm are the person's
# life: the formats beside them are still the home's know-how.
DAY_NOTE = (
    "# 2026-11-03\n\n"
    "- Brightwater X-ray files are named by case number and date\n"
    "- Brightwater's dental charts are scanned into the record the same day\n"
    "- Anaesthetic consent forms are signed at the front desk\n"
    "- My son's swimming lessons are on Saturdays\n"
    "- Dad's physio is on Thursday mornings, drive him there\n"
)
CONSENT = "Anaesthetic consent forms are signed at the front desk"


def test_a_days_title_sets_no_part_of_its_note_apart(tree, import_json, run, query):
    """A heading that only gives a date names no part of its file (rules.only_dates): the
    lines its life words settle under it still count for the home's vote, which makes them
    the job's, as the same lines under a topic of the day's would be."""
    import_json(tree({"ws/USER.md": JOB, NOTE: JOB_NOTE, "ws/memory/2026-11-03.md": DAY_NOTE}))
    realms = _realms(query)
    assert realms[DISCHARGE] == "work"
    assert realms[CONSENT] == "work"
    assert realms["Brightwater X-ray files are named by case number and date"] == "work"
    assert realms["My son's swimming lessons are on Saturdays"] == "real"
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


# A business's notes: most lines say work (客户, 供应商, 门店, 顾客), so the file's uncued
# lines take work; how the owner is addressed says no realm of its own.
SHOP = (
    "# MEMORY.md\n\n## 店里\n\n"
    "- 客户的订单周五前发货\n- 供应商每周三送货\n- 门店 9 点开门\n"
    "- 顾客投诉先记下来再回复\n- 新客户首单打九折\n- 进货单发到采购群\n"
    '- 叫她"燕姐"。\n'
)


def test_how_the_owner_is_addressed_is_not_the_shops(tree, import_json, run, query):
    """TAXONOMY.md, Realm: the relationship is real; a file's work majority is its know-how's,
    not how the two address each other."""
    import_json(tree({"ws/MEMORY.md": SHOP}))
    realms = _realms(query)
    assert realms["进货单发到采购群"] == "work"  # no word of its own: its file's
    assert realms['叫她"燕姐"。'] == "real"
    result = run("classify", "--dry-run", "--json")
    assert orjson.loads(result.stdout)["changes"] == []


COURTS = (
    "# courts\n\nScrapers for the Harbour Gazette's courts desk. Dana owns this repo.\n\n"
    "## Rules\n\nNever edit anything in data/raw/.\nRun make test before pushing.\n"
)
FEEDBACK = (
    "---\nname: Naming\ndescription: names\ntype: feedback\n---\n\n"
    "Refer to a witness by their code, never by name.\n"
)
MEMORY = ".claude/projects/-home-dana-code-courts/memory/feedback_names.md"


def test_a_projects_memory_is_the_job_when_its_project_file_says_so(tree, import_json, run, query):
    """A Claude Code project's memory folder is the project's (its name is the project's path):
    the project file says whose it is (guideline 19), so the memory's uncued know-how is too."""
    root = tree({"code/courts/CLAUDE.md": COURTS, MEMORY: FEEDBACK})
    import_json(root / "code" / "courts" / "CLAUDE.md", root / MEMORY)
    realms = _realms(query)
    assert realms["Never edit anything in data/raw/."] == "work"
    assert realms["Refer to a witness by their code, never by name."] == "work"
    result = run("classify", "--dry-run", "--json")
    assert orjson.loads(result.stdout)["changes"] == []


@pytest.mark.parametrize("first", ["project", "memory"])
def test_a_projects_memory_and_its_project_file_imported_apart(first, tree, import_json, query):
    # Two imports, either order: the second reads the home the first settled.
    root = tree({"code/courts/CLAUDE.md": COURTS, MEMORY: FEEDBACK})
    paths = {"project": root / "code" / "courts" / "CLAUDE.md", "memory": root / MEMORY}
    import_json(paths[first])
    import_json(paths[({"project", "memory"} - {first}).pop()])
    assert _realms(query)["Refer to a witness by their code, never by name."] == "work"


def test_a_projects_memory_keeps_its_own_guess_when_nothing_says_whose(tree, import_json, query):
    plain = COURTS.replace("Scrapers for the Harbour Gazette's courts desk. ", "")
    root = tree({"code/courts/CLAUDE.md": plain, MEMORY: FEEDBACK})
    import_json(root / "code" / "courts" / "CLAUDE.md", root / MEMORY)
    assert _realms(query)["Refer to a witness by their code, never by name."] != "work"


# A job's project memory (invented): the user's job, and know-how that says it serves the job.
JOB_MEMORY = {
    ".claude/projects/-home-dana-code-ledger/memory/user_dana.md": (
        "---\nname: Dana\ndescription: who\ntype: user\n---\n\n"
        "Dana Okafor, payroll engineer at Brightwater Foods.\n"
    ),
    ".claude/projects/-home-dana-code-ledger/memory/feedback_team.md": (
        "---\nname: Team\ndescription: team\ntype: feedback\n---\n\n"
        "- Ask the team lead before changing the payroll schema.\n"
        "- Reply to the client only after the manager signs off.\n"
        "- Customer invoices are checked by the finance team before release.\n"
    ),
}
# Its project's file: rules that say no realm.
LEDGER = "# Ledger\n\n- Migrations live in db/migrations/, one file per change.\n"
MIGRATIONS = "Migrations live in db/migrations/, one file per change."


@pytest.mark.parametrize("order", ["together", "project", "memory"])
def test_the_project_of_a_jobs_memory_is_the_jobs(order, tree, import_json, run, query):
    """The memory Claude Code keeps for a project serves the user's job: the project is the
    job's code base, and its rules that say no realm are the job's (home.memory_work), in one
    import or two, either order."""
    root = tree({"code/ledger/CLAUDE.md": LEDGER, **JOB_MEMORY})
    project, memory = root / "code" / "ledger" / "CLAUDE.md", root / ".claude"
    if order == "together":
        import_json(project, memory)
    else:
        first, second = (project, memory) if order == "project" else (memory, project)
        import_json(first)
        import_json(second)
    assert _realms(query)[MIGRATIONS] == "work"
    result = run("classify", "--dry-run", "--json")  # `memctl classify` agrees
    assert orjson.loads(result.stdout)["changes"] == []


def test_the_project_of_a_memory_that_serves_no_job_keeps_its_guess(tree, import_json, query):
    life = {
        k: v.replace("payroll engineer at Brightwater Foods", "likes hiking")
        for k, v in JOB_MEMORY.items()
    }
    life = {k: v for k, v in life.items() if "feedback" not in k}
    root = tree({"code/ledger/CLAUDE.md": LEDGER, **life})
    import_json(root / "code" / "ledger" / "CLAUDE.md", root / ".claude")
    assert _realms(query)[MIGRATIONS] != "work"


# A player's notes (invented): the group's logistics beside the character sheet and the world.
PLAYER = (
    "# MEMORY\n\n## Me\n\n- Ravi, 31, lives in Lyon\n- Short recaps, bullet points please\n\n"
    "## The table\n\n"
    "- Game on Roll20, voice on the group's Discord\n"
    "- Sessions 19:00–23:00 CET, the DM is Ines; five players\n"
    "- Remind me the evening before to update the sheet\n\n"
    "## My character\n\n"
    "- Sister Maud, dwarf paladin, level 5\n"
    "- Personality: blunt, loyal, hates the sea\n"
    "- Spells: Bless, Cure Wounds\n\n"
    "## Campaign world\n\n"
    "- Setting: the drowned city of Ys, the party's base is the lighthouse\n"
    "- The cult of the tide worships something under the harbour\n"
)


def test_a_players_notes_keep_the_games_logistics_real_and_the_character_fictional(
    tree, import_json, query
):
    """Fourth set: the group's logistics are real, the character and the world fictional. The
    story's lines are most of the file's but not nearly all, so the file lends no realm: the
    uncued reminder under the logistics keeps real, the character's uncued lines take their
    heading's."""
    import_json(tree({"ws/MEMORY.md": PLAYER}))
    realms = _realms(query)
    assert realms["Remind me the evening before to update the sheet"] == "real"
    assert realms["Sessions 19:00–23:00 CET, the DM is Ines; five players"] == "real"
    assert realms["Short recaps, bullet points please"] == "real"
    assert realms["Spells: Bless, Cure Wounds"] == "fictional"
    assert realms["Personality: blunt, loyal, hates the sea"] == "fictional"


# A teacher's home (invented): the job statement says only words any line says (老师, 中学), a
# few lines say real life, and the rules name the students they serve.
TEACHER_USER = "# USER.md\n\n## Context\n\n- 王老师，中学数学老师\n- 周末常去爬山\n"
TEACHER_NOTES = (
    "# MEMORY.md\n\n## 备课\n\n"
    "- 课件字号不小于 28 号，后排学生看得清\n"
    "- 绝不在任何群里发学生的成绩排名\n"
    "- 不要把学生的名字写进公开的文章\n"
    "- 每周五前把学生的作业登记好\n"
    "- 试卷答案单独放最后一页，不要发给学生\n"
    "- 期中考试卷统一 A4 竖版\n"
    "- 体检那天上午请半天假\n"
)


def test_a_teachers_home_is_the_job_by_the_students_its_rules_name(tree, import_json, run, query):
    import_json(tree({"ws/USER.md": TEACHER_USER, "ws/MEMORY.md": TEACHER_NOTES}))
    realms = _realms(query)
    assert realms["期中考试卷统一 A4 竖版"] == "work"  # names no one: the home's job decides
    assert realms["绝不在任何群里发学生的成绩排名"] == "work"
    assert realms["体检那天上午请半天假"] == "real"  # her own health stays hers
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


def test_classify_agrees_with_import_on_a_players_notes(tree, import_json, run):
    import_json(tree({"ws/MEMORY.md": PLAYER}))
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


# A day job and a hobby paid for some of it (tests/quality README, sixth set): the gigs are
# work, the hobby itself the person's own.
HOBBY_USER = "# USER.md\n\n- Day job: QA tester at Paycrest, hybrid\n- Plays the cello\n"
HOBBY = (
    "# Long-term Memory\n\n## Gigs (paid)\n\n"
    "- Standard fee: £300 for a wedding, split 4 ways\n"
    "- A booking is confirmed only once the deposit is in\n"
    "- 2026-12-12 wedding of Ana & Joe at the Grange: load-in 16:00\n"
    "- Never quote a fee to anyone; Hannah does that\n\n"
    "## Practice\n\n"
    "- 30 min a day: scales for the first 10, then the shaky pieces\n"
    "- Quartet rehearsal Wednesdays 19:30 at the church hall\n"
)
HOBBY_NOTE = "# 2026-11-21\n\n- Pack the spare strings and the tuner\n- Rosin is in the blue case\n"


def test_a_paid_hobbys_gigs_are_work_and_leave_the_hobby_and_the_home_alone(
    tree, import_json, run, query
):
    import_json(tree({"ws/USER.md": HOBBY_USER, "ws/MEMORY.md": HOBBY, NOTE: HOBBY_NOTE}))
    realms = _realms(query)
    assert realms["A booking is confirmed only once the deposit is in"] == "work"
    assert realms["wedding of Ana & Joe at the Grange: load-in 16:00"] == "work"
    # The heading set the gigs apart: neither their file nor their home takes them.
    assert realms["30 min a day: scales for the first 10, then the shaky pieces"] == "real"
    assert realms["Quartet rehearsal Wednesdays 19:30 at the church hall"] == "real"
    assert realms["Pack the spare strings and the tuner"] == "real"
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


# A project memory whose know-how says no realm, beside its project file (invented): the
# memory's user file states the job; only the project file names the employer.
MUSEUM_MEMORY = {
    ".claude/projects/-home-ana-code-archive-site/memory/user_ana.md": (
        "---\nname: Ana\ndescription: who\ntype: user\n---\n\n"
        "Ana Ruiz, web developer at Greystone Heritage Trust.\n"
    ),
    ".claude/projects/-home-ana-code-archive-site/memory/feedback_images.md": (
        "---\nname: Images\ndescription: images\ntype: feedback\n---\n\n"
        "- Resize every image to 1600 px wide before committing.\n"
        "- Captions come from the object record, never from the file name.\n"
    ),
}
IMAGES = "Resize every image to 1600 px wide before committing."
PAGES = "Pages build with `npm run build`; never commit dist/."


@pytest.mark.parametrize(
    ("about", "realm_is_work"),
    [
        ("The public archive website of Greystone Heritage Trust.", True),
        # A word of the statement alone (the employer's town, a common word) names no employer.
        ("A small archive website, built for fun.", False),
        ("My notes on the Trust's history, a hobby.", False),
        # Called the user's own, it is theirs, whoever it names.
        ("My own side project, a mirror of Greystone Heritage Trust's catalogue.", False),
    ],
)
def test_a_project_file_naming_its_memorys_employer_is_the_jobs(
    about, realm_is_work, tree, import_json, run, query
):
    """Guideline 19: a project file says whose its code is. Naming the employer its memory's
    job statement names says it is the job's: its rules and the memory's know-how that say no
    realm are the job's (home.employer_projects); `memctl classify` agrees."""
    project = f"# archive-site\n\n{about}\n\n## Rules\n\n- {PAGES}\n"
    root = tree({"code/archive-site/CLAUDE.md": project, **MUSEUM_MEMORY})
    import_json(root / "code" / "archive-site" / "CLAUDE.md", root / ".claude")
    realms = _realms(query)
    assert (realms[PAGES] == "work") is realm_is_work
    assert (realms[IMAGES] == "work") is realm_is_work
    result = run("classify", "--dry-run", "--json")
    assert orjson.loads(result.stdout)["changes"] == []
