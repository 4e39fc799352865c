"""Score memctl against the hand-labelled gold set (see README.md next to this file).

For one half (dev or test) every labelled file is imported, one fresh database per agent folder
(samples/hermes, fixtures/nanobot, ...), with `memctl.importer.import_paths`; then the store's
`sources` (path, line -> entry) and `entries` tables are compared with the labels. Nothing else of
memctl is used, so the scorer keeps working while the readers and the classifier change.

memctl calls a record-start line a memory when a `sources` row exists at that (path, line); a
source whose entry was merged away counts too, and its entry is followed along `merged_into` to the
survivor for layer, realm, audience and status.

    python -m tests.quality.score [dev|test|dev2|test2|dev3|test3|dev4|test4|dev+dev2] [--json]
                                  [--misses [kind|layer|realm|audience|all]] [--whole-home]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HALVES = (
    "dev",
    "test",
    "dev2",
    "test2",
    "dev3",
    "test3",
    "dev4",
    "test4",
    "dev5",
    "test5",
    "dev6",
    "test6",
    "dev7",
    "test7",
    "dev8",
    "test8",
    "dev9",
    "test9",
    "dev10",
    "test10",
    "dev11",
    "test11",
)
# Agent homes written for the gold set (tests/quality/homes/<home>/...), keyed `homes:<path>`.
HOMES = HERE / "homes"
FIELDS = ("layer", "realm", "audience")
LAYERS = ("persona", "profile", "relationship", "episodic", "procedural", "boundary")
# Lines that are no record of their own: never counted for or against memctl.
NOT_RECORDS = {"blank", "separator"}


def samples_dir() -> Path:
    """../shared/samples next to the repository, or $MEMCTL_SAMPLES (as in tests/system/
    test_samples.py)."""
    if env := os.environ.get("MEMCTL_SAMPLES"):
        return Path(env)
    return REPO.parent / "shared" / "samples"


def split() -> dict[str, str]:
    files: dict[str, str] = json.loads((HERE / "split.json").read_text("utf-8"))["files"]
    return files


def label_name(key: str) -> str:
    return key.replace("/", "__").replace(":", "__") + ".jsonl"


def source_path(key: str, samples: Path) -> Path:
    """The file a split key names: `samples:<path under samples>`, `fixtures:<path in repo>` or
    `homes:<path under tests/quality/homes>`."""
    origin, rel = key.split(":", 1)
    return {"samples": samples, "homes": HOMES}.get(origin, REPO) / rel


def group_of(key: str) -> str:
    """The agent folder a file is imported with: `samples/hermes`, `fixtures/nanobot`,
    `homes/hermes-gm`, ..."""
    origin, rel = key.split(":", 1)
    parts = Path(rel).parts
    folder = parts[1] if origin == "fixtures" else parts[0]
    return f"{origin}/{folder}"


def load_labels(half: str) -> dict[str, list[dict[str, Any]]]:
    """Split key -> label rows, for every labelled file of `half`, or of each half of a union
    (`dev+dev2`)."""
    if "+" in half:
        return {key: rows for one in half.split("+") for key, rows in load_labels(one).items()}
    folder = HERE / "labels" / half
    by_name = {label_name(key): key for key, h in split().items() if h == half}
    labels: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        key = by_name.get(path.name)
        if key is None:
            raise ValueError(f"{path.name}: not a {half} file of split.json")
        labels[key] = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return labels


@dataclass
class Predicted:
    """What the store says about one source line."""

    layer: str
    realm: str
    audience: str
    status: str
    entry: int = 0  # the entry the source ends at, after following merges


def import_group(paths: list[Path], db: Path) -> tuple[dict[tuple[str, int], Predicted], Counter]:
    """Import `paths` into a new database at `db`; return (abspath, line) -> the entry its source
    ends at, and the statuses of all entries."""
    from memctl.importer import import_paths
    from memctl.store import Store

    store = Store.open(db)
    try:
        import_paths(store.for_user("gold"), paths)
    finally:
        store.conn.close()
    conn = sqlite3.connect(db)
    try:
        entries = {
            row[0]: row[1:]
            for row in conn.execute(
                "SELECT id, layer, realm, audience, status, merged_into FROM entries"
            )
        }
        sources = conn.execute("SELECT path, line, entry_id FROM sources").fetchall()
    finally:
        conn.close()
    found: dict[tuple[str, int], Predicted] = {}
    for path, line, entry_id in sources:
        seen = set()
        while (into := entries[entry_id][4]) is not None and entry_id not in seen:
            seen.add(entry_id)
            entry_id = into
        layer, realm, audience, status, _ = entries[entry_id]
        found[(os.path.abspath(path), line)] = Predicted(layer, realm, audience, status, entry_id)
    return found, Counter(row[3] for row in entries.values())


@dataclass
class Tally:
    """Counts for one half (or one agent folder of it)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    layer_ok: int = 0
    realm_ok: int = 0
    audience_ok: int = 0
    active: int = 0
    # Sources at lines the labels call part of an earlier record (memctl split a record).
    split_lines: int = 0
    layers: Counter = field(default_factory=Counter)  # (gold, predicted) -> count
    realms: Counter = field(default_factory=Counter)
    audiences: Counter = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for name in ("tp", "fp", "fn", "tn", "layer_ok", "realm_ok", "audience_ok", "active",
                     "split_lines"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.layers.update(other.layers)
        self.realms.update(other.realms)
        self.audiences.update(other.audiences)

    def figures(self) -> dict[str, Any]:
        kept = self.tp
        return {
            "records": self.tp + self.fp + self.fn + self.tn,
            "gold_memories": self.tp + self.fn,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": _ratio(self.tp, self.tp + self.fp),
            "recall": _ratio(self.tp, self.tp + self.fn),
            "layer": _ratio(self.layer_ok, kept),
            "realm": _ratio(self.realm_ok, kept),
            "audience": _ratio(self.audience_ok, kept),
            "active": _ratio(self.active, kept),
            "split_lines": self.split_lines,
        }


def _confusion(pairs: Counter) -> dict[str, dict[str, int]]:
    """gold -> predicted -> count, the gold values in order of their count."""
    rows: dict[str, dict[str, int]] = defaultdict(dict)
    for (gold, got), count in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0])):
        rows[gold][got] = count
    return dict(rows)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def compare(rows: list[dict[str, Any]], found: dict[int, Predicted]) -> Tally:
    """Compare one file's labels with what the store holds for its lines."""
    tally = Tally()
    for row in rows:
        got = found.get(row["line"])
        if row["part_of"] is not None:
            tally.split_lines += got is not None and row["kind"] == "memory"
            continue
        if row["kind"] in NOT_RECORDS:
            continue
        gold = row["kind"] == "memory"
        if gold and got:
            tally.tp += 1
            tally.layer_ok += got.layer == row["layer"]
            tally.realm_ok += got.realm == row["realm"]
            tally.audience_ok += got.audience == row["audience"]
            tally.active += got.status == "active"
            tally.layers[(row["layer"], got.layer)] += 1
            tally.realms[(row["realm"], got.realm)] += 1
            tally.audiences[(row["audience"], got.audience)] += 1
        elif gold:
            tally.fn += 1
        elif got:
            tally.fp += 1
        else:
            tally.tn += 1
    return tally


