"""Big files are accepted and classified by a forked worker and the main process together; the
result must equal doing it all in the main process."""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path

import orjson
import pytest

import memctl.importer as importer
import memctl.importer.accept as accepting
import memctl.importer.classify as classifying
import memctl.importer.read as reading
import memctl.parallel as parallel
from memctl.models import Record
from memctl.store import Store

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
COLUMNS = "content, realm, layer, status, audience, importance, confidence, expires_at, " \
    "review_reasons, fact_key, fact_value, merged_into"  # fmt: skip
# Everything but times: the heading path (redacted by whichever process accepted the record)
# and how each record was merged.
SOURCE_COLUMNS = "entry_id, path, line, format, session_id, role, ts, section, raw_hash, " \
    "merge_layer, merge_score"  # fmt: skip


_INIT = parallel.Shared.__init__


def _entries(
    db: Path,
    extra: Path,
    monkeypatch: pytest.MonkeyPatch,
    threshold: int,
    forks: list[bool],
    helper_bytes: int = 10**12,
) -> list[tuple]:
    monkeypatch.setattr(accepting, "PARALLEL_MIN", threshold)
    monkeypatch.setattr(accepting, "HELPER_MIN_BYTES", helper_bytes)
    monkeypatch.setattr(parallel, "CHUNK", 3)  # the fixtures' files are small: many chunks each

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        _INIT(self, *args, **kwargs)
        forks.append(self._proc is not None or self._lent is not None)

    monkeypatch.setattr(parallel.Shared, "__init__", counting_init)
    if threshold == 1:  # the main process slowed down, so that the worker does most of the work
        parent = os.getpid()
        for module, name in ((accepting, "ship"), (classifying, "classified")):
            fn = getattr(module, name)

            def slowed(*args, fn=fn):  # type: ignore[no-untyped-def]
                if os.getpid() == parent:
                    time.sleep(0.005)
                return fn(*args)

            monkeypatch.setattr(module, name, slowed)
    store = Store.open(db)
    try:
        report = importer.import_paths(store.for_user("u"), [FIXTURES, extra])
        entries = store.conn.execute(f"SELECT {COLUMNS} FROM entries ORDER BY id").fetchall()
        sources = store.conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources ORDER BY id")
        rejected = [(r.path, r.line, r.reason) for r in report.rejected]
        assert "Hunter2" not in str(sources := [tuple(r) for r in sources])
        return [tuple(r) for r in entries] + sources + rejected
    finally:
        store.close()


@pytest.mark.slow
def test_workers_accept_and_classify_exactly_like_the_main_process(tmp_path, monkeypatch):
    inline_forks: list[bool] = []
    forked_forks: list[bool] = []
    extra = tmp_path / "MEMORY.md"  # a credential in a heading, over many records
    bullets = "".join(f"- 用户的第{i}个偏好是绿茶\n" for i in range(12))
    extra.write_text(f"# MEMORY\n\n## Keys (password: Hunter2-secret-99)\n\n{bullets}")
    inline = _entries(tmp_path / "inline.db", extra, monkeypatch, 10**9, inline_forks)
    forked = _entries(tmp_path / "forked.db", extra, monkeypatch, 1, forked_forks)
    assert not any(inline_forks) and sum(forked_forks) >= 3
    assert len(inline) > 50
    assert forked == inline


@pytest.mark.slow
def test_a_worker_forked_before_reading_accepts_and_classifies_like_the_main_process(
    tmp_path, monkeypatch
):
    """The import's worker forked before any file is read (parallel.Helper), each chunk sent to
    it: the same entries, sources and rejections as doing it all in the main process."""
    extra = tmp_path / "MEMORY.md"
    bullets = "".join(f"- 用户的第{i}个偏好是绿茶\n" for i in range(12))
    extra.write_text(f"# MEMORY\n\n## Keys (password: Hunter2-secret-99)\n\n{bullets}")
    inline = _entries(tmp_path / "inline.db", extra, monkeypatch, 10**9, [])
    helpers: list[parallel.Helper] = []
    monkeypatch.setattr(
        accepting, "Helper", lambda: helpers.append(parallel.Helper()) or helpers[-1]
    )
    lent: list[bool] = []
    monkeypatch.setattr(parallel._Lent, "__init__", _counting(parallel._Lent.__init__, lent))
    # (2, not 1: the main process is not slowed down, its slowed functions cannot be sent.)
    helped = _entries(tmp_path / "helped.db", extra, monkeypatch, 2, [], helper_bytes=1)
    assert len(helpers) == 1 and not helpers[0].alive  # one for the run, ended with it
    assert len(lent) >= 3  # accepting and classifying of several files went to it
    assert helped == inline


def _counting(init, calls: list[bool]):  # type: ignore[no-untyped-def]
    def counted(self, *args):  # type: ignore[no-untyped-def]
        calls.append(True)
        init(self, *args)

    return counted


SECRET = "api_key=ZZsecret12345678"


