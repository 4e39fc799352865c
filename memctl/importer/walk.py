"""Stage 1, walk: the files an import reads, and what it leaves out (said in the report)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from memctl.errors import InputNotFound
from memctl.importer.report import ImportReport


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