def score(half: str, samples: Path | None = None, *, whole_home: bool = False) -> dict[str, Any]:
    """Import every labelled file of `half` and compare; files under an absent samples folder
    are left out (and counted in `missing_files`).

    `whole_home`: import each agent folder whole, as a user would (the files of the other halves
    beside the half's own, their text only), and still score only the half's lines. Without it
    a half's files are imported alone, so evidence one file of a home gives about another (what
    the user does, in USER.md) is missing whenever the split put the two in different halves.
    """
    samples = samples or samples_dir()
    labels = load_labels(half)
    groups: dict[str, list[str]] = defaultdict(list)
    missing = 0
    for key in labels:
        if source_path(key, samples).is_file():
            groups[group_of(key)].append(key)
        else:
            missing += 1
    beside: dict[str, list[str]] = defaultdict(list)  # the home's files of other halves
    if whole_home:
        for key in split():
            home = group_of(key)
            if home in groups and key not in labels and source_path(key, samples).is_file():
                beside[home].append(key)
    total = Tally()
    dups: Counter = Counter()
    folders: dict[str, Any] = {}
    misses: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memctl-gold-") as tmp:
        for index, (group, keys) in enumerate(sorted(groups.items())):
            paths = [source_path(key, samples) for key in keys]
            context = [source_path(key, samples) for key in beside[group]]
            found, statuses = import_group(sorted(paths + context), Path(tmp) / f"{index}.db")
            folder = Tally()
            by_key: dict[tuple[str, int], Predicted] = {}
            for key, path in zip(keys, paths, strict=True):
                here = os.path.abspath(path)
                lines = {line: got for (p, line), got in found.items() if p == here}
                by_key.update({(key, line): got for line, got in lines.items()})
                folder.add(compare(labels[key], lines))
                misses.extend(_misses(key, labels[key], lines))
            total.add(folder)
            dups.update(duplicates({key: labels[key] for key in keys}, by_key))
            entries = sum(statuses.values())
            folders[group] = folder.figures() | {
                "entries": entries,
                "pending_review": _ratio(statuses["pending_review"], entries),
            }
    return {
        "half": half,
        "whole_home": whole_home,
        "files": sum(len(keys) for keys in groups.values()),
        "missing_files": missing,
        **total.figures(),
        "layer_confusion": _confusion(total.layers),
        "realm_confusion": _confusion(total.realms),
        "audience_confusion": _confusion(total.audiences),
        "duplicates": {
            "pairs": dups["pairs"],
            "merged": _ratio(dups["merged"], dups["pairs"]),
            "false_merges": dups["false_merges"],
        },
        "by_folder": folders,
        "misses": misses,
    }


