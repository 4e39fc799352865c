"""memctl's redaction vs Yelp's detect-secrets: µs per record, and what each finds.

    .venv/bin/pip install -e '.[bench]' && .venv/bin/python tests/bench/bench_secrets.py

Records are the labelled classification fixtures (335 lines, both languages) and, when
../shared/samples (or $MEMCTL_SAMPLES) exists, every non-blank line of its Markdown files
(real agent notes, which hold no credential). Times are CPU time, best of 5 rounds.
detect-secrets is run the way it scans a file (`SecretsCollection.scan_file` with its default
plugins and filters, the records one a line in a .md file) and, for what it finds, also line
by line with `scan_line` (its ad-hoc mode, which skips the entropy limits and filters). The
test strings are tests/classify/test_secrets.py's credentials and its ordinary-text lists, and
the labelled lines of tests/classify/secret_lines.jsonl (both halves).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from detect_secrets import SecretsCollection
from detect_secrets.core.scan import scan_line
from detect_secrets.settings import default_settings

from memctl.classify.secrets import redact

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from classify import secret_lines, test_secrets  # noqa: E402  (its lists are the test strings)


def corpora() -> dict[str, list[str]]:
    fixtures = [
        json.loads(line)["text"]
        for name in ("labelled.jsonl", "heldout.jsonl")
        for line in (ROOT / "fixtures" / "classify" / name).read_text("utf-8").splitlines()
    ]
    found = {"classify fixtures": fixtures}
    samples = Path(os.environ.get("MEMCTL_SAMPLES") or ROOT.parent / "shared" / "samples")
    if samples.is_dir():
        found["samples *.md"] = [
            line
            for path in sorted(samples.rglob("*.md"))
            for line in path.read_text("utf-8", errors="replace").splitlines()
            if line.strip()
        ]
    return found


def cpu(fn: Callable[[], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def scan_file(texts: list[str]) -> list[list[str]]:
    """detect-secrets' findings per record, scanning them as one Markdown file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "notes.md"
        path.write_text("".join(t.replace("\n", " ") + "\n" for t in texts), encoding="utf-8")
        collection = SecretsCollection()
        collection.scan_file(str(path))
        found: list[list[str]] = [[] for _ in texts]
        for _, secret in collection:
            found[secret.line_number - 1].append(secret.type)
        return found


def main() -> None:
    redact("warm-up")
    with default_settings():
        scan_file(["warm-up"])
        print("µs per record (CPU, best of 5):")
        for name, texts in corpora().items():
            ours = cpu(lambda t=texts: [redact(x) for x in t]) / len(texts) * 1e6
            theirs = cpu(lambda t=texts: scan_file(t), 3) / len(texts) * 1e6
            hits = sum(bool(f) for f in scan_file(texts))
            flagged = sum(bool(redact(x)[1]) for x in texts)
            print(
                f"  {name:18} {len(texts):5} records: memctl {ours:6.1f} ({flagged} flagged)"
                f"  ·  detect-secrets {theirs:6.1f} ({hits} flagged)"
            )
        positives = [text for text, _, _ in test_secrets.SECRETS]
        negatives = test_secrets.BENIGN + test_secrets.NEGATIVES
        labelled = [r for half in ("dev", "test") for r in secret_lines.lines(half)]
        sets = (
            ("credentials", positives),
            ("ordinary text", negatives),
            ("secret_lines.jsonl credentials", [str(r["text"]) for r in labelled if r["secrets"]]),
            ("secret_lines.jsonl ordinary", [str(r["text"]) for r in labelled if not r["secrets"]]),
        )
        for title, texts in sets:
            file_hits = scan_file(texts)
            line_hits = [[s.type for s in scan_line(t)] for t in texts]
            ours = [bool(redact(t)[1]) for t in texts]
            print(f"{title} ({len(texts)} test strings):")
            print(f"  memctl flags {sum(ours)}")
            print(f"  detect-secrets (file scan) flags {sum(map(bool, file_hits))}, of them "
                  f"{sum(bool(f) and not o for f, o in zip(file_hits, ours, strict=True))} "
                  "that memctl does not")  # fmt: skip
            print(f"  detect-secrets (scan_line) flags {sum(map(bool, line_hits))}, of them "
                  f"{sum(bool(f) and not o for f, o in zip(line_hits, ours, strict=True))} "
                  "that memctl does not")  # fmt: skip
            for text, f, o in zip(texts, file_hits, ours, strict=True):
                if f and not o:
                    print(f"    only detect-secrets: {text[:70]!r} {sorted(set(f))}")


if __name__ == "__main__":
    main()
