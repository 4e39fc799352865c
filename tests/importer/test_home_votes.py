"""A home's vote on its job counts every line the home keeps, whichever import brought it
(memctl.importer.classify.settle_homes, table home_lines): importing a home file by file ends
where one import of all of it ends."""

from __future__ import annotations

import sqlite3
from pathlib import PurePath

from helpers import BIKE_SHOP_HOME, BIKE_SHOP_JOB, BIKE_SHOP_NOTE

NOTE = "ws/memory/2026-11-02.md"
RULE = "Never mention my divorce or my kids to customers"
TICKETS = "Repair tickets are numbered and taped to the saddle"
MUM = "Mum's birthday dinner is booked every March"


def _realms(query):
    return dict(query("SELECT content, realm FROM entries"))


def test_notes_imported_after_the_profile_take_its_job(tree, import_json, query):
    root = tree(BIKE_SHOP_HOME)
    import_json(root / "ws" / "USER.md")
    import_json(root / "ws" / "memory")
    realms = _realms(query)
    assert realms[RULE] == realms[TICKETS] == "work"
    assert realms[MUM] == "real"
    # The note's lines were new to this import: settled as they were written, nothing logged.
    assert query("SELECT count(*) FROM changes") == [(0,)]


def test_the_home_imported_in_two_parts_ends_as_one_import_of_it(
    tree, import_json, query, tmp_path
):
    root = tree(BIKE_SHOP_HOME)
    import_json(root)
    parts = tmp_path / "parts.db"
    import_json(root / "ws" / "USER.md", "--db", parts)
    import_json(root / "ws" / "memory", "--db", parts)
    columns = "content, realm, layer, audience, status"
    assert _rows(parts, columns) == query(f"SELECT {columns} FROM entries ORDER BY content")


def _rows(db, columns):
    conn = sqlite3.connect(db)
    try:
        return [tuple(r) for r in conn.execute(f"SELECT {columns} FROM entries ORDER BY content")]
    finally:
        conn.close()


def test_a_profile_imported_after_the_notes_settles_them_again_logged(tree, import_json, query):
    root = tree(BIKE_SHOP_HOME)
    import_json(root / "ws" / "memory")
    assert _realms(query)[TICKETS] == "real"  # no job stated yet
    import_json(root / "ws" / "USER.md")
    realms = _realms(query)
    assert realms[RULE] == realms[TICKETS] == "work"
    assert realms[MUM] == "real"
    changed = query(
        "SELECT e.content, c.action, c.actor, c.note FROM changes c "
        "JOIN entries e ON e.id = c.entry_id ORDER BY e.id"
    )
    assert (TICKETS, "classify", "memctl", "the home's vote") in changed
    assert MUM not in {row[0] for row in changed}


def test_a_realm_a_person_set_stays_as_they_set_it(tree, import_json, query, run):
    root = tree({NOTE: BIKE_SHOP_NOTE, "ws/USER.md": BIKE_SHOP_JOB})
    import_json(root / "ws" / "memory")
    (tickets,) = query("SELECT id FROM entries WHERE content = ?", TICKETS)[0]
    assert run("edit", tickets, "--realm", "unknown").exit_code == 0  # whatever they chose
    import_json(root / "ws" / "USER.md")
    realms = _realms(query)
    assert realms[TICKETS] == "unknown"
    assert realms[RULE] == "work"


def test_a_reimport_of_known_files_votes_on_nothing(tree, import_json, query):
    root = tree(BIKE_SHOP_HOME)
    import_json(root)
    before = query("SELECT * FROM entries ORDER BY id")
    assert query("SELECT count(*), sum(settled) FROM home_lines") == [(7, 7)]
    import_json(root)
    assert query("SELECT * FROM entries ORDER BY id") == before
    assert query("SELECT count(*) FROM changes") == [(0,)]


def test_a_hard_delete_takes_the_line_out_of_the_vote(tree, import_json, query, run):
    import_json(tree(BIKE_SHOP_HOME))
    (tickets,) = query("SELECT id FROM entries WHERE content = ?", TICKETS)[0]
    assert run("delete", tickets, "--hard", "--yes").exit_code == 0
    assert query("SELECT count(*) FROM home_lines WHERE entry_id = ?", tickets) == [(0,)]


def test_reclassifying_keeps_the_lines_for_later_votes(tree, import_json, query, run, db_path):
    import_json(tree(BIKE_SHOP_HOME))
    kept = query("SELECT * FROM home_lines ORDER BY entry_id")
    conn = sqlite3.connect(db_path)
    conn.execute("DELETE FROM home_lines")
    conn.commit()
    conn.close()
    assert run("classify").exit_code == 0
    assert query("SELECT * FROM home_lines ORDER BY entry_id") == kept


LIFE_NOTE = (
    "# 2026-11-20\n\n## Notes\n\n"
    "- Pick up my son from football practice on Thursdays at six\n"
    "- My daughter's piano lesson moved to Saturday mornings\n"
    "- Call Mum after her hospital check-up every Tuesday\n"
    "- My wife's birthday dinner is booked at the Italian place\n"
    "- The kids' dentist appointments are every six months\n"
    "- Grandma's medication is refilled on the first of the month\n"
    "- Book the family holiday in the school half-term\n"
    "- My husband's night shifts mean quiet mornings at home\n"
)


