"""Realm, twelfth round: homes of one job. A profile states the job after the person's name
(the job as the name's apposition, the employer as it, the terms of the post), and the home's
know-how then has a job to serve (TAXONOMY.md, Realm: work is a job, employer, clients).
Invented lines, both languages."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "/h/.openclaw/workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # The job as the name's apposition, a trade's noun of the agent closing it.
        "- Tilde Marsh, portrait and event photographer, based in Leeds",
        "- Oren Vance, long-haul tanker driver for Ridgeway Haulage, truck #88",
        "- Pia Lund, freelance illustrator",
        "- Kai Brand, sports physiotherapist at a rugby club",
        # The employer as the name's apposition.
        "- 林晓雨，华山医院外科规培第一年",
        "- 吴凡，招商银行信用卡中心",
        # The terms of the post.
        "Tove works full-time at Harbour Dental in Cobh since May.",
        "- Ravi works part-time for the county library service",
    ],
)
def test_a_name_then_the_job_states_the_job(text):
    c = classify(text, path=MEMORY)
    assert (c.realm, c.realm_cued, c.layer) == ("work", True, "profile")


@pytest.mark.parametrize(
    "text",
    [
        "- Sam, my partner, a keen baker",  # a possessive: someone of the person's
        "- Leo, keen runner",  # a hobby's noun of the agent
        "- Ana, dog owner, lives in Leeds",  # a role one has, no trade
        "- Tom, older brother",  # a relative
        "- Ruth Okafor, retired librarian, lives in Easton",  # a job held before
        "- 小宇，育才中学初二",  # a school: a pupil's
        "- 老公周涛，建设银行",  # a relative's employer
        "- Tom works at the garden centre",  # anyone's: no post's terms
        "- She tidies the desk, the drawer",  # a sentence, not a name before the comma
        "- Moving house soon, no longer a renter",  # more than a name before the comma
        "- Sam Lee, other",  # a word that names no one's trade
        "- Rob Ellis, electrician, 07700 900456",  # a contact the person calls
        "- 老马，市一医院，138 0013 8000",  # a contact
        "- 我和老周，市一医院门口见",  # the user's own sentence, no name
        "- 她说，市一医院门口见",
    ],
)
def test_a_name_beside_no_job_of_the_persons_states_none(text):
    c = classify(text, path=MEMORY)
    assert c.realm != "work"
