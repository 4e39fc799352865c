"""memctl.segment: the one module that loads jieba, quietly, for search, classify and dedupe."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memctl"


def _imports_jieba(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name.split(".")[0] == "jieba" for name in names):
            return True
    return False


def test_only_the_segment_module_imports_jieba() -> None:
    importers = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")]
    assert {name for name in importers if _imports_jieba(PACKAGE / name)} == {"segment.py"}


def test_first_search_segmentation_is_quiet(tmp_path: Path) -> None:
    code = "from memctl.segment import words; print(' '.join(words('我住在上海')))"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["我", "住", "在", "上海"]
    assert done.stderr == ""


def test_dedupe_classify_and_search_share_one_loaded_dictionary() -> None:
    from memctl import segment
    from memctl.dedupe.simhash import Tokenizer

    Tokenizer.words("预热")
    segment.cut("预热")
    segment.words("预热")
    assert Tokenizer._jieba is segment.jieba()


def test_lexicon_words_stay_out_of_the_shared_dictionary() -> None:
    from memctl import segment

    segment.add_words(frozenset({"甲乙丙丁戊"}))  # in no test's text
    assert segment.cut("甲乙丙丁戊") == ["甲乙丙丁戊"]
    assert "甲乙丙丁戊" not in segment.jieba().dt.FREQ
