"""`memctl import`: walk inputs, read records, apply restraint, dedupe (L1 exact), store.

Accounting rule: for every run, records = added + skipped + rejected. Each accepted record gets
a `sources` row (pointing at the entry it created or duplicates); each skipped one is counted
under its reason; each rejected one is listed with path, line and reason (and kept in the
`rejections` table). One transaction per file, so a failure leaves no half-imported file.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from memctl import CONTEXT_MARKER, conflicts, copies, merge
from memctl.classify import classify, file_realm, injection, secrets
from memctl.dedupe import Engine, Item, Merge
from memctl.errors import InputNotFound
from memctl.ingest import frontmatter, noise
from memctl.ingest.detect import READERS, UnknownFormat, detect
from memctl.ingest.markdown import EMPTY_LABEL
from memctl.ingest.restraint import judge
from memctl.models import AUDIENCES, LAYERS, MEMORY, MESSAGE, REALMS, STATUSES, Record, Rejection
from memctl.normalise import hash_canonical, normalise, raw_hash
from memctl.parallel import Shared
from memctl.store import UserStore, now_iso

MAX_RECORD_CHARS = 20_000

ALREADY_IMPORTED = "already imported"
EXACT_DUPLICATE = "exact duplicate"
OWN_CONTEXT = "memctl injected context"
EMPTY = "empty"
NOT_MEMORY = frozenset((*noise.REASONS, EMPTY_LABEL))


@dataclass
class FileReport:
    path: str
    format: str
    records: int = 0
    added: int = 0
    skipped: int = 0
    rejected: int = 0


@dataclass
class ImportReport:
    run_id: int | None = None
    dry_run: bool = False
    records: int = 0
    added: int = 0
    skipped_by_reason: Counter[str] = field(default_factory=Counter)
    rejected: list[Rejection] = field(default_factory=list)
    unsupported: list[dict[str, str]] = field(default_factory=list)
    by_file: list[FileReport] = field(default_factory=list)
    superseded: int = 0
    conflicts_to_review: int = 0
    merged_existing: int = 0  # stored entries merged into one this run added (it was earlier)
    restated: int = 0  # superseded facts current again: stated anew after what replaced them
    redacted: list[dict[str, Any]] = field(default_factory=list)
    # Records of memory files judged not to be memories (logs, placeholders, bare labels), by
    # line, so a person can check the call (`--dry-run` prints them).
    not_memory: list[dict[str, Any]] = field(default_factory=list)
    # Hidden folders the walk left out, with the files they hold; hidden files, counted.
    hidden: list[dict[str, Any]] = field(default_factory=list)
    hidden_files: int = 0
    seconds: float = 0.0

    @property
    def skipped(self) -> int:
        return sum(self.skipped_by_reason.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "dry_run": self.dry_run,
            "files": len(self.by_file),
            "records": self.records,
            "added": self.added,
            "skipped": self.skipped,
            "skipped_by_reason": dict(self.skipped_by_reason.most_common()),
            "rejected_count": len(self.rejected),
            "rejected": [r.as_dict() for r in self.rejected],
            "unsupported": self.unsupported,
            "superseded": self.superseded,
            "restated": self.restated,
            "merged_existing": self.merged_existing,
            "conflicts_to_review": self.conflicts_to_review,
            "redacted": self.redacted,
            "not_memory": self.not_memory,
            "hidden_skipped": self.hidden,
            "hidden_files_skipped": self.hidden_files,
            "warnings": [w] if (w := nothing_found(self)) else [],
            "by_file": [vars(f) for f in self.by_file],
            "seconds": round(self.seconds, 3),
        }


def nothing_found(report: ImportReport) -> str | None:
    """For a run that read no records, the likely reason in one line (else None)."""
    if report.records:
        return None
    why = []
    if report.hidden:
        shown = ", ".join(
            f"{os.path.basename(h['path'])}: {plural_files(h['files'])}" for h in report.hidden[:3]
        )
        more = ", …" if len(report.hidden) > 3 else ""
        n = len(report.hidden)
        why.append(
            f"{n} hidden folder{'s were' if n > 1 else ' was'} skipped ({shown}{more}); "
            "use --hidden or memctl import --scan"
        )
    if report.hidden_files:
        why.append(f"{report.hidden_files} hidden files were skipped")
    if report.unsupported:
        why.append(f"{len(report.unsupported)} files are in no supported format")
    if not why:
        why.append("no files found" if not report.by_file else "the files hold no records")
    return "0 records: " + "; ".join(why)


Progress = Callable[[int, int, str], None]


def plural_files(n: int) -> str:
    """ "1 file", "12 files"."""
    return f"{n} file" if n == 1 else f"{n} files"


def collect_files(
    paths: Iterable[Path], report: ImportReport, *, hidden: bool = False
) -> list[Path]:
    """Every file under `paths`, sorted; hidden entries inside directories are left out unless
    `hidden`, and named in the report (agents keep their homes in dot-folders: a silent skip
    imports nothing from them).

    Symlinked directories are not followed (no loops); anything that is not a regular file
    (a FIFO, a socket, a device, a dangling link) is reported, never opened.
    """
    found: list[Path] = []
    for given in paths:
        if not os.path.lexists(given):
            raise InputNotFound(f"no such file or directory: {given}")
        root = Path(os.path.abspath(given))
        if root.is_dir():
            for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
                if not hidden:
                    for d in sorted(d for d in dirnames if d.startswith(".")):
                        where = os.path.join(dirpath, d)
                        report.hidden.append({"path": where, "files": _count_files(where)})
                    report.hidden_files += sum(n.startswith(".") for n in filenames)
                dirnames[:] = sorted(d for d in dirnames if hidden or not d.startswith("."))
                for name in sorted(filenames):
                    if hidden or not name.startswith("."):
                        found.append(Path(dirpath) / name)
        else:
            found.append(root)
    files = []
    for path in dict.fromkeys(found):
        if (shown := printable_path(path)) != str(path):
            # Paths are stored and printed as UTF-8 text; undecodable bytes cannot be.
            report.unsupported.append({"path": shown, "reason": "file name is not valid UTF-8"})
            continue
        try:
            mode = path.stat().st_mode
        except OSError as exc:
            report.unsupported.append({"path": str(path), "reason": exc.strerror or str(exc)})
            continue
        if stat.S_ISREG(mode):
            files.append(path)
        else:
            report.unsupported.append({"path": str(path), "reason": "not a regular file"})
    return files


def _count_files(folder: str) -> int:
    return sum(len(files) for _, _, files in os.walk(folder, followlinks=False))


def printable_path(path: Path) -> str:
    """The path as text, with bytes that are not UTF-8 shown as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def import_paths(
    store: UserStore,
    paths: Iterable[Path],
    *,
    fmt: str | None = None,
    progress: Progress | None = None,
    hidden: bool = False,
) -> ImportReport:
    started = time.perf_counter()
    report = ImportReport()
    files = copies.order(collect_files(paths, report, hidden=hidden))
    with store.store.transaction():
        report.run_id = store.start_run()
    run = _Run(store)
    seen = copies.Seen(store)
    for index, path in enumerate(files):
        if progress:
            progress(index, len(files), str(path))
        items = _read(path, fmt, report)
        if items is not None:
            seen.mark(path, items)
            _import_file(store, path, items, report, run)
    if progress:
        progress(len(files), len(files), "")
    report.seconds = time.perf_counter() - started
    _finish_run(store, report)
    return report


