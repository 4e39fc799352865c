"""What an import tells its user: counts per run and per file, and why records were left out."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memctl.models import Rejection

Progress = Callable[[int, int, str], None]


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


def plural_files(n: int) -> str:
    """ "1 file", "12 files"."""
    return f"{n} file" if n == 1 else f"{n} files"
