"""Realm, eighteenth round: a home whose profile states no job serves one when its know-how
shows it plainly (TAXONOMY.md, Realm: work is "a job, employer, team, clients or a business";
tests/quality README, eleventh set: "jobs the notes show but seldom state"). At least
home_shown_job_min_lines know-how lines say work, two in three of those that say work or real
life, a story's lines weighing on neither side, and one at least names the people the job
serves (served_people): a team's words alone show no one served. Invented lines."""

from __future__ import annotations

from memctl.classify import home

MEMORY = "/h/.hermes/memories/MEMORY.md"


def _line(i, realm="real", cued=False, text=None, layer="procedural"):
    return home.Line(i, text or f"line {i}", realm, cued, layer, "public", False, False)


def _evidence(*lines):
    evidence = home.Evidence()
    evidence.add(MEMORY, list(lines))
    return evidence, {line.id: line.text for line in lines}


WORK = [_line(i, "work", cued=True) for i in range(1, 5)]
SERVED = _line(10, text="Owners get a photo of the boat every evening")  # says no realm itself


def test_a_home_showing_its_job_plainly_serves_it():
    evidence, texts = _evidence(*WORK, SERVED, _line(11, "real", cued=True))
    assert evidence.jobs == []
    assert evidence.serves_job(texts)  # 5 of 6 for the job, one names the owners served


def test_words_of_a_job_alone_show_no_one_served():
    evidence, texts = _evidence(*WORK, _line(11))
    assert not evidence.serves_job(texts)


def test_fewer_lines_or_a_shared_life_do_not_vote():
    evidence, texts = _evidence(*WORK[:2], SERVED)
    assert not evidence.serves_job(texts)  # 3 lines
    life = [
        _line(20, "real", True, "Her mum is back in hospital on Friday"),
        _line(21, "real", True, "My son's school play is in December"),
        _line(22, "real", True, "My wife's birthday is in May"),
    ]
    evidence, texts = _evidence(*WORK, SERVED, *life)
    assert not evidence.serves_job(texts)  # 5 of 8: a life shares the home


def test_a_storys_lines_weigh_on_neither_side():
    story = [_line(30 + i, "fictional", cued=True) for i in range(6)]
    evidence, texts = _evidence(*WORK, SERVED, *story)
    assert evidence.serves_job(texts)


def test_a_shown_job_takes_the_homes_know_how(tree, import_json, query):
    # No USER.md states the job; the notes show it: deliveries for owners, fees, invoices.
    note = "\n§\n".join(
        [
            "Delivery fee is £300 a day plus travel; invoices go out within a week",
            "The client signs the delivery contract before I board",
            "Owners get a photo of the boat every evening",
            "Quote each customer in pounds, valid for 14 days",
            "Colleague Sam covers the radio watch on long legs",
            "Carry two spare impellers on every passage",
        ]
    )
    import_json(tree({"h/.hermes/memories/MEMORY.md": note}), "--hidden")
    realms = dict(query("SELECT content, realm FROM entries"))
    assert realms["Carry two spare impellers on every passage"] == "work"
