"""Big files are accepted and classified by a forked worker and the main process together; the
result must equal doing it all in the main process."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import memctl.importer as importer
import memctl.parallel as parallel
from memctl.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COLUMNS = "content, realm, layer, status, audience, importance, confidence, expires_at, " \
    "review_reasons, fact_key, fact_value, merged_into"  # fmt: skip
# Everything but times: the heading path (redacted by whichever process accepted the record)
# and how each record was merged.
SOURCE_COLUMNS = "entry_id, path, line, format, session_id, role, ts, section, raw_hash, " \
    "merge_layer, merge_score"  # fmt: skip


_INIT = parallel.Shared.__init__


def _entries(
    db: Path, extra: Path, monkeypatch: pytest.MonkeyPatch, threshold: int, forks: list[bool]
) -> list[tuple]:
    monkeypatch.setattr(importer, "PARALLEL_MIN", threshold)
    monkeypatch.setattr(parallel, "CHUNK", 3)  # the fixtures' files are small: many chunks each

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        _INIT(self, *args, **kwargs)
        forks.append(self._proc is not None)

    monkeypatch.setattr(parallel.Shared, "__init__", counting_init)
    if threshold == 1:  # the main process slowed down, so that the worker does most of the work
        parent = os.getpid()
        for name in ("_accept_to_ship", "_classified"):
            fn = getattr(importer, name)

            def slowed(*args, fn=fn):  # type: ignore[no-untyped-def]
                if os.getpid() == parent:
                    time.sleep(0.005)
                return fn(*args)

            monkeypatch.setattr(importer, name, slowed)
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
