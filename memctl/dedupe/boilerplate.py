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

from memctl.dedupe.config import DedupeConfig


class Boilerplate:
    """Groups records by their opening and closing characters and finds shared boilerplate."""

    def __init__(self, config: DedupeConfig) -> None:
        self.min_chars = config.boilerplate_min_chars
        self.min_records = config.boilerplate_min_records
        self.max_similarity = config.boilerplate_max_remainder_similarity
        self._heads: dict[str, list[int]] = {}
        self._tails: dict[str, list[int]] = {}

    def add(self, items: Iterable[tuple[int, str]]) -> tuple[set[str], set[str]]:
        """Record (id, folded text); return the head and tail keys whose groups are big enough."""
        heads, tails = set(), set()
        n = self.min_chars
        for item, folded in items:
            if len(folded) >= n:
                head, tail = folded[:n], folded[-n:]
                self._heads.setdefault(head, []).append(item)
                self._tails.setdefault(tail, []).append(item)
                heads.add(head)
                tails.add(tail)
        big = self.min_records
        return (
            {h for h in heads if len(self._heads[h]) >= big},
            {t for t in tails if len(self._tails[t]) >= big},
        )

    def all_groups(self) -> tuple[set[str], set[str]]:
        big = self.min_records
        return (
            {h for h, ids in self._heads.items() if len(ids) >= big},
            {t for t, ids in self._tails.items() if len(ids) >= big},
        )

    def prefixes(self, head: str, folded: Callable[[int], str]) -> dict[int, int]:
        """id -> length of its boilerplate prefix, for the members of one head group."""
        ids = self._heads[head]
        return self._shared(ids, [folded(i) for i in ids])

    def suffixes(self, tail: str, folded: Callable[[int], str]) -> dict[int, int]:
        """id -> length of its boilerplate suffix, for the members of one tail group."""
        ids = self._tails[tail]
        return self._shared(ids, [folded(i)[::-1] for i in ids])

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


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n
