"""Review of the skip rules merged in the eleventh round: lines of a real user's memory file that
share a new rule's surface shape but are memories (TAXONOMY.md, "Kind"). Every line is invented."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import skips as _skips

from memctl.ingest.markdown import read_markdown
from memctl.ingest.noise import judge
from memctl.models import Record

ABOUT = "about the memory file"


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


@pytest.mark.parametrize(
    "text",
    [
        # Two labels of a profile in one entry or paragraph, the writer's own capitals.
        "User: Lin, 34, Berlin\nAssistant: Pim, the household helper",
        "Human: Mara (she/her), night-shift nurse\nAI: Pim, keeps the family calendar",
    ],
)
def test_a_users_and_an_assistants_label_on_two_lines_is_no_chat(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # A program's dump writes its roles in lower case; a writer's pasted chat goes on.
        "user: 帮我订周五的票\nassistant: 好的，已经订好了",
        "User: can we move the call?\nAssistant: Done, Thursday 10:00.\nUser: thanks",
    ],
)
def test_a_pasted_exchange_on_lines_of_its_own_stays_a_log(text: str) -> None:
    assert judge(text) == "log line"


def test_profile_labels_of_user_and_assistant_in_a_paragraph_are_kept(tmp_path: Path) -> None:
    skips = _skips(
        tmp_path, "# USER\n\nUser: Lin, 34, Berlin\nAssistant: Pim, the household helper\n"
    )
    assert skips == {"User: Lin, 34, Berlin": None, "Assistant: Pim, the household helper": None}


@pytest.mark.parametrize(
    "text",
    [
        # A repository's remote under its label: the setup the agent pushes to (procedural).
        "remote: git@github.com:lin/blog.git",
        "remote: origin 指向 Gitea，不是 GitHub",
    ],
)
def test_a_remote_under_its_label_is_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "remote: Enumerating objects: 5, done.",
        "remote: Total 5 (delta 2), reused 0 (delta 0), pack-reused 0",
        "remote: Create a pull request for 'fix-cache' on GitHub by visiting:",
        "remote:      https://github.com/lin/blog/pull/new/fix-cache",
    ],
)
def test_what_a_git_remote_prints_stays_a_log(text: str) -> None:
    assert judge(text) == "log line"


@pytest.mark.parametrize(
    "text",
    [
        # A whole note a writer put in brackets (a hermes entry of its own): it states, with
        # a clause's punctuation or a figure of a date, age or amount, what a title only names.
        "[已婚，妻子叫 Mei]",
        "[Mei 的生日 3 月 5 日]",
        "[wife: Mei]",
        "【儿子 8 岁，上二年级】",
        "=== 周三下午不排会，接孩子 ===",
        # A title says no "not": "不吃香菜" is a taste.
        "=== 不吃香菜 ===",
        "[Never call before 9]",
    ],
)
def test_a_statement_in_brackets_is_no_title(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize("text", ["[偏好]", "=== 工作 ===", "【家庭成员】", "[Health]"])
def test_a_bracketed_title_alone_stays_a_label(text: str) -> None:
    assert judge(text) == "label with no content"


def test_a_bracketed_statement_over_a_list_is_a_record_not_a_heading(tmp_path: Path) -> None:
    path = tmp_path / "USER.md"
    body = "# USER\n\n[已婚，妻子叫 Mei]\n- 两个孩子\n\n[饮食]\n- 不吃辣\n"
    path.write_text(body, encoding="utf-8")
    got = {r.text: r.section for r in read_markdown(path) if isinstance(r, Record)}
    assert got["[已婚，妻子叫 Mei]"] == "USER"
    assert got["不吃辣"] == "USER > 饮食"


@pytest.mark.parametrize(
    "text",
    [
        # A day's plan at its clock times: the verbs are the person's, on no file (a routine).
        "07:30 Write morning pages -> 08:00 breakfast",
        "09:00 Read the news → 09:30 standup",
        "[21:00] Read with the kids → lights out 21:30",
    ],
)
def test_a_routine_at_clock_times_is_no_tool_call(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "14:03 Edit app.py (+12 -3)",
        "[09:12] Write docs/plan.md → created",
        "10:02 Read src/ -> 4 files",
    ],
)
def test_a_tool_call_on_a_file_at_a_clock_time_stays_a_log(text: str) -> None:
    assert judge(text) == "log line"


@pytest.mark.parametrize(
    "text",
    [
        # A hermes entry's list item naming a tool and how to use it: a standing rule.
        "- Bash: 默认用 zsh，不用 bash",
        "- Edit: run prettier after every edit",
        "* Read: never open files over 2 MB whole",
        # After an emoji, a note in prose is no call's argument.
        "📖 Read: 先读 AGENTS.md 再动手",
    ],
)
def test_a_note_on_how_to_use_a_tool_is_no_tool_call(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # How far a piece of writing has got: the person's work in progress (episodic).
        "论文进度: 12,000 / 20,000 字",
        "毕业论文 38000/50000 字",
        "Thesis: 41,000 / 60,000 characters",
    ],
)
def test_a_count_of_ones_own_writing_is_no_memory_tools_counter(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "USER: 1,375 / 1,375 字符",
        "[MEMORY FULL: 2,200/2,200 chars]",
        "Usage: 812/2200 chars",
        "812/2200 chars",
        "记忆: 1,800/2,200 字符",
    ],
)
def test_a_memory_tools_counter_stays_a_log(text: str) -> None:
    assert judge(text) == "log line"


@pytest.mark.parametrize(
    "text",
    [
        # A writer's numbered notes in brackets, not the shell's job table.
        "[1] Running club on Tuesdays, 19:00 at the park",
        "[2] Done with physio, cleared on 2026-10-02",
    ],
)
def test_numbered_notes_in_brackets_are_no_shell_jobs(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text", ["[1]+  Done                    npm run dev", "[2]-  Running   npm run watch &"]
)
def test_the_shells_job_lines_stay_a_log(text: str) -> None:
    assert judge(text) == "log line"


@pytest.mark.parametrize(
    "text",
    [
        # The person's own to-do: a task with its object (an open task, a memory).
        "TODO: add Mei's birthday to the calendar",
        "TODO: write the thank-you card for grandma",
        "todo: complete the tax return by 31 Jan",
    ],
)
def test_a_todo_of_ones_own_is_no_template_slot(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "TODO: fill in",
        "TODO: fill this in",
        "TODO: add more details",
        "TODO: describe your communication style",
        "TODO: write something here",
    ],
)
def test_a_todo_that_points_at_the_template_stays_a_slot(text: str) -> None:
    assert judge(text) == "template placeholder"


@pytest.mark.parametrize(
    "text",
    [
        # A repository's own bootstrap doc, under a folder: setup the agent follows.
        "New laptop: follow docs/bootstrap.md, then run `make dev`",
        "集群初始化步骤在 infra/bootstrap.md",
    ],
)
def test_a_repos_bootstrap_doc_is_no_agent_file(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    ["If `BOOTSTRAP.md` exists, follow it and delete it", "BOOTSTRAP.md is your birth certificate"],
)
def test_the_agents_bootstrap_file_stays_about_the_file(text: str) -> None:
    assert judge(text) == ABOUT
