"""Declarative pipelines (`memctl run FILE`): a TOML file naming steps and their settings.

    name = "nightly"
    [[steps]]
    run = "consolidate"            # import | consolidate
    steps = ["expire", "caps", "decay", "index", "optimize"]
    caps = { profile = 500 }

A bad file is refused before anything runs, with an error naming the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl import consolidate, importer, lock
from memctl.errors import ConfigError
from memctl.ingest.detect import FORMATS
from memctl.settings import consolidate_settings, toml_repr, toml_type
from memctl.store import Store

# Allowed keys per step kind, with the type each must have.
_KEYS: dict[str, dict[str, type]] = {
    "import": {"paths": list, "user": str, "format": str},
    "consolidate": {
        "steps": list,
        "caps": dict,
        "decay": dict,
        "recency": dict,
        "status": dict,
    },  # fmt: skip
}


@dataclass(frozen=True)
class Step:
    kind: str
    options: dict[str, Any]
    where: str  # "steps[2]" — for messages


@dataclass(frozen=True)
class Pipeline:
    name: str
    path: Path
    steps: tuple[Step, ...]


def load(path: Path) -> Pipeline:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    unknown = set(raw) - {"name", "description", "steps"}
    if unknown:
        raise ConfigError(f"{path}: unknown key {sorted(unknown)[0]!r}")
    for key in ("name", "description"):
        if not isinstance(raw.get(key, ""), str):
            raise ConfigError(f"{path}: {key}: expected string, got {toml_type(raw[key])}")
    if not isinstance(raw.get("steps"), list) or not raw["steps"]:
        raise ConfigError(f"{path}: 'steps' must be a non-empty array of tables ([[steps]])")
    steps = []
    for i, table in enumerate(raw["steps"], start=1):
        where = f"steps[{i}]"
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {where} must be a table")
        kind = table.get("run")
        if kind not in _KEYS:
            raise ConfigError(f"{path}: {where}.run: {kind!r} is not one of {', '.join(_KEYS)}")
        options = {k: v for k, v in table.items() if k != "run"}
        for key, value in options.items():
            expected = _KEYS[kind].get(key)
            if expected is None:
                raise ConfigError(f"{path}: {where}.{key}: not a setting of {kind!r}")
            if not isinstance(value, expected):
                raise ConfigError(
                    f"{path}: {where}.{key}: expected {toml_type(expected())}, "
                    f"got {toml_type(value)}"
                )
        if kind == "import":
            if not options.get("paths"):
                raise ConfigError(f"{path}: {where}.paths: required for import")
            bad = [p for p in options["paths"] if not isinstance(p, str)]
            if bad:
                raise ConfigError(
                    f"{path}: {where}.paths: expected array of strings, found {toml_repr(bad[0])}"
                )
            if options.get("format") not in (None, *FORMATS):
                raise ConfigError(f"{path}: {where}.format: not one of {', '.join(FORMATS)}")
        if kind == "consolidate":
            try:
                consolidate_settings(options)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {where}.{exc}") from None
        steps.append(Step(kind, options, where))
    return Pipeline(str(raw.get("name") or path.stem), path, tuple(steps))


def run(pipeline: Pipeline, store: Store, default_user: str) -> list[dict[str, Any]]:
    """Run each step in order, holding the consolidation lock throughout (Locked at once if
    another process holds it); stop at the first failure (it raises)."""
    with lock.exclusive(Path(store.path)):
        return _run(pipeline, store, default_user)


def _run(pipeline: Pipeline, store: Store, default_user: str) -> list[dict[str, Any]]:
    results = []
    for step in pipeline.steps:
        if step.kind == "import":
            user = store.for_user(step.options.get("user", default_user))
            paths = [Path(p).expanduser() for p in step.options["paths"]]
            report = importer.import_paths(user, paths, fmt=step.options.get("format"))
            results.append({"step": step.where, "run": "import", **report.as_dict()})
        else:
            settings = consolidate_settings(step.options)
            outcome = consolidate.consolidate(store, settings, kind=f"pipeline:{pipeline.name}")
            results.append({"step": step.where, "run": "consolidate", **outcome.as_dict()})
    return results