def duplicates(
    labels: dict[str, list[dict[str, Any]]], found: dict[tuple[str, str], Predicted]
) -> Counter:
    """How memctl grouped the gold memories of one import (found: (split key, line) -> entry).

    `pairs` are gold `dup_of` links whose two lines memctl both kept, `merged` those it put into
    one entry; `false_merges` counts kept gold memories that share their entry with a gold memory
    that is not their duplicate (two different facts folded together).
    """
    keys = {key.split(":", 1)[1]: key for key in labels}
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def root(node: tuple[str, int]) -> tuple[str, int]:
        while parent.get(node, node) != node:
            node = parent[node]
        return node

    counts: Counter = Counter()
    starts = []
    for key, rows in labels.items():
        for row in rows:
            if row["kind"] != "memory" or row["part_of"] is not None:
                continue
            here = (key, row["line"])
            starts.append(here)
            path, _, line = row["dup_of"].rpartition(":")
            if path and path not in keys:
                # A duplicate in a file of another half: lines that copy the same one there are
                # still copies of each other (not counted as a pair, never a false merge).
                parent[root(here)] = root((f"elsewhere:{path}", int(line)))
                continue
            if path not in keys:
                continue  # no duplicate
            there = (keys[path], int(line))
            parent[root(here)] = root(there)
            if here in found and there in found:
                counts["pairs"] += 1
                counts["merged"] += found[here].entry == found[there].entry
    by_entry: dict[int, set[tuple[str, int]]] = defaultdict(set)
    for node in starts:
        if node in found:
            by_entry[found[node].entry].add(root(node))
    counts["false_merges"] = sum(len(roots) - 1 for roots in by_entry.values() if len(roots) > 1)
    return counts


