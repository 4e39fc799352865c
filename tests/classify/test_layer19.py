"""Layer round 19. Each test is an invented line of the kind the rule is written for, not a
line of a gold file."""

from __future__ import annotations

import pytest

from memctl.classify import classify

AGENTS = ".codex/AGENTS.md"
MEMORY = "workspace/memory/MEMORY.md"


@pytest.mark.parametrize(
    "text",
    [
        "- American spelling in docs and commit messages.",
        "- Replies in two bullets max when I'm on the phone",
        "- Dutch or English, whichever I wrote in.",
        "- Show the diff first, then a sentence on the risk.",
        "- Explain as if to a chemist: formulas fine, no sales talk.",
        "- 我用什么语言你就用什么语言回复",
    ],
)
def test_answer_style_is_a_taste_of_the_person(text: str) -> None:
    # TAXONOMY.md, profile: general tastes, language and explanation style, also in an
    # AGENTS.md, whose lines otherwise lean procedural.
    assert classify(text, path=AGENTS, section="Global instructions").layer == "profile"


@pytest.mark.parametrize(
    "text",
    [
        "- Parish names: Irish spelling first, English in brackets",
        "- Always run `terraform plan` first and show me the diff",
    ],
)
def test_a_task_rule_naming_spelling_or_a_diff_stays_procedural(text: str) -> None:
    assert classify(text, path=AGENTS, section="Global instructions").layer == "procedural"
