"""Layer judgments read from the form of a statement (issue 10, sixth round). Each test is an
invented line of the kind the rule is written for, not a line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

MEMORY = "workspace/memory/MEMORY.md"
USER = "workspace/USER.md"


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("妈妈周二、周四上午去医院透析，这两天上午不要约人", USER),
        ("老婆在医院上夜班，早上 8 点前别打给她", USER),
        ("女儿周六下午上钢琴课，我送她去，那段时间别找我", USER),
        ("Don't send invoices on Fridays after 15:00, the office is closed", MEMORY),
    ],
)
def test_a_time_kept_clear_for_the_agent_is_a_rule(text: str, path: str) -> None:
    # TAXONOMY.md, procedural: task rules; the fact it starts from is not what is kept.
    assert classify(text, path=path, section=None).layer == "procedural"
