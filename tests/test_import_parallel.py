"""Big batches are classified in forked workers; the result must equal inline classification."""

from __future__ import annotations

from pathlib import Path

import pytest

import memctl.importer as importer
from memctl.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COLUMNS = "content, realm, layer, status, audience, importance, confidence, expires_at, " \
    "review_reasons, fact_key, fact_value, merged_into"  # fmt: skip


def _entries(db: Path, monkeypatch: pytest.MonkeyPatch, threshold: int) -> list[tuple]:
    monkeypatch.setattr(importer, "PARALLEL_MIN", threshold)
    store = Store.open(db)
    try:
        importer.import_paths(store.for_user("u"), [FIXTURES])
        return store.conn.execute(f"SELECT {COLUMNS} FROM entries ORDER BY id").fetchall()
    finally:
        store.close()


def test_workers_classify_exactly_like_the_main_process(tmp_path, monkeypatch):
    inline = _entries(tmp_path / "inline.db", monkeypatch, threshold=10**9)
    forked = _entries(tmp_path / "forked.db", monkeypatch, threshold=1)
    assert len(inline) > 50
    assert [tuple(r) for r in forked] == [tuple(r) for r in inline]
