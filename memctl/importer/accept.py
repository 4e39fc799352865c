"""Stage 3, accept: each record is a memory to dedupe (with its text made safe), a skip with
its reason, or a rejection with its line.

A big file's records are shared with a forked worker: accepting (redaction, normalising, two
hashes) is a fifth of the main process's time in a big import, and the second core has nothing
else to do yet.
"""

from __future__ import annotations

import os
import re
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from memctl import CONTEXT_MARKER
from memctl.classify import classify, gate, kin, secrets
from memctl.ingest import noise
from memctl.ingest.markdown import EMPTY_LABEL
from memctl.ingest.restraint import judge
from memctl.models import AUDIENCES, LAYERS, MEMORY, MESSAGE, REALMS, STATUSES, Record, Rejection
from memctl.normalise import hash_canonical, normalise, raw_hash
from memctl.normalise import warm as warm_normalise
from memctl.parallel import Helper, Shared
from memctl.store.fields import RESTORABLE

MAX_RECORD_CHARS = 20_000
PARALLEL_MIN = 4000  # records (or new entries) in one file before a worker shares the work
# A file this big may hold PARALLEL_MIN records (a short JSON memory is ~100 bytes): an import
# with one forks its worker before reading anything (see parallel.Helper).
HELPER_MIN_BYTES = 256 * 1024

NONE_REDACTED: tuple[str, ...] = ()
OWN_CONTEXT = "memctl injected context"
EMPTY = "empty"
NOT_MEMORY = frozenset((*noise.REASONS, EMPTY_LABEL))


class Accepted(NamedTuple):
    """A record that is a memory: its text as stored (redacted), and the hashes L1 keys on."""

    record: Record
    content: str
    norm_hash: str
    raw_hash: str
    category: str | None  # what restraint took a transcript message for
    redacted: Sequence[str]  # kinds of credentials replaced in it


@dataclass
class Verdicts:
    """A file's items, sorted by what accepting them decided."""

    accepted: list[Accepted] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    rejected: list[Rejection] = field(default_factory=list)
    # Records of memory files that are not memories, quoted (redacted) for a person to check.
    not_memory: list[dict[str, Any]] = field(default_factory=list)


def sort(items: list[Record | Rejection], helper: Helper | None = None) -> Verdicts:
    """Accept a file's records, keeping the readers' rejections in line order."""
    out = Verdicts()
    outcomes = iter(accept_all([i for i in items if isinstance(i, Record)], helper))
    for item in items:
        if isinstance(item, Rejection):
            out.rejected.append(item)
            continue
        outcome = next(outcomes)
        if isinstance(outcome, str):
            out.skipped[outcome] += 1
            if outcome in NOT_MEMORY:
                shown = secrets.redact(item.text)[0][:80]
                out.not_memory.append(
                    {"path": item.path, "line": item.line, "reason": outcome, "text": shown}
                )
        elif isinstance(outcome, Rejection):
            out.rejected.append(outcome)
        else:
            out.accepted.append(outcome)
    return out


def helper_for(files: Sequence[Path], sizes: Sequence[int]) -> Helper | None:
    """A worker for an import whose biggest file is big (sizes in bytes), forked now, before
    any file is read, with everything it will need loaded first; None for a small import."""
    if max(sizes, default=0) < HELPER_MIN_BYTES or (os.cpu_count() or 1) < 2:
        return None
    warm()
    # jieba's part-of-speech cut (a tag for each dictionary word), which classifying a Chinese
    # line with a kinship or a time word loads: loaded after the fork, the worker and this
    # process each held their own (200k Chinese boilerplate notes: the tree's peak ~55 MiB
    # higher). Not for an import with no Chinese at its start: English never loads it.
    big = [f for f, size in zip(files, sizes, strict=True) if size >= HELPER_MIN_BYTES]
    if any(map(_chinese_at_start, big)):
        kin.posseg()
    return Helper()


_CHINESE = re.compile("[\u3400-\u9fff]")
_START_BYTES = 64 * 1024