def import_records(store: UserStore, origin: str, records: list[Record]) -> ImportReport:
    """Import records that come from no file (text an agent asks memctl to remember, through
    memctl.api): one run, the records taken as one file named `origin` (their `path`), with the
    same restraint, redaction, dedupe, classification and accounting as a file's records."""
    started = time.perf_counter()
    report = ImportReport()
    with store.store.transaction():
        report.run_id = store.start_run()
    _import_file(store, origin, list(records), report, _Run(store))
    report.seconds = time.perf_counter() - started
    _finish_run(store, report)
    return report


def _finish_run(store: UserStore, report: ImportReport) -> None:
    assert report.run_id is not None
    with store.store.transaction():
        store.add_rejections(report.run_id, report.rejected)
        store.finish_run(
            report.run_id,
            {
                "files": len(report.by_file),
                "records": report.records,
                "added": report.added,
                "skipped": report.skipped,
                "rejected": len(report.rejected),
            },
        )


def _read(path: Path, fmt: str | None, report: ImportReport) -> list[Record | Rejection] | None:
    shown = str(path)
    try:
        family = fmt or detect(path)
        return list(READERS[family](path))
    except UnknownFormat as exc:
        report.unsupported.append({"path": shown, "reason": str(exc)})
    except OSError as exc:
        report.by_file.append(FileReport(shown, fmt or "?", records=1, rejected=1))
        report.records += 1
        report.rejected.append(Rejection(shown, 0, f"cannot read: {exc.strerror or exc}"))
    except RecursionError:
        report.by_file.append(FileReport(shown, fmt or "?", records=1, rejected=1))
        report.records += 1
        report.rejected.append(Rejection(shown, 0, "structure nested too deeply"))
    return None


