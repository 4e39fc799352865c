"""A table's header row is context of its body rows (TAXONOMY.md, Kind): the classifier reads
each cell with its column's name, while the row is stored as it always was."""

from __future__ import annotations

from pathlib import Path

from memctl.classify import classify
from memctl.importer.classify import classify_row
from memctl.ingest.markdown import read_markdown, with_header
from memctl.models import Record
from memctl.normalise import norm_hash

STAFF = (
    "# Staff\n\n"
    "| Name | Role | Salary |\n"
    "|------|------|--------|\n"
    "| Mia | waitress | 2,400 |\n"
    "| Leo |  | 1,900 |\n"
)
# The same rows with no header (and so no rule row): each still a record.
NO_HEADER = "# Staff\n\n| Mia | waitress | 2,400 |\n| Leo | cook | 1,900 |\n"
ROW = "Mia | waitress | 2,400"


def records(tmp_path: Path, text: str) -> list[Record]:
    path = tmp_path / "MEMORY.md"
    path.write_text(text, encoding="utf-8")
    found = list(read_markdown(path))
    assert all(isinstance(r, Record) for r in found), found
    return [r for r in found if isinstance(r, Record)]


def test_a_body_row_keeps_its_text_and_carries_the_names_of_its_cells(tmp_path):
    found = records(tmp_path, STAFF)
    assert [(r.line, r.text, r.header) for r in found] == [
        (5, ROW, "Name | Role | Salary"),
        # An empty cell is left out of the row, and so is its column's name.
        (6, "Leo | 1,900", "Name | Salary"),
    ]


def test_a_first_cell_cut_off_as_the_rows_date_takes_its_columns_name_with_it(tmp_path):
    found = records(tmp_path, "| Date | Venue | Status |\n|---|---|---|\n"
                    "| 2027-04-17 | Tythe Barn | retainer paid |\n")  # fmt: skip
    assert [(r.ts, r.text, r.header) for r in found] == [
        ("2027-04-17", "Tythe Barn | retainer paid", "Venue | Status")
    ]


def test_the_classifier_reads_a_row_under_its_header():
    assert with_header(ROW, "Name | Role | Salary") == "Name | Role | Salary\n" + ROW
    assert with_header(ROW, None) == ROW


def test_a_table_with_no_header_row_gives_rows_with_no_header(tmp_path):
    found = records(tmp_path, NO_HEADER)
    assert [(r.text, r.header) for r in found] == [
        (ROW, None),
        ("Leo | cook | 1,900", None),
    ]


def test_a_table_of_only_its_header_adds_nothing(tmp_path):
    found = records(tmp_path, "# Staff\n\n| Name | Role |\n|---|---|\n\n- I like tea\n")
    assert [(r.line, r.text, r.header) for r in found] == [(6, "I like tea", None)]


def test_import_classifies_a_row_with_its_header_and_stores_the_row_as_it_is(
    tree, import_json, query
):
    assert import_json(tree({"MEMORY.md": STAFF}))["added"] == 2
    # The pay of a named person is private (TAXONOMY.md, Audience): only the header says that
    # 2,400 is a pay. What kind of memory the row keeps it says alone: the header's "Name" is
    # not the user's name.
    assert classify(ROW).audience == "public"
    assert query("SELECT content, audience FROM entries ORDER BY id") == [
        (ROW, "private"),
        ("Leo | 1,900", "private"),
    ]
    alone = classify(ROW, section="Staff")
    assert query("SELECT layer, realm FROM entries ORDER BY id")[0] == (alone.layer, alone.realm)
    assert query("SELECT line, header FROM sources ORDER BY id") == [
        (5, "Name | Role | Salary"),
        (6, "Name | Salary"),
    ]
    # The row is stored, and known again, as it was without its header.
    assert query("SELECT content, norm_hash FROM entries ORDER BY id")[0] == (ROW, norm_hash(ROW))


def test_re_importing_and_re_classifying_change_nothing(tree, import_json, run, query):
    root = tree({"MEMORY.md": STAFF})
    import_json(root)
    before = query("SELECT * FROM entries ORDER BY id")
    assert import_json(root)["added"] == 0
    result = run("classify", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert '"changed":0' in result.stdout.replace(" ", "")
    assert query("SELECT * FROM entries ORDER BY id") == before


def test_a_header_adds_to_what_a_row_says_of_its_audience_and_never_takes_it_away():
    # The row alone names a partner (private); under its header the text opens with the
    # header, where a cue read at the start of the row no longer looks. The header is context
    # of the row: it can show that a cell is a wage, not hide what the row says itself.
    partner = "Partner Tom | Friday dinner"
    assert classify(partner).audience == "private"
    assert classify_row(partner, "Who | Plan", section="Plans").audience == "private"
    # …and it still adds what only it says.
    assert classify_row(ROW, "Name | Role | Salary").audience == "private"
