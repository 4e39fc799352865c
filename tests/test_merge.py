"""The near-duplicate engine wired into import and `memctl dedupe`."""

from __future__ import annotations

import sqlite3

import orjson
import pytest
from corpus import seed_shape

NEAR = (
    "- 用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖也不加奶。\n"
    "- 会员卡号尾号 1037，在星巴克办的。\n"
    "- The user prefers dark mode in every editor and terminal they use daily.\n"
    "- 用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖不加奶。\n"
    "- 会员卡号尾号 1042，在星巴克办的。\n"
)


def _live(query):
    return query("SELECT id, content FROM entries WHERE merged_into IS NULL ORDER BY id")


def test_import_merges_near_duplicates_and_keeps_their_provenance(tree, import_json, query):
    root = tree({"MEMORY.md": NEAR})
    report = import_json(root)
    assert (report["added"], report["skipped"]) == (4, 1)
    assert report["skipped_by_reason"] == {"near duplicate (jaccard)": 1}
    # The copy is archived, points at the survivor, and keeps its text.
    assert query("SELECT id, status, merged_into FROM entries WHERE id = 4") == [(4, "archived", 1)]
    assert query("SELECT content FROM entries WHERE id = 4")[0][0].endswith("不加糖不加奶。")
    # Both records are sources of the survivor; the merged one says how it was merged.
    rows = query("SELECT line, merge_layer, entry_id FROM sources ORDER BY line")
    assert rows == [(1, "new", 1), (2, "new", 2), (3, "new", 3), (4, "jaccard", 1), (5, "new", 5)]
    assert query("SELECT action, note FROM changes WHERE entry_id = 4")[0][0] == "merge:jaccard"
    # The guard keeps different card numbers apart however similar the lines are.
    assert [c for _, c in _live(query) if "尾号" in c] == [
        "会员卡号尾号 1037，在星巴克办的。",
        "会员卡号尾号 1042，在星巴克办的。",
    ]


def test_near_duplicates_across_imports_and_a_second_import_adds_nothing(tree, import_json, query):
    root = tree({"a.md": NEAR.split("\n", 3)[3], "b.md": NEAR})
    import_json(root / "a.md")
    second = import_json(root / "b.md")
    # b's copy is longer (more informative), so the stored entry from a.md merges into it.
    assert second["merged_existing"] == 1
    assert "near duplicate (jaccard)" not in second["skipped_by_reason"]
    again = import_json(root)
    assert again["added"] == 0


def test_an_earlier_copy_takes_over_as_canonical(tree, import_json, query):
    root = tree({
        "memory/2026-05-01.md": "- 用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖不加奶。\n",
        "memory/2026-01-01.md": "- 用户喜欢喝咖啡，每天早上都要来一杯美式，不加糖也不加奶。\n",
    })  # fmt: skip
    import_json(root / "memory" / "2026-05-01.md")
    report = import_json(root / "memory" / "2026-01-01.md")
    assert report["merged_existing"] == 1
    assert query("SELECT id, merged_into FROM entries ORDER BY id") == [(1, 2), (2, None)]
    assert query("SELECT entry_id FROM sources") == [(2,), (2,)]


@pytest.mark.slow
def test_the_seed_workspace_converges_to_its_distinct_memories(tmp_path, import_json, query):
    records, distinct = seed_shape()
    assert (len(records), distinct) == (2617, 1351)
    doc = {"version": 1, "exportedAt": 0,
           "memories": [{"id": i, "content": r.text, "created_at": r.ts}
                        for i, r in enumerate(records)]}  # fmt: skip
    path = tmp_path / "workspace.json"
    path.write_bytes(orjson.dumps(doc))
    report = import_json(path)
    assert report["records"] == 2617
    # The 52 "hello" records are no memory at all (data/noise.toml): skipped, not one entry.
    assert report["skipped_by_reason"]["test or greeting"] == 52
    assert len(_live(query)) == distinct - 1
    assert import_json(path)["added"] == 0
    assert len(_live(query)) == distinct - 1


def test_dedupe_command_dry_run_then_apply_then_nothing(tree, import_json, run, db_path, query):
    root = tree({"MEMORY.md": NEAR})
    import_json(root)
    # Undo the import-time merge by hand, as if the entries came from an older memctl.
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE entries SET merged_into = NULL, status = 'active' WHERE id = 4")
        conn.execute("UPDATE sources SET entry_id = 4, merge_layer = 'new' WHERE line = 4")
    conn.close()
    before = db_path.read_bytes()
    dry = run("dedupe", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert db_path.read_bytes() == before
    result = orjson.loads(dry.stdout)
    assert (result["merged"], result["by_layer"]) == (1, {"jaccard": 1})
    assert (
        result["merges"]["jaccard"][0]["dup"] == 4 and result["merges"]["jaccard"][0]["into"] == 1
    )
    applied = orjson.loads(run("dedupe", "--json").stdout)
    assert applied["merged"] == 1
    assert query("SELECT merged_into, status FROM entries WHERE id = 4") == [(1, "archived")]
    assert orjson.loads(run("dedupe", "--json").stdout)["merged"] == 0
    shown = orjson.loads(run("show", "1", "--json").stdout)
    assert [s["merge_layer"] for s in shown["sources"]] == ["new", "jaccard"]


def test_dedupe_with_nothing_to_merge_prints_no_empty_table(run, tree, import_json):
    import_json(tree({"MEMORY.md": "- 用户喜欢拿铁\n- deploy: run make release\n"}))
    result = run("dedupe", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr == "2 entries checked, would merge 0\n"


def test_dedupe_options_are_checked(run, tree, import_json):
    import_json(tree({"MEMORY.md": NEAR}))
    assert run("dedupe", "--layers", "bogus").exit_code == 2
    assert run("dedupe", "--jaccard", "1.5").exit_code == 2
    layered = orjson.loads(run("dedupe", "--dry-run", "--json", "--layers", "simhash").stdout)
    assert layered["merged"] == 0


def test_a_reimport_of_known_files_never_loads_the_engine(tree, import_json, monkeypatch):
    # The engine holds every signature of the user's store: a file with nothing new must not
    # pay for reading them (memctl.importer._Run.engine).
    from memctl import merge

    root = tree({"MEMORY.md": NEAR, "USER.md": "- 用户叫小满。\n"})
    import_json(root)
    loads = []
    real = merge.engine_for
    monkeypatch.setattr(merge, "engine_for", lambda *a, **k: loads.append(1) or real(*a, **k))
    report = import_json(root)
    assert report["added"] == 0 and report["skipped_by_reason"] == {"already imported": 6}
    assert loads == []
