"""Review of the layer cues merged in the eleventh round: lines of a real user's memory file that
share a new cue's surface shape but belong to another layer (TAXONOMY.md, "Layer"). Every line
is invented. The round's cues were reverted (they lost lines on two held-out halves); these
guards stay, as what any later cue of those shapes must not do."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        # Someone cannot or does not want anything of a kind: a fact about that person (their
        # diet, their health, their taste), not a limit on the assistant.
        "孩子不能吃任何含坚果的东西",
        "我不能喝任何含酒精的饮料",
        "妈妈不要任何生日礼物，陪她吃顿饭就好",
        "Nobody in the team can read Japanese",
        "No one in the family eats pork",
    ],
)
def test_what_a_person_cannot_or_will_not_have_is_no_limit(text: str) -> None:
    got = classify(text, path=MEMORY, section="MEMORY.md > Family").layer
    assert got != "boundary"


@pytest.mark.parametrize(
    "text",
    [
        # The user's own pay, on its day: what they earn is a fact of their money (profile).
        "我每月 15 号发工资",
        "工资每月 10 号打到招行卡",
        "I get paid on the 25th of each month",
        "My salary is paid on the 28th of every month",
    ],
)
def test_the_users_own_pay_day_stays_a_fact_about_them(text: str) -> None:
    got = classify(text, path=MEMORY, section="MEMORY.md > Money").layer
    assert got == "profile"


@pytest.mark.parametrize(
    "text",
    [
        # What goes off or lapses on a near day is an event of that day (TAXONOMY.md, episodic:
        # "will happen once"), not a permit or a policy the person holds for years.
        "牛奶 12 月 5 日过期，先喝这盒",
        "酸奶保质期到 2026-12-08",
        "免费试用 12 月 10 号到期，到时候决定续不续",
    ],
)
def test_what_goes_off_or_lapses_soon_is_no_standing_term(text: str) -> None:
    got = classify(text, path=MEMORY, section="MEMORY.md > Notes").layer
    assert got != "profile"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A dated change that goes on with what holds now or what to do since: a decision whose
        # content is a standing rule (TAXONOMY.md, procedural), or the person's state (profile).
        ("Moved 2026-06 to the Hetzner box; use `make ship` to deploy", "procedural"),
        ("Renamed 2026-01 to `blog-v2`, use the new remote", "procedural"),
        ("2026-03 搬到了杭州，现在住滨江", "profile"),
    ],
)
def test_a_dated_change_with_what_holds_since_is_no_event(text: str, want: str) -> None:
    got = classify(text, path=MEMORY, section="MEMORY.md > Notes").layer
    assert got == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A cue on the second line of an entry reads that line (a hermes entry, a paragraph).
        ("Boiler service, yearly:\n- Flat 2 done 2026-05-12 (Acme Heating)", "episodic"),
    ],
)
def test_the_narrowed_cues_still_read_every_line_of_an_entry(text: str, want: str) -> None:
    got = classify(text, path=MEMORY, section="MEMORY.md > Notes").layer
    assert got == want
