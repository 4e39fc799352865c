"""Merging only with evidence, end to end: import, then `memctl dedupe --dry-run` explaining
what it would fold (counter families, notes behind boilerplate) and what it keeps apart."""

from __future__ import annotations

import sqlite3

import orjson
from dedupe.test_engine import BOILERPLATE, NOTES, REPEATED, edited, invest, sync_log


def memory_md() -> str:
    lines = [invest(v) for v in REPEATED]
    lines += [sync_log(1000 + 37 * n) for n in range(10)]
    lines += [BOILERPLATE + note for note in NOTES]
    lines.append(edited(BOILERPLATE + NOTES[2], 7))  # a typo in the boilerplate's first words
    return "".join(f"- {line}\n" for line in lines)


def test_import_keeps_repeated_values_folds_counters_and_frames_notes(tree, import_json, query):
    report = import_json(tree({"MEMORY.md": memory_md()}))
    assert report["skipped_by_reason"] == {
        "exact duplicate": 9,  # the copies of 500, 800 and 1000
        "near duplicate (template)": 9,
        "near duplicate (jaccard)": 1,  # the note whose boilerplate has a typo
    }
    live = [c for (c,) in query("SELECT content FROM entries WHERE merged_into IS NULL")]
    assert {c for c in live if "定投" in c} == {invest(500), invest(800), invest(1000)}
    assert sum("同步日志" in c for c in live) == 1
    assert sum(c.startswith(BOILERPLATE[:20]) for c in live) == len(NOTES)


def test_dedupe_dry_run_explains_what_it_would_fold(tree, import_json, run, db_path, query):
    import_json(tree({"MEMORY.md": memory_md()}))
    # Undo the import's merges, as if the entries came from an older memctl.
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE entries SET merged_into = NULL, status = 'active'")
    conn.close()
    before = db_path.read_bytes()
    dry = run("dedupe", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert db_path.read_bytes() == before
    result = orjson.loads(dry.stdout)
    assert result["by_layer"] == {"template": 9, "jaccard": 1}
    template = result["merges"]["template"]
    assert {m["why"] for m in template} == {
        "template family «同步日志:第#批记录已写入本地缓存,耗时 # 毫秒» (10 records), "
        "10 slot values"
    }
    (framed,) = result["merges"]["jaccard"]
    assert framed["why"].endswith("(boilerplate set aside)")
    assert {framed["dup_content"][-len(NOTES[2]) :], framed["into_content"][-len(NOTES[2]) :]} == {
        NOTES[2]
    }
    shown = run("dedupe", "--dry-run")  # the table a person reads
    assert "(10 records), 10 slot values" in shown.stdout and "(boilerplate set" in shown.stdout
    assert "would merge 10" in shown.stderr