def _misses(key: str, rows: list[dict[str, Any]], found: dict[int, Predicted]) -> list[dict]:
    """The record-start lines memctl got wrong, for reading: memory or not (`field` kind), and
    for the gold memories it kept, each of layer, realm and audience it got wrong."""
    out = []
    for row in rows:
        if row["part_of"] is not None or row["kind"] in NOT_RECORDS:
            continue
        got = found.get(row["line"])
        where = {"file": key, "line": row["line"], "text": row["text"]}
        if (row["kind"] == "memory") != (got is not None):
            out.append(where | {"field": "kind", "gold": row["kind"],
                                "memctl": "memory" if got else "not"})  # fmt: skip
        elif got is not None:
            for name in FIELDS:
                if getattr(got, name) != row[name]:
                    out.append(where | {"field": name, "gold": row[name],
                                        "memctl": getattr(got, name)})  # fmt: skip
    return out


def render(result: dict[str, Any]) -> str:
    """The figures as a plain-text table."""

    def pct(value: float | None) -> str:
        return "   -" if value is None else f"{value * 100:5.1f}"

    head = f"{'folder':<22}{'recs':>5}{'gold':>5}{'P':>7}{'R':>7}{'layer':>7}{'realm':>7}"
    head += f"{'aud':>7}{'active':>7}{'pend':>7}{'split':>6}"
    lines = [f"gold set, {result['half']} half: {result['files']} files"
             + (f" ({result['missing_files']} missing: no samples)" if result["missing_files"]
                else ""), head]  # fmt: skip

    def row(name: str, f: dict[str, Any]) -> str:
        return (
            f"{name:<22}{f['records']:>5}{f['gold_memories']:>5}{pct(f['precision']):>7}"
            f"{pct(f['recall']):>7}{pct(f['layer']):>7}{pct(f['realm']):>7}"
            f"{pct(f['audience']):>7}{pct(f['active']):>7}{pct(f.get('pending_review')):>7}"
            f"{f['split_lines']:>6}"
        )

    for name, figures in result["by_folder"].items():
        lines.append(row(name, figures))
    lines.append(row("ALL", result))
    dups = result["duplicates"]
    lines.append(f"duplicates: {dups['pairs']} gold pairs kept, {pct(dups['merged']).strip()}% "
                 f"merged; {dups['false_merges']} false merges")  # fmt: skip
    lines.append("")
    lines.append("layer confusion (rows gold, columns memctl):")
    lines.append(f"{'':<14}" + "".join(f"{name[:8]:>9}" for name in LAYERS))
    for gold in LAYERS:
        cells = result["layer_confusion"].get(gold, {})
        lines.append(f"{gold:<14}" + "".join(f"{cells.get(got, 0):>9}" for got in LAYERS))
    for field_ in ("realm", "audience"):
        lines.append(f"{field_} confusion (gold: memctl count, ...):")
        for gold, cells in result[f"{field_}_confusion"].items():
            lines.append(f"  {gold:<12} " + ", ".join(f"{got} {n}" for got, n in cells.items()))
    return "\n".join(lines)


def _half(text: str) -> str:
    if not all(one in HALVES for one in text.split("+")):
        raise argparse.ArgumentTypeError(f"{text!r}: not one of {', '.join(HALVES)} or a union")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    union = f"one of {', '.join(HALVES)}, or a union of them: dev+dev2"
    parser.add_argument("half", nargs="?", default="test", type=_half, help=union)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--misses",
        nargs="?",
        const="kind",
        choices=("kind", *FIELDS, "all"),
        help="also list the wrong lines: memory or not (the default), one field, or all",
    )
    parser.add_argument(
        "--whole-home",
        action="store_true",
        help="import each home with its files of the other halves too (scoring only this half's)",
    )
    args = parser.parse_args(argv)
    result = score(args.half, whole_home=args.whole_home)
    # The wrong lines only when asked for: figures of a held-out half must not carry its lines.
    misses = [m for m in result.pop("misses") if args.misses in ("all", m["field"])]
    if args.json:
        print(json.dumps(result | ({"misses": misses} if args.misses else {}), ensure_ascii=False,
                         indent=1))  # fmt: skip
        return 0
    print(render(result))
    for miss in misses:
        print(f"{miss['file']}:{miss['line']}  gold {miss['gold']}, memctl {miss['memctl']}"
              f"  {miss['text']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
