"""Synthetic memory corpora with known duplicate groups, for dedupe tests and benchmarks.

    from tests.corpus import build, seed_shape
    records = build(20_000, seed=1)      # mixed zh/en, many near duplicates
    records = seed_shape()               # the seed workspace: 999 template copies, 899 pinned…

Each Rec has a `label`: records with the same label are one memory (copies, normalised copies,
near copies, long edited copies, members of one template family); different labels are different
memories, including the hard negatives that differ from another memory only in a number, a
weekday or a negation. Distinct memories are built from real Chinese words (jieba's dictionary,
sampled by frequency, so bigram frequencies follow a natural long tail) and a hand-written
English vocabulary, arranged in memory-like sentences. Everything is deterministic per seed.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from itertools import accumulate

# Word lists for generated memories, shared with tests/helpers.py and the benchmarks.
ZH_WORDS = (
    "春夏秋冬山水风云花草鱼鸟金木火土日月星辰江河湖海松竹梅兰琴棋书画诗酒茶"
    "米麦豆桃李杏梨刀剑弓马车船桥路门窗灯烛纸笔墨砚"
)
EN_WORDS = [
    "amber",
    "basil",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kelp",
    "lagoon",
    "meadow",
    "nectar",
    "orchid",
    "pebble",
    "quartz",
    "raven",
    "saffron",
    "tundra",
    "umber",
    "violet",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
]


def spell(words: str | list[str], i: int, count: int, sep: str) -> str:
    """Words spelled from i's digits: distinct memories differ in words, not only in a number
    (numbered copies of one sentence are a template family, which dedupe rightly folds)."""
    return sep.join(words[(i // len(words) ** k) % len(words)] for k in range(count))


KINDS = (
    "distinct", "exact", "normalised", "near", "long_edit", "template", "pinned", "hello",
    "negative",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Rec:
    text: str
    ts: str | None
    label: int
    kind: str


@dataclass(frozen=True, slots=True)
class Mix:
    """Shares of a generated corpus, by kind (the rest are distinct memories)."""

    exact: float = 0.12
    normalised: float = 0.10
    near: float = 0.16
    long_edit: float = 0.04
    negative: float = 0.03
    long_share: float = 0.08  # of distinct memories, how many are long (≥ 150 characters)
    en_share: float = 0.2  # of distinct memories, how many are English
    template_families: int = 6
    template_copies: int = 40  # per family
    pinned: int = 300


@cache
def _zh_words() -> tuple[list[str], list[float]]:
    """Chinese words from jieba's dictionary with cumulative sampling weights."""
    import jieba

    path = os.path.join(os.path.dirname(jieba.__file__), "dict.txt")
    words, weights = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            word, freq, *_ = line.split()
            if 2 <= len(word) <= 4 and all("\u4e00" <= ch <= "\u9fff" for ch in word):
                n = int(freq)
                if n >= 20:
                    words.append(word)
                    weights.append(n**0.75)
    return words, list(accumulate(weights))


