"""Which files make one home, and which words are its job's (memctl.classify.home)."""

from __future__ import annotations

from memctl.classify import home


def test_notes_folders_belong_to_the_home_above() -> None:
    assert home.home_of("/h/.openclaw/workspace/memory/202611/20261118.md") == (
        "/h/.openclaw/workspace"
    )
    assert home.home_of("/h/.openclaw/workspace/MEMORY.md") == "/h/.openclaw/workspace"
    assert home.home_of("/h/.hermes/memories/USER.md") == "/h/.hermes"
    assert home.home_of("/h/.claude/projects/-h-code-app/memory/feedback_x.md") == (
        "/h/.claude/projects/-h-code-app"
    )


def test_the_job_words_are_those_of_the_job_statements() -> None:
    lines = [
        (None, "Teaches physics at Northfield Academy", "work", True, "profile", "public"),
        (None, "Likes long walks with the dog", "real", True, "profile", "public"),
        (None, "Standup at nine with the whole team", "work", True, "procedural", "public"),
    ]
    # A name in the job line and a word the language uses rarely name this job; "physics",
    # "公司", "内容" name any.
    assert home.job_words(lines) == {"northfield", "academy"}
    zh = [(None, "在一家公司做内容，兼任语文老师", "work", True, "profile", "public")]
    assert home.job_words(zh) == {"语文"}
