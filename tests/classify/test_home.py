"""memctl.classify.home: which files are one home, a job statement and the job's own words,
and the home's evidence (tests/importer/test_classify_home.py imports whole homes)."""

from __future__ import annotations

import pytest

from memctl.classify import classify, home, rules


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/h/.openclaw/workspace/USER.md", "/h/.openclaw/workspace"),
        ("/h/.openclaw/workspace/memory/2026-11-02.md", "/h/.openclaw/workspace"),
        ("/h/.picoclaw/workspace/memory/202611/20261118.md", "/h/.picoclaw/workspace"),
        ("/h/.picoclaw/workspace/sessions/telegram_1.jsonl", "/h/.picoclaw/workspace"),
        ("/h/.hermes/memories/USER.md", "/h/.hermes"),
        ("/h/.claude/projects/-home-x/memory/feedback.md", "/h/.claude/projects/-home-x"),
    ],
)
def test_a_files_home_is_the_folder_above_its_notes(path, expected):
    assert home.home_of(path) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Works at Shopify (design systems team), fully remote",
        "Works mostly for Priya on employment matters",
        "She teaches piano at the community school",
        "Name: Hanna. Freelance translator (EN/DE)",
        "自由职业，做插画",
        "我在一家医院当护士",
        "- 周老师，高二语文老师",
        # The title's own shape after the name: -师, -员, -长, 主管, 合伙人 (invented names).
        "- 王晓梅，执业药师，社区药房的店长",
        "用户：陈立，一级注册结构工程师，某设计院的合伙人之一",
        "- 赵海，冷链车队的调度主管",
        "- I'm Dana Reyes, a licensed surveyor at Reyes & Lowe",
        "- **Notes:** dental hygienist, 6 years in practice",
        "Dana Reyes, chartered surveyor, one of the partners at Reyes & Lowe.",
        # The forms of "a job title heading the line".
        "I teach Year 9 maths at Hillside Academy",
        "I'm a physiotherapist at a sports clinic",
        "- 小学英语老师，教三年级",
        "- **职业**：高中化学老师",
        "今年带初一 3 班和 5 班",
        # An employer's post, "<a school, a hospital, a firm>的<title>" (invented).
        "- **Notes:** 南京一所民办小学的美术老师，教了五年",
        "市三医院的护士",
    ],
)
def test_a_profile_stating_what_one_does_for_a_living_says_work(text):
    c = classify(text, path="/h/ws/USER.md")
    assert (c.realm, c.realm_cued, c.layer) == ("work", True, "profile")


@pytest.mark.parametrize(
    "text",
    [
        "- Was a nurse until 2024, now works from home",  # a job held before
        "退休前是中学数学老师",
        "My sister works at a bank",  # someone else's
        "我朋友是律师",
        "叫我周老师就行",  # how to address her, not her job
        "- 老公，外贸公司经理",  # a relative's job
        "- 儿子小明，高二学生，班长",
        "- 老王，张家的家长",  # a parent, not a post
        "- Kettle, a cat at the shelter",
        "Lives with her partner at home in Leeds",
        "My sister is a nurse",
        "- 王老师，数学，电话 138",  # a teacher named, not the user's job
        "- 女儿班主任老师，姓王",
        "I teach myself guitar",
        "带女儿去上钢琴班",
        "儿子学校的老师人很好",  # a relative's teacher
        "以前是一家银行的会计",  # a job held before
    ],
)
def test_a_former_job_or_someone_elses_is_no_job_statement(text):
    assert classify(text, path="/h/ws/USER.md").realm != "work"


def test_the_jobs_own_words_are_its_rare_words_and_names():
    words = home.job_words(
        ["Teaches Chinese (语文) at a public high school.", "老陈，川菜馆的主厨兼老板"]
    )
    assert {"语文", "主厨", "川菜馆", "chinese"} <= words
    # Words any line says are not the job's: 老板 (boss), 学校, "public", "school".
    assert words.isdisjoint({"老板", "学校", "public", "school", "teaches"})


def test_a_line_names_a_job_word_only_as_a_word_of_its_own():
    words = frozenset({"语文", "ledgerly"})
    assert home.names_any("周测卷文件名：高二语文_周测_第N周.docx", words)
    assert home.names_any("Metabase: https://metabase.ledgerly.io", words)
    assert not home.names_any("Rebalance once a year", words)


def _line(i, realm="real", cued=False, layer="procedural", audience="public", fact=False):
    return home.Line(i, f"line {i}", realm, cued, layer, audience, fact, False)


def test_the_home_serves_the_job_when_its_know_how_says_work():
    evidence = home.Evidence()
    job = home.Line(1, "Works at Acme", "work", True, "profile", "public", False, False)
    cued_work = [_line(i, "work", cued=True) for i in (2, 3, 4)]
    uncued = [
        _line(5),
        home.Line(
            6,
            "Flu again, in bed till Monday",
            "real",
            False,
            "procedural",
            "private",
            False,
            False,
        ),
        _line(7, fact=True),
        _line(8, layer="profile"),
    ]
    evidence.add("/h/ws/MEMORY.md", [job, *cued_work, *uncued, _line(9, "real", cued=True)])
    # Not private for a life, no fact about the user; a profile line may take, not vote.
    assert evidence.candidates == [5, 8]
    assert evidence.serves_job({})  # 3 of 4 cued know-how lines say work