_EN = [
    "time",
    "year",
    "people",
    "way",
    "day",
    "man",
    "thing",
    "woman",
    "life",
    "child",
    "world",
    "school",
    "state",
    "family",
    "student",
    "group",
    "country",
    "problem",
    "hand",
    "part",
    "place",
    "case",
    "week",
    "company",
    "system",
    "program",
    "question",
    "work",
    "government",
    "number",
    "night",
    "point",
    "home",
    "water",
    "room",
    "mother",
    "area",
    "money",
    "story",
    "fact",
    "month",
    "lot",
    "right",
    "study",
    "book",
    "eye",
    "job",
    "word",
    "business",
    "issue",
    "side",
    "kind",
    "head",
    "house",
    "service",
    "friend",
    "father",
    "power",
    "hour",
    "game",
    "line",
    "end",
    "member",
    "law",
    "car",
    "city",
    "community",
    "name",
    "president",
    "team",
    "minute",
    "idea",
    "kid",
    "body",
    "information",
    "back",
    "parent",
    "face",
    "others",
    "level",
    "office",
    "door",
    "health",
    "person",
    "art",
    "war",
    "history",
    "party",
    "result",
    "change",
    "morning",
    "reason",
    "research",
    "girl",
    "guy",
    "moment",
    "air",
    "teacher",
    "force",
    "education",
    "foot",
    "boy",
    "age",
    "policy",
    "process",
    "music",
    "market",
    "sense",
    "nation",
    "plan",
    "college",
    "interest",
    "death",
    "experience",
    "effect",
    "use",
    "class",
    "control",
    "care",
    "field",
    "development",
    "role",
    "effort",
    "rate",
    "heart",
    "drug",
    "show",
    "leader",
    "light",
    "voice",
    "wife",
    "police",
    "mind",
    "price",
    "report",
    "decision",
    "son",
    "view",
    "relationship",
    "town",
    "road",
    "arm",
    "difference",
    "value",
    "building",
    "action",
    "model",
    "season",
    "society",
    "tax",
    "director",
    "position",
    "player",
    "record",
    "paper",
    "space",
    "ground",
    "form",
    "event",
    "official",
    "matter",
    "center",
    "couple",
    "site",
    "project",
    "activity",
    "star",
    "table",
    "need",
    "court",
    "oil",
    "situation",
    "cost",
    "industry",
    "figure",
    "street",
    "image",
    "phone",
    "data",
    "picture",
    "practice",
    "piece",
    "land",
    "product",
    "doctor",
    "wall",
    "patient",
    "worker",
    "news",
    "test",
    "movie",
    "north",
    "love",
    "support",
    "technology",
    "step",
    "baby",
    "computer",
    "type",
    "attention",
    "film",
    "tree",
    "source",
    "organization",
    "hair",
    "window",
    "evidence",
    "population",
    "site",
    "fish",
    "garden",
    "coffee",
    "tea",
    "bread",
    "cheese",
    "kitchen",
    "train",
    "flight",
    "ticket",
    "hotel",
    "beach",
    "mountain",
    "river",
    "lake",
    "forest",
    "bike",
    "guitar",
    "piano",
    "camera",
    "laptop",
    "keyboard",
    "monitor",
    "editor",
    "terminal",
    "server",
    "database",
    "cluster",
    "backup",
    "script",
    "deploy",
    "release",
    "branch",
    "commit",
    "review",
    "meeting",
    "standup",
    "deadline",
    "invoice",
    "budget",
    "contract",
    "client",
    "vendor",
    "manager",
    "designer",
    "engineer",
    "lawyer",
    "dentist",
    "nurse",
    "yoga",
    "running",
    "swimming",
    "climbing",
    "hiking",
    "cooking",
    "baking",
    "painting",
    "reading",
    "writing",
    "chess",
    "tennis",
    "soccer",
    "basketball",
    "japanese",
    "spanish",
    "german",
    "french",
    "python",
    "rust",
    "golang",
    "javascript",
    "react",
    "kubernetes",
    "postgres",
    "redis",
    "linux",
    "windows",
    "android",
    "iphone",
    "notebook",
]
_EN_VERBS = [
    "likes",
    "prefers",
    "dislikes",
    "uses",
    "wants",
    "plans",
    "needs",
    "keeps",
    "avoids",
    "enjoys",
    "visits",
    "reads",
    "writes",
    "watches",
    "buys",
    "sells",
    "learns",
    "teaches",
    "builds",
    "fixes",
    "checks",
    "tracks",
    "shares",
    "asks",
    "mentions",
    "remembers",
    "forgets",
]
_EN_ADJ = [
    "new",
    "old",
    "good",
    "great",
    "small",
    "large",
    "long",
    "short",
    "early",
    "late",
    "quiet",
    "busy",
    "cheap",
    "expensive",
    "warm",
    "cold",
    "strong",
    "weak",
    "simple",
    "complex",
    "local",
    "remote",
    "weekly",
    "daily",
    "favourite",
    "usual",
    "spare",
    "shared",
    "private",
]


_ONSETS = [
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "j",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "w",
    "z",
    "br",
    "ch",
    "cl",
    "dr",
    "gr",
    "kr",
    "pl",
    "sh",
    "st",
    "th",
    "tr",
    "v",
    "y",
    "zh",
]
_NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ei", "ou", "ia", "io"]
_CODAS = ["n", "r", "s", "l", "k", "x", "m", "nd", "rt"]
_EN_SKIP = {"not", "no", "never", "nor", "none", "nothing", "cannot", "without", "may", "march"}


@cache
def _en_words() -> tuple[list[str], list[float]]:
    """English words: the list above plus the vocabulary of Python's own reference text
    (pydoc_data, in the standard library), weighted by a flattened frequency."""
    import re
    from pydoc_data.topics import topics

    counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]{3,}", " ".join(topics.values())))
    for word in _EN:
        counts[word] = max(counts[word], 20)
    words = sorted(w for w in counts if w not in _EN_SKIP)
    return words, list(accumulate(counts[w] ** 0.6 for w in words))