def test_a_home_whose_vote_turns_ends_as_one_import_of_it(tree, import_json, query, tmp_path):
    # The notes of a life outweigh the job's once the third file comes: the lines an earlier
    # vote gave the job are their file's again, as when the home is imported at once.
    root = tree({**BIKE_SHOP_HOME, "ws/memory/2026-11-20.md": LIFE_NOTE})
    import_json(root)
    assert _realms(query)[TICKETS] == "real"
    parts = tmp_path / "parts.db"
    (root / "later").mkdir()
    (root / "ws" / "memory" / "2026-11-20.md").rename(root / "later" / "2026-11-20.md")
    import_json(root / "ws", "--db", parts)
    assert dict(_rows(parts, "content, realm"))[TICKETS] == "work"
    (root / "later" / "2026-11-20.md").rename(root / "ws" / "memory" / "2026-11-20.md")
    import_json(root / "ws" / "memory" / "2026-11-20.md", "--db", parts)
    columns = "content, realm, layer, audience, status"
    assert _rows(parts, columns) == query(f"SELECT {columns} FROM entries ORDER BY content")


# A home whose profile introduces a relative (invented): a later note naming her is family.
FAMILY_HOME = {
    "ws/USER.md": BIKE_SHOP_JOB + "- My sister Brenna lives in Galway\n",
    NOTE: BIKE_SHOP_NOTE,
}
LATER = "ws/memory/2026-11-03.md"
LATER_NOTE = "# 2026-11-03\n\n- Brenna visits on Sunday, lunch at the harbour\n"


def test_a_later_import_cuts_only_its_own_lines_for_names(tree, import_json, query, monkeypatch):
    """The names each line introduces are kept with it (home_lines.kin): a later import's
    vote reads the home's earlier lines without cutting their texts again, and still knows
    the relative they introduced."""
    from memctl.classify import kin

    root = tree(FAMILY_HOME)
    import_json(root / "ws" / "USER.md", root / "ws" / "memory")
    cut: list[str] = []
    real = kin.introduced
    monkeypatch.setattr(kin, "introduced", lambda text, *a: cut.append(text) or real(text, *a))
    (root / LATER).write_text(LATER_NOTE, encoding="utf-8")
    import_json(root / LATER)
    assert set(cut) == {"Brenna visits on Sunday, lunch at the harbour"}  # none of before
    audience = dict(query("SELECT content, audience FROM entries"))
    assert audience["Brenna visits on Sunday, lunch at the harbour"] == "private"


def test_lines_kept_before_their_names_were_still_vote_alike(tree, import_json, query, db_path):
    # A store kept before the column (kin NULL) finds the names when it reads the lines.
    root = tree(FAMILY_HOME)
    import_json(root / "ws" / "USER.md", root / "ws" / "memory")
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE home_lines SET kin = NULL")
    conn.close()
    (root / LATER).write_text(LATER_NOTE, encoding="utf-8")
    import_json(root / LATER)
    audience = dict(query("SELECT content, audience FROM entries"))
    assert audience["Brenna visits on Sunday, lunch at the harbour"] == "private"
    assert query("SELECT count(*) FROM home_lines WHERE kin IS NULL") == [(0,)]


def test_a_later_vote_matches_only_its_own_lines_for_a_realm(tree, import_json, query, monkeypatch):
    """Whether a line's own words give a realm weight is kept with it (home_lines.says): a
    later import's vote asks it of the new lines only, and votes as before."""
    from memctl.classify import rules

    asked: list[str] = []
    real = rules.says_realm
    monkeypatch.setattr(rules, "says_realm", lambda text: asked.append(text) or real(text))
    root = tree(FAMILY_HOME)
    import_json(root / "ws" / "USER.md", root / "ws" / "memory")
    assert RULE in asked  # the first vote asked it of the home's lines
    asked.clear()
    (root / LATER).write_text(LATER_NOTE + "- Mum's knee is better after the physio\n", "utf-8")
    import_json(root / LATER)
    assert set(asked) <= {"Brenna visits on Sunday, lunch at the harbour",
                          "Mum's knee is better after the physio"}  # fmt: skip
    assert query("SELECT count(*) FROM home_lines WHERE says IS NOT NULL")[0][0] > 0
    assert _realms(query)[RULE] == "work"


def test_a_vote_reads_a_home_in_one_query(tree, import_json, query, db_path):
    """A home's lines come in one query, file by file in the order the files were first
    imported (a daily notes folder is hundreds of files, each vote reads them all)."""
    from memctl.store.homes import HomeLines

    root = tree(FAMILY_HOME)
    import_json(root / "ws" / "USER.md", root / "ws" / "memory")
    (root / LATER).write_text(LATER_NOTE, encoding="utf-8")
    import_json(root / LATER)
    # A line added later to the first file: its file still comes first.
    with (root / "ws" / "USER.md").open("a", encoding="utf-8") as f:
        f.write("- Closes the shop early on Wednesdays\n")
    import_json(root / "ws" / "USER.md")
    ((user, home),) = query("SELECT DISTINCT user_id, home FROM home_lines")
    conn = sqlite3.connect(db_path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        files = list(HomeLines(conn, user).of_home(home))
    finally:
        conn.close()
    assert len(statements) == 1
    names = [PurePath(path).name for path, _ in files]
    assert names == ["USER.md", "2026-11-02.md", "2026-11-03.md"]
    expected = query(
        "SELECT path, entry_id FROM home_lines ORDER BY "
        "(SELECT min(entry_id) FROM home_lines o WHERE o.path = home_lines.path), entry_id"
    )
    assert [(path, line[0]) for path, lines in files for line in lines] == expected
    assert files[0][1][-1][1] == "Closes the shop early on Wednesdays"