def test_a_home_whose_know_how_is_the_persons_life_does_not():
    evidence = home.Evidence()
    job = home.Line(1, "Works at Acme", "work", True, "profile", "public", False, False)
    # Lines whose own words tell a life (one real only by its heading does not vote: realm15).
    life = [
        home.Line(i, text, "real", True, "procedural", "public", False, False)
        for i, text in ((2, "Mum's birthday dinner"), (3, "walk the dog first"), (4, "家人优先"))
    ]
    work = [_line(i, "work", cued=True) for i in (5, 6, 7)]
    evidence.add("/h/ws/MEMORY.md", [job, *life, *work, _line(8)])
    assert not evidence.serves_job({})  # 3 of 6: not the share home_job_min_share asks


def test_a_story_the_home_keeps_weighs_on_neither_side():
    """The lines of a story (a web novel, a campaign) are its own realm: they say nothing of
    whether the home's other know-how serves the job or the person's life."""
    evidence = home.Evidence()
    job = home.Line(1, "Works at Acme", "work", True, "profile", "public", False, False)
    work = [_line(i, "work", cued=True) for i in (2, 3, 4)]
    life = [_line(i, "real", cued=True) for i in (5, 6)]
    story = [_line(i, "fictional", cued=True) for i in range(7, 15)]
    evidence.add("/h/ws/MEMORY.md", [job, *work, *life, *story, _line(20)])
    assert evidence.serves_job({})  # 3 of the 5 that say work or life


def test_no_job_statement_no_job():
    evidence = home.Evidence()
    evidence.add("/h/ws/MEMORY.md", [_line(i, "work", cued=True) for i in (1, 2, 3)] + [_line(4)])
    assert not evidence.serves_job({})


def test_a_home_learns_its_job_from_a_few_statements_not_thousands():
    """Generated text can state a job on every line; each candidate is tested against the job's
    words, so their number is bounded by home_job_max_statements, not by the home's size."""
    evidence = home.Evidence()
    jobs = [home.Line(i, f"Works at Firm{i:04d}", "work", True, "profile", "public", False, False)
            for i in range(1000)]  # fmt: skip
    evidence.add("/h/ws/MEMORY.md", jobs)
    most = int(rules.lexicon().thresholds["home_job_max_statements"])
    assert evidence.jobs == [f"Works at Firm{i:04d}" for i in range(most)]


def _teacher_home(rules_text: list[str]) -> tuple[home.Evidence, dict[int, str]]:
    """A home whose profile states a teaching job in words any line says (老师, 学校), four
    know-how lines cued real life, and `rules_text` as know-how that says no realm."""
    evidence = home.Evidence()
    job = home.Line(1, "- 周老师，中学数学老师", "work", True, "profile", "public", False, False)
    life = [_line(i, "real", cued=True) for i in (2, 3, 4, 5)]
    rules_lines = [
        home.Line(10 + i, text, "real", False, "procedural", "public", False, False)
        for i, text in enumerate(rules_text)
    ]
    evidence.add("/h/ws/MEMORY.md", [job, *life, *rules_lines])
    return evidence, {line.id: line.text for line in rules_lines}


def test_know_how_naming_the_people_a_job_serves_counts_as_the_jobs():
    """The job statement's words are all common (老师, 中学): only the students its rules name
    say the know-how is the job's, 7 lines against the 4 of real life."""
    evidence, texts = _teacher_home(
        [
            "课件字号不小于 28 号，后排学生看得清",
            "绝不在任何群里发学生的成绩排名",
            "不要把学生的名字写进公开的文章",
            "每周五前把学生的作业登记好",
            "试卷答案单独放最后一页，不要发给学生",
            "Never post a student's marks in a group chat",
            "Pupils' photos get blurred before they go anywhere",
        ]
    )
    assert evidence.serves_job(texts)


def test_know_how_naming_no_one_a_job_serves_does_not():
    evidence, texts = _teacher_home(
        [
            "课件字号不小于 28 号，后排看得清",
            "绝不在任何群里发成绩排名",
            "不要把名字写进公开的文章",
            "每周五前把作业登记好",
            "试卷答案单独放最后一页",
            "Never post marks in a group chat",
            "Photos get blurred before they go anywhere",
        ]
    )
    assert not evidence.serves_job(texts)


def test_the_words_code_uses_for_its_parts_are_no_people_a_job_serves():
    """An API client, a multi-tenant table, "be patient": a personal coder's rules name them
    as often as a job's, so they do not count for the job."""
    evidence, texts = _teacher_home(
        [
            "The HTTP client retries three times",
            "Every table has a tenant column",
            "Be patient with slow CI runs",
            "The MCP clients read the same config",
            "Pin the client library version",
            "tenant_id is part of every key",
            "Keep the client timeout at 30 s",
        ]
    )
    assert not evidence.serves_job(texts)
