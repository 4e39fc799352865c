"""How read commands print rows: one helper, so every table has the same output options.

On a terminal the default is a rich table; when stdout is a pipe or a file it is plain rows,
one line per row, columns padded and never wrapped or cut (`memctl list | cat` shows whole
contents). `--table`, `--csv` and `--tsv` choose a form explicitly, as sqlite-utils does.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table

MODES = ("table", "plain", "csv", "tsv")


def choose(*, table: bool = False, csv_: bool = False, tsv: bool = False) -> str | None:
    """The form the options ask for (None: decide by the terminal); more than one is an error."""
    asked = [m for m, on in (("table", table), ("csv", csv_), ("tsv", tsv)) if on]
    if len(asked) > 1:
        raise ValueError(f"choose one of --{' / --'.join(asked)}")
    return asked[0] if asked else None


def print_rows(
    console: Console,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    mode: str | None = None,
    *,
    shorten: dict[str, int] | None = None,
    title: str | None = None,
) -> int:
    """Print `rows` under `columns` in `mode` (None: table on a terminal, else plain); the count.

    `shorten` cuts named columns to N characters with "…", in the table form only: the
    other forms are for reading whole values.
    """
    mode = mode or ("table" if console.is_terminal else "plain")
    cells = [["" if v is None else str(v) for v in row] for row in rows]
    if mode == "table":
        table = Table(*columns, title=title)
        at = {columns.index(c): n for c, n in (shorten or {}).items()}
        for row in cells:
            shown = [_cut(" ".join(v.split("\n")), at[i]) if i in at else v for i, v in
                     enumerate(row)]  # fmt: skip
            table.add_row(*(escape(v) for v in shown))
        console.print(table)
    elif mode == "plain":
        flat = [[v.replace("\r", " ").replace("\n", " ") for v in row] for row in cells]
        _plain([list(columns), *flat])
    else:
        writer = csv.writer(sys.stdout, delimiter="," if mode == "csv" else "\t",
                            lineterminator="\n")  # fmt: skip
        writer.writerow(columns)
        writer.writerows(cells)
        sys.stdout.flush()
    return len(cells)


def _cut(text: str, limit: int) -> str:
    return text[:limit] + ("…" if len(text) > limit else "")


def _plain(lines: list[list[str]]) -> None:
    """Columns padded to their widest cell (terminal cells, so CJK lines up), the last one not."""
    widths = [max(cell_len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = sys.stdout
    for line in lines:
        padded = [v + " " * (widths[i] - cell_len(v)) for i, v in enumerate(line[:-1])]
        out.write("  ".join([*padded, line[-1]]).rstrip() + "\n")
    out.flush()