def _export(path: Path, n: int) -> None:
    memories = [
        {
            "id": i, "content": f"memory number {i} about topic {i * 7919}", "status": "active",
            "review_reasons": f"note {SECRET}",
            "sources": [{"path": "orig.md", "line": i, "section": f"H {SECRET}"}],
        }
        for i in range(1, n + 1)
    ]  # fmt: skip
    path.write_bytes(orjson.dumps({"version": 1, "user": "u", "memories": memories}))


def test_a_restored_exports_credentials_are_redacted_whichever_process_accepts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker redacts a record's restored fields in its own copy: they must come back."""
    monkeypatch.setattr(accepting, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "CHUNK", 5)
    parent = os.getpid()
    accept = accepting.ship

    def slowed(record):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            time.sleep(0.002)  # the worker accepts most of them
        return accept(record)

    monkeypatch.setattr(accepting, "ship", slowed)
    src = tmp_path / "export.json"
    _export(src, 300)
    store = Store.open(tmp_path / "m.db")
    try:
        report = importer.import_paths(store.for_user("u"), [src])
        dump = "\n".join(store.conn.iterdump())
    finally:
        store.close()
    assert report.added == 300
    assert "ZZsecret" not in dump
    assert dump.count("[REDACTED:") >= 600


def test_accepting_changes_nothing_in_a_record_but_its_heading_and_restored_fields(
    tmp_path: Path,
) -> None:
    """What a worker ships back (accept.Shipped) covers everything accepting changes."""
    _export(tmp_path / "export.json", 3)
    (tmp_path / "MEMORY.md").write_text(f"## Keys ({SECRET})\n\n- 用户喜欢绿茶 {SECRET}\n")
    records = [
        item
        for path in [
            *sorted(FIXTURES.rglob("*.*")),
            tmp_path / "export.json",
            tmp_path / "MEMORY.md",
        ]
        for item in (reading.records(path, None, importer.ImportReport()) or [])
        if isinstance(item, Record)
    ]
    assert len(records) > 300
    for record in records:
        before = copy.deepcopy(record)
        accepting.accept(record)
        for name in Record.__slots__:
            if name not in ("section", "fields"):
                assert getattr(record, name) == getattr(before, name), (name, record)


def test_the_worker_sends_back_no_copy_of_what_it_left_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record the worker accepted unchanged keeps one text and one heading in the main
    process (the record's own objects), not a second, unpickled copy of each; what it changed
    (a redacted text or heading) comes back."""
    monkeypatch.setattr(accepting, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "CHUNK", 5)
    parent = os.getpid()
    ship = accepting.ship

    def slowed(record):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            time.sleep(0.002)  # the worker accepts most of them
        return ship(record)

    monkeypatch.setattr(accepting, "ship", slowed)
    plain = "## Tea\n"
    records = [
        Record(f"用户的第{i}个偏好是绿茶 number {i}", "MEMORY.md", i, "markdown", section=plain)
        for i in range(200)
    ]
    records[7] = Record(f"my {SECRET}", "MEMORY.md", 7, "markdown", section=f"Keys {SECRET}")
    sections = [r.section for r in records]
    out = accepting.accept_all(records)
    accepted = [a for a in out if isinstance(a, accepting.Accepted)]
    assert len(accepted) == 200
    kept = [i for i, a in enumerate(accepted) if i != 7]
    assert all(accepted[i].content is records[i].text for i in kept)
    assert all(records[i].section is sections[i] for i in kept)
    assert "ZZsecret" not in accepted[7].content and "ZZsecret" not in str(records[7].section)


def test_sources_written_in_blocks_are_those_written_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memctl.importer.write as writing

    got = []
    for block in (10**9, 2):
        monkeypatch.setattr(writing, "SOURCES_AT_ONCE", block)
        store = Store.open(tmp_path / f"{block}.db")
        try:
            importer.import_paths(store.for_user("u"), [FIXTURES])
            rows = store.conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources ORDER BY id")
            got.append([tuple(r) for r in rows])
        finally:
            store.close()
    assert len(got[0]) > 50
    assert got[1] == got[0]


@pytest.mark.parametrize(
    ("text", "loaded"), [("用户的妈妈叫王蕾，昨天她来了", True), ("I like tea", False)]
)
def test_a_big_chinese_import_loads_the_part_of_speech_cut_before_its_worker_forks(
    tmp_path, monkeypatch, text, loaded
):
    # Loaded after the fork (on a line with a kinship or a time word), the worker and the
    # main process each held a copy of its ~50 MiB; an English import never needs it.
    calls: list[str] = []
    monkeypatch.setattr(accepting.kin, "posseg", lambda: calls.append("posseg"))
    monkeypatch.setattr(accepting, "Helper", lambda: calls.append("fork"))
    monkeypatch.setattr(accepting, "HELPER_MIN_BYTES", 1000)
    big, small = tmp_path / "big.json", tmp_path / "small.md"
    big.write_bytes(orjson.dumps({"version": 1, "memories": [{"content": text}] * 100}))
    small.write_text("- 用户喜欢绿茶\n")  # too small to have its lines classified by the worker
    sizes = [big.stat().st_size, small.stat().st_size]
    accepting.helper_for([big, small], sizes)
    assert calls == (["posseg", "fork"] if loaded else ["fork"])