class _Writer:
    """Memory-like sentences from one random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.zh, self.zh_w = _zh_words()
        self.en, self.en_w = _en_words()

    def en_word(self) -> str:
        return self.rng.choices(self.en, cum_weights=self.en_w)[0]

    def zh_words(self, k: int) -> list[str]:
        return self.rng.choices(self.zh, cum_weights=self.zh_w, k=k)

    def zh_sentence(self) -> str:
        r = self.rng
        lead = r.choice(
            ["用户", "用户说", "用户提到", "用户希望", "我", "他", "她", "老板", "助手注意："]
        )
        clauses = [
            "".join(self.zh_words(r.randint(2, 5))) for _ in range(r.choice([1, 1, 2, 2, 3]))
        ]
        return lead + "，".join(clauses) + r.choice(["。", "。", "！", ""])

    def name(self) -> str:
        """A made-up proper noun (person, place, project): real memories are full of them."""
        r = self.rng
        syllables = r.randint(2, 3)
        word = "".join(r.choice(_ONSETS) + r.choice(_NUCLEI) for _ in range(syllables))
        return word.capitalize() + (r.choice(_CODAS) if r.random() < 0.4 else "")

    def en_sentence(self) -> str:
        r = self.rng
        subject = r.choice(["The user", "User", "She", "He", "My manager", "The team", "I"])
        if r.random() < 0.6:
            subject = (
                r.choice(["", "The user's friend ", "Colleague ", "Sister ", "Project "])
                + self.name()
            )
        words = [
            r.choice(_EN_ADJ) + " " + self.en_word() if r.random() < 0.3 else self.en_word()
            for _ in range(r.randint(3, 8))
        ]
        glue = r.choice([" and ", " with ", " for ", " at ", " in ", " about ", ", "])
        return f"{subject} {r.choice(_EN_VERBS)} " + glue.join(words) + r.choice([".", ".", ""])

    def memory(self, english: bool, long: bool) -> str:
        sentence = self.en_sentence if english else self.zh_sentence
        if not long:
            return sentence()
        sep = " " if english else ""
        parts = [sentence() for _ in range(self.rng.randint(4, 9))]
        return sep.join(p if p[-1:] in ".。！" else p + ("." if english else "。") for p in parts)


# -------------------------------------------------------------------- variants

_FULLWIDTH = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}


def normalised_copy(text: str, rng: random.Random) -> str:
    """Differs only in what normalisation folds: width, case, punctuation, spacing."""
    choice = rng.randrange(4)
    if choice == 0:
        return "".join(_FULLWIDTH.get(c, c) if rng.random() < 0.5 else c for c in text)
    if choice == 1:
        return text.upper() if text.isascii() else "  " + text.replace("，", ", ") + " "
    if choice == 2:
        return text.rstrip("。.！!") + rng.choice(["！", "!!", "…", " 。"])
    return text.replace(" ", "  ").replace("，", "、") + "\n"


_KEEP = set("0123456789零〇一二三四五六七八九十百千万两不没别未无非勿莫否周")
_KEEP_WORDS = {
    "not", "no", "never", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "twenty", "hundred", "thousand", "morning", "afternoon", "evening", "night", "noon", "today",
    "tomorrow", "yesterday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday", "mondays", "saturdays", "sundays", "may", "march",
}  # fmt: skip


def near_copy(text: str, rng: random.Random, w: _Writer) -> str:
    """One small edit of a word or two: insert, drop, or swap, away from digits, numerals,
    negations and weekdays (changing those makes a different fact, not a copy)."""
    if text.isascii():
        words = text.split()
        if len(words) < 4:
            return text + " indeed"
        i = rng.randrange(1, len(words))
        op = rng.randrange(3)
        safe = (
            not any(c.isdigit() for c in words[i])
            and words[i].lower().strip(".,") not in _KEEP_WORDS
        )
        if op == 0:
            words.insert(i, rng.choice(["really", "also", "usually", "still", "often"]))
        elif op == 1 and len(words) > 6 and safe:
            del words[i]
        elif safe:
            words[i] = w.en_word()
        return " ".join(words)
    op = rng.randrange(3)
    cut = rng.randrange(len(text) // 3, max(len(text) // 3 + 1, len(text) - 1))
    if op == 0:
        return text[:cut] + rng.choice(["也", "还", "一直", "特别", "真的"]) + text[cut:]
    if op == 1 and len(text) > 14 and text[cut] not in _KEEP and text[cut - 1 : cut + 1] != "周":
        return text[:cut] + text[cut + 1 :]
    return text.rstrip("。！") + rng.choice(["呢。", "吧。", "啊！", "的。"])


def long_edit(text: str, rng: random.Random, w: _Writer) -> str:
    """A small edit of a long text: a clause appended, a few words changed in one sentence,
    or a few near-copy edits spread over it."""
    english = text.isascii()
    op = rng.randrange(3)
    if op == 0:
        extra = (
            " " + w.en_word() + " " + w.en_word() + "."
            if english
            else "".join(w.zh_words(2)) + "。"
        )
        return text + extra
    if op == 1:
        sep = ". " if english else "。"
        parts = text.split(sep)
        i = rng.randrange(len(parts))
        parts[i] = near_copy(near_copy(parts[i], rng, w), rng, w)
        return sep.join(parts)
    out = text
    for _ in range(3):
        out = near_copy(out, rng, w)
    return out


def negative_of(text: str, rng: random.Random) -> str | None:
    """A hard negative: the same text with a number, weekday or negation changed."""
    for old, new in (
        ("周一", "周三"),
        ("Monday", "Wednesday"),
        ("喜欢", "不喜欢"),
        (" likes ", " never likes "),
    ):
        if old in text:
            return text.replace(old, new, 1)
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    if digits:
        i = rng.choice(digits)
        return text[:i] + str((int(text[i]) + rng.randint(1, 8)) % 10) + text[i + 1 :]
    if text.startswith("用户") and not text.startswith("用户不"):
        return "用户不" + text[2:]
    for verb in _EN_VERBS:
        if f" {verb} " in text:
            return text.replace(f" {verb} ", f" never {verb} ", 1)
    return None


# -------------------------------------------------------------------- corpora


def _ts(rng: random.Random, day: int | None = None) -> str:
    day = rng.randrange(900) if day is None else day
    year, rest = 2023 + day // 365, day % 365
    month, dom = 1 + rest // 31 % 12, 1 + rest % 28
    return f"{year}-{month:02d}-{dom:02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00+08:00"


PINNED_PREAMBLE = (
    "【置顶背景】你是用户的私人助理。用户在上海一家金融科技公司做后端开发，常用 Go 和 "
    "PostgreSQL，工作日九点上班。回答要简洁，先给结论再给理由；涉及日程时用二十四小时制；"
    "不要主动推荐付费服务。以下是本条记录的具体内容："
)
TEMPLATE_SHAPES = (
    "判断是否值得长期记住：第{n}条消息「{q}」——结论：否",
    "判断是否值得长期记住：第{n}条消息「{q}」——结论：是",
    'Extraction check #{n}: message "{q}" -> not worth remembering',
    "[{d}] 自动摘要任务 {h} 已完成，处理 {n} 条消息",
    "Session {h} summary: {n} messages, nothing new to remember",
    "提醒：第{n}次同步于 {d} 完成，共 {m} 条",
)


def build(n: int, seed: int = 0, mix: Mix | None = None) -> list[Rec]:
    """About `n` records with known groups (see the module docstring)."""
    mix = mix or Mix()
    rng = random.Random(seed)
    w = _Writer(rng)
    out: list[Rec] = []
    label = 0
    for shape in range(mix.template_families):
        label += 1
        for _ in range(mix.template_copies):
            out.append(Rec(_template(shape, rng, w), _ts(rng), label, "template"))
    for _ in range(mix.pinned):
        label += 1
        out.append(Rec(PINNED_PREAMBLE + w.zh_sentence(), _ts(rng), label, "pinned"))
    copies = mix.exact + mix.normalised + mix.near + mix.long_edit + mix.negative
    distinct = max(1, int((n - len(out)) / (1 + copies)))
    originals: list[Rec] = []
    for _ in range(distinct):
        label += 1
        english = rng.random() < mix.en_share
        long = rng.random() < mix.long_share
        text = w.memory(english, long)
        if rng.random() < 0.25:
            text += rng.choice(_EXTRAS)(rng)
        originals.append(Rec(text, _ts(rng), label, "distinct"))
    out.extend(originals)
    longs = [r for r in originals if len(r.text) >= 150] or originals
    negatives: dict[str, int] = {}
    for kind, share in (
        ("exact", mix.exact), ("normalised", mix.normalised), ("near", mix.near),
        ("long_edit", mix.long_edit), ("negative", mix.negative),
    ):  # fmt: skip
        for _ in range(int(distinct * share)):
            source = rng.choice(longs if kind == "long_edit" else originals)
            text = _variant(kind, source.text, rng, w)
            if text is None:
                continue
            if kind == "negative":
                if text in negatives:  # the same change made twice is one memory
                    out.append(Rec(text, _ts(rng), negatives[text], kind))
                    continue
                label += 1
                negatives[text] = label
                out.append(Rec(text, _ts(rng), label, kind))
            else:
                out.append(Rec(text, _ts(rng), source.label, kind))
    rng.shuffle(out)
    return out


_EXTRAS = (
    lambda r: f"，预算 {r.randint(100, 9000)} 元",
    lambda r: f" (ticket {r.randint(1000, 99999)})",
    lambda r: f"，每周{'一二三四五六日'[r.randrange(7)]}晚上",
    lambda r: f" on {r.choice(['Monday', 'Friday', 'Sunday'])} at {r.randint(7, 21)}:00",
)


def _variant(kind: str, text: str, rng: random.Random, w: _Writer) -> str | None:
    if kind == "exact":
        return text
    if kind == "normalised":
        return normalised_copy(text, rng)
    if kind == "near":
        return near_copy(text, rng, w)
    if kind == "long_edit":
        return long_edit(text, rng, w)
    return negative_of(text, rng)


def _template(shape: int, rng: random.Random, w: _Writer) -> str:
    return TEMPLATE_SHAPES[shape % len(TEMPLATE_SHAPES)].format(
        n=rng.randint(1, 99999),
        m=rng.randint(1, 500),
        q="".join(w.zh_words(rng.randint(1, 4))),
        d=_ts(rng)[:10],
        h=f"{rng.getrandbits(32):08x}",
    )


def seed_shape(seed: int = 0) -> tuple[list[Rec], int]:
    """The seed's workspace (2,617 records) and its true number of distinct memories.

    999 copies of the "判断是否值得长期记住" template, 899 records behind one pinned
    background preamble with distinct content, 52 "hello", and 667 other records: 450
    distinct memories (kept pairwise far apart) and 217 copies of them (exact, normalised,
    near).
    """
    rng = random.Random(seed)
    w = _Writer(rng)
    out: list[Rec] = []
    label = 1
    for _ in range(999):
        out.append(Rec(_template(0, rng, w), _ts(rng), label, "template"))
    contents = _distinct(899, rng, w, english_share=0.0)
    for text in contents:
        label += 1
        out.append(Rec(PINNED_PREAMBLE + text, _ts(rng), label, "pinned"))
    label += 1
    out.extend(
        Rec(rng.choice(["hello", "hello", "Hello", "hello!"]), _ts(rng), label, "hello")
        for _ in range(52)
    )
    originals = []
    for text in _distinct(450, rng, w, english_share=0.35):
        label += 1
        originals.append(Rec(text, _ts(rng), label, "distinct"))
    out.extend(originals)
    for i in range(217):
        source = originals[i * 2 % len(originals)]
        kind = ("exact", "normalised", "near")[i % 3]
        text = _variant(kind, source.text, rng, w) or source.text
        if kind == "near" and _jaccard(text, source.text) < 0.8:
            # This workspace tests convergence, not the threshold: keep near copies near.
            kind, text = "normalised", normalised_copy(source.text, rng)
        out.append(replace(source, text=text, kind=kind, ts=_ts(rng)))
    rng.shuffle(out)
    return out, label


def _distinct(k: int, rng: random.Random, w: _Writer, english_share: float) -> list[str]:
    """k memories no two of which have bigram Jaccard >= 0.5 (so any merge is a mistake)."""
    from memctl.dedupe.text import bigrams, fold, light

    chosen: list[str] = []
    sets: list[set[int]] = []
    while len(chosen) < k:
        text = w.memory(rng.random() < english_share, rng.random() < 0.1)
        tokens = bigrams(fold(light(text)))
        if all(len(tokens & s) < 0.5 * len(tokens | s) for s in sets):
            chosen.append(text)
            sets.append(tokens)
    return chosen


def _jaccard(a: str, b: str) -> float:
    from memctl.dedupe.text import bigrams, fold, light

    x, y = bigrams(fold(light(a))), bigrams(fold(light(b)))
    return len(x & y) / len(x | y) if x | y else 1.0


def labels_to_groups(records: list[Rec]) -> Iterator[list[int]]:
    """Indices of records grouped by label."""
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault(r.label, []).append(i)
    yield from groups.values()
