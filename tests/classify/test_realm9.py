"""Realm rules of the seventh round (realm9): each test is an invented line of the kind the rule
is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify, confidential

USER = "/home/a/.openclaw/workspace/USER.md"


@pytest.mark.parametrize(
    "text",
    [
        "- Tom is a nurse at Leeds General",
        "Tom works at the county hospital as a nurse",
        "Tom teaches maths at Allerton High",
        "- **Tom:** works for Arup as an engineer",
        "张伟在一家银行当会计",
    ],
)
def test_a_relatives_job_in_a_file_about_the_user_is_not_the_users(text: str) -> None:
    # TAXONOMY.md, Realm: work is the user's job; a person's job is not the user's. The file
    # introduced Tom and 张伟 as the user's partner (kin): a line about them is their family's
    # life (real, private), not a job statement, also in a USER.md, where a named person is
    # otherwise the user (realm8's rule).
    profile = ["- **Name:** Dana Okafor", "- Partner: Tom", "- 老公张伟", text]
    relatives = confidential.people(profile)
    assert {"Tom", "张伟"} <= relatives
    c = classify(text, path=USER, relatives=relatives)
    assert (c.realm, c.audience) == ("real", "private"), text


@pytest.mark.parametrize(
    "text",
    [
        "- Mara is a landscape architect at a firm in Delft",
        "- Dana: ICU nurse at St James's, Leeds",
        "在一家物流公司当会计，工作日 9 点到 5 点半",
    ],
)
def test_the_users_own_job_beside_a_named_relative_stays_work(text: str) -> None:
    # The rule reads whose job it is from the line's subject: the user's own job statement
    # stays one, also in a file that introduces relatives.
    relatives = confidential.people(["- Partner: Tom", "- 老公张伟"])
    assert classify(text, path=USER, relatives=relatives).realm == "work", text


def test_a_label_is_no_word_of_the_job() -> None:
    # A job statement's Latin words are the job's when written as a name inside the line
    # (Harbourside, Cork); a label's word ("**Notes:**", "Name:") is the template's, and
    # would make every "notes" of the home's know-how name the job.
    from memctl.classify import home

    words = home.job_words(
        [
            "- **Notes:** small-animal vet, 9 years in practice, originally from Hamburg",
            "Works at Harbourside Veterinary Clinic in Cork, one of three vets.",
            "- Email Address: dana@example.org; Partner Name: Sam",
        ]
    )
    assert {"harbourside", "cork", "hamburg"} <= words
    assert words.isdisjoint({"notes", "address", "name"}), words
