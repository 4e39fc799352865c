"""Layer 2b, boilerplate: a long prefix or suffix shared by many records is not content.

The seed's store had 899 records behind one pinned background preamble. On the whole text they
all look alike (the preamble dominates every comparison); on what follows it they are 899
different memories. Records are grouped by their first (last) `min_chars` folded characters; in
a group of at least `min_records`, the longest common prefix is boilerplate when what follows it
differs from record to record: the median similarity (difflib ratio) of the remainders, over
pairs drawn across the group, is below `max_remainder_similarity`. Copies of one memory that
differ only near their end also share a long prefix, but their remainders are alike ("要先写
结论" / "最好先写结论": 0.73), so the group is split further instead and they keep being
compared on their whole text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from difflib import SequenceMatcher

import numpy as np

from memctl.dedupe.config import DedupeConfig
from memctl.dedupe.keyindex import KeyIndex, distinct


class Boilerplate:
    """Groups records by their opening and closing characters and finds shared boilerplate.

    Groups are kept as (hash of the first/last `min_chars` characters -> row) in two key
    indexes, 16 bytes a record; a hash collision only puts two groups' members side by side,
    and they are told apart by their actual text before anything is decided.
    """

    def __init__(self, config: DedupeConfig) -> None:
        self.min_chars = config.boilerplate_min_chars
        self.min_records = config.boilerplate_min_records
        self.max_similarity = config.boilerplate_max_remainder_similarity
        self._heads = KeyIndex()
        self._tails = KeyIndex()

    def add(self, items: Iterable[tuple[int, str]]) -> tuple[list[int], list[int]]:
        """Record (row, folded text); return the head and tail groups (as keys for prefixes()
        and suffixes()) that the new rows joined and that are big enough."""
        n = self.min_chars
        rows: list[int] = []
        heads: list[int] = []
        tails: list[int] = []
        for row, folded in items:
            if len(folded) >= n:
                rows.append(row)
                heads.append(hash(folded[:n]) & _MASK)
                tails.append(hash(folded[-n:]) & _MASK)
        found = []
        for index, keys in ((self._heads, heads), (self._tails, tails)):
            index.add(np.array(keys, dtype=np.uint64), np.array(rows, dtype=np.int64))
            touched = distinct(np.array(keys, dtype=np.uint64))
            found.append(touched[index.count(touched) >= self.min_records].tolist())
        return found[0], found[1]

    def prefixes(self, head: int, folded: Callable[[int], str]) -> dict[int, int]:
        """row -> length of its boilerplate prefix, for the members of one head group."""
        return self._group(self._heads, head, folded, reverse=False)

    def suffixes(self, tail: int, folded: Callable[[int], str]) -> dict[int, int]:
        """row -> length of its boilerplate suffix, for the members of one tail group."""
        return self._group(self._tails, tail, folded, reverse=True)

    def _group(
        self, index: KeyIndex, key: int, folded: Callable[[int], str], reverse: bool
    ) -> dict[int, int]:
        _, members = index.lookup(np.array([key], dtype=np.uint64))
        texts: dict[str, list[tuple[int, str]]] = {}
        for row in members.tolist():
            text = folded(row)[::-1] if reverse else folded(row)
            texts.setdefault(text[: self.min_chars], []).append((row, text))
        found: dict[int, int] = {}
        for group in texts.values():
            if len(group) >= self.min_records:
                found.update(self._shared([r for r, _ in group], [t for _, t in group]))
        return found

    def _shared(self, ids: list[int], texts: list[str]) -> dict[int, int]:
        order = sorted(range(len(ids)), key=texts.__getitem__)
        texts = [texts[i] for i in order]
        found: dict[int, int] = {}
        # An explicit stack: a family of near copies can split once per character.
        stack = [(0, len(texts))]
        while stack:
            lo, hi = stack.pop()
            if hi - lo < self.min_records:
                continue
            length = _common_prefix(texts[lo], texts[hi - 1])
            if length < self.min_chars:
                continue
            if self._diverse(texts[lo:hi], length):
                for i in range(lo, hi):
                    found[ids[order[i]]] = length
                continue
            start = lo
            while start < hi:
                char = texts[start][length : length + 1]
                end = start + 1
                while end < hi and texts[end][length : length + 1] == char:
                    end += 1
                if char:  # texts that end right here are equal: nothing after them to compare
                    stack.append((start, end))
                start = end
        return found

    def _diverse(self, texts: list[str], cut: int) -> bool:
        """Do the texts differ after `cut`? Pairs half the (sorted) group apart, so neighbours
        that happen to start alike do not decide it."""
        n = len(texts)
        step = max(1, n // _PAIRS)
        ratios = sorted(
            SequenceMatcher(None, texts[i][cut:], texts[(i + n // 2) % n][cut:], False).ratio()
            for i in range(0, n, step)
        )
        return ratios[len(ratios) // 2] < self.max_similarity


_PAIRS = 40
_MASK = (1 << 64) - 1  # str hash (salted per process: these keys never leave it) as uint64


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n
