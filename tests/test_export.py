"""`memctl export`: the document's shape, status filters, -o, and the export → import round trip."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import orjson
import pytest
from helpers import ENTRY_FIELDS

from memctl.store import Store

MEMORY = (
    "- I like green tea\n"
    "- i like GREEN tea!\n"
    "- My sister lives in Lyon\n"
    "- Project Kestrel ships in May\n"
    "- 我对花生过敏\n"
)
SESSION = (
    '{"type":"user","sessionId":"s-9","timestamp":"2026-02-01T08:00:00Z","uuid":"m-1",'
    '"message":{"role":"user","content":"remember: call me Sam"}}\n'
)


SOURCE_FIELDS = [
    "path", "line", "format", "session_id", "message_id", "role", "ts", "section", "raw_hash",
    "merge_layer", "merge_score", "category", "layer_hint",
    "header",
]  # fmt: skip


@pytest.fixture
def populated(tree, import_json, db_path):
    """Six entries in every status and flavour, one superseding another.

    Ids: 1 Berlin (dated note), 2 tea (superseded), 3 Lyon (archived), 4 Kestrel (pending),
    5 peanuts, 6 Sam (from a transcript; supersedes 2).
    """
    import_json(tree({"MEMORY.md": MEMORY, "2026-01-05.md": "- Moved to Berlin\n",
                      "s.jsonl": SESSION}))  # fmt: skip
    conn = sqlite3.connect(db_path)
    with conn:
        # Statuses set by hand, whatever the classifier chose: the point is one of each.
        conn.execute("UPDATE entries SET status = 'active' WHERE id IN (1, 5, 6)")
        conn.execute(
            "UPDATE entries SET status = 'archived', importance = 0.9, audience = 'private', "
            "realm = 'fictional', emotional_weight = 0.3, expires_at = '2030-01-01' WHERE id = 3"
        )
        conn.execute("UPDATE entries SET status = 'pending_review', realm = 'work' WHERE id = 4")
        conn.execute("UPDATE entries SET status = 'superseded', last_used_at = '2026-04-01' "
                     "WHERE id = 2")  # fmt: skip
    conn.close()
    store = Store.open(db_path)
    with store.transaction():
        store.for_user("default").add_supersede(6, 2, "newer value", "2026-04-02T00:00:00.000Z")
    store.close()
    return db_path


def old_ids_hash(doc, entry_id):
    return next(m["norm_hash"] for m in doc["memories"] if m["id"] == entry_id)


def _export(run, *args):
    result = run("export", *args)
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout), result


def test_document_shape(populated, run, tree):
    before = int(time.time() * 1000)
    doc, result = _export(run)
    after = int(time.time() * 1000)
    assert result.stderr == ""
    assert list(doc) == ["version", "exportedAt", "user", "memories"]
    assert doc["version"] == 1
    assert type(doc["exportedAt"]) is int
    assert before <= doc["exportedAt"] <= after
    assert doc["user"] == "default"
    assert [m["id"] for m in doc["memories"]] == [1, 2, 3, 4, 5, 6]
    for memory in doc["memories"]:
        assert list(memory) == [*ENTRY_FIELDS, "sources", "supersedes"]
        for source in memory["sources"]:
            assert list(source) == SOURCE_FIELDS
    tea = doc["memories"][1]
    assert tea["content"] == "I like green tea"
    assert (tea["status"], tea["last_used_at"]) == ("superseded", "2026-04-01")
    assert [(s["line"], s["merge_layer"]) for s in tea["sources"]] == [(1, "new"), (2, "exact")]
    assert doc["memories"][5]["content"] == "call me Sam"  # "remember: " is cut
    assert doc["memories"][5]["supersedes"] == [{"old_id": 2, "reason": "newer value"}]
    assert doc["memories"][5]["sources"][0]["session_id"] == "s-9"


def test_every_status_is_exported_by_default(populated, run):
    doc, _ = _export(run)
    assert [m["status"] for m in doc["memories"]] == [
        "active", "superseded", "archived", "pending_review", "active", "active",
    ]  # fmt: skip


def test_status_filter(populated, run):
    doc, _ = _export(run, "--status", "active", "-s", "archived")
    assert [(m["id"], m["status"]) for m in doc["memories"]] == [
        (1, "active"), (3, "archived"), (5, "active"), (6, "active"),
    ]  # fmt: skip


def test_unknown_status_is_a_usage_error(populated, run):
    result = run("export", "--status", "deleted")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "'deleted' is not one of active, pending_review, superseded, archived" in result.stderr


def test_output_file(populated, run, tmp_path):
    target = tmp_path / "backup.json"
    result = run("export", "-o", target)
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == f"Exported to {target}\n"
    doc = orjson.loads(target.read_bytes())
    streamed, _ = _export(run)
    assert doc["memories"] == streamed["memories"]


def test_output_file_that_cannot_be_written_is_a_one_line_error(populated, run, tmp_path):
    (tmp_path / "afile").write_text("x")
    target = tmp_path / "afile" / "out.json"
    result = run("export", "--output", target)
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot write {target}: Not a directory\n"


def test_a_user_with_nothing_exports_no_memories(populated, run):
    doc, _ = _export(run, "--user", "nobody")
    assert (doc["user"], doc["memories"]) == ("nobody", [])


def test_round_trip_restores_the_same_entries(populated, run, import_json, tmp_path, query):
    first, _ = _export(run)
    backup = tmp_path / "backup.json"
    backup.write_bytes(orjson.dumps(first))
    restored_db = tmp_path / "restored.db"
    report = import_json(backup, "--db", restored_db)
    assert (report["records"], report["added"], report["rejected_count"]) == (6, 6, 0)
    assert report["by_file"][0]["format"] == "memctl-export"
    second, _ = _export(run, "--db", restored_db)
    assert second["user"] == first["user"]
    # Entries are matched by content: ids are the restoring database's own.
    old = {m["norm_hash"]: m for m in first["memories"]}
    new = {m["norm_hash"]: m for m in second["memories"]}
    assert sorted(new) == sorted(old)
    content_of_old = {m["id"]: m["content"] for m in first["memories"]}
    content_of_new = {m["id"]: m["content"] for m in second["memories"]}
    fields = [k for k in ENTRY_FIELDS if k != "id"]
    for key, before in old.items():
        after = new[key]
        assert {k: after[k] for k in fields} == {k: before[k] for k in fields}
        assert [(content_of_new[s["old_id"]], s["reason"]) for s in after["supersedes"]] == [
            (content_of_old[s["old_id"]], s["reason"]) for s in before["supersedes"]
        ]
        # Provenance survives; the backup file itself becomes one more source, listed first.
        assert after["sources"][1:] == before["sources"]
        assert after["sources"][0]["path"] == str(backup)
        assert after["sources"][0]["format"] == "memctl-export"
        assert after["sources"][0]["line"] == before["id"]
    assert new[old_ids_hash(first, 6)]["supersedes"] != []


def test_importing_an_export_twice_adds_nothing(populated, run, import_json, tmp_path):
    first, _ = _export(run)
    backup = tmp_path / "backup.json"
    backup.write_bytes(orjson.dumps(first))
    restored_db = tmp_path / "restored.db"
    import_json(backup, "--db", restored_db)
    again = import_json(backup, "--db", restored_db)
    assert (again["added"], again["skipped_by_reason"]) == (0, {"already imported": 6})


def test_importing_an_export_into_its_own_database_only_adds_provenance(
    populated, run, import_json, tmp_path, query
):
    first, _ = _export(run)
    backup = tmp_path / "backup.json"
    backup.write_bytes(orjson.dumps(first))
    sources_before = query("SELECT count(*) FROM sources")[0][0]
    report = import_json(backup)
    assert (report["added"], report["skipped_by_reason"]) == (0, {"exact duplicate": 6})
    assert query("SELECT count(*) FROM entries") == [(6,)]
    assert query("SELECT count(*) FROM sources") == [(sources_before + 6,)]
    assert query("SELECT count(*) FROM supersedes") == [(1,)]


def test_export_is_scoped_to_one_user(tree, run, import_json, tmp_path: Path):
    import_json(tree({"a.md": "- Alice likes jazz\n"}), "--user", "alice")
    import_json(tree({"b.md": "- Bob likes techno\n"}, name="b"), "--user", "bob")
    doc, _ = _export(run, "--user", "bob")
    assert doc["user"] == "bob"
    assert [m["content"] for m in doc["memories"]] == ["Bob likes techno"]
    assert [s["path"] for s in doc["memories"][0]["sources"]] == [str(tmp_path / "b" / "b.md")]
