"""Recall and false positives of secrets.redact on the labelled lines of secret_lines.jsonl.

    .venv/bin/python -m tests.classify.secret_lines [--misses]

Each line of the fixture is a note as agents keep them, with the credentials in it (`secrets`,
empty for an ordinary line) and its half: the split (by the SHA-1 of the text, alternately
dev/test, positives and ordinary lines separately) was fixed before any rule changed. Tune on
dev; test is the figure. A credential line counts as found when redact reports a kind and no
6-character slice of any of its secrets survives (that the line
does not hold elsewhere); an ordinary line is a false positive when
redact changes it at all.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from memctl.classify.secrets import redact

FIXTURE = Path(__file__).with_name("secret_lines.jsonl")
MARKER = re.compile(r"\[REDACTED:[a-z_]+\]")


@dataclass
class Score:
    positives: int = 0
    found: int = 0
    ordinary: int = 0
    false_positives: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.positives if self.positives else 1.0

    @property
    def fp_rate(self) -> float:
        return self.false_positives / self.ordinary if self.ordinary else 0.0


def lines(half: str) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines() if line]
    return [r for r in rows if r["half"] == half]


def leaked(secret: str, text: str, redacted: str, size: int = 6) -> bool:
    """Whether a `size`-character slice of the secret survives that the line does not also
    hold outside it (the host in "pi@raspberrypi.local, password raspberry99")."""
    rest, elsewhere = MARKER.sub("", redacted), text.replace(secret, "\0")
    slices = [secret[i : i + size] for i in range(max(1, len(secret) - size + 1))]
    return any(s in rest and s not in elsewhere for s in slices)


def score(half: str) -> Score:
    result = Score()
    for row in lines(half):
        text, secrets = str(row["text"]), list(row["secrets"])  # type: ignore[call-overload]
        redacted, kinds = redact(text)
        if secrets:
            result.positives += 1
            if kinds and not any(leaked(s, text, redacted) for s in secrets):
                result.found += 1
            else:
                result.misses.append(f"missed: {redacted}")
        else:
            result.ordinary += 1
            if (redacted, kinds) != (text, []):
                result.false_positives += 1
                result.misses.append(f"false positive: {redacted}")
    return result


def main() -> None:
    for half in ("dev", "test"):
        s = score(half)
        print(
            f"{half:4}: recall {s.found}/{s.positives} = {s.recall:.0%}, "
            f"false positives {s.false_positives}/{s.ordinary} = {s.fp_rate:.0%}"
        )
        if "--misses" in sys.argv and half == "dev":
            for miss in s.misses:
                print(f"  {miss}")


if __name__ == "__main__":
    main()
