"""Realm, seventeenth round: a rule about the people a job serves is the job's also when words
of a life are in it (TAXONOMY.md, Realm: work is "a job, employer, team, clients"; tests/quality
README, ninth and tenth sets: a rule keeping the job and private life apart is work whichever
way it points, a client's health inside a work rule is work). In a home that serves the user's
job (memctl.classify.home), such a line takes the job's realm, not only votes for it. Invented
lines, both languages."""

from __future__ import annotations

from helpers import BIKE_SHOP_HOME, BIKE_SHOP_NOTE

from memctl.classify import classify, home

MEMORY = "/h/.nanobot/workspace/memory/MEMORY.md"
USER = "/h/.nanobot/workspace/USER.md"


def _line(i, realm="real", cued=False, text=None, layer="procedural"):
    return home.Line(i, text or f"line {i}", realm, cued, layer, "public", False, False)


STATEMENT = home.Line(
    1, "- 孙磊，在夜市开「老孙烤冷面」", "work", True, "profile", "public", False, False
)
SERVING = [
    "- 顾客的电话不要发到家里人的群",
    "- Never mention my divorce or my kids to customers",
]


def test_the_invented_lines_say_real_life_of_their_own():
    for text in SERVING:
        c = classify(text, path=MEMORY)
        assert (c.realm, c.realm_cued) == ("real", True)


def test_a_life_line_naming_the_people_a_job_serves_is_a_candidate_for_the_job():
    evidence = home.Evidence()
    work = [_line(i, "work", cued=True) for i in (2, 3)]
    serving = [_line(4 + n, "real", True, text) for n, text in enumerate(SERVING)]
    life = [_line(6, "real", True, "Her mum is back in hospital on Friday")]
    evidence.add(MEMORY, [STATEMENT, *work, *serving, *life, _line(7)])
    assert evidence.said == {"work": 4, "real": 1}
    assert {4, 5, 7} <= set(evidence.candidates)
    assert 6 not in evidence.candidates  # the person's own life stays theirs
    assert evidence.serves_job({})


def test_a_serving_line_is_counted_once():
    # It voted for the job already: naming the served people does not count it again.
    evidence = home.Evidence()
    serving = [_line(2 + n, "real", True, text) for n, text in enumerate(SERVING)]
    evidence.add(MEMORY, [STATEMENT, *serving])
    texts = {line.id: line.text for line in serving}
    assert evidence.said == {"work": 2}
    assert not evidence.serves_job(texts)  # 2 lines: fewer than home_job_min_lines


def test_a_file_about_the_user_keeps_its_serving_lines_the_persons():
    evidence = home.Evidence()
    evidence.add(USER, [STATEMENT, _line(2, "real", True, SERVING[1])])
    assert evidence.said == {"work": 1}
    assert evidence.candidates == []


def test_a_job_homes_rule_about_its_customers_is_the_jobs(tree, import_json, query):
    import_json(tree(BIKE_SHOP_HOME))
    realms = dict(query("SELECT content, realm FROM entries"))
    assert realms["Never mention my divorce or my kids to customers"] == "work"
    assert realms["Repair tickets are numbered and taped to the saddle"] == "work"
    assert realms["Mum's birthday dinner is booked every March"] == "real"


def test_the_same_rule_in_a_home_with_no_job_stays_real(tree, import_json, query):
    import_json(tree({"ws/memory/2026-11-02.md": BIKE_SHOP_NOTE}))
    realms = dict(query("SELECT content, realm FROM entries"))
    assert realms["Never mention my divorce or my kids to customers"] == "real"
