"""Which reader a file needs: by name first, then by a look at its first bytes. Never a guess:
a file that fits no reader is reported as unsupported."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from memctl.ingest.formats import FORMATS
from memctl.ingest.jsondoc import UnknownFormat, read_json
from memctl.ingest.jsonl import read_jsonl
from memctl.ingest.markdown import read_markdown
from memctl.ingest.textio import SNIFF_BYTES, looks_binary, utf16_codec
from memctl.models import Record, Rejection

Reader = Callable[[Path], Iterator[Record | Rejection]]

READERS: dict[str, Reader] = {"markdown": read_markdown, "jsonl": read_jsonl, "json": read_json}

# Files agents keep beside their memory that list sessions and hold none: never read as records.
INDEXES = {
    "session_index.jsonl": "Codex session index (a thread name per session id): an index of "
    "sessions, not memories or messages",
}
_MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx", ".txt"}
_JSONL_SUFFIXES = {".jsonl", ".ndjson"}

__all__ = ["FORMATS", "READERS", "UnknownFormat", "detect"]


def detect(path: Path) -> str:
    """The reader family for `path`; raises UnknownFormat with the reason when there is none."""
    with path.open("rb") as f:
        head = f.read(SNIFF_BYTES)
    if looks_binary(head):
        raise UnknownFormat("binary file")
    name = path.name.lower()
    if name in INDEXES:
        raise UnknownFormat(INDEXES[name])
    suffix = path.suffix.lower()
    # OpenClaw archives transcripts as `<id>.jsonl.reset.<ISO>` / `.jsonl.deleted.<ISO>`.
    if suffix in _JSONL_SUFFIXES or ".jsonl." in name:
        # A first line that is only "{" or "[" is no JSON line: an indented document named
        # .jsonl (`memctl export -o backup.jsonl`), which line by line would be all rejections.
        return "json" if _opens_a_document(head) else "jsonl"
    if suffix == ".json":
        return "json"
    if suffix in _MARKDOWN_SUFFIXES:
        return "markdown"
    return _sniff(head)


def _opening(head: bytes) -> bytes:
    """The file's first bytes as UTF-8, without a byte-order mark or leading white space."""
    if codec := utf16_codec(head):
        head = head.decode(codec, errors="ignore").encode()
    return head.lstrip(b"\xef\xbb\xbf").lstrip()


def _opens_a_document(head: bytes) -> bool:
    lines = _opening(head).split(b"\n", 1)
    return len(lines) == 2 and lines[0].strip() in (b"{", b"[")


def _sniff(head: bytes) -> str:
    text = _opening(head)
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        try:
            if isinstance(orjson.loads(first), dict):
                return "jsonl"
        except orjson.JSONDecodeError:
            pass
        return "json"
    if text.startswith(b"["):
        return "json"
    raise UnknownFormat("not a known memory or transcript format (no .md/.jsonl/.json name)")