def _chinese_at_start(path: Path) -> bool:
    """Whether the whole lines among the first bytes of a file hold a Chinese character
    (written as UTF-8). A line that does not end there is left out: it may be one too long to
    import (read rejects it), whose reading must not load anything more."""
    try:
        with path.open("rb") as f:
            start = f.read(_START_BYTES)
    except OSError:
        return False  # read.records reports it
    lines = start[: start.rfind(b"\n") + 1] if len(start) == _START_BYTES else start
    return _CHINESE.search(lines.decode("utf-8", "ignore")) is not None


def warm() -> None:
    """Load what accepting and classifying need (so that a worker forked after shares it)."""
    warm_normalise()
    noise.judge("")
    secrets.redact("")
    # The classifier's lexicons and dictionary, their patterns compiled.
    classify("预热")
    gate.compile_all()


def accept_all(
    records: list[Record], helper: Helper | None = None
) -> list[Accepted | Rejection | str]:
    """`accept` for each record, in order, on both cores for a big file.

    Records alike in all that accepting reads (text, kind, format, heading, skip; path and line
    only name a rejection) are accepted once: a legacy file repeats lines (the samples shape:
    28 % of its records, near copies' 52 %). A restored export's fields are its own: such a
    record is accepted on its own."""
    seen: dict[tuple[str, str, str, str | None, str | None], int] = {}
    unique: list[Record] = []
    where = array("q")  # for each record, the index of the first alike in `unique`
    for record in records:
        index = len(unique)
        if not record.fields:
            key = (record.text, record.kind, record.format, record.section, record.skip)
            index = seen.setdefault(key, index)
        if index == len(unique):
            unique.append(record)
        where.append(index)
    del seen
    fork = len(unique) >= PARALLEL_MIN
    if fork:
        warm_normalise()
    shared = Shared(unique, ship, fork=fork, helper=helper if fork else None)
    verdicts: list[Shipped | Rejection | str | None] = [None] * len(unique)
    try:
        if fork:
            # Meanwhile the classifier's lexicons and dictionary load here, once, before the
            # classification worker is forked (it shares them); the share of records taken
            # below shrinks to match.
            classify("预热")
            # So does jieba's part-of-speech cut, if a line may name a relative in Chinese:
            # loaded later (confidential.people), the classification worker would wait.
            kin.warm(r.text for r in unique)
        for start, results in shared.results():
            verdicts[start : start + len(results)] = results
    finally:
        shared.close()
    out: list[Accepted | Rejection | str] = []
    for record, index in zip(records, where, strict=True):
        verdict = verdicts[index]
        assert verdict is not None
        if isinstance(verdict, Rejection) and record is not unique[index]:
            out.append(Rejection(record.path, record.line, verdict.reason))
        elif isinstance(verdict, tuple):
            content, norm_hash, rhash, category, redacted, section, fields = verdict
            # None: as the record has it already (no second copy of each text in memory).
            content = record.text if content is None else content
            if section is not None:
                record.section = section
            if fields is not None:
                record.fields = fields
            # Most records have none: one empty tuple for all (a list each was 56 bytes).
            if not redacted:
                redacted = NONE_REDACTED
            elif record is not unique[index]:
                redacted = list(redacted)  # each its own, as if accepted alone
            out.append(Accepted(record, content, norm_hash, rhash, category, redacted))
        else:
            out.append(verdict)
    return out


# What a worker sends back for an accepted record: the Accepted fields but the record (the
# main process has it), plus what accepting changed in the record: its heading path and
# restored export fields, redacted (tests/importer/test_parallel.py checks nothing else changes).
# The text, heading and fields are None where they are the record's own, unchanged: the main
# process keeps the record's strings rather than an unpickled copy of each.
Shipped = tuple[str | None, str, str, str | None, Sequence[str], str | None, dict[str, Any] | None]


