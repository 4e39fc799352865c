"""`memctl scan`: find the agent homes on a machine and say what importing them would read.

Where each agent keeps its memory lives in memctl/data/homes.toml. Agents keep their state in
dot-folders, which a plain `memctl import ~` leaves out; scan looks there by name. Nothing is
written: each file is detected and read with the import's own readers, and its records are
counted by format. `memctl import --scan` imports the paths a scan lists.
"""

from __future__ import annotations

import os
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from memctl.importer import ImportReport, collect_files
from memctl.ingest.detect import READERS, UnknownFormat, detect
from memctl.models import Record


@dataclass(frozen=True)
class Agent:
    """Where one kind of agent keeps its memory (a table of homes.toml)."""

    name: str
    label: str
    homes: tuple[str, ...]
    paths: tuple[str, ...]
    env: str | None = None


@dataclass
class Found:
    """One agent home found on disk: the paths an import would read, and what they hold."""

    agent: str
    label: str
    home: str
    paths: list[str]
    files: int = 0
    records: Counter[str] = field(default_factory=Counter)  # by format
    rejected: int = 0
    unsupported: list[dict[str, str]] = field(default_factory=list)
    hidden: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "label": self.label,
            "home": self.home,
            "paths": self.paths,
            "files": self.files,
            "records": sum(self.records.values()),
            "records_by_format": dict(sorted(self.records.items())),
            "rejected": self.rejected,
            "unsupported": self.unsupported,
            "hidden_skipped": self.hidden,
        }


@lru_cache(maxsize=1)
def agents() -> tuple[Agent, ...]:
    """The agents of memctl/data/homes.toml, in the file's order."""
    raw = tomllib.loads(resources.files("memctl.data").joinpath("homes.toml").read_text())
    return tuple(
        Agent(name, t["label"], tuple(t["homes"]), tuple(t["paths"]), t.get("env"))
        for name, t in raw["agents"].items()
    )


def find(home: Path | None = None) -> list[Found]:
    """The agent homes under `home` (default: the user's home, with each agent's environment
    variable honoured), with the paths to import; nothing is read yet."""
    base = Path(os.path.abspath(home if home is not None else Path.home()))
    found: list[Found] = []
    for agent in agents():
        override = os.environ.get(agent.env) if agent.env and home is None else None
        if override:
            dirs = [Path(os.path.abspath(override))]
        else:
            dirs = [d for pattern in agent.homes for d in _matches(base, pattern)]
        for d in dict.fromkeys(dirs):
            if not d.is_dir():
                continue
            paths = [str(p) for pattern in agent.paths for p in _matches(d, pattern)]
            if paths:
                found.append(Found(agent.name, agent.label, str(d), list(dict.fromkeys(paths))))
    return found


def _matches(base: Path, pattern: str) -> list[Path]:
    if not pattern:
        return [base]
    return sorted(p for p in base.glob(pattern) if not p.is_symlink())


def scan(home: Path | None = None) -> list[Found]:
    """`find`, then what each home holds: files, records by format, rejected lines,
    unsupported files and hidden folders left out. A file two agents list counts once."""
    homes = find(home)
    claimed: set[Path] = set()
    for f in homes:
        report = ImportReport()
        files = [p for p in collect_files([Path(p) for p in f.paths], report) if p not in claimed]
        claimed.update(files)
        f.unsupported, f.hidden = report.unsupported, report.hidden
        for path in files:
            f.files += 1
            try:
                items = list(READERS[detect(path)](path))
            except UnknownFormat as exc:
                f.unsupported.append({"path": str(path), "reason": str(exc)})
                continue
            except (OSError, RecursionError):
                f.rejected += 1
                continue
            for item in items:
                if isinstance(item, Record):
                    f.records[item.format] += 1
                else:
                    f.rejected += 1
    return homes


def import_paths(found: list[Found]) -> list[Path]:
    """Every path the scan lists, for `memctl import --scan`."""
    return [Path(p) for f in found for p in f.paths]
