"""Do two builds of memctl import the same store? For checking that a speed-up changes nothing.

    python tests/bench/same_results.py OTHER_PYTHON [--shapes mix samples fact] [--size 20000]

Each shape of tests/bench/shapes.py is written once and imported (`memctl import --json`) by
this checkout's python and by OTHER_PYTHON (another checkout's venv), each on a fresh database.
Compared: the JSON reports and every table row (entries, sources, supersedes, changes,
dedupe signatures, rejections…) but for the columns that hold the time of the run.
Exit status 1 if anything differs, with the first differing rows.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from shapes import SHAPES, SamplesMissing, generate, write  # noqa: E402

VOLATILE = {"created_at", "updated_at", "at", "started_at", "finished_at"}
SKIPPED = {"runs", "import_runs", "meta"}  # times and versions only


def dump(db: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(db)
    out: dict[str, list[str]] = {}
    tables = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'entries_fts%' AND name NOT LIKE 'sqlite%'"
    )
    for (table,) in tables.fetchall():
        if table in SKIPPED:
            continue
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in VOLATILE]
        rows = conn.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY 1, 2")
        out[table] = [repr(r) for r in rows]
    conn.close()
    return out


def imported(python: str, src: Path, db: Path) -> dict[str, object]:
    done = subprocess.run(
        [python, "-m", "memctl", "import", str(src), "--db", str(db), "--json", "--silent"],
        capture_output=True,
        check=True,
        cwd=db.parent,  # `-m` puts the current directory first: it must not hold a memctl
    )
    report = orjson.loads(done.stdout)
    for key in ("seconds", "run_id"):
        report.pop(key, None)
    return {"report": [repr(report)], **dump(db)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", help="python of the other build")
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=["mix", "fact"])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            try:
                records = generate(shape, args.size, args.seed)
            except SamplesMissing as exc:
                print(f"{shape}: skipped ({exc})")
                continue
            src = Path(tmp) / f"{shape}.json"
            write(records, src)
            mine = imported(sys.executable, src, Path(tmp) / f"{shape}-a.db")
            theirs = imported(args.other, src, Path(tmp) / f"{shape}-b.db")
            differing = [t for t in theirs if mine.get(t) != theirs[t]]
            same &= not differing
            sizes = ", ".join(f"{t} {len(v)}" for t, v in theirs.items() if v)
            print(f"{shape}: {'same' if not differing else 'DIFFERENT'} ({sizes})")
            for table in differing:
                pairs = zip(mine.get(table, []), theirs[table], strict=False)
                first = next(((a, b) for a, b in pairs if a != b), None)
                print(
                    f"  {table}: {len(mine.get(table, []))} vs {len(theirs[table])} rows; {first}"
                )
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
