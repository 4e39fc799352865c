"""What the boilerplate layer costs when many small groups share a crowd's paragraph.

A one-character edit in the first `min_chars` characters of a shared paragraph puts a record in
a head group of its own; once a few records share such an edit, that group finds the same
paragraph and looks for records that carry it with an edit, through the characters that follow.
Each record that carries an edited copy is compared once: the crowd (judged first, as the
biggest group) matches its own edited copies and those of the small groups; a small group then
frames its own members and does not bring the crowd's edited copies back, once per such group.
"""

from __future__ import annotations

import random

from corpus import _Writer

from dedupe.test_engine import BOILERPLATE, edited
from memctl.dedupe.engine import Engine, Item

SMALL_GROUPS = 3  # groups of 8 records that share one edit in the paragraph's first characters
CARRIERS = 6  # crowd records whose paragraph has an edit of its own, past the first characters


def notes(n: int, seed: int) -> list[str]:
    w = _Writer(random.Random(seed))
    out = []
    for _ in range(n):
        note = ""
        while len(note) < 60:
            note += w.zh_sentence() + "。"
        out.append(note)
    return out


def records() -> list[str]:
    crowd = [BOILERPLATE + note for note in notes(200, 1)]
    carriers = [edited(BOILERPLATE, 100 + 20 * i) + note for i, note in enumerate(notes(6, 2))]
    small = [
        edited(BOILERPLATE, 5 + 7 * g) + note
        for g in range(SMALL_GROUPS)
        for note in notes(8, 10 + g)
    ]
    return crowd + carriers + small


def test_the_crowds_edited_copies_are_compared_once_not_once_per_small_group() -> None:
    texts = records()
    engine = Engine()
    engine.add([Item(i, t, None) for i, t in enumerate(texts)])
    stats = engine.stats()
    # Before: 66 (30 by the crowd, then 22 and 14 of them again by the first two small groups,
    # until each had been compared _NEAR_TRIES times).
    assert stats["boilerplate_near_compared"] == CARRIERS + 8 * SMALL_GROUPS
    # Every record is framed: compared on its own note, which no other record shares.
    assert stats["boilerplate_records"] == len(texts)
    assert len({engine.canonical(i) for i in range(len(texts))}) == len(texts)