def ship(record: Record) -> Shipped | Rejection | str:
    section = record.section
    outcome = accept(record)
    if isinstance(outcome, Accepted):
        a = outcome
        return (
            None if a.content == record.text else a.content, a.norm_hash, a.raw_hash,
            a.category, a.redacted, None if record.section == section else record.section,
            record.fields or None,
        )  # fmt: skip
    return outcome


def accept(record: Record) -> Accepted | Rejection | str:
    """Decide one record: accepted (with its memory text), rejected, or a skip reason."""
    if CONTEXT_MARKER in record.text:
        return OWN_CONTEXT
    if record.skip:
        return record.skip
    # Logs, unfilled template slots and remarks about the file: in a memory file, not memories.
    if (
        record.kind == MEMORY
        and record.format != "memctl-export"
        and (why := noise.judge(record.text))
    ):
        return why
    if record.fields and (why := _invalid_export_field(record.fields)):
        return Rejection(record.path, record.line, why)
    category = None
    content = record.text.strip()
    if record.kind == MESSAGE:
        verdict = judge(record.text)
        if verdict.category is None:
            return verdict.reason or "not memorable"
        category, content = verdict.category, verdict.text
    # Credentials never reach the store in clear: the entry keeps the text with each one
    # replaced by "[REDACTED:<kind>]", and the report lists where.
    content, redacted = secrets.redact(content)
    if record.section:  # the heading path is stored with each source: text from the file too
        record.section, in_heading = _redact_heading(record.section)
        redacted += [k for k in in_heading if k not in redacted]
    if record.fields:  # a restored export's own fields and provenance: text from the file too
        redacted += [k for k in _redact_restored(record.fields) if k not in redacted]
    if len(content) > MAX_RECORD_CHARS:
        return Rejection(
            record.path,
            record.line,
            f"record too long ({len(content):,} characters, limit {MAX_RECORD_CHARS:,})",
        )
    canonical = normalise(content)
    if not canonical:
        return EMPTY
    rhash = raw_hash(record.text)
    return Accepted(
        record, content, hash_canonical(canonical), rhash, category, redacted or NONE_REDACTED
    )


@lru_cache(maxsize=1024)
def _redact_heading(section: str) -> tuple[str, tuple[str, ...]]:
    """secrets.redact for heading paths, which every record under a heading repeats."""
    text, kinds = secrets.redact(section)
    return text, tuple(kinds)


# What a restored export field may hold. A hand-edited value outside these would otherwise fail
# the file's whole transaction on a CHECK constraint or a binding error; it rejects one memory.
_ENUMS = {"realm": REALMS, "layer": LAYERS, "status": STATUSES, "audience": AUDIENCES}
_NUMBERS = {"importance", "emotional_weight", "confidence", "fact_certain"}


def _invalid_export_field(fields: dict[str, Any]) -> str | None:
    for key, value in fields.items():
        if key in _ENUMS:
            ok = value in _ENUMS[key]
        elif key in _NUMBERS:
            ok = type(value) in (int, float)
        elif key in RESTORABLE:
            ok = isinstance(value, str)
        elif key == "export_id":
            ok = value is None or type(value) in (int, str)  # a dict key, and never a bool
        else:
            continue
        if not ok:
            why = f"invalid {'id' if key == 'export_id' else key} in export: {value!r}"
            return secrets.redact(why)[0]  # the reason is stored, and may quote a credential
    return None


def _redact_restored(fields: dict[str, Any]) -> list[str]:
    """Redact credentials in a restored export's text fields and sources, in place; the kinds."""
    kinds: list[str] = []

    def clean(text: str) -> str:
        text, found = secrets.redact(text)
        kinds.extend(k for k in found if k not in kinds)
        return text

    for key, value in fields.items():
        if key in RESTORABLE and isinstance(value, str):
            fields[key] = clean(value)
    # A source's heading is text from the file, as at import; its ids and hashes are not (a
    # hash with a long run of digits could pass for a card number).
    sources = fields.get("sources")
    for src in sources if isinstance(sources, list) else []:
        if isinstance(src, dict) and isinstance(src.get("section"), str):
            src["section"] = clean(src["section"])
    return kinds
