"""Input shapes for the import benchmark and the recall test: each a generator (seed, size).

    python tests/bench/shapes.py SHAPE SIZE [--seed N] [--format json|md] > out
    python tests/bench/shapes.py --list

A shape is one kind of rot a legacy memory file can have, at any size, deterministic per seed:

  mix          tests/corpus.py's mix: copies, normalised and near copies, long edits, template
               noise, pinned preambles, hard negatives (the corpus the engine was written with)
  boilerplate  long notes (>= 300 characters) that are >= 80 % one shared paragraph, the distinct
               part before, inside or after it, and one-character near copies of them
  fact         one fact key ("the user lives in X") with a different value on each dated line
               (half the records; the rest is the mix)
  nearcopies   half the records are one-character near copies of one long text, the rest the mix
  pinned       half the records behind one pinned prefix with distinct tails, the rest the mix
  english      unique English memories only
  chinese      unique Chinese memories only
  samples      the memory records of the real files under ../shared/samples (or $MEMCTL_SAMPLES),
               replicated up to the size with small random edits (a character, a number, a word)
               and dates; SamplesMissing when the folder is absent

Records are tests/corpus.py's Rec (text, ts, label, kind); labels are only meaningful for mix.
Written as a memories JSON file (`{version: 1, exportedAt, memories: [...]}`: record times
survive) or as a MEMORY.md with one `- [YYYY-MM-DD HH:MM] text` bullet per record.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parents[1]))
from corpus import Rec, _ts, _Writer, build, near_copy  # noqa: E402


class SamplesMissing(Exception):
    """The real sample files are not on this machine."""


def _one_char(text: str, rng: random.Random) -> str:
    """The text with one character inserted, dropped or replaced, away from digits."""
    spots = [i for i, c in enumerate(text) if not c.isdigit()] or [0]
    i = rng.choice(spots)
    op = rng.randrange(3)
    if op == 0:
        return text[:i] + rng.choice("aeiou的是了") + text[i:]
    if op == 1 and len(text) > 1:
        return text[:i] + text[i + 1 :]
    return text[:i] + rng.choice("xyz和在有") + text[i + 1 :]


def _dated(rng: random.Random, i: int, n: int) -> str:
    """Times that rise with i over about three years (one fact restated over time)."""
    return _ts(rng, day=min(1094, i * 1095 // max(n, 1)))


def mix(n: int, seed: int) -> list[Rec]:
    return build(n, seed=seed)


def boilerplate(n: int, seed: int) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    english = seed % 2 == 0  # the dense (English) case is the one SimHash buckets crowd
    para = ""
    while len(para) < 320:
        para += (w.en_sentence() + ". ") if english else (w.zh_sentence() + "。")
    out: list[Rec] = []
    made: list[str] = []
    for i in range(n):
        if made and rng.random() < 0.3:
            out.append(Rec(_one_char(rng.choice(made), rng), _ts(rng), 0, "near"))
            continue
        tail = w.en_sentence() if english else w.zh_sentence()
        while len(tail) < 40:
            tail += " " + w.en_word() if english else "".join(w.zh_words(2))
        tail = tail[: max(40, len(para) // 5)]  # the shared paragraph stays >= 80 %
        where = rng.randrange(3)
        if where == 0:
            text = tail + " " + para
        elif where == 1:
            cut = para.find(" " if english else "。", len(para) // 2) + 1
            text = para[:cut] + tail + " " + para[cut:]
        else:
            text = para + tail
        made.append(text)
        out.append(Rec(text, _ts(rng), i + 1, "distinct"))
    return out


def fact(n: int, seed: int) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    half = n // 2
    out = []
    for i in range(half):
        if rng.random() < 0.5:
            text = f"用户现在住在{''.join(w.zh_words(2))}{i}号"
        else:
            text = f"The user lives in {w.name()} {w.name()} {i}"
        out.append(Rec(text, _dated(rng, i, half), i + 1, "fact"))
    return _shuffled(out + build(n - half, seed=seed), rng)


def nearcopies(n: int, seed: int) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    base = w.memory(english=seed % 2 == 0, long=True)
    half = n // 2
    out = [Rec(_one_char(base, rng), _ts(rng), 1, "near") for _ in range(half)]
    return _shuffled(out + build(n - half, seed=seed), rng)


PINNED = (
    "【置顶背景】你是用户的私人助理。用户在上海一家金融科技公司做后端开发，常用 Go 和 "
    "PostgreSQL，工作日九点上班。回答要简洁，先给结论再给理由；涉及日程时用二十四小时制；"
    "不要主动推荐付费服务。以下是本条记录的具体内容："
)


def pinned(n: int, seed: int) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    half = n // 2
    out = [
        Rec(PINNED + w.memory(english=rng.random() < 0.3, long=rng.random() < 0.2), _ts(rng),
            i + 1, "pinned")
        for i in range(half)
    ]  # fmt: skip
    return _shuffled(out + build(n - half, seed=seed), rng)


def _unique(n: int, seed: int, english: bool) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    seen: set[str] = set()
    out = []
    while len(out) < n:
        text = w.memory(english, long=rng.random() < 0.1)
        if text not in seen:
            seen.add(text)
            out.append(Rec(text, _ts(rng), len(out) + 1, "distinct"))
    return out


def english(n: int, seed: int) -> list[Rec]:
    return _unique(n, seed, english=True)


def chinese(n: int, seed: int) -> list[Rec]:
    return _unique(n, seed, english=False)


def samples_dir() -> Path | None:
    if env := os.environ.get("MEMCTL_SAMPLES"):
        return Path(env) if Path(env).is_dir() else None
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "samples"
        if candidate.is_dir():
            return candidate
    return None


@cache
def sample_texts() -> tuple[str, ...]:
    """The memory records of every sample file (user messages only, from transcripts)."""
    from memctl.ingest.detect import READERS, UnknownFormat, detect
    from memctl.models import MEMORY, Record

    folder = samples_dir()
    if folder is None:
        raise SamplesMissing("no ../shared/samples (set MEMCTL_SAMPLES to point at them)")
    texts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "README.md"):
        try:
            items = list(READERS[detect(path)](path))
        except (UnknownFormat, OSError, ValueError, RecursionError):
            continue
        for item in items:
            if (
                isinstance(item, Record)
                and item.kind == MEMORY
                and item.skip is None
                and item.role in (None, "user")
                and item.text.strip()
            ):
                texts.append(item.text)
    return tuple(texts)


def samples(n: int, seed: int) -> list[Rec]:
    rng = random.Random(seed)
    w = _Writer(rng)
    texts = sample_texts()
    out = []
    for i in range(n):
        text = texts[i] if i < len(texts) else rng.choice(texts)
        edit = rng.randrange(5) if i >= len(texts) else 4
        if edit == 0:
            text = _one_char(text, rng)
        elif edit == 1:  # a changed number: a different fact (or a fresh one)
            digits = [j for j, c in enumerate(text) if c.isdigit()]
            j = rng.choice(digits) if digits else None
            text = text[:j] + str(rng.randrange(10)) + text[j + 1 :] if j is not None else text
            text = text if digits else f"{text} ({rng.randrange(1, 10_000)})"
        elif edit == 2:
            text = near_copy(text, rng, w)
        elif edit == 3:
            text = f"{text} {w.en_word()}" if text.isascii() else text + "".join(w.zh_words(1))
        out.append(Rec(text, _ts(rng), 0, "sample"))
    return out


def _shuffled(records: list[Rec], rng: random.Random) -> list[Rec]:
    rng.shuffle(records)
    return records


SHAPES: dict[str, Callable[[int, int], list[Rec]]] = {
    "mix": mix,
    "boilerplate": boilerplate,
    "fact": fact,
    "nearcopies": nearcopies,
    "pinned": pinned,
    "english": english,
    "chinese": chinese,
    "samples": samples,
}


def generate(shape: str, n: int, seed: int = 1) -> list[Rec]:
    """`n` records of one shape (SamplesMissing for `samples` without the sample folder)."""
    return SHAPES[shape](n, seed)


def write(records: list[Rec], path: Path, fmt: str = "json") -> None:
    path.write_bytes(render(records, fmt))


def render(records: list[Rec], fmt: str = "json") -> bytes:
    if fmt == "json":
        memories = [{"id": i, "content": r.text, "created_at": r.ts}
                    for i, r in enumerate(records)]  # fmt: skip
        return orjson.dumps({"version": 1, "exportedAt": 0, "memories": memories})
    lines = ["# MEMORY", ""]
    for r in records:
        when = f"[{r.ts[:10]} {r.ts[11:16]}] " if r.ts else ""
        lines.append(f"- {when}{' '.join(r.text.split())}")
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", nargs="?", choices=sorted(SHAPES))
    parser.add_argument("size", nargs="?", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=["json", "md"], default="json")
    parser.add_argument("--list", action="store_true", help="list the shapes and exit")
    opts = parser.parse_args()
    if opts.list or not opts.shape:
        print("\n".join(SHAPES))
        return
    try:
        records = generate(opts.shape, opts.size, opts.seed)
    except SamplesMissing as exc:
        raise SystemExit(f"Error: {exc}") from None
    sys.stdout.buffer.write(render(records, opts.format))


if __name__ == "__main__":
    main()
