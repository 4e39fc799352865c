"""Review of the skip rules merged in the eleventh round: lines of a real user's memory file that
share a new rule's surface shape but are memories (TAXONOMY.md, "Kind"). Every line is invented."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.importer.accept import accept
from memctl.ingest.markdown import read_markdown
from memctl.models import Record

ABOUT = "about the memory file"


def _skips(tmp_path: Path, body: str, name: str = "SOUL.md") -> dict[str, str | None]:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    out: dict[str, str | None] = {}
    for r in read_markdown(path):
        assert isinstance(r, Record)
        verdict = accept(r)
        out[r.text] = verdict if isinstance(verdict, str) else None
    return out


@pytest.mark.parametrize(
    "line",
    [
        # The assistant's voice in italics under SOUL.md's title: persona (TAXONOMY.md, Layer).
        "_Warm, a bit dry, never preachy._",
        "*说话直接，偶尔吐槽，从不说教。*",
        # The person the file is about, under USER.md's title: profile.
        "_Lin, 34, a Go developer in Berlin; two kids._",
    ],
)
def test_an_italic_line_under_the_title_that_speaks_to_no_one_is_kept(
    tmp_path: Path, line: str
) -> None:
    # Template prose under a title speaks to the agent that reads the file ("You're not a
    # chatbot"); a line that describes the assistant or the person is what the file keeps.
    skips = _skips(tmp_path, f"# SOUL.md\n\n{line}\n\n## Core\n\n- x\n")
    assert skips[line] is None


@pytest.mark.parametrize(
    "line",
    ["_You're not a chatbot. You're becoming someone._", "_你不是聊天机器人，你在成为一个人。_"],
)
def test_an_italic_tagline_that_speaks_to_the_agent_stays_a_tagline(
    tmp_path: Path, line: str
) -> None:
    skips = _skips(tmp_path, f"# SOUL.md - Who You Are\n\n{line}\n\n## Core\n\n- x\n")
    assert skips[line] == ABOUT
