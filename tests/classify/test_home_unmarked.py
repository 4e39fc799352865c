"""In a teacher's home the class's children and their parents are the people the job serves
(realm19): a rule whose only life words name them is the job's, and it is not the user's
family either (TAXONOMY.md, Audience: family is private as the user's family). It is public as
the line without those words reads; one that also tells a private fact of its own stays
private. Import and `memctl classify` decide it alike. Invented lines."""

from __future__ import annotations

import orjson

HOME = {
    ".openclaw/workspace/USER.md": (
        "# USER.md\n\n- **Notes:** 郑州一所民办幼儿园的小班老师，当班主任第二年\n"
    ),
    ".openclaw/workspace/MEMORY.md": (
        "# MEMORY.md\n\n## 班里\n\n"
        "- 孩子的个别情况只私聊家长，不发到大群。\n"
        "- 家长会的签到表放在教室门口，孩子们自己写名字。\n"
        "- 午睡前给孩子讲十分钟绘本，家长想听的发录音。\n"
        "- 有个孩子的家长在闹离婚，接送时别让孩子听到大人争吵。\n"
        "\n## 我自己\n\n- 男朋友周末来成都，提醒我订餐厅\n"
    ),
}


def _audiences(query) -> dict[str, tuple[str, str]]:
    rows = query("SELECT content, realm, audience FROM entries")
    return {content: (realm, audience) for content, realm, audience in rows}


def test_a_rule_private_only_for_the_pupils_is_public(tree, import_json, run, query):
    import_json(tree(HOME), "--hidden")
    found = _audiences(query)
    assert found["孩子的个别情况只私聊家长，不发到大群。"] == ("work", "public")
    assert found["家长会的签到表放在教室门口，孩子们自己写名字。"] == ("work", "public")
    # A divorce is private, whose ever it is.
    assert found["有个孩子的家长在闹离婚，接送时别让孩子听到大人争吵。"][1] == "private"
    assert found["男朋友周末来成都，提醒我订餐厅"] == ("real", "private")
    # `memctl classify` comes to the same.
    result = run("classify", "--dry-run", "--json")
    assert orjson.loads(result.stdout)["changed"] == 0, result.stdout
