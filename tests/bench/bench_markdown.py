"""The Markdown reader's parser: markdown-it-py against markdown-it-pyrs on the same file, in
the same run (medians). memctl uses markdown-it-pyrs (memctl/ingest/markdown.py) because an
import reads every record of every file and markdown-it-py's block parse alone dominated it.

    .venv/bin/pip install markdown-it-py   # (rich installs it anyway)
    .venv/bin/python tests/bench/bench_markdown.py [--file F] [--copies N] [--runs 3]

By default the file is ../shared/samples' large OpenClaw MEMORY.md repeated, else a generated
file of headings, nested lists, tables and paragraphs.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from markdown_it import MarkdownIt as PyParser

from memctl.ingest.markdown import read_markdown

SAMPLE = (
    Path(__file__).resolve().parents[2] / "../shared/samples/memory-md/openclaw_zh_MEMORY_large.md"
)


def _generated() -> str:
    parts = []
    for i in range(40):
        parts.append(f"## 第 {i} 节\n\n**配置说明**:\n- 用户偏好 {i}\n  - 子项 {i}\n- rule {i}\n\n")
        parts.append(f"| k | v |\n|---|---|\n| key{i} | value {i} |\n\n一段说明文字 {i}\n\n")
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path)
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    source = args.file or (SAMPLE if SAMPLE.exists() else None)
    text = source.read_text(encoding="utf-8") if source else _generated()
    big = (text + "\n\n") * args.copies
    py = PyParser("commonmark").enable("table")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "MEMORY.md"
        path.write_text(big, encoding="utf-8")
        timings: dict[str, list[float]] = {"markdown-it-py parse": [], "memctl reader (pyrs)": []}
        for _ in range(args.runs):
            started = time.perf_counter()
            py.parse(big)
            timings["markdown-it-py parse"].append(time.perf_counter() - started)
            started = time.perf_counter()
            records = sum(1 for _ in read_markdown(path))
            timings["memctl reader (pyrs)"].append(time.perf_counter() - started)
    print(f"{len(big) / 1e6:.1f} MB, {big.count(chr(10)):,} lines, {records:,} records")
    for name, values in timings.items():
        print(f"{name:24} median {statistics.median(values):6.2f} s  ({args.runs} runs)")


if __name__ == "__main__":
    main()
