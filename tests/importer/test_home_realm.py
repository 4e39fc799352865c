"""A home's job carried across its files (memctl.classify.home): notes that serve the job the
home's profile states take work; facts about the person and private lines keep their realm."""

from __future__ import annotations

import orjson

TEACHER_USER = """# USER.md
- Teaches physics at Northfield Academy, year 11 and 12
- Prefers short answers
"""
TEACHER_MEMORY = """# MEMORY
## Marking
- Lab reports follow the Northfield rubric, a score out of 20
- Homework goes into the Northfield portal on Mondays, due Friday
- Keep the answer sheets in the blue folder
## Me
- The Northfield choir concert is my favourite evening of the year
- Migraine days: no screens after 8pm, Northfield marking can wait
"""


def test_notes_that_serve_the_homes_job_take_work(tree, import_json, query, run):
    import_json(tree({"ws/USER.md": TEACHER_USER, "ws/MEMORY.md": TEACHER_MEMORY}))
    realm = dict(query("SELECT content, realm FROM entries"))
    # Named by the job's own word (the school's name), with no work word of their own…
    assert realm["Lab reports follow the Northfield rubric, a score out of 20"] == "work"
    assert realm["Homework goes into the Northfield portal on Mondays, due Friday"] == "work"
    # …and their section then speaks for a neighbour that names nothing.
    assert realm["Keep the answer sheets in the blue folder"] == "work"
    # A taste of the person and a private line keep their own realm.
    assert realm["The Northfield choir concert is my favourite evening of the year"] == "real"
    assert realm["Migraine days: no screens after 8pm, Northfield marking can wait"] == "real"
    # Re-classifying reaches the same realms: it reads the home the same way.
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changed"] == 0


def test_a_home_stating_no_job_lends_nothing(tree, import_json, query):
    user = "# USER.md\n- Prefers short answers\n"
    import_json(tree({"ws/USER.md": user, "ws/MEMORY.md": TEACHER_MEMORY}))
    realm = dict(query("SELECT content, realm FROM entries"))
    assert realm["Lab reports follow the Northfield rubric, a score out of 20"] == "real"


def test_a_job_in_another_home_lends_nothing(tree, import_json, query):
    import_json(tree({"a/USER.md": TEACHER_USER, "b/MEMORY.md": TEACHER_MEMORY}))
    realm = dict(query("SELECT content, realm FROM entries"))
    assert realm["Lab reports follow the Northfield rubric, a score out of 20"] == "real"


PROJECT_ROUND = """---
name: Round
type: project
---

Seed round: 300k committed of 800k, lead investor signed.
Never share the cap table outside the founders.
Investor update goes out monthly: MRR, churn, asks.
Runway is 10 months without the round.
Fundraising deck v3 lives in the Drive.
"""
FEEDBACK_TESTS = """---
name: Tests
type: feedback
---

Integration tests run against a real database container, never mocks.
"""
OWN_LIFE = """# USER.md
- Dana lives in Porto with two cats
- Prefers replies in English
"""


def test_know_how_its_file_does_not_settle_takes_what_the_homes_know_how_agrees_on(
    tree, import_json, query, run
):
    memory = "claude/projects/-h-code-app/memory"
    root = tree({
        f"{memory}/project_round.md": PROJECT_ROUND,
        f"{memory}/feedback_tests.md": FEEDBACK_TESTS,
        f"{memory}/user_me.md": OWN_LIFE,
    })  # fmt: skip
    import_json(root)
    realm = dict(query("SELECT content, realm FROM entries"))
    assert realm["Integration tests run against a real database container, never mocks."] == (
        "work"
    )
    # Facts about the person neither vote nor take the vote.
    assert realm["Dana lives in Porto with two cats"] == "real"
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changed"] == 0
