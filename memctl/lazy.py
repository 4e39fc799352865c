"""Modules loaded on first use, so a command pays only for the modules it runs.

`memctl --help` needs typer and the option lists; an import needs the dedupe engine and numpy;
`context` needs the store and the search index. `lazy(name)` returns the module object at once
and runs its code on the first attribute access (the standard library's LazyLoader).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """The module `name`, executed when one of its attributes is first used."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module