@dataclass(slots=True)
class _Accepted:
    record: Record
    content: str
    norm_hash: str
    raw_hash: str
    category: str | None
    redacted: list[str] = field(default_factory=list)


@dataclass
class _Run:
    """State kept across the files of one import."""

    store: UserStore
    seen: dict[str, int] = field(default_factory=dict)  # norm_hash -> entry id
    created_in: dict[int, FileReport] = field(default_factory=dict)  # entry -> file that added it
    _engine: Engine | None = None

    @property
    def engine(self) -> Engine:
        """The near-duplicate index (the user's stored entries plus this run's), loaded only
        when a file has new entries: a re-import of known files never pays for it."""
        if self._engine is None:
            self._engine = merge.engine_for(self.store)
        return self._engine


def _import_file(
    store: UserStore,
    path: Path | str,
    items: list[Record | Rejection],
    report: ImportReport,
    run: _Run,
) -> None:
    seen = run.seen
    first = next((i for i in items if isinstance(i, Record)), None)
    file_report = FileReport(str(path), first.format if first else "-")
    report.by_file.append(file_report)
    skipped: Counter[str] = Counter()
    rejected: list[Rejection] = []
    accepted: list[_Accepted] = []
    verdicts = iter(_accept_all([i for i in items if isinstance(i, Record)]))
    for item in items:
        if isinstance(item, Rejection):
            rejected.append(item)
            continue
        outcome = next(verdicts)
        if isinstance(outcome, str):
            skipped[outcome] += 1
            if outcome in NOT_MEMORY:
                # Quoted for a person to check, so redacted like anything else memctl shows.
                shown = secrets.redact(item.text)[0][:80]
                report.not_memory.append(
                    {
                        "path": item.path,
                        "line": item.line,
                        "reason": outcome,
                        "text": shown,
                    }
                )
        elif isinstance(outcome, Rejection):
            rejected.append(outcome)
        else:
            accepted.append(outcome)
    added = 0
    now = now_iso()
    with store.store.transaction():
        known = store.known_sources(str(path))
        fresh = [a for a in accepted if (a.record.line, a.raw_hash) not in known]
        skipped[ALREADY_IMPORTED] += len(accepted) - len(fresh)
        seen.update(store.entry_ids_by_hash({a.norm_hash for a in fresh} - seen.keys()))
        new: dict[str, _Accepted] = {}  # first record of each new text creates its entry
        for a in fresh:
            if a.norm_hash not in seen:
                new.setdefault(a.norm_hash, a)
        # Near duplicates (L2-L4) are found before the new entries are written, so one that
        # is merged away at birth is stored merged (text kept), its classification dropped. A
        # restored backup is taken as it is.
        first_id = store.next_entry_id()
        planned = {h: first_id + i for i, h in enumerate(new)}
        to_classify = [a for a in new.values() if a.record.format != "memctl-export"]
        # Forks only for a file whose accepting forked too: the classifier is loaded by then.
        shared = Shared(
            [_job(a) for a in to_classify], _classified, fork=len(to_classify) >= PARALLEL_MIN
        )
        try:
            fresh_items = [Item(planned[a.norm_hash], a.content, a.record.ts) for a in to_classify]
            merges = run.engine.add(fresh_items) if fresh_items else []
            born_merged = {m.dup: m for m in merges if m.dup >= first_id}
            # Everything that does not wait for classification is written first, while the
            # worker classifies; the classified entries last, chunk by chunk as they are ready.
            # Sources may point at entries not written yet: keys are checked at commit.
            store.conn.execute("PRAGMA defer_foreign_keys = ON")
            seen.update(planned)
            store.add_entries(
                _entry_fields(a, planned[h], born_merged.get(planned[h]))
                for h, a in new.items()
                if a.record.format == "memctl-export" or planned[h] in born_merged
            )
            if fresh_items:
                merge.link_new(
                    store, list(born_merged.values()), run.engine, [i.id for i in fresh_items]
                )
            # An exact copy of an entry that was merged away belongs to that entry's survivor.
            alive = merge.survivors(store, {seen[a.norm_hash] for a in fresh})
            rows: list[tuple[Any, ...]] = []
            export_ids: dict[Any, int] = {}
            stated: dict[int, list[str]] = {}
            for a in fresh:
                entry_id = alive.get(seen[a.norm_hash], seen[a.norm_hash])
                created = new.get(a.norm_hash) is a
                how = born_merged.get(seen[a.norm_hash]) if created else None
                if how is not None:
                    skipped[f"near duplicate ({how.layer})"] += 1
                elif created:
                    added += 1
                else:
                    skipped[EXACT_DUPLICATE] += 1
                    if a.record.ts:  # a dated copy restates the entry's text at that time
                        stated.setdefault(entry_id, []).append(a.record.ts)
                rows.append(_source_row(a, entry_id, report.run_id, created, now, how))
                rows.extend(_restored_sources(a.record, entry_id, report.run_id, now))
                if "export_id" in a.record.fields:
                    export_ids[a.record.fields["export_id"]] = entry_id
            store.add_sources(rows)
            _restore_supersedes(store, fresh, export_ids)
            merged_away = {
                i for i, a in enumerate(to_classify) if planned[a.norm_hash] in born_merged
            }
            realms: list[tuple[int, str, str, bool]] = []  # id, content, realm, cued
            for start, results in shared.results(merged_away):
                chunk = to_classify[start : start + len(results)]
                kept = [
                    (a, fields)
                    for a, fields in zip(chunk, results, strict=True)
                    if planned[a.norm_hash] not in born_merged and fields is not None
                ]
                realms.extend(
                    (planned[a.norm_hash], a.content, f["realm"], f[REALM_CUED]) for a, f in kept
                )
                store.add_entries(
                    _entry_fields(a, planned[a.norm_hash], None, fields) for a, fields in kept
                )
            _settle_realms(store, realms)
        finally:
            shared.close()
        created_ids = [seen[h] for h in new if seen[h] not in born_merged]
        for entry_id in created_ids:
            run.created_in[entry_id] = file_report
        # Stored entries that a new, earlier copy replaces as canonical.
        older = [m for m in merges if m.dup < first_id]
        merge.apply(store, older)
        resolved = conflicts.resolve(store, created_ids)
        restated = conflicts.restate(store, stated)
    for m in older:
        if (origin := run.created_in.pop(m.dup, None)) is not None:
            # Added earlier in this run, then found to duplicate another entry: a skip after all.
            origin.added -= 1
            origin.skipped += 1
            report.added -= 1
            report.skipped_by_reason[f"near duplicate ({m.layer})"] += 1
        else:
            report.merged_existing += 1
    report.superseded += resolved["superseded"]
    report.restated += restated
    report.conflicts_to_review += resolved["review"]
    report.redacted.extend(
        {"path": a.record.path, "line": a.record.line, "kinds": a.redacted}
        for a in fresh
        if a.redacted
    )
    skipped = +skipped
    file_report.records = len(rejected) + sum(skipped.values()) + added
    file_report.added = added
    file_report.skipped = sum(skipped.values())
    file_report.rejected = len(rejected)
    report.records += file_report.records
    report.added += added
    report.skipped_by_reason.update(skipped)
    report.rejected.extend(rejected)


