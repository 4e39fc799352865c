"""memctl.segment: the one module that loads jieba, quietly, for search, classify and dedupe;
and query_words: the same search terms as words(), from the on-disk copy of jieba's dictionary
(so `memctl context` does not load the whole dictionary), and never worse off without it."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memctl import segment
from memctl.segment import query_words, words

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


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

TEXTS = [
    "部署流程",
    "我想吃北京烤鸭，还有拿铁要燕麦奶",
    "中华人民共和国成立了",
    "周五 18:00 前发周报给老板 (weekly report)",
    "I like green tea and the Shanghai office's CI/CD pipeline v2.3",
    "用户喜欢用 vim 写 Python3 代码，不喜欢 VS Code",
    "《三体》里的叶文洁——“给岁月以文明”",
    "abc123def 456 _under_score_ e-mail a.b@c.d 100% C++ C#",
    "",
    "   ",
    "😀 emoji 和 中文 mixed",
]


def fixture_lines() -> list[str]:
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".jsonl", ".json", ".txt"):
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [line for line in text.splitlines() if line.strip()][:40]
    return found


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(segment, "_tried", set())
    segment._saved_dictionary.cache_clear()
    yield tmp_path / "cache"
    segment._saved_dictionary.cache_clear()


def saved_file() -> Path:
    path = segment._dictionary_file()
    assert path is not None
    return path


@pytest.mark.slow
def test_the_same_terms_as_words_on_every_fixture_line(fresh_cache: Path) -> None:
    words("预热")  # loads jieba and writes the copy
    assert saved_file().is_file()
    lines = TEXTS + fixture_lines()
    assert len(lines) > 300
    for text in lines:
        assert query_words(text) == words(text), text


def test_the_copy_is_what_answers(fresh_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    words("预热")
    calls = []
    monkeypatch.setattr(segment, "words", lambda text: calls.append(text) or [])
    assert query_words("北京烤鸭") == ["北京", "烤鸭", "北京烤鸭"]
    assert calls == []  # not the fallback


def test_without_a_copy_it_falls_back_and_writes_one(fresh_cache: Path) -> None:
    assert not saved_file().exists()
    assert query_words("北京烤鸭") == ["北京", "烤鸭", "北京烤鸭"]
    assert saved_file().is_file()


def test_a_damaged_copy_is_not_used_and_is_written_again(fresh_cache: Path) -> None:
    path = saved_file()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all" * 100)
    assert query_words("北京烤鸭") == ["北京", "烤鸭", "北京烤鸭"]
    segment._saved_dictionary.cache_clear()
    assert segment._saved_dictionary(path) is not None  # replaced by a good copy


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_an_unwritable_cache_directory_only_means_no_copy(fresh_cache: Path) -> None:
    fresh_cache.mkdir()
    fresh_cache.chmod(0o500)
    try:
        assert query_words("北京烤鸭") == ["北京", "烤鸭", "北京烤鸭"]
        assert not saved_file().exists()
    finally:
        fresh_cache.chmod(0o700)


def test_a_cache_path_that_is_a_file_only_means_no_copy(fresh_cache: Path) -> None:
    fresh_cache.write_text("a file where the cache directory would be")
    assert query_words("北京烤鸭") == ["北京", "烤鸭", "北京烤鸭"]
    assert not saved_file().exists()


def test_an_unusable_cache_path_never_raises(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """stat() errors other than 'no such file' (a name too long here; permission denied for
    a non-root user) must not reach the user: no copy, the same words."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ("x" * 300)))
    assert words("我住在北京") == ["我", "住", "在", "北京"]
    assert query_words("我住在北京") == ["我", "住", "在", "北京"]


def test_a_relative_cache_home_is_ignored_as_the_xdg_spec_says(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    words("北京")
    path = segment._dictionary_file()
    assert path is not None and path.is_relative_to(tmp_path / "home" / ".cache")
    assert segment._saved_dictionary(path) is not None


def test_a_very_long_query_is_cut_the_ordinary_way(
    fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking up every substring of a long text costs more than loading the dictionary."""
    words("预热")
    looked_up = []
    monkeypatch.setattr(
        segment._SavedDictionary, "tokenizer_for", lambda self, text: looked_up.append(text)
    )
    text = "北京烤鸭" * 2_000
    assert query_words(text) == words(text)
    assert looked_up == []


def test_leftovers_of_a_killed_writer_are_cleaned_up(fresh_cache: Path) -> None:
    folder = saved_file().parent
    folder.mkdir(parents=True)
    old, fresh = folder / "tmpold.tmp", folder / "tmpfresh.tmp"  # fresh: a writer at work
    for leftover in (old, fresh, folder / "tmpold.tmp-journal"):
        leftover.write_bytes(b"half a copy")
    os.utime(old, (0, 0))
    os.utime(folder / "tmpold.tmp-journal", (0, 0))
    words("北京")
    assert saved_file().is_file()
    copies = {saved_file(), *folder.glob("*.bin")}  # (jieba()'s own copies, if it wrote them)
    assert sorted(p.name for p in folder.iterdir() if p not in copies) == ["tmpfresh.tmp"]


_LOADED = """
import hashlib, sys
from memctl import segment
from memctl.classify import kin
if sys.argv[1] == "jieba":
    import jieba, jieba.posseg as posseg
    jieba.initialize()
    tokenizer, tags = jieba.dt, posseg.dt.word_tag_tab
else:
    tokenizer, tags = segment.jieba().dt, kin.posseg().dt.word_tag_tab
loaded = [list(tokenizer.FREQ.items()), tokenizer.total, list(tags.items())]
digest = hashlib.sha256(repr(loaded).encode())
print(digest.hexdigest(), kin.posseg().lcut("我妈妈叫王小红，住在北京"))
"""


def _loaded(how: str, cache: Path) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    run = subprocess.run([sys.executable, "-c", _LOADED, how], env=env, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode()


def test_jiebas_dictionary_and_tags_from_the_copies_are_jiebas_own(tmp_path: Path) -> None:
    """jieba() and kin.posseg() load memctl's copies when there are: the same entries in the
    same order, the same total, the same tags; a copy cut short is loaded the usual way."""
    cache = tmp_path / "cache"
    own = _loaded("jieba", cache)
    assert _loaded("memctl", cache) == own  # writes the copies
    copies = sorted(cache.rglob("*.bin"))
    assert [p.name.split("-")[-1] for p in copies] == ["prefixes1.bin", "tags1.bin"]
    assert _loaded("memctl", cache) == own  # reads them
    for copy in copies:
        copy.write_bytes(copy.read_bytes()[: len(copy.read_bytes()) // 2])
    assert _loaded("memctl", cache) == own
