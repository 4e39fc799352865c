"""Settings read from memctl/data/*.toml: one cached loader, and the checks for overrides.

`data_file(name)` parses memctl/data/NAME.toml once per process. A settings file's defaults are
its own schema: `merge_checked` takes an override (a pipeline step's table, a user's file) only
for keys the defaults have, with the defaults' types, and names the key when it refuses one.
consolidate.toml is read into `ConsolidateSettings` here (pipelines check a step's table with
it before anything runs); context.toml by memctl.context, api.toml by memctl.api.
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from memctl.errors import ConfigError
from memctl.models import LAYERS


def data_file(name: str) -> dict[str, Any]:
    """The settings of memctl/data/`name`.toml, as a copy the caller may merge overrides into."""
    return copy.deepcopy(_parsed(name))


@cache
def _parsed(name: str) -> dict[str, Any]:
    text = resources.files("memctl.data").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@dataclass(frozen=True)
class ConsolidateSettings:
    """memctl/data/consolidate.toml, checked: what `memctl consolidate` runs and with what."""

    steps: tuple[str, ...]
    caps: dict[str, int]
    decay_factor: float
    decay_after_days: float
    decay_every_days: float
    decay_floor: float
    decay_batch: int
    recency_half_days: float
    stale_hours: float


def consolidate_settings(overrides: dict[str, Any] | None = None) -> ConsolidateSettings:
    """Defaults from memctl/data/consolidate.toml, then `overrides` (a pipeline step's table).

    Every override must name a known setting and have its type; errors name the key.
    """
    raw = data_file("consolidate")
    known = tuple(raw["steps"])  # the defaults run every step there is
    merge_checked(raw, overrides or {})
    unknown = [s for s in raw["steps"] if s not in known]
    if unknown:
        raise ConfigError(f"steps: unknown step {unknown[0]!r} (known: {', '.join(known)})")
    decay = raw["decay"]
    for key, value, low, high in [
        ("decay.factor", decay["factor"], 0, 1),
        ("decay.floor", decay["floor"], 0, 1),
    ]:
        if not low <= value <= high:
            raise ConfigError(f"{key}: must be between {low} and {high}, got {value}")
    for key, value, least in [
        *((f"caps.{layer}", n, 0) for layer, n in raw["caps"].items()),
        ("decay.after_days", decay["after_days"], 0),
        ("decay.every_days", decay["every_days"], 0),
        ("decay.batch", decay["batch"], 1),
        ("recency.half_days", raw["recency"]["half_days"], 1),
        ("status.stale_hours", raw["status"]["stale_hours"], 0),
    ]:
        if value < least:
            raise ConfigError(f"{key}: must be {least} or more, got {value}")
    return ConsolidateSettings(
        steps=tuple(raw["steps"]),
        caps=dict(raw["caps"]),
        decay_factor=float(decay["factor"]),
        decay_after_days=float(decay["after_days"]),
        decay_every_days=float(decay["every_days"]),
        decay_floor=float(decay["floor"]),
        decay_batch=int(decay["batch"]),
        recency_half_days=float(raw["recency"]["half_days"]),
        stale_hours=float(raw["status"]["stale_hours"]),
    )


def merge_checked(base: dict[str, Any], extra: dict[str, Any], where: str = "") -> None:
    """Merge `extra` into `base` (defaults), refusing keys or types the defaults do not have."""
    for key, value in extra.items():
        name = f"{where}{key}"
        if key not in base:
            if where == "caps.":
                raise ConfigError(f"{name}: not a layer ({', '.join(LAYERS)})")
            raise ConfigError(f"{name}: unknown setting")
        default = base[key]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{name}: expected table, got {toml_type(value)}")
            merge_checked(default, value, f"{name}.")
        elif isinstance(default, list):
            if not isinstance(value, list):
                raise ConfigError(f"{name}: expected array, got {toml_type(value)}")
            for item in value:
                if not isinstance(item, str):
                    raise ConfigError(f"{name}: expected array of strings, found {toml_repr(item)}")
            base[key] = value
        elif type(value) is not type(default) and not (
            type(default) is float and type(value) is int
        ):
            raise ConfigError(f"{name}: expected {toml_type(default)}, got {toml_repr(value)}")
        else:
            base[key] = value


def toml_type(value: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array"}
    return names.get(type(value), "table" if isinstance(value, dict) else type(value).__name__)


def toml_repr(value: Any) -> str:
    """A value as it was written in the file (for messages)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | dict):
        return toml_type(value)
    return repr(value)
