"""Realm rules of the twentieth session's round (realm26): each test is an invented line of the
kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify
from memctl.classify.rules import text_roles

USER = "/home/a/.hermes/memories/USER.md"


@pytest.mark.parametrize(
    "text",
    [
        "Ana Reis, professional dive instructor and PADI examiner, works out of Sagres.",
        "- Tom Hale (汤姆), senior welder for Clyde Marine, based in Govan",
        "Mei Tan (陈美), freelance illustrator; mostly picture books",
    ],
)
def test_a_person_named_then_a_trade_states_the_job(text: str) -> None:
    # TAXONOMY.md, Realm: a job is work. The trade is the name's apposition, whatever follows
    # it (a second trade after "and") and whatever the name carries (a name in another script).
    c = classify(text, path=USER)
    assert "job statement" in text_roles(text), text
    assert (c.realm, c.layer) == ("work", "profile"), text


@pytest.mark.parametrize(
    "text",
    [
        "Wen Li (李文), 2nd-year PhD in chemistry at Leeds; demonstrates undergrad labs",
        "- PhD student at Imperial, third year, on battery electrolytes",
        "I'm a postdoc at the Crick, in a structural biology lab",
        "- 我在浙大读博，方向是计算语言学",
        "用户是清华的在读博士，做图神经网络",
    ],
)
def test_doctoral_research_is_a_job(text: str) -> None:
    # A doctorate is research done for a university, with a supervisor, a lab and a stipend:
    # the researcher's job (TAXONOMY.md, Realm: a job, employer, team), as a researcher's is.
    assert "job statement" in text_roles(text), text
    assert classify(text, path=USER).realm == "work", text


@pytest.mark.parametrize(
    "text",
    [
        "- 男朋友在伦敦读博，每个月见一次",
        "- My sister is doing a PhD at Leeds",
        "Ruth Okafor, retired librarian, lives in Easton",
        "- Was a PhD student at Leeds until 2019",
        "- Thinking about a PhD after the master's",
    ],
)
def test_someone_elses_a_past_or_a_wished_for_doctorate_states_no_job(text: str) -> None:
    assert "job statement" not in text_roles(text), text
