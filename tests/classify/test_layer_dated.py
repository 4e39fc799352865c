"""A line that opens with its own date (issue 10, layer round 9): the reader cuts the date into
`ts`, and the classifier still learns that the writer dated that line. TAXONOMY.md, episodic:
"a dated event … `2026-03-02 migrated the blog to Astro`"; and "a date alone does not make a
line episodic": a dated standing rule stays know-how, and a heading that names what its lines
are (lessons, a log) speaks for its dated lines. Each line is invented, not a gold file's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memctl.classify import classify, rules
from memctl.ingest.markdown import DATED_LINE, read_markdown
from memctl.models import Record

MEMORY = "workspace/MEMORY.md"


def records(path: Path) -> list[Record]:
    return [r for r in read_markdown(path) if isinstance(r, Record)]


def test_the_reader_marks_a_line_that_opens_with_its_own_date(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text(
        "# Notes\n\n- 2026-05-11 量的血压 150/95\n- 血压偏高，在吃降压药\n"
        "- 2026-06-02: the boiler was serviced, next one due in a year\n",
        encoding="utf-8",
    )
    found = [(r.text, r.ts, r.layer_hint) for r in records(path)]
    assert found == [
        ("量的血压 150/95", "2026-05-11", DATED_LINE),
        ("血压偏高，在吃降压药", None, None),
        ("the boiler was serviced, next one due in a year", "2026-06-02", DATED_LINE),
    ]


def test_a_log_stamp_with_its_time_is_no_line_the_writer_dated(tmp_path: Path) -> None:
    # "[2026-11-01 09:12] …": a program stamped every entry of its log (HISTORY.md); its file
    # already says its entries happened (the "history log" path cue).
    path = tmp_path / "HISTORY.md"
    path.write_text("[2026-11-01 09:12] 用户说以后周报都周五发\n", encoding="utf-8")
    assert [(r.ts, r.layer_hint) for r in records(path)] == [("2026-11-01 09:12", None)]


def test_a_dated_heading_does_not_date_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "2026-05-11.md"
    path.write_text("# 2026-05-11\n\n- 量的血压 150/95\n", encoding="utf-8")
    assert [r.layer_hint for r in records(path)] == [None]


@pytest.mark.parametrize(
    "text",
    [
        "量的血压 150/95",
        "wedding at the Old Mill: load-in 15:00, two sets, finish 23:30",
        "两家商量后，装修预算从 12 万调到 15 万",
    ],
)
def test_a_dated_line_that_reports_is_an_event(text: str) -> None:
    # Undated, nothing in these lines says they happened once; dated by the writer, they do.
    assert classify(text, path=MEMORY, section="Notes").layer != "episodic"
    assert classify(text, path=MEMORY, section="Notes", dated=True).layer == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "以后报销单都按月底统一交",
        "Always run the migrations on a copy of the database first",
        "周报必须在周五下午五点前发出",
    ],
)
def test_a_dated_standing_rule_stays_know_how(text: str) -> None:
    # Guideline 13: dated lines that state a standing rule or a lesson are procedural.
    assert classify(text, path=MEMORY, section="Notes", dated=True).layer == "procedural"


def test_a_heading_that_names_its_lines_speaks_for_their_dates() -> None:
    # Under "经验总结" a dated line is a lesson learnt that day, not an event.
    text = "浏览器自动化遇到验证码要人工介入"
    assert classify(text, path=MEMORY, section="MEMORY > 经验总结", dated=True).layer == (
        "procedural"
    )


def test_import_stores_a_dated_report_as_an_event(
    tree: Any, import_json: Any, query: Any, db_path: Path
) -> None:
    root = tree({"MEMORY.md": "# Dad\n\n- 2026-05-11 量的血压 150/95\n- 每天早上 8 点提醒他吃药\n"})
    import_json(root)
    rows = query("SELECT content, layer, ts FROM entries ORDER BY id")
    assert rows == [
        ("量的血压 150/95", "episodic", "2026-05-11"),
        ("每天早上 8 点提醒他吃药", "procedural", None),
    ]


def test_classify_again_keeps_what_the_line_s_date_said(
    tree: Any, import_json: Any, run: Any, query: Any, db_path: Path
) -> None:
    root = tree({"MEMORY.md": "# Dad\n\n- 2026-05-11 量的血压 150/95\n"})
    import_json(root)
    result = run("classify")
    assert result.exit_code == 0, result.output
    assert query("SELECT layer FROM entries") == [("episodic",)]


@pytest.mark.parametrize(
    ("text", "dated"),
    [
        ("起降压药加到 10mg（医生调的）", True),  # "- 2026-05-11 起…": the date cut off
        ("物业通知：1 月起物业费涨到 3.2 元/平", True),
        ("From 1 March the allotment fee goes to £40 a year.", False),
        ("Piano lessons move to Fridays from next month", False),
    ],
)
def test_a_value_that_holds_from_a_date_on_is_no_event(text: str, dated: bool) -> None:
    # Gold set 3: a dated change of a standing value (a price from a date on, a class moved
    # to other days) keeps the layer of the fact it changes; its date says when it starts.
    assert classify(text, path=MEMORY, section="Notes", dated=dated).layer != "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "Her cousin stays with us from 12 May to 20 May",
        "2026 年 5 月起床晚了",
    ],
)
def test_a_stay_between_two_dates_is_still_an_event(text: str) -> None:
    assert classify(text, path=MEMORY, section="Notes", dated=True).layer == "episodic"


def test_together_is_no_start_date() -> None:
    # 一起 is "together": "下周一起去" names no date from which something holds.
    assert "from a date on" not in rules.explain("下周一起去爬山，周六早上七点出发")
    assert "from a date on" in rules.explain("下周起健身房改到晚上十点关门")