def _accept_all(records: list[Record]) -> list[_Accepted | Rejection | str]:
    """`_accept` for each record, in order. A big file's records are shared with a forked
    worker: accepting (redaction, normalising, two hashes) is a fifth of the main process's
    time in a big import, and the second core has nothing else to do yet."""
    fork = len(records) >= PARALLEL_MIN
    shared = Shared(records, _accept_to_ship, fork=fork)
    verdicts: list[_Shipped | Rejection | str | None] = [None] * len(records)
    try:
        if fork:
            # Meanwhile the classifier's lexicons and dictionary load here, once, before the
            # classification worker is forked (it shares them); the share of records taken
            # below shrinks to match.
            classify("预热")
        for start, results in shared.results():
            verdicts[start : start + len(results)] = results
    finally:
        shared.close()
    out: list[_Accepted | Rejection | str] = []
    for record, verdict in zip(records, verdicts, strict=True):
        assert verdict is not None
        if isinstance(verdict, tuple):
            content, norm_hash, rhash, category, redacted, record.section, record.fields = verdict
            out.append(_Accepted(record, content, norm_hash, rhash, category, redacted))
        else:
            out.append(verdict)
    return out


# What a worker sends back for an accepted record: the _Accepted fields but the record (the
# main process has it), plus what accepting changed in the record: its heading path and
# restored export fields, redacted (tests/test_import_parallel.py checks nothing else changes).
_Shipped = tuple[str, str, str, str | None, list[str], str | None, dict[str, Any]]


