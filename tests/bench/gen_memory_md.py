"""Generate a large MEMORY.md for the import benchmark: mixed Chinese/English bullets, many exact
and normalisation-only duplicates (full-width, case, punctuation, spacing), section headings.

    python tests/bench/gen_memory_md.py 200000 > /tmp/MEMORY.md
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from corpus import EN_WORDS, ZH_WORDS, spell  # noqa: E402

ZH_SUBJECTS = ["用户", "老板", "团队", "助手", "我们"]
ZH_VERBS = ["喜欢", "讨厌", "常用", "计划学习", "刚刚升级了", "每天都看", "想要换掉"]
ZH_OBJECTS = [
    "咖啡",
    "绿茶",
    "Rust 编译器",
    "机械键盘",
    "晨跑",
    "周报模板",
    "深色主题",
    "番茄钟",
    "飞书文档",
]
EN_SUBJECTS = ["The user", "Alice", "The team", "My manager", "We"]
EN_VERBS = [
    "prefers",
    "dislikes",
    "uses",
    "wants to learn",
    "just upgraded",
    "reviews",
    "plans to replace",
]
EN_OBJECTS = ["dark mode", "vim keybindings", "the Postgres cluster", "standup notes", "green tea",
              "the CI pipeline", "Rust", "weekly reports", "a split keyboard"]  # fmt: skip

FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}


def distinct(rng: random.Random, i: int) -> str:
    if i % 2:
        return (
            f"{rng.choice(ZH_SUBJECTS)}{rng.choice(ZH_VERBS)}{rng.choice(ZH_OBJECTS)}，"
            f"{spell(ZH_WORDS, i, 5, '')}。"
        )
    return (
        f"{rng.choice(EN_SUBJECTS)} {rng.choice(EN_VERBS)} {rng.choice(EN_OBJECTS)}: "
        f"{spell(EN_WORDS, i, 5, ' ')}."
    )


def variant(rng: random.Random, text: str) -> str:
    """A normalisation-only copy: same canonical form, different bytes."""
    kind = rng.randrange(4)
    if kind == 0:
        return "".join(FULLWIDTH.get(c, c) for c in text)
    if kind == 1:
        return text.upper()
    if kind == 2:
        return text.replace("，", ",").replace("。", ".").replace(" ", "  ")
    return text + "!!"


def generate(n: int, seed: int = 7, dup_rate: float = 0.4) -> list[str]:
    rng = random.Random(seed)
    lines = ["# MEMORY", ""]
    made: list[str] = []
    for i in range(n):
        if i % 5000 == 0:
            lines += ["", f"## Section {i // 5000}", ""]
        if made and rng.random() < dup_rate:
            text = rng.choice(made)
            text = text if rng.random() < 0.5 else variant(rng, text)
        else:
            text = distinct(rng, i)
            made.append(text)
        lines.append(f"- {text}")
    return lines


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    sys.stdout.write("\n".join(generate(count)) + "\n")
