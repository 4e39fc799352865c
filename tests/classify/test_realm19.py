"""Realm, nineteenth round: the people a stated job serves follow from the job (TAXONOMY.md,
Realm: work is a job's clients). A teacher serves the class's children and their parents;
in a home whose profile states a teaching job, a know-how line cued real only for naming
them votes for the job and takes it when the home serves it ([home] job_serves). In a home
stating no such job the same words are the user's own family. Invented lines."""

from __future__ import annotations

from memctl.classify import home

USER = "/h/.openclaw/workspace/USER.md"
MEMORY = "/h/.openclaw/workspace/MEMORY.md"


def _line(i, text, realm="real", cued=True, layer="procedural"):
    return home.Line(i, text, realm, cued, layer, "public", False, False)


# Cued real by their family words (孩子, 家长), about the pupils and their parents.
RULES = [
    _line(1, "孩子午睡时不要放音乐，家长问起就说园里规定。"),
    _line(2, "家长接孩子晚了要在登记本上签字。"),
    _line(3, "孩子们的作品照片只发给各自的家长。"),
]
OWN = [_line(4, "周计划周四前交给教研组长", "work"), _line(5, "男朋友周末来成都，提醒我订餐厅")]
JOB = _line(9, "在一所小学当二年级班主任", "work", layer="profile")


def _evidence(*files):
    evidence = home.Evidence()
    texts = {}
    for path, lines in files:
        evidence.add(path, lines)
        texts.update((line.id, line.text) for line in lines)
    return evidence, texts


def test_a_teachers_home_counts_the_pupils_and_parents_as_served():
    # The job statement comes in a file read after the rules.
    evidence, texts = _evidence((MEMORY, RULES + OWN), (USER, [JOB]))
    assert (evidence.said["work"], evidence.said["real"]) == (4, 1)
    assert evidence.serves_job(texts)
    assert {1, 2, 3} <= set(evidence.candidates)
    assert 5 not in evidence.candidates  # the boyfriend stays the user's own


def test_without_a_teaching_job_the_children_are_the_users_own():
    shop = _line(9, "在社区开一家花店", "work", layer="profile")
    evidence, texts = _evidence((MEMORY, RULES + OWN), (USER, [shop]))
    assert (evidence.said["work"], evidence.said["real"]) == (1, 4)
    assert not evidence.serves_job(texts)
    assert not {1, 2, 3} & set(evidence.candidates)


def test_a_line_whose_only_life_words_are_the_pupils_is_the_job_in_a_shared_home():
    # Two people share the home; its life outweighs the job, yet the line is the teacher's.
    life = [
        _line(21, "男朋友周末来住，周六晚饭多做一份"),
        _line(22, "她妈妈下个月来住一周，睡沙发床"),
        _line(23, "室友在吃降压药，每天早上提醒他"),
    ]
    pupils = _line(24, "这学期带 31 个孩子，周三下午有公开课")
    ill = _line(25, "孩子周六发烧了，别给她排值日")  # a fever is a life's, whoever's
    evidence, texts = _evidence((MEMORY, [*life, pupils, ill]), (USER, [JOB]))
    assert not evidence.serves_job(texts)
    assert evidence.shown == [24]


def test_each_life_is_looked_at_once_while_who_is_served_stays(monkeypatch):
    # A teacher's home of many daily notes, each with a life line naming none of the pupils:
    # a file's lives are walked when it comes, not again with every later file.
    calls = []
    real = home.names_any
    monkeypatch.setattr(
        home, "names_any", lambda text, words: calls.append(text) or real(text, words)
    )
    evidence = home.Evidence()
    evidence.add(USER, [JOB])
    files = 300
    for n in range(files):
        note = f"/h/.openclaw/workspace/memory/2026-{n:04d}.md"
        evidence.add(note, [_line(100 + n, f"男朋友第 {n} 次来成都，提醒我订餐厅")])
    lives = [t for t in calls if t.startswith("男朋友")]
    assert len(lives) == 2 * files  # its vote and one look, not files²/2 looks
