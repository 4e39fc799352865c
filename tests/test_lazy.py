"""Start-up: a command loads only what it runs (see memctl/lazy.py; timed by
tests/bench/bench_startup.py, not here)."""

from __future__ import annotations

import subprocess
import sys

from memctl.dedupe import ALL_LAYERS
from memctl.dedupe.engine import JACCARD, SIMHASH, TEMPLATE
from memctl.ingest.detect import READERS
from memctl.ingest.formats import FORMATS


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sys.modules), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


def test_help_loads_neither_the_engine_nor_the_store_nor_jieba() -> None:
    loaded = _loaded_after(
        "import contextlib\nfrom memctl.cli import main\n"
        "with contextlib.suppress(SystemExit):\n"
        "    sys.argv = ['memctl', '--help']; main()"
    )
    assert "memctl.cli" in loaded
    # (memctl.importer and the other command modules are in sys.modules, as lazy modules not
    # run yet; what they import is not)
    heavy = {"numpy", "sqlite_utils", "jieba", "pydantic", "memctl.dedupe.engine",
             "memctl.classify", "memctl.ingest.detect", "rich.markdown"}  # fmt: skip
    assert not heavy & loaded


def test_jieba_loads_without_pkg_resources() -> None:
    loaded = _loaded_after("from memctl.segment import jieba\njieba().lcut('用户喜欢咖啡')")
    assert "jieba" in loaded and "pkg_resources" not in loaded


def test_the_light_lists_match_the_modules_they_stand_for() -> None:
    assert tuple(READERS) == FORMATS
    assert ALL_LAYERS == (TEMPLATE, JACCARD, SIMHASH)


def test_a_lazy_module_works_like_the_module() -> None:
    from memctl.cli import importer

    assert importer.import_paths.__name__ == "import_paths"


def test_opening_a_migrated_store_does_not_load_sqlite_utils(tmp_path) -> None:
    code = f"from pathlib import Path\nfrom memctl.store import Store\n" \
           f"Store.open(Path({str(tmp_path / 'm.db')!r})).close()"  # fmt: skip
    assert "sqlite_utils" in _loaded_after(code)  # a new database is migrated with sqlite-utils
    assert "sqlite_utils" not in _loaded_after(code)  # an up-to-date one needs nothing of it


def test_a_rerun_of_known_files_compiles_no_lexicon(tmp_path) -> None:
    # A cron job that imports unchanged files every hour pays for reading them, not for the
    # classifier's ~1,000 rules (over a second of start-up).
    note = tmp_path / "MEMORY.md"
    note.write_text("# MEMORY\n\n- Deploy only after make test passes\n", encoding="utf-8")
    db = tmp_path / "m.db"
    argv = ["memctl", "import", str(note), "--db", str(db)]
    run = f"import contextlib, sys\nfrom memctl.cli import main\nsys.argv = {argv!r}\n" + (
        "with contextlib.suppress(SystemExit):\n    main()\n"
        "from memctl.classify import rules\n"
        "print(rules.lexicon.cache_info().currsize, file=sys.stderr)"
    )
    first = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True)
    assert first.returncode == 0 and first.stderr.split()[-1] == "1", first.stderr
    again = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True)
    assert again.returncode == 0 and again.stderr.split()[-1] == "0", again.stderr