def _accept_to_ship(record: Record) -> _Shipped | Rejection | str:
    outcome = _accept(record)
    if isinstance(outcome, _Accepted):
        a = outcome
        return (
            a.content, a.norm_hash, a.raw_hash, a.category, a.redacted, record.section,
            record.fields,
        )  # fmt: skip
    return outcome


def _accept(record: Record) -> _Accepted | Rejection | str:
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
    return _Accepted(record, content, hash_canonical(canonical), rhash, category, redacted)


@lru_cache(maxsize=1024)
def _redact_heading(section: str) -> tuple[str, tuple[str, ...]]:
    """secrets.redact for heading paths, which every record under a heading repeats."""
    text, kinds = secrets.redact(section)
    return text, tuple(kinds)


def _entry_fields(
    a: _Accepted, entry_id: int, merged: Merge | None, classified: dict[str, Any] | None = None
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "id": entry_id, "content": a.content, "norm_hash": a.norm_hash, "ts": a.record.ts,
    }  # fmt: skip
    if merged is not None:
        # A near copy merged away at birth: kept for its text, never used, not classified.
        fields["status"] = "archived"
        return fields
    if a.record.format == "memctl-export":
        # The entry's own ts is among the restored fields (absent when it had none); the
        # record's ts falls back to created_at, right for provenance but not for the entry.
        fields["ts"] = None
        fields.update({k: v for k, v in a.record.fields.items() if k in _RESTORABLE})
        # A backup keeps what was decided, but no file makes an instruction to the model
        # active: it waits in review, as it would imported any other way.
        if fields.get("status", "active") == "active" and (flags := injection.flags(a.content)):
            fields.update(status="pending_review", review_reasons=orjson.dumps(flags).decode())
    else:
        fields.update(classified if classified is not None else _classified(_job(a)))
        fields.pop(REALM_CUED)
    return fields


def _settle_realms(store: UserStore, lines: list[tuple[int, str, str, bool]]) -> None:
    """A file's new lines that say nothing of their realm take the one its lines agree on."""
    realm = file_realm((r, cued) for _, _, r, cued in lines)
    if realm is None:
        return
    store.conn.executemany(
        "UPDATE entries SET realm = :realm, fact_key = :fact_key, fact_value = :fact_value, "
        "fact_certain = :fact_certain WHERE user_id = :user AND id = :id",
        [
            {"id": i, "user": store.user_id, "realm": realm, **conflicts.fact_fields(text, realm)}
            for i, text, was, cued in lines
            if not cued and was != realm
        ],
    )


_Job = tuple[str, str | None, str | None, str, str | None, str | None]


def _job(a: _Accepted) -> _Job:
    r = a.record
    return (a.content, r.ts, r.section, r.path, a.category, r.layer_hint)


