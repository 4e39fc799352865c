"""pickle and sqlite3 ask a string for its UTF-8 form, which CPython then keeps inside a
non-ASCII string for as long as it lives: an import hands them copies of its texts
(models.unshared), so the texts it keeps stay their own size."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from memctl.importer import import_records
from memctl.importer.accept import Accepted, accept
from memctl.importer.classify import job
from memctl.models import MESSAGE, Record, unshared
from memctl.store import Store, UserStore

# Invented lines, long and in Chinese (two bytes a character as a str, three in UTF-8).
TEXT = "用户每周三晚上去社区图书馆做志愿者，负责整理旧报纸和儿童绘本。" * 6


def _grown(text: str) -> int:
    """Bytes the string gained since it was made (0: no UTF-8 form kept in it)."""
    return sys.getsizeof(text) - sys.getsizeof(text[:-1]) - 2


def test_a_pickled_record_keeps_its_text_and_every_field() -> None:
    record = Record(
        TEXT + "x", "笔记/a.md", 7, "markdown", MESSAGE, "user", "2026-01-02", "s1", "m1",
        "节 > 小节", "profile", "列 | 值", "why", {"realm": "work"},
    )  # fmt: skip
    before = _grown(record.text)
    copy = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    assert copy == record
    assert _grown(record.text) == before == 0
    # Without the copy, the text would have kept its UTF-8 form: the test can tell.
    pickle.dumps(record.text, protocol=pickle.HIGHEST_PROTOCOL)
    assert _grown(record.text) > 0


def test_unshared_copies_only_what_needs_it() -> None:
    text = TEXT + "y"
    assert unshared(text) == text and unshared(text) is not text
    ascii_text = "plain ascii"
    assert unshared(ascii_text) is ascii_text


def test_a_job_sent_to_the_worker_leaves_the_text_alone() -> None:
    a = accept(Record(TEXT + "z", "a.json", 1, "memories-json"))
    assert isinstance(a, Accepted)
    pickle.dumps(job(a), protocol=pickle.HIGHEST_PROTOCOL)
    assert _grown(a.content) == 0


def test_written_entries_leave_the_texts_kept_their_size(db_path: Path) -> None:
    store = Store.open(db_path)
    try:
        records = [Record(f"{TEXT}第{i}条", "notes.json", i, "memories-json") for i in range(3)]
        report = import_records(UserStore(store, "default"), "notes.json", records)
        assert report.added == 3
        assert all(_grown(r.text) == 0 for r in records)
        stored = [r[0] for r in store.conn.execute("SELECT content FROM entries ORDER BY id")]
        assert stored == [r.text for r in records]
    finally:
        store.close()
