"""Reading input files as numbered lines, safely: BOMs, UTF-16, CRLF, invalid UTF-8, huge lines.

Lines are split on "\\n" only (never on the other characters `str.splitlines` treats as breaks),
so line numbers match what an editor shows. A line that cannot be decoded or is over the size
limit becomes a Rejection; the lines around it are still read.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from memctl.models import Rejection

MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
SNIFF_BYTES = 8192

Line = tuple[int, str]


def utf16_codec(head: bytes) -> str | None:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return None


def looks_binary(head: bytes) -> bool:
    """NUL bytes in the first block of a file that is not UTF-16."""
    return utf16_codec(head) is None and b"\x00" in head


def iter_lines(path: Path) -> Iterator[Line | Rejection]:
    """(line number, text without its line ending) for each line; Rejection for a bad one."""
    shown = str(path)
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
        f.seek(0)
        if codec := utf16_codec(head):
            yield from _iter_utf16(path, codec)
            return
        number = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                size = len(raw) + _skip_rest_of_line(f)
                yield Rejection(shown, number, f"line too long ({size:,} bytes, limit 8 MiB)")
                continue
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            raw = raw.rstrip(b"\n").rstrip(b"\r")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Rejection(shown, number, f"invalid UTF-8 at byte {exc.start}")
                continue
            if "\x00" in text:
                yield Rejection(shown, number, "NUL byte in line")
                continue
            yield number, text


def _skip_rest_of_line(f: object) -> int:
    skipped = 0
    while True:
        chunk = f.readline(1024 * 1024)  # type: ignore[attr-defined]
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped


# Put where a UTF-16 code unit could not be decoded: a lone surrogate, which decoding valid
# UTF-16 never gives, so the line holding it is rejected and the others are read.
_INVALID = "\udfff"


def _mark_invalid(exc: UnicodeError) -> tuple[str, int]:
    assert isinstance(exc, UnicodeDecodeError)
    return _INVALID, exc.end


codecs.register_error("memctl-utf16", _mark_invalid)
_CHUNK_BYTES = 1024 * 1024


def _iter_utf16(path: Path, codec: str) -> Iterator[Line | Rejection]:
    """Like the UTF-8 path: decoded a piece at a time, split on "\n", a bad line rejected."""
    shown = str(path)
    limit = MAX_LINE_BYTES // 2  # code units
    decoder = codecs.getincrementaldecoder(codec)(errors="memctl-utf16")
    pending = ""  # the line read so far
    skipped = 0  # characters of an over-long line thrown away so far
    number = 0
    with path.open("rb") as f:
        while True:
            raw = f.read(_CHUNK_BYTES)
            text = decoder.decode(raw, final=not raw)
            if number == 0 and not pending and not skipped:
                text = text.removeprefix("\ufeff")
            *complete, rest = (pending + text).split("\n") if not skipped else text.split("\n")
            for line in complete:
                number += 1
                if skipped or _units(line) > limit:
                    size = skipped * 2 + len(line.encode("utf-16-le", "surrogatepass"))
                    yield Rejection(shown, number, f"line too long ({size:,} bytes, limit 8 MiB)")
                    skipped = 0
                else:
                    yield _utf16_line(shown, number, line)
            if skipped or _units(rest) > limit:
                skipped, pending = skipped + _units(rest), ""
            else:
                pending = rest
            if not raw:
                break
    if skipped:
        yield Rejection(shown, number + 1, f"line too long ({skipped * 2:,} bytes, limit 8 MiB)")
    elif pending:
        yield _utf16_line(shown, number + 1, pending)


def _units(text: str) -> int:
    """UTF-16 code units of `text` (characters beyond the BMP take two), exact above half the
    line limit; below it, where it cannot matter, its length."""
    if len(text) * 2 <= MAX_LINE_BYTES // 2:
        return len(text)
    return len(text) + sum(1 for c in text if c > "\uffff")


def _utf16_line(shown: str, number: int, line: str) -> Line | Rejection:
    if _INVALID in line:
        return Rejection(shown, number, "invalid UTF-16 in line")
    if "\x00" in line:
        return Rejection(shown, number, "NUL byte in line")
    return number, line.rstrip("\r")


def read_document(path: Path) -> bytes | Rejection:
    """The whole file as UTF-8 bytes (BOM stripped, UTF-16 transcoded) for JSON documents."""
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        return Rejection(str(path), 0, f"file too large for a JSON document ({size:,} bytes)")
    data = path.read_bytes()
    if codec := utf16_codec(data[:2]):
        try:
            return data.decode(codec).encode("utf-8")
        except UnicodeDecodeError as exc:
            return Rejection(str(path), 0, f"invalid UTF-16 at byte {exc.start}")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    return data


def iso_time(value: object) -> str | None:
    """A timestamp as ISO 8601: epoch seconds or milliseconds become UTC; strings pass through."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            moment = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None
