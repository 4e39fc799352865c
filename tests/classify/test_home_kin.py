"""A relative one file of a home introduces is family in the home's other files too
(memctl.classify.home, Evidence.relatives): a nanobot MEMORY.md says "儿子小宇，14 岁", its
HISTORY.md says "小宇鼻炎发作，请假一天" (TAXONOMY.md, Audience: family and health are private).
At import and in `memctl classify` alike."""

from __future__ import annotations

import orjson

from memctl.classify import home, kin

MEMORY = "# 长期记忆\n\n## 家庭\n\n- 儿子小宇，14 岁，初二\n- 回答要简短\n"
HISTORY = (
    "[2026-11-18 20:05] 小宇问二次函数顶点式，只给了思路\n\n"
    "[2026-11-20 09:00] 用户说以后回答都用中文\n"
)
ASKED = "小宇问二次函数顶点式，只给了思路"
FILES = {"ws/memory/MEMORY.md": MEMORY, "ws/memory/HISTORY.md": HISTORY}


def _audiences(query) -> dict[str, str]:
    return dict(query("SELECT content, audience FROM entries"))


def test_a_relative_named_in_another_file_of_the_home_is_private(tree, import_json, query):
    import_json(tree(FILES))
    audiences = _audiences(query)
    assert audiences[ASKED] == "private"
    assert audiences["用户说以后回答都用中文"] == "public"
    assert audiences["回答要简短"] == "public"


def test_the_history_alone_names_no_relative(tree, import_json, query):
    import_json(tree({"ws/memory/HISTORY.md": HISTORY}))
    assert _audiences(query)[ASKED] == "public"


def test_classify_agrees_with_import_on_a_homes_relatives(tree, import_json, run, query):
    import_json(tree(FILES))
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


def test_a_later_import_that_introduces_the_relative_settles_the_earlier_file(
    tree, import_json, run, query
):
    root = tree(FILES)
    import_json(root / "ws" / "memory" / "HISTORY.md")
    assert _audiences(query)[ASKED] == "public"  # no relative introduced yet
    import_json(root / "ws" / "memory" / "MEMORY.md")  # the home's vote counts both files
    assert _audiences(query)[ASKED] == "private"
    assert query("SELECT action, actor, note FROM changes") == [
        ("classify", "memctl", "the home's vote")
    ]
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout)["changes"] == []


# A player's notes: his character's title is a kinship word ("Brother Oswin"), under the
# heading of the character he plays (fourth set: a player's character is fictional).
PLAYER = (
    "# MEMORY\n\n## My character\n\n- Brother Oswin Hale, human cleric (Light domain), level 7\n"
    "- Backstory: raised in the Varrow temple, searching for his lost sister\n"
)
SESSION = "# 2026-11-29\n\n## Session 22\n\n- Oswin got the Bell-Ward amulet back from the vault\n"


def test_a_storys_kinship_word_introduces_no_relative() -> None:
    character = "Brother Oswin Hale, human cleric (Light domain), level 7"
    assert kin.names([character]) == {"Oswin"}  # alone, nothing says it is a story's
    assert kin.names([character], ["MEMORY > My character"], "ws/MEMORY.md") == frozenset()


def test_a_characters_name_stays_public_across_the_home(tree, import_json, query):
    import_json(tree({"ws/MEMORY.md": PLAYER, "ws/memory/2026-11-29.md": SESSION}))
    assert _audiences(query)["Oswin got the Bell-Ward amulet back from the vault"] == "public"


def _line(i: int, text: str, audience: str = "public", realm: str = "real") -> home.Line:
    return home.Line(i, text, realm, False, "episodic", audience, False, False)


def test_the_homes_family_whatever_order_its_files_come_in() -> None:
    """`memctl classify` reads a home file by file, so its ids need not grow."""
    evidence = home.Evidence()
    evidence.add("ws/memory/HISTORY.md", [_line(7, "小宇鼻炎发作，请假一天"), _line(9, "下雨了")])
    evidence.add(
        "ws/memory/MEMORY.md", [_line(2, "儿子小宇，14 岁", "private"), _line(3, "小宇爱吃面")]
    )
    texts = {2: "儿子小宇，14 岁", 3: "小宇爱吃面", 7: "小宇鼻炎发作，请假一天", 9: "下雨了"}
    assert sorted(evidence.family(texts)) == [3, 7]
    assert evidence.family({3: texts[3]}) == [3]  # one file's texts, as at import
    # A story's line names no relative of the user's.
    story = home.Evidence()
    story.add("ws/MEMORY.md", [_line(1, "Brother Oswin Hale, human cleric", realm="fictional")])
    story.add("ws/memory/2026-11-29.md", [_line(2, "Oswin got the amulet")])
    assert story.family({2: "Oswin got the amulet"}) == []


def test_a_file_naming_more_people_than_a_family_is_not_cut_to_its_end(monkeypatch):
    """Once a file's lines name more people than a family has, it introduces no one
    (kin.names): its remaining lines are not cut for names (a long notes file would be cut
    whole at every import) and the home learns no relative from it."""
    from memctl.classify import kin

    names = [f"Zora{chr(97 + i)}" for i in range(kin.most_names() + 3)]
    texts = [f"My sister {n} lives in Galway" for n in names] + ["My brother Tomas is 40"] * 50
    lines = [
        home.Line(i, t, "real", True, "profile", "private", False, False)
        for i, t in enumerate(texts)
    ]
    cut: list[str] = []
    real = kin.introduced
    monkeypatch.setattr(kin, "introduced", lambda text, *a: cut.append(text) or real(text, *a))
    kept = home.with_kin(lines)
    assert len(cut) == kin.most_names() + 1  # the line that made them too many, then none
    assert [line.kin for line in kept[len(cut) :]] == [frozenset()] * (len(texts) - len(cut))
    evidence = home.Evidence()
    evidence.add("/h/ws/MEMORY.md", kept)
    assert evidence.relatives == set()
