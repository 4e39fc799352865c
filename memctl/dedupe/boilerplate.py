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

A member whose copy of the boilerplate has a small edit (a typo, a changed word) leaves the
exact common prefix, so it is matched to the boilerplate found for the rest instead: when at
least `near_similarity` of the boilerplate's characters occur in order at its start (difflib),
it is cut where its copy ends. An edit within the first `min_chars` characters puts a record in
another group; records are also indexed by their next `min_chars` characters, and those sharing
them with a found boilerplate are matched the same way. Otherwise such a record would be
compared on its whole text, mostly boilerplate: it would miss its own note's copies and match
other notes. Tails are handled the same way on the reversed text.

A note may also sit inside the paragraph (its first part, the note, the rest). Such records
share the head group of those whose note follows the paragraph, and the tail group of those
whose note precedes it. A copy of a found boilerplate that skips `inside_min_chars` or more of
the record's characters is cut on both sides of that run (split_cuts() hands the engine the
other side's cut); and two remainders that end alike for `min_chars` or more (the rest of the
paragraph) are judged different notes or not on what precedes that, so a crowd whose notes
all sit inside the paragraph is recognised on both sides too.

Groups and prefixes are compared with every run of digits as one mark, so a boilerplate stamped
with a date or a number ("（5 月 3 日整理）") is one boilerplate; the guard then compares
records on what remains, so notes that differ only in that stamp are one memory.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable
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
        self.near_similarity = config.boilerplate_near_similarity
        self.inside_min_chars = config.boilerplate_inside_min_chars
        # Cuts of the other side found with a note inside a copy (split_cuts()): the rest of
        # the boilerplate at the record's end (found on the head side) or start (on the tail).
        self._other: tuple[dict[int, int], dict[int, int]] = ({}, {})  # (starts, ends)
        # Rows whose own group found their boilerplate prefix (suffix).
        self._framed: tuple[_RowMarks, _RowMarks] = (_RowMarks(), _RowMarks())
        self._given: tuple[dict[int, int], dict[int, int]] = ({}, {})  # near cuts this round
        # (row, boilerplate) -> _carried()
        self._near: dict[tuple[int, int], tuple[int, int]] = {}
        # (row, is a tail) -> boilerplates it was compared with on that side
        self._tries: Counter[tuple[int, bool]] = Counter()
        self.compared = 0  # records compared with a boilerplate they may carry an edited copy of
        self._heads = KeyIndex()
        self._tails = KeyIndex()
        # The next `min_chars` characters (head) / the ones before the last (tail): a record
        # whose copy of a boilerplate has an edit in its first (last) characters is in another
        # group, and is found through these.
        self._heads2 = KeyIndex()
        self._tails2 = KeyIndex()

    def release(self) -> None:
        """Free the groups and what was compared, for an engine whose last batch has been
        searched (the counters stay)."""
        self._other, self._framed, self._given = ({}, {}), (_RowMarks(), _RowMarks()), ({}, {})
        self._near, self._tries = {}, Counter()
        self._heads, self._tails, self._heads2, self._tails2 = (KeyIndex() for _ in range(4))

    def add(self, rows: Iterable[int], folded: Callable[[int], str]) -> tuple[list[int], list[int]]:
        """Record rows (`folded(row)` is the text); return the head and tail groups (as keys
        for prefixes() and suffixes()) that the new rows joined and that are big enough, and
        those whose boilerplate a new row may carry with an edit near its start (end)."""
        n = self.min_chars
        kept: list[int] = []
        heads: list[int] = []
        tails: list[int] = []
        kept2: list[int] = []
        heads2: list[int] = []
        tails2: list[int] = []
        for row in rows:
            text = folded(row)
            if len(text) >= n:
                first, last = _masked(text[: 3 * n]), _masked(text[-3 * n :])
                kept.append(row)
                heads.append(hash(first[:n]) & _MASK)
                tails.append(hash(last[-n:]) & _MASK)
                if len(first) >= 2 * n and len(last) >= 2 * n:
                    kept2.append(row)
                    heads2.append(hash(first[n : 2 * n]) & _MASK)
                    tails2.append(hash(last[-2 * n : -n]) & _MASK)
        found = []
        for index, keys, mid, keys2, ends in (
            (self._heads, heads, self._heads2, heads2, (slice(0, 3 * n), slice(0, n))),
            (self._tails, tails, self._tails2, tails2, (slice(-3 * n, None), slice(-n, None))),
        ):
            index.add(np.array(keys, dtype=np.uint64), np.array(kept, dtype=np.int64))
            mid.add(np.array(keys2, dtype=np.uint64), np.array(kept2, dtype=np.int64))
            touched = distinct(np.array(keys, dtype=np.uint64))
            big = set(touched[index.count(touched) >= self.min_records].tolist())
            # A row of this batch in each group: the order of groups of one size follows it,
            # not the keys, which are str hashes salted per process (the same import must
            # give the same store in every run).
            row_of = dict(zip(reversed(keys), reversed(kept), strict=True))
            touched2 = distinct(np.array(keys2, dtype=np.uint64))
            touched2 = touched2[mid.count(touched2) >= self.min_records]
            if len(touched2):  # the groups a few of each such window's records belong to
                which, members = mid.lookup(touched2)
                order = np.argsort(which, kind="stable")
                which, members = which[order], members[order]
                rank = np.arange(len(which)) - np.searchsorted(which, which)
                sample = members[rank < _SAMPLE].tolist()
                for r in reversed(sample):
                    key = hash(_masked(folded(r)[ends[0]])[ends[1]]) & _MASK
                    big.add(key)
                    row_of[key] = min(r, row_of.get(key, r))
            # Biggest first: a crowd's members are placed before the small groups that
            # share its windows look for records elsewhere (_group).
            groups = np.array(sorted(big, key=row_of.__getitem__), dtype=np.uint64)
            found.append(groups[np.argsort(-index.count(groups), kind="stable")].tolist())
        return found[0], found[1]

    def prefixes(self, head: int, folded: Callable[[int], str]) -> dict[int, int]:
        """row -> length of its boilerplate prefix, for the members of one head group."""
        return self._group(self._heads, self._heads2, head, folded, reverse=False)

    def suffixes(self, tail: int, backwards: Callable[[int], str]) -> dict[int, int]:
        """row -> length of its boilerplate suffix, for the members of one tail group
        (`backwards(row)`: the folded text reversed)."""
        return self._group(self._tails, self._tails2, tail, backwards, reverse=True)

    def tail_members(self, tails: list[int]) -> np.ndarray:
        """The rows of these tail groups, each once."""
        _, members = self._tails.lookup(np.array(tails, dtype=np.uint64))
        return np.unique(members)

    def _group(
        self,
        index: KeyIndex,
        mid: KeyIndex,
        key: int,
        side: Callable[[int], str],
        reverse: bool,
    ) -> dict[int, int]:
        """`side(row)`: the folded text as read from this side (reversed for a tail)."""
        _, members = index.lookup(np.array([key], dtype=np.uint64))
        texts: dict[str, list[tuple[int, str]]] = {}
        for row in members.tolist():
            text = _masked(side(row))
            texts.setdefault(text[: self.min_chars], []).append((row, text))
        found: dict[int, int] = {}
        other: dict[int, int] = {}
        n = self.min_chars
        for group in texts.values():
            if len(group) < self.min_records:
                continue
            cut = self._shared([r for r, _ in group], [t for _, t in group])
            if not cut:
                continue
            self._extend(group, cut)
            # Matched in several groups (its own and those it shares a window with): the
            # longest copy found since split_cuts() stands (the engine takes the last).
            given = self._given[reverse]
            for row, length in cut.items():
                if given.get(row, 0) <= length:
                    given[row] = found[row] = length
            framed = self._framed[reverse]
            framed.add(cut)
            # Members with an edited copy, and records elsewhere whose copy differs in its
            # first characters but not in the next ones (not those whose own group found
            # their boilerplate already, nor those a bigger group of this round found to carry
            # an edited copy of its own: groups are judged biggest first, see add(), so a few
            # copies that share one edit do not bring the whole crowd that shares the window,
            # once per such group, up to _NEAR_TRIES times a record; on the boilerplate shape
            # at 200k there are hundreds of such groups).
            # (Shifted by up to _SHIFT: a character put in or left out moves the window.)
            shared = Counter(text[: cut[row]] for row, text in group if row in cut)
            windows = {
                b[n + d : 2 * n + d]
                for b in shared
                if len(b) >= 2 * n + _SHIFT
                for d in range(-_SHIFT, _SHIFT + 1)
            }
            if windows:
                probe = [hash(w[::-1] if reverse else w) & _MASK for w in windows]
                _, others = mid.lookup(np.array(probe, dtype=np.uint64))
                inside = {r for r, _ in group}
                # The framed ones left out at once: the window's crowd is most of the rows it
                # names, and walked in Python once per such group it made this step grow with
                # groups x crowd (4M rows walked at 100k records, 0.45M at 50k).
                for row in framed.unmarked(others).tolist():
                    if row not in inside and row not in given:
                        inside.add(row)
                        group.append((row, _masked(side(row))))
            near, split = self._near_carriers(group, cut, shared, reverse)
            for row, length in near.items():
                if given.get(row, 0) < length:
                    given[row] = found[row] = length
                    if row in split:
                        other[row] = split[row]
        # Lengths so far count a run of digits as one character.
        for row, length in found.items():
            found[row] = _unmasked_length(side(row), length)
        for row, length in other.items():  # counted from the other end
            self._other[not reverse][row] = _unmasked_length(side(row)[::-1], length)
        return found

    def _extend(self, group: list[tuple[int, str]], cut: dict[int, int]) -> None:
        """Members cut at a shorter boilerplate that carry the longest one with an edit
        just past that cut: cut where their copy of the longest ends. (An edited copy of the
        whole paragraph whose edit comes right after its first part sorts among the notes
        inside the paragraph, and is cut with them.)"""
        counts = Counter(text[: cut[row]] for row, text in group if row in cut)
        real = [b for b, count in counts.items() if count >= self.min_records]
        if not real:
            return
        longest = max(real, key=len)
        for row, text in group:
            at = cut.get(row, 0)
            if not at or at + 2 * _SURE > len(longest):
                continue
            if longest[at + _SURE : at + 2 * _SURE] not in text[at : at + 4 * _SURE]:
                continue  # what follows its cut is not the rest of the longest
            end, rest = self._carried(longest, text)
            if end > at and not rest:
                cut[row] = end

    def split_cuts(self) -> tuple[dict[int, int], dict[int, int]]:
        """(row -> prefix length, row -> suffix length) of the records found since the last
        call to carry a boilerplate around a note of their own (on the side of the group that
        did not find them: prefixes() gives the start of such a copy, and this its end)."""
        starts, ends = self._other
        self._other = ({}, {})
        self._given = ({}, {})
        return starts, ends

    def _near_carriers(
        self,
        group: list[tuple[int, str]],
        cut: dict[int, int],
        shared: Counter[str],
        reverse: bool,
    ) -> tuple[dict[int, int], dict[int, int]]:
        """Members whose copy of a found boilerplate (`shared`: how many carry each exactly)
        differs from it a little (a typo, a changed word): where their copy ends; and of those
        whose note is inside their copy, the length of the copy's second part."""
        found: dict[int, int] = {}
        other: dict[int, int] = {}
        # Those shared by a group's worth of records, longest first: a copy of the whole
        # paragraph with an edit carries its first (last) part too, which notes inside the
        # paragraph share exactly, and more of them than the whole one, perhaps.
        common = sorted(shared.items(), key=lambda bc: (bc[1] < self.min_records, -len(bc[0])))
        candidates = [(b, hash(b)) for b, _ in common[:_NEAR_CANDIDATES]]
        for row, text in group:
            if row in cut:
                continue
            for boilerplate, key_hash in candidates:
                key = (row, key_hash)
                end = self._near.get(key)
                if end is None:
                    # A bound per record: in a crowd of notes that share boilerplate the cut
                    # lengths differ, so each group call brings new candidates, and comparing
                    # every record with each of them grew with the square of the crowd (60k
                    # boilerplate notes: 272 s, 93 s with the bound, the same merges but 16). A
                    # record not matched within the bound is compared on its whole text. Per
                    # side: a note inside the boilerplate fails every head candidate and is
                    # matched by a tail one.
                    if self._tries[row, reverse] >= _NEAR_TRIES:
                        break
                    self._tries[row, reverse] += 1
                    self.compared += 1
                    end = self._near[key] = self._carried(boilerplate, text)
                if end[0] > 0:
                    found[row] = end[0]
                    if end[1]:  # the rest of the boilerplate, after the record's note
                        other[row] = end[1]
                    break
        return found, other

    def _carried(self, boilerplate: str, text: str) -> tuple[int, int]:
        """(where `text`'s copy of `boilerplate` ends, 0), if it starts with one at least
        `near_similarity` alike (matched characters / boilerplate length); (where the copy's
        first part ends, the length of its second part at the end of `text`) when the copy
        is that alike but skips `inside_min_chars` or more of the text: the record's note,
        inside the boilerplate; else (0, 0)."""
        n = len(boilerplate)
        slack = max(8, n // 10)
        blocks = _matching_blocks(boilerplate, text[: n + slack])
        if sum(size for _, _, size in blocks) < self.near_similarity * n:
            return self._split(boilerplate, text)
        if _widest_gap(blocks)[0] >= self.inside_min_chars:
            return self._split(boilerplate, text)
        a, b, size = blocks[-1]
        end = b + size + (n - a - size)  # an unmatched end counts as copied
        # nothing after it: not a note behind boilerplate
        return (end, 0) if end < len(text) else (0, 0)

    def _split(self, boilerplate: str, text: str) -> tuple[int, int]:
        """(end of the copy's first part, length of its second part) when `text` is a copy
        of `boilerplate` (at least `near_similarity` of its characters, in order) with a run
        of at least `inside_min_chars` of its own inside, the copy starting `text` and ending
        it (else the second part is 0: the note goes on after the copy); else (0, 0)."""
        n = len(boilerplate)
        if len(text) < n * self.near_similarity + self.inside_min_chars:
            return 0, 0
        blocks = _matching_blocks(boilerplate, text)
        if not blocks or sum(s for _, _, s in blocks) < self.near_similarity * n:
            return 0, 0
        width, before, after = _widest_gap(blocks)
        if width < self.inside_min_chars or blocks[0][1] - blocks[0][0] > max(8, n // 10):
            return 0, 0  # no note inside it, or the copy does not start the text
        a, b, size = blocks[before]
        first = b + size
        a, b, size = blocks[-1]
        end = b + size + (n - a - size)
        return first, (len(text) - blocks[after][1] if end >= len(text) else 0)

    def _shared(self, ids: list[int], texts: list[str]) -> dict[int, int]:
        order = sorted(range(len(ids)), key=texts.__getitem__)
        texts = [texts[i] for i in order]
        found: dict[int, int] = {}

        def frame(lo: int, hi: int, length: int) -> None:
            for i in range(lo, hi):
                found[ids[order[i]]] = length

        # An explicit stack: a family of near copies can split once per character. Each
        # entry may carry its parent's cut (lo, hi, length), given to the parent's texts if
        # the entry's own run is not boilerplate.
        Parent = tuple[int, int, int] | None
        stack: list[tuple[int, int, Parent]] = [(0, len(texts), None)]
        while stack:
            lo, hi, parent = stack.pop()
            length = _common_prefix(texts[lo], texts[hi - 1]) if hi > lo else 0
            if hi - lo < self.min_records or length < self.min_chars:
                if parent is not None:
                    frame(*parent)
                continue
            diverse = self._diverse(texts, lo, hi, length)
            if not diverse and parent is not None:
                frame(*parent)

            # The texts of [lo, hi) are sorted and share `length` characters, so those that
            # go on with one character are a run, found by bisection rather than a walk over
            # the whole range once per split.
            def key(t: str, upto: int = length + 1) -> str:
                return t[:upto]

            runs = []
            start = lo
            while start < hi:
                end = bisect_right(texts, key(texts[start]), start + 1, hi, key=key)
                if len(texts[start]) > length:  # texts that end right here are equal
                    runs.append((start, end))
                start = end
            if not diverse:
                stack.extend((a, b, None) for a, b in runs)
                continue
            # Below boilerplate, a run that shares a longer start of its own is looked at
            # again, and its members' cut is the longer one if that is boilerplate too:
            # - nearly all of the texts (the first and last _TRIM of them left out): the
            #   others, which made the shared start shorter, are edited copies of its
            #   boilerplate, matched to it as such (_near_carriers), not cut at their edit
            #   (nor given an outer run's shorter cut);
            # - any other run: some notes come after the whole paragraph, others inside it,
            #   after its first part.
            # Either way at least _SURE characters more: not notes that start with one word.
            longer = [
                (a, b)
                for a, b in runs
                if b - a >= self.min_records
                and _common_prefix(texts[a], texts[b - 1]) >= length + _SURE
            ]
            trim = int((hi - lo) * _TRIM)
            inner = _common_prefix(texts[lo + trim], texts[hi - 1 - trim]) if trim else 0
            if inner < length + _SURE:
                frame(lo, hi, length)
                stack.extend((a, b, None) for a, b in longer)
                continue

            def head(t: str, upto: int = inner) -> str:
                return t[:upto]

            shared = head(texts[lo + trim])
            a = bisect_left(texts, shared, lo, hi, key=head)
            b = bisect_right(texts, shared, lo, hi, key=head)
            stack.append((a, b, (lo, hi, length)))
            stack.extend((x, y, None) for x, y in longer if not x <= a < y)
            kept = [(x, y) for x, y in longer if not x <= a < y] + [(a, b)]
            for i in range(lo, hi):
                if not any(x <= i < y for x, y in kept):
                    found.pop(ids[order[i]], None)
        return found

    def _diverse(self, texts: list[str], lo: int, hi: int, cut: int) -> bool:
        """Do texts[lo:hi] differ after `cut`? Pairs half the (sorted) group apart, so
        neighbours that happen to start alike do not decide it."""
        n = hi - lo
        step = max(1, n // _PAIRS)
        threshold = self.max_similarity
        below = sum(
            self._differ(texts[lo + i][cut:], texts[lo + (i + n // 2) % n][cut:], threshold)
            for i in range(0, n, step)
        )
        pairs = len(range(0, n, step))
        return below > pairs // 2  # the median ratio is below the threshold

    def _differ(self, a: str, b: str, threshold: float) -> bool:
        """Are the remainders a and b different notes? When they end alike for at least
        `min_chars` (the rest of a paragraph both notes sit inside), on what comes before."""
        common = _common_suffix(a, b)
        if common >= self.min_chars and min(len(a), len(b)) - common >= self.inside_min_chars:
            a, b = a[: len(a) - common], b[: len(b) - common]
        return not _ratio_at_least(a, b, threshold)


class _RowMarks:
    """A set of rows as one bool per row, tested for many rows at once."""

    def __init__(self) -> None:
        self._marks = np.zeros(0, dtype=bool)

    def add(self, rows: Collection[int]) -> None:
        at = np.fromiter(rows, dtype=np.int64, count=len(rows))
        if len(at) and int(at.max()) >= len(self._marks):
            grown = np.zeros(max(int(at.max()) + 1, 2 * len(self._marks)), dtype=bool)
            grown[: len(self._marks)] = self._marks
            self._marks = grown
        self._marks[at] = True

    def unmarked(self, rows: np.ndarray) -> np.ndarray:
        """The rows not added, in their order."""
        known = rows < len(self._marks)
        keep = np.ones(len(rows), dtype=bool)
        keep[known] = ~self._marks[rows[known]]
        return rows[keep]


# Pairs compared per group to judge whether its texts differ after a shared start: each is a
# difflib ratio (~0.2 ms on long notes) and a family of near copies splits once per character,
# so the judgment is paid many times; 12 pairs give the same calls on the dedupe sets and the
# shapes as 40 did, at a third of the cost.
_PAIRS = 12
_TRIM = 0.05  # of a run's texts at each end that may be edited copies, not what it shares
_SHIFT = 2  # characters put in or left out before a second window that it is still found by
_SAMPLE = 4  # records of a shared second window whose group is looked at
_NEAR_CANDIDATES = 3  # distinct boilerplates a member is compared with, most shared first
_NEAR_TRIES = 3  # boilerplates one record is compared with per side, whatever the groups
_SURE = 8  # characters of a looked up in b at a time, to guess difflib's blocks
_MASK = (1 << 64) - 1  # str hash (salted per process: these keys never leave it) as uint64


_DIGITS = re.compile(r"\d+")
_DIGIT_MARK = "#"  # punctuation: never in a folded text


def _masked(text: str) -> str:
    """`text` with each run of digits as one mark: a boilerplate that carries a date or a
    number ("整理于 2026-05-03") is one boilerplate, whatever the date."""
    # A folded text has no punctuation or spaces, so most are all letters: a 0.2 µs check
    # skips the substitution (1.5 µs), which every long record would otherwise pay twice.
    return text if text.isalpha() else _DIGITS.sub(_DIGIT_MARK, text)


def _widest_gap(blocks: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """(the most characters of b between two matching blocks, the indexes of those blocks);
    (0, 0, 0) when there are fewer than two. Blocks shorter than _SURE are left out: a
    note's few characters that happen to occur in the boilerplate do not split it."""
    best = (0, 0, 0)
    last = -1
    for i, (_, b, size) in enumerate(blocks):
        if size < _SURE:
            continue
        if last >= 0:
            end = blocks[last][1] + blocks[last][2]
            if b - end > best[0]:
                best = (b - end, last, i)
        last = i
    return best


def _unmasked_length(text: str, length: int) -> int:
    """The length of the prefix of `text` whose _masked() form has `length` characters."""
    raw = masked = 0
    for run in _DIGITS.finditer(text):
        gap = run.start() - raw
        if masked + gap >= length:
            break
        masked += gap + 1
        raw = run.end()
        if masked >= length:
            return raw
    return raw + (length - masked)


def _matching_blocks(a: str, b: str) -> list[tuple[int, int, int]]:
    """difflib's SequenceMatcher(None, a, b, False).get_matching_blocks() (without the final
    empty block), in order, found mostly by str.find and slice comparisons.

    difflib takes the longest common substring (the earliest in a, then in b, on ties) and
    does the same left and right of it. Here each such block is guessed from where pieces
    of a occur in b, extended, then checked to be the longest of its span (_is_longest); a
    span with no guess is left to difflib, and so is everything if a guess is wrong. On an
    edited copy the blocks are few and long: a few finds instead of difflib's 0.4 ms.
    """
    out: list[tuple[int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        span = stack.pop()
        alo, ahi, blo, bhi = span
        if alo >= ahi or blo >= bhi:
            continue
        found = _guess_longest(a, b, span)
        if found is None:
            matcher = SequenceMatcher(None, a[alo:ahi], b[blo:bhi], False)
            i, j, size = matcher.find_longest_match(0, ahi - alo, 0, bhi - blo)
            i, j = i + alo, j + blo
        elif _is_longest(a, b, span, *found):
            i, j, size = found
        else:
            blocks = SequenceMatcher(None, a, b, False).get_matching_blocks()
            return [(x.a, x.b, x.size) for x in blocks if x.size]
        if size:
            out.append((i, j, size))
            stack.append((i + size, ahi, j + size, bhi))
            stack.append((alo, i, blo, j))
    return sorted(out)


def _guess_longest(a: str, b: str, span: tuple[int, int, int, int]) -> tuple[int, int, int] | None:
    """The longest match found from pieces of a (every _SURE characters) looked up in b,
    each extended both ways within the span; None when the span is too small or none
    occurs (difflib then searches it: it is short, or its texts have little in common)."""
    alo, ahi, blo, bhi = span
    if ahi - alo < _SURE or bhi - blo < _SURE:
        return None
    best: tuple[int, int, int] | None = None
    x = alo
    while x + _SURE <= ahi:
        j = b.find(a[x : x + _SURE], blo, bhi)
        if j < 0:
            x += _SURE
            continue
        i = x
        while i > alo and j > blo and a[i - 1] == b[j - 1]:
            i, j = i - 1, j - 1
        size = _common_prefix(a[i:ahi], b[j:bhi])
        if best is None or size > best[2]:
            best = (i, j, size)
        x = max(i + size, x + 1)
    return best


def _is_longest(a: str, b: str, span: tuple[int, int, int, int], i: int, j: int, size: int) -> bool:
    """Is a[i:i+size] == b[j:j+size] what difflib's find_longest_match(*span) returns: no
    longer common substring in the span, none as long that starts earlier in a, and b's
    first one there? Each place of a (or of b, when b has fewer places for a substring this
    long) is looked up in the other text's span: C finds, a Python step each."""
    alo, ahi, blo, bhi = span
    region = b[blo:bhi]
    if region.find(a[i : i + size]) != j - blo:
        return False
    if ahi - alo - size <= 2 * (bhi - blo - size):
        if any(a[x : x + size] in region for x in range(alo, i)):
            return False
        return not any(a[x : x + size + 1] in region for x in range(i, ahi - size))
    part = a[alo:ahi]
    if any(b[y : y + size + 1] in part for y in range(blo, bhi - size)):
        return False  # a longer one
    for y in range(blo, bhi - size + 1):  # one as long, earlier in a
        x = part.find(b[y : y + size])
        if 0 <= x < i - alo:
            return False
    return True


def _ratio_at_least(a: str, b: str, threshold: float) -> bool:
    """difflib's ratio(a, b) >= threshold, mostly without computing it: the ratio is at most
    2·min(len)/total, and at least 2·(longest common substring)/total, which is at least
    their common prefix or suffix (difflib's first block is the longest common substring)."""
    total = len(a) + len(b)
    if not total:
        return threshold <= 1.0
    if 2.0 * min(len(a), len(b)) / total < threshold:
        return False
    if 2.0 * max(_common_prefix(a, b), _common_suffix(a, b)) / total >= threshold:
        return True
    return 2.0 * sum(size for _, _, size in _matching_blocks(a, b)) / total >= threshold


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, by bisection on slice comparisons (done in C)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[len(a) - n :] == b[len(b) - n :]:
        return n
    lo, hi = 0, n  # the last lo characters agree, the last hi do not
    la, lb = len(a), len(b)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo
