"""The layout rules the code keeps (issue #12): the store owns every statement, and no
function is too long to read at once."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memctl"
STATEMENTS = {"execute", "executemany", "executescript"}
MAX_LINES = 80


@cache
def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_sql_statement_outside_the_store() -> None:
    outside = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path, tree in _modules()
        if PACKAGE / "store" not in path.parents
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in STATEMENTS
    ]
    assert outside == []


def test_no_function_longer_than_80_lines() -> None:
    long = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} "
        f"({node.end_lineno - node.lineno + 1} lines)"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_LINES
    ]
    assert long == []


def test_the_cli_holds_no_sql_and_no_lock() -> None:
    source = (PACKAGE / "cli.py").read_text(encoding="utf-8")
    assert "lock.exclusive" not in source and "from memctl import lock" not in source
    assert '"lock"' not in source  # not even among the modules it loads lazily
    assert "SELECT " not in source and "UPDATE " not in source
