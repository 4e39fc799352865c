"""UTF-16 files are read line by line like UTF-8 ones: a bad code unit or an over-long line
rejects its own line, the lines around it are read, and memory does not grow with the file."""

from __future__ import annotations

import codecs
import tracemalloc
from pathlib import Path

import pytest

from memctl.ingest.textio import MAX_LINE_BYTES, iter_lines
from memctl.models import Rejection


def read(path: Path) -> list[tuple[int, str] | tuple[int, str, str]]:
    out: list = []
    for item in iter_lines(path):
        out.append(("rejected", item.line, item.reason) if isinstance(item, Rejection) else item)
    return out


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_an_invalid_code_unit_rejects_only_its_line(tmp_path: Path, codec: str) -> None:
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    lone = b"\x00\xd8" if codec.endswith("le") else b"\xd8\x00"  # a lone high surrogate
    body = (
        "- 喜欢绿茶\r\n".encode(codec)
        + "- broken ".encode(codec) + lone + " here\n".encode(codec)
        + "- 我住在上海\n".encode(codec)
    )  # fmt: skip
    path = tmp_path / "wide.md"
    path.write_bytes(bom + body)
    assert read(path) == [
        (1, "- 喜欢绿茶"),
        ("rejected", 2, "invalid UTF-16 in line"),
        (3, "- 我住在上海"),
    ]


def test_an_over_long_utf16_line_is_rejected_without_holding_it(tmp_path: Path) -> None:
    path = tmp_path / "huge16.md"
    long = "y" * (MAX_LINE_BYTES // 2 + 10)  # over the limit in UTF-16 bytes
    path.write_bytes(("- before\n- " + long + "\n- after\n").encode("utf-16"))
    got = read(path)
    assert got[0] == (1, "- before") and got[2] == (3, "- after")
    assert got[1][0] == "rejected" and got[1][1] == 2 and "line too long" in got[1][2]


def test_no_final_line_break_and_a_truncated_last_code_unit(tmp_path: Path) -> None:
    path = tmp_path / "cut.md"
    path.write_bytes("- one\n- two".encode("utf-16") + b"\x41")  # odd byte count at the end
    assert read(path) == [(1, "- one"), ("rejected", 2, "invalid UTF-16 in line")]


@pytest.mark.slow
def test_a_big_utf16_file_is_streamed(tmp_path: Path) -> None:
    """Read in pieces, not decoded whole: reading 24 MB takes a few MB of memory at most."""
    path = tmp_path / "many.md"
    path.write_bytes("".join(f"- item {i:07d}\n" for i in range(800_000)).encode("utf-16"))
    assert path.stat().st_size > 20_000_000
    tracemalloc.start()
    try:
        count = sum(1 for item in iter_lines(path) if not isinstance(item, Rejection))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 800_000
    assert peak < 8_000_000, f"peak {peak:,} bytes"


def test_utf16_lines_read_like_the_same_text_in_utf8(tmp_path: Path) -> None:
    """Astral characters (even a noncharacter), CR runs before the line break: same lines."""
    text = "- 🐼 panda \U0010fffe ok\r\r\n- 𠀀𠀁 rare hanzi\n- last"
    wide, narrow = tmp_path / "wide.md", tmp_path / "narrow.md"
    wide.write_bytes(text.encode("utf-16"))
    narrow.write_bytes(text.encode("utf-8"))
    assert read(wide) == read(narrow)
    assert read(wide)[0] == (1, "- 🐼 panda \U0010fffe ok")
