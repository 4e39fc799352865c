"""`memctl import`: a pipeline of named stages over each file's records.

    walk → read → accept → dedupe → classify → write → supersede

(one module each in this package; `batch.Batch` is what passes between them, `report` what the
user is told). Accounting rule: for every run, records = added + skipped + rejected. Each
accepted record gets a `sources` row (pointing at the entry it created or duplicates); each
skipped one is counted under its reason; each rejected one is listed with path, line and
reason (and kept in the `rejections` table). One transaction per file, so a failure leaves no
half-imported file.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memctl import copies, merge
from memctl.dedupe import Engine
from memctl.heap import big_blocks_given_back, give_back
from memctl.importer import accept, classify, dedupe, read, supersede, write
from memctl.importer.batch import Batch
from memctl.importer.dedupe import ALREADY_IMPORTED, EXACT_DUPLICATE
from memctl.importer.report import FileReport, ImportReport, Progress, nothing_found, plural_files
from memctl.importer.walk import collect_files, printable_path
from memctl.models import Record, Rejection
from memctl.parallel import Helper
from memctl.store import UserStore, now_iso

__all__ = [
    "ALREADY_IMPORTED", "EXACT_DUPLICATE", "FileReport", "ImportReport", "Progress", "Run",
    "collect_files", "import_paths", "import_records", "nothing_found", "plural_files",
    "printable_path",
]  # fmt: skip


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
    # A big import's worker is forked before any file is read (see parallel.Helper).
    run = Run(store, helper=accept.helper_for(files, [_size(p) for p in files]))
    if run.helper is not None:  # a big import: its big arrays go back once freed
        big_blocks_given_back()
    seen = copies.Seen(store)
    try:
        for index, path in enumerate(files):
            if progress:
                progress(index, len(files), str(path))
            items = read.records(path, fmt, report)
            run.last = index == len(files) - 1
            if items is not None:
                seen.mark(path, items)
                _import_file(store, path, items, report, run)
            # Not kept past its file: the last file's records (and their texts) would be held
            # through settle_homes, which reads every line of the homes again: the end of a
            # big import peaked there (200k boilerplate notes: 1,041 -> ~950 MiB).
            del items
    finally:
        if run.helper is not None:
            run.helper.close()
    if run.helper is not None:  # a big import: what its files held goes back before the vote
        give_back()  # (not for a cron job's few lines: nothing worth a trim was freed)
    if progress:
        progress(len(files), len(files), "")
    with store.store.transaction():
        classify.settle_homes(store, run.homes or set())
    report.seconds = time.perf_counter() - started
    _finish_run(store, report)
    return report


def import_records(
    store: UserStore, origin: str, records: list[Record], run: Run | None = None
) -> ImportReport:
    """Import records that come from no file (text an agent asks memctl to remember, through
    memctl.api): one run, the records taken as one file named `origin` (their `path`), with the
    same restraint, redaction, dedupe, classification and accounting as a file's records.

    `run`: the state of an earlier call to keep using (its near-duplicate index), valid while
    nothing else changed the store (see `Run.current`)."""
    started = time.perf_counter()
    report = ImportReport()
    with store.store.transaction():
        report.run_id = store.start_run()
    run = run if run is not None else Run(store)
    run.created_in.clear()  # this call's counts are its own
    # Records from no file belong to no agent home: no vote on a job counts them (each call
    # would read again every record remembered before it).
    run.homes = None
    _import_file(store, origin, list(records), report, run)
    report.seconds = time.perf_counter() - started
    _finish_run(store, report)
    return report


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # read.records reports it


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


@dataclass
class Run:
    """State kept across the files of one import."""

    store: UserStore
    seen: dict[str, int] = field(default_factory=dict)  # norm_hash -> entry id
    created_in: dict[int, FileReport] = field(default_factory=dict)  # entry -> file that added it
    _engine: Engine | None = None
    # Supersede chains kept from file to file (see importer.supersede).
    chains: supersede.Chains = field(default_factory=dict)
    # The store as the run's last file left it (highest entry, signature and change ids).
    left: tuple[int, int, int] | None = None
    # The homes of the files read (importer.classify.settle_homes); None: records from no file.
    homes: classify.Homes | None = field(default_factory=set)
    helper: Helper | None = None  # a worker forked before the first file was read
    # The import's last file: its engine frees its indexes as it goes, and is dropped once
    # the file's signatures are written (nothing reads it again).
    last: bool = False

    def current(self) -> bool:
        """Whether the store is as this run left it (no entry, signature or change since,
        from any connection), so its index, hashes and chains still describe it."""
        return self.left == self.store.signatures.mark()

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
    run: Run,
) -> None:
    first = next((i for i in items if isinstance(i, Record)), None)
    file_report = FileReport(str(path), first.format if first else "-")
    report.by_file.append(file_report)
    verdicts = accept.sort(items, run.helper)
    report.not_memory.extend(verdicts.not_memory)
    with store.store.transaction():
        if run.chains and not run.current():  # another writer since the last file
            run.chains.clear()
        batch = dedupe.exact(store, str(path), verdicts.accepted, run.seen, verdicts.skipped)
        # In a worker, while the engine runs here.
        shared = classify.start(batch.to_classify, run.helper)
        try:
            # Loaded only for a file with new texts: a re-import of known files never pays.
            engine = run.engine if batch.to_classify else None
            if engine is not None and run.last:
                engine.last_add()
            ids = dedupe.near(batch, engine)
            # Copies merged away at birth are not classified: the worker passes over those it
            # has not reached yet (on the samples shape, four new texts in five).
            shared.drop(classify.merged_away(batch))
            run.seen.update(batch.planned)
            write.unclassified(store, batch, engine, ids)
            if run.last:  # nothing reads the engine again: its texts and groups go now
                run._engine = engine = None
                if run.helper is not None:  # a big import (see import_paths)
                    give_back()
            write.sources(store, batch, run.seen, report.run_id, now_iso())
            settled = write.classified(store, batch, shared)
            if run.homes is not None:
                classify.keep(store, run.homes, str(path), settled)
        finally:
            shared.close()
        created = [run.seen[h] for h in batch.new if run.seen[h] not in batch.born_merged]
        for entry_id in created:
            run.created_in[entry_id] = file_report
        dedupe.replace_older(store, batch)
        resolved, restated = supersede.settle(store, batch, created, run.chains)
        run.left = store.signatures.mark()
    _account(report, file_report, run, batch, verdicts.rejected)
    report.superseded += resolved["superseded"]
    report.restated += restated
    report.conflicts_to_review += resolved["review"]
    report.redacted.extend(
        {"path": a.record.path, "line": a.record.line, "kinds": a.redacted}
        for a in batch.fresh
        if a.redacted
    )


def _account(
    report: ImportReport,
    file_report: FileReport,
    run: Run,
    batch: Batch,
    rejected: list[Rejection],
) -> None:
    """The file's counts, into its report and the run's."""
    for m in batch.merges:
        if m.dup >= batch.first_id:
            continue
        if (origin := run.created_in.pop(m.dup, None)) is not None:
            # Added earlier in this run, then found to duplicate another entry: a skip after all.
            origin.added -= 1
            origin.skipped += 1
            report.added -= 1
            report.skipped_by_reason[f"near duplicate ({m.layer})"] += 1
        else:
            report.merged_existing += 1
    skipped = +batch.skipped
    file_report.records = len(rejected) + sum(skipped.values()) + batch.added
    file_report.added = batch.added
    file_report.skipped = sum(skipped.values())
    file_report.rejected = len(rejected)
    report.records += file_report.records
    report.added += batch.added
    report.skipped_by_reason.update(skipped)
    report.rejected.extend(rejected)
