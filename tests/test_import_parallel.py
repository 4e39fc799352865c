"""Big batches are classified by a forked worker and the main process together; the result must
equal inline classification."""

from __future__ import annotations

from pathlib import Path

import pytest

import memctl.importer as importer
import memctl.parallel as parallel
from memctl.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COLUMNS = "content, realm, layer, status, audience, importance, confidence, expires_at, " \
    "review_reasons, fact_key, fact_value, merged_into"  # fmt: skip


_INIT = parallel.Shared.__init__


def _entries(
    db: Path, monkeypatch: pytest.MonkeyPatch, threshold: int, forks: list[bool]
) -> list[tuple]:
    monkeypatch.setattr(importer, "PARALLEL_MIN", threshold)
    monkeypatch.setattr(parallel, "CHUNK", 3)  # the fixtures' files are small: many chunks each

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        _INIT(self, *args, **kwargs)
        forks.append(self._proc is not None)

    monkeypatch.setattr(parallel.Shared, "__init__", counting_init)
    store = Store.open(db)
    try:
        importer.import_paths(store.for_user("u"), [FIXTURES])
        return store.conn.execute(f"SELECT {COLUMNS} FROM entries ORDER BY id").fetchall()
    finally:
        store.close()


def test_workers_classify_exactly_like_the_main_process(tmp_path, monkeypatch):
    inline_forks: list[bool] = []
    forked_forks: list[bool] = []
    inline = _entries(tmp_path / "inline.db", monkeypatch, 10**9, inline_forks)
    forked = _entries(tmp_path / "forked.db", monkeypatch, 1, forked_forks)
    assert not any(inline_forks) and sum(forked_forks) >= 3
    assert len(inline) > 50
    assert [tuple(r) for r in forked] == [tuple(r) for r in inline]
