"""Classification speed: µs per record over 10k mixed, mostly distinct memory lines.

    /tmp/venv/bin/python tests/bench/bench_classify.py [N]

Lines are the labelled fixtures with a running number appended, so no two are identical and
no cache can flatter the figure. Loading jieba and compiling the lexicons happens once, before
timing, and is reported separately. Times are CPU time of this process (best of 3 rounds), so
other work on a shared machine does not inflate them.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from memctl.classify import classify
from memctl.classify.facts import extract
from memctl.classify.injection import flags
from memctl.classify.secrets import redact

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "classify"


def lines(n: int) -> list[dict[str, str]]:
    rows = [
        json.loads(line)
        for name in ("labelled.jsonl", "heldout.jsonl")
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    ]
    out = []
    for i in range(n):
        row = dict(rows[i % len(rows)])
        row["text"] = f"{row['text']} #{i}"
        out.append(row)
    return out


def main(n: int = 10_000) -> None:
    sample = lines(n)
    started = time.perf_counter()
    classify("预热 warm-up", path="USER.md")
    redact("warm-up")
    print(f"first call (jieba dictionary + lexicons): {time.perf_counter() - started:.2f} s")
    for label, fn in (
        (
            "classify",
            lambda r: classify(
                r["text"],
                ts=r.get("ts"),
                section=r.get("section"),
                path=r.get("path"),
                category=r.get("category"),
            ),
        ),
        ("facts.extract", lambda r: extract(r["text"])),
        ("secrets.redact", lambda r: redact(r["text"])),
        ("injection.flags", lambda r: flags(r["text"])),
    ):
        rounds = []
        for _ in range(3):
            started = time.process_time()
            for row in sample:
                fn(row)
            rounds.append(time.process_time() - started)
        elapsed = min(rounds)
        print(f"{label:16} {elapsed / n * 1e6:7.1f} µs/record  ({n} records, {elapsed:.2f} s CPU)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
