"""A note written inside a shared paragraph: the paragraph is boilerplate on both sides of it.

Long notes (>= 300 characters, >= 80 % one shared paragraph) may carry their own text before
the paragraph, after it, or in the middle of it. Near copies of a note merge with it, whichever
part of the record the edit is in; different notes that share only the paragraph never merge.
"""

from __future__ import annotations

import random

import pytest
from corpus import _Writer

from dedupe.test_engine import BOILERPLATE, NOTES, edited
from memctl.dedupe.engine import Engine, Item

CUT = BOILERPLATE.find("。", len(BOILERPLATE) // 2) + 1  # a sentence end in the middle


def inside(note: str) -> str:
    return BOILERPLATE[:CUT] + note + BOILERPLATE[CUT:]


def others(n: int) -> list[str]:
    """Other notes, before or after the paragraph (the crowd that shows it is boilerplate)."""
    w = _Writer(random.Random(5))
    out = []
    for i in range(n):
        note = ""
        while len(note) < 42:
            note += w.zh_sentence() + "。"
        out.append(note + BOILERPLATE if i % 2 else BOILERPLATE + note)
    return out


def edits(note: str) -> list[str]:
    """Copies of inside(note) with one character changed: in the note, in the paragraph's
    first part, in its second part."""
    text = inside(note)
    return [edited(text, CUT + 7), edited(text, CUT // 2), edited(text, (CUT + len(text)) // 2)]


@pytest.mark.parametrize("crowd", [0, 20])
def test_a_note_inside_the_boilerplate_merges_with_its_copies_only(crowd: int) -> None:
    # crowd 0: every record has its note inside the paragraph; 20: others frame it too.
    assert len(inside(NOTES[0])) >= 300 and len(BOILERPLATE) >= 0.8 * len(inside(NOTES[0]))
    items = [Item(i, inside(note), None) for i, note in enumerate(NOTES)]
    items += [Item(100 + i, text, None) for i, text in enumerate(others(crowd))]
    copies = {200 + 10 * i + k: i for i in (0, 4) for k, t in enumerate(edits(NOTES[i]))}
    texts = {200 + 10 * i + k: t for i in (0, 4) for k, t in enumerate(edits(NOTES[i]))}
    items += [Item(row, texts[row], None) for row in copies]
    engine = Engine()
    engine.add(items)
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)
    assert {row: engine.canonical(row) == engine.canonical(i) for row, i in copies.items()} == {
        row: True for row in copies
    }
    if crowd:  # the framed notes are all different
        framed = range(100, 100 + crowd)
        assert len({engine.canonical(i) for i in framed} | set(range(len(NOTES)))) == crowd + 10


def test_notes_inside_the_boilerplate_arriving_later_stay_apart() -> None:
    engine = Engine()
    engine.add([Item(100 + i, t, None) for i, t in enumerate(others(20))])
    engine.add([Item(i, inside(note), None) for i, note in enumerate(NOTES)])
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)


@pytest.mark.parametrize("shift", [-2, -1, 0, 1])
def test_an_edit_where_the_notes_inside_begin_still_frames_a_note_before_it(shift: int) -> None:
    # A note before the whole paragraph, with one character changed where the notes inside
    # the paragraph begin: its copy sorts among those notes, and is still cut where the
    # whole paragraph begins, so it merges with its note and with nothing else.
    framed = others(40)
    items = [Item(i, inside(note), None) for i, note in enumerate(NOTES)]
    items += [Item(100 + i, text, None) for i, text in enumerate(framed)]
    before = [i for i in range(len(framed)) if framed[i].endswith(BOILERPLATE)]
    copies = {300 + i: 100 + i for i in before[:10]}
    for row, of in copies.items():
        text = framed[of - 100]
        at = len(text) - len(BOILERPLATE) + CUT + shift
        items.append(Item(row, edited(text, at), None))
    engine = Engine()
    engine.add(items)
    assert {row: engine.canonical(row) == engine.canonical(of) for row, of in copies.items()} == {
        row: True for row in copies
    }
    assert len({engine.canonical(100 + i) for i in range(len(framed))}) == len(framed)
    assert len({engine.canonical(i) for i in range(len(NOTES))}) == len(NOTES)