def _classified(job: _Job) -> dict[str, Any]:
    """The classifier's fields for one new entry, and the fact it states (if about the user)."""
    content, ts, section, path, category, layer_hint = job
    c = classify(content, ts=ts, section=section, path=path, category=category)
    # What the file says its records are (front matter) bounds the classifier's layer.
    layer = frontmatter.apply_hint(c.layer, layer_hint)
    fields: dict[str, Any] = {
        "realm": c.realm, "layer": layer, "audience": c.audience, "importance": c.importance,
        "emotional_weight": c.emotional_weight, "confidence": c.confidence,
        "expires_at": c.expires_at, "status": c.status,
        "review_reasons": orjson.dumps(list(c.reasons)).decode() if c.reasons else None,
        REALM_CUED: c.realm_cued,
    }  # fmt: skip
    # Facts shape supersede chains only where they are about the real user (same rule as
    # re-classify and edit use).
    fields.update(conflicts.fact_fields(content, c.realm))
    return fields


# Not an entry column: whether the classifier found a realm cue on the line (for _settle_realms).
REALM_CUED = "realm_cued"

PARALLEL_MIN = 4000  # new entries in one file before a worker shares their classification


_RESTORABLE = {
    "realm", "layer", "status", "audience", "importance", "emotional_weight", "expires_at",
    "confidence", "ts", "created_at", "updated_at", "last_used_at", "decayed_at",
    "review_reasons", "fact_key", "fact_value", "fact_certain",
}  # fmt: skip


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
        elif key in _RESTORABLE:
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
        if key in _RESTORABLE and isinstance(value, str):
            fields[key] = clean(value)
    # A source's heading is text from the file, as at import; its ids and hashes are not (a
    # hash with a long run of digits could pass for a card number).
    sources = fields.get("sources")
    for src in sources if isinstance(sources, list) else []:
        if isinstance(src, dict) and isinstance(src.get("section"), str):
            src["section"] = clean(src["section"])
    return kinds


def _source_row(
    a: _Accepted, entry_id: int, run_id: int | None, created: bool, now: str, how: Merge | None
) -> tuple[Any, ...]:
    r = a.record
    layer, score = ("new", None) if created else ("exact", 1.0)
    if how is not None:
        layer, score = how.layer, round(how.score, 4)
    return (
        entry_id, r.path, r.line, r.format, r.session_id, r.message_id, r.role, r.ts, r.section,
        a.raw_hash, run_id, layer, score, now,
        a.category,
    )  # fmt: skip


def _restored_sources(
    record: Record, entry_id: int, run_id: int | None, now: str
) -> Iterator[tuple[Any, ...]]:
    """The provenance a memctl export carried, so a backup restore keeps where facts came from."""
    for src in record.fields.get("sources", []):
        if not isinstance(src, dict) or not isinstance(src.get("path"), str):
            continue
        line = src.get("line") if type(src.get("line")) is int else 0
        score = src.get("merge_score")
        text = {k: v if isinstance(v := src.get(k), str) else None for k in _SOURCE_TEXT}
        yield (
            entry_id, src["path"], line, text["format"] or "unknown",
            text["session_id"], text["message_id"], text["role"], text["ts"],
            text["section"], text["raw_hash"] or f"restored:{entry_id}", run_id,
            text["merge_layer"] or "restored", score if type(score) in (int, float) else None,
            now, text["category"],
        )  # fmt: skip


# Source fields restored from an export only when they are strings (a hand-edited export must
# not fail the file's transaction on a binding error).
_SOURCE_TEXT = ("format", "session_id", "message_id", "role", "ts", "section", "raw_hash",
                "merge_layer", "category")  # fmt: skip


def _restore_supersedes(store: UserStore, fresh: list[_Accepted], ids: dict[Any, int]) -> None:
    for a in fresh:
        new_id = ids.get(a.record.fields.get("export_id"))
        for link in a.record.fields.get("supersedes", []):
            old = link.get("old_id") if isinstance(link, dict) else link
            if new_id is not None and type(old) in (int, str) and old in ids:
                reason = link.get("reason", "restored") if isinstance(link, dict) else "restored"
                store.add_supersede(new_id, ids[old], str(reason))
