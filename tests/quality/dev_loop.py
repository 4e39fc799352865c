"""Dev-half scoring loop for the classifier (a tuning aid, not a test; run by hand).

    .venv/bin/python tests/quality/dev_loop.py [--dump FILE] [--labels DIR]

Imports every file that tests/quality/split.json marks "dev" (each into its own fresh store,
as a user would import it) and reads back, per source (path, line), the entry it landed in.
Prints the share of active entries, the review reasons by category and, when dev labels are
found (JSONL per file: line, kind, layer, realm, audience), layer / realm / audience accuracy
on the labelled memory lines. It never opens a file marked "test", nor the test labels.

The gold set's own scorer (tests/quality/score.py on the gold branch) is the reference: it
imports a whole agent folder into one store, so cross-file duplicates land as it counts them.
This loop imports file by file and lists misses (--wrong layer|realm|audience) for tuning.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

from memctl.importer import import_paths
from memctl.store import Store

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
SAMPLES = PROJECT.parents[1] / "shared" / "samples"
DIMENSIONS = ("layer", "realm", "audience")
LABELS = PROJECT.parent / "gold" / "tests" / "quality" / "labels" / "dev"


def dev_files() -> list[tuple[str, Path]]:
    split = json.loads((HERE / "split.json").read_text(encoding="utf-8"))["files"]
    found = []
    for key, half in sorted(split.items()):
        if half != "dev":
            continue
        where, rel = key.split(":", 1)
        path = (SAMPLES if where == "samples" else PROJECT) / rel
        if path.is_file():
            found.append((key, path))
    return found


def imported(path: Path) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "dev.db")
        user = store.for_user("dev")
        import_paths(user, [path])
        rows = store.conn.execute(
            "SELECT s.line, s.section, e.content, e.layer, e.realm, e.audience, e.status,"
            " e.review_reasons, e.confidence FROM sources s JOIN entries e ON e.id = s.entry_id"
            " ORDER BY s.line"
        ).fetchall()
        store.conn.close()
    names = ("line", "section", "content", "layer", "realm", "audience", "status", "reasons")
    return [dict(zip((*names, "confidence"), row, strict=True)) for row in rows]


def category(reason: str) -> str:
    return re.split(r"[:(]", reason, maxsplit=1)[0].strip()


def label_file(key: str, labels: Path) -> Path | None:
    """The gold label file of a split key (its name: the key with ":" and "/" as "__")."""
    path = labels / (key.replace(":", "__").replace("/", "__") + ".jsonl")
    return path if path.is_file() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write every source row as JSONL here")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--wrong", choices=("layer", "realm", "audience"), help="list misses")
    args = parser.parse_args()
    statuses: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    right: Counter[str] = Counter()
    confusion: dict[str, Counter[tuple[str, str]]] = {d: Counter() for d in DIMENSIONS}
    scored = 0
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    for key, path in dev_files():
        rows = imported(path)
        by_line = {r["line"]: r for r in rows}
        for r in rows:
            statuses[str(r["status"])] += 1
            for reason in json.loads(str(r["reasons"] or "[]")):
                reasons[category(reason)] += 1
            if dump:
                dump.write(json.dumps({"file": key, **r}, ensure_ascii=False) + "\n")
        gold = label_file(key, args.labels) if args.labels.is_dir() else None
        if gold is None:
            continue
        for raw in gold.read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            label = json.loads(raw)
            got = by_line.get(label.get("line"))
            if label.get("kind") != "memory" or label.get("part_of") or got is None:
                continue
            scored += 1
            for dim in DIMENSIONS:
                right[dim] += got[dim] == label.get(dim)
                confusion[dim][str(label.get(dim)), str(got[dim])] += 1
                if dim == args.wrong and got[dim] != label.get(dim):
                    print(
                        f"{label.get(dim)} <- {got[dim]} {key.rsplit('/', 1)[-1][:24]}:"
                        f"{got['line']} [{str(got['section'] or '')[-24:]}] "
                        f"{str(got['content'])[:90]!r}"
                    )
    total = sum(statuses.values())
    print(f"sources: {total}, active share {statuses['active'] / max(total, 1):.3f}", statuses)
    print("review reasons by category:", dict(reasons.most_common()))
    if scored:
        figures = ", ".join(f"{d} {right[d] / scored:.3f}" for d in DIMENSIONS)
        print(f"labelled memory lines matched: {scored}; {figures}")
        for dim in DIMENSIONS:
            misses = [(f"{g}<-{p}", n) for (g, p), n in confusion[dim].most_common() if g != p]
            print(f"  {dim} misses (gold<-got):", misses[:12])
    return 0


if __name__ == "__main__":
    sys.exit(main())
