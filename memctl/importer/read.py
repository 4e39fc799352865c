"""Stage 2, read: a file's records in its format; a file that cannot be read is one rejection."""

from __future__ import annotations

from pathlib import Path

from memctl.importer.report import FileReport, ImportReport
from memctl.ingest.detect import READERS, UnknownFormat, detect
from memctl.models import Record, Rejection


def records(path: Path, fmt: str | None, report: ImportReport) -> list[Record | Rejection] | None:
    """The file's items (records, and rejections of bad lines), or None if it gave none."""
    shown = str(path)
    try:
        family = fmt or detect(path)
        return list(READERS[family](path))
    except UnknownFormat as exc:
        report.unsupported.append({"path": shown, "reason": str(exc)})
    except OSError as exc:
        _unreadable(report, shown, fmt, f"cannot read: {exc.strerror or exc}")
    except RecursionError:
        _unreadable(report, shown, fmt, "structure nested too deeply")
    return None


def _unreadable(report: ImportReport, path: str, fmt: str | None, why: str) -> None:
    report.by_file.append(FileReport(path, fmt or "?", records=1, rejected=1))
    report.records += 1
    report.rejected.append(Rejection(path, 0, why))
