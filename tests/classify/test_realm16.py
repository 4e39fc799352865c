"""Realm, sixteenth round (TAXONOMY.md, Realm): a game's plot as its script or its sessions tell
it is fictional, its logistics (a date with no session) the person's own; a job statement is
profile also when one of its clauses says how to call the person; what a trade charges for its
work is the trade's. Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import classify, rules

MEMORY = "/h/.openclaw/workspace/MEMORY.md"
ENTRIES = "/h/.hermes/memories/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # A mystery game's script: its murderer, its victim, a clue kept for an act, its players.
        "真凶是茶楼掌柜，第二幕之前不能让玩家知道。",
        "新本子《夜航船》：死者是船上的琴师，玩家 6 人。",
        "关键线索放到第四幕再发。",
        # A numbered session of a campaign, told by what happened.
        "- S7 (2026-10-04): the party crossed the salt marsh and lost the mule",
        "- Greywater Keep session 12: Ilsa bargained with the lich for the map",
    ],
)
def test_a_games_plot_as_played_is_fictional(text):
    c = classify(text, path=MEMORY)
    assert (c.realm, c.realm_cued) == ("fictional", True)


@pytest.mark.parametrize(
    "text",
    [
        "- PT session 3: squats, lunges and a plank ladder",  # a trade's session
        "- Client session 4: went through the budget sheet",
        "销售线索每周一汇总给主管。",  # a sales lead
        "- 2026-10-11 no session (Ilsa's wedding), next is 2026-10-25",  # a game's logistics
    ],
)
def test_a_trades_session_a_sales_lead_or_a_game_date_is_no_plot(text):
    assert classify(text, path=MEMORY).realm != "fictional"


def test_hosting_a_mystery_game_is_the_games():
    c = classify("周六的剧本杀你来主持，语气要像民国报馆的老编辑。", path=ENTRIES)
    assert c.realm == "fictional"


USER = "/h/.openclaw/workspace/USER.md"


@pytest.mark.parametrize(
    "text",
    [
        # A clause saying how to call the person does not make the line stating the job the
        # relationship.
        "- 覃小军，叫我阿军，湖南人，在深圳南山跑饿了么外卖。",
        # A trade after a bold label.
        "- **Notes:** Freelance copywriter, works from a desk at a Porto coworking space.",
    ],
)
def test_a_job_stated_in_a_profile_line_is_profile_and_work(text):
    c = classify(text, path=USER)
    assert (c.realm, c.realm_cued, c.layer) == ("work", True, "profile")
    assert rules.JOB_STATEMENT in rules.text_roles(text)


def test_a_label_naming_the_work_done_and_where_states_a_job():
    text = "Lecturing: first-year statistics at Dunmore College, Mondays 10:00."
    c = classify(text, path=ENTRIES)
    assert (c.realm, c.realm_cued) == ("work", True)
    assert rules.JOB_STATEMENT in rules.text_roles(text)


@pytest.mark.parametrize(
    "text",
    [
        "叫我阿军就行。",  # only the address: the relationship (guideline 17)
        "- 名字：覃小军，叫他「军哥」",
    ],
)
def test_a_name_and_an_address_alone_stay_the_relationship(text):
    assert classify(text, path=USER).layer == "relationship"


def test_a_work_label_with_an_hour_names_no_place_of_work():
    assert rules.JOB_STATEMENT not in rules.text_roles("Teaching: mock exam at 9:30, room 4")
