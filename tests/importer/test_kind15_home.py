"""A program's stamp that a job ran is a log line, not a memory (TAXONOMY.md, "Kind": noise is
text a program wrote): a scheduler's or a memory tool's tag in brackets followed only by the
run's status or counts, a clock-timed tool command with what it printed, an activity-table row
of the agent's memory tool. An invented home of three agents' files; beside each stamp stands a
writer's line of a near shape that must be kept."""

from __future__ import annotations

import pytest

from memctl.ingest import restraint
from memctl.ingest.noise import judge

LOG = "log line"

# A carer's daily note (picoclaw): the scheduler's stamps among the day's facts.
DAILY = (
    "# 2026-10-14\n\n"
    "- Dad's new blood-pressure tablets are taken with breakfast\n"
    "- [cron] pill_check 08:00 sent\n"
    "- [cron] weekly_digest ok (4 items)\n"
    "- [hook] pre_commit failed\n"
    "- [cron] 周报每周五 18 点跑，失败就发邮件给我\n"  # a rule about the job: kept
    "- [memory flush 22:40] 3 lines appended to MEMORY.md\n"
    "- 09:15 exec: df -h /srv → 71% used\n"
    "- 07:30 Write morning pages → 08:00 breakfast\n"  # a day's plan: kept
)
# A hermes memory: entries between § lines, one of them the memory tool's own receipt.
HERMES = (
    "The workshop closes at 17:00 on Saturdays.\n§\n"
    "[记忆整理 2026-10-15 02:00] 共 9 条，合并 2 条，删除 1 条\n§\n"
    "[consolidation 2026-10-16 by memory tool: 11 entries, 1 merged]\n§\n"
    "[饮食] 不吃香菜，也不吃芹菜\n"  # a writer's topic tag: kept
)
# An OpenClaw daily note with its session log table.
OPENCLAW = (
    "# 2026-10-15\n\n## 今天定下来的\n\n"
    "- 周三的团课改到 20:00\n\n"
    "## 会话日志\n\n"
    "**08:10** | 🧠 Memory | 已写入 2 条\n"
    "**08:12** | 🧠 memory_search | 团课\n"
)
HOME = {
    "pc/.picoclaw/workspace/memory/202610/20261014.md": DAILY,
    "hm/.hermes/memories/MEMORY.md": HERMES,
    "oc/.openclaw/workspace/memory/2026-10-15.md": OPENCLAW,
}
KEPT = {
    "Dad's new blood-pressure tablets are taken with breakfast",
    "[cron] 周报每周五 18 点跑，失败就发邮件给我",
    "07:30 Write morning pages → 08:00 breakfast",
    "The workshop closes at 17:00 on Saturdays.",
    "[饮食] 不吃香菜，也不吃芹菜",
    "周三的团课改到 20:00",
}


def test_a_homes_job_stamps_are_skipped_as_log_lines(tree, import_json, query):
    report = import_json(tree(HOME), "--hidden")  # the agents' folders are hidden ones
    assert report["skipped_by_reason"] == {LOG: 9}
    assert (report["records"], report["added"], report["rejected_count"]) == (15, 6, 0)
    # The accounting rule, file by file: records = added + skipped + rejected.
    counts = {f["path"].rsplit("/", 1)[-1]: f for f in report["by_file"]}
    assert {k: (f["records"], f["added"], f["skipped"]) for k, f in counts.items()} == {
        "20261014.md": (8, 3, 5),
        "MEMORY.md": (4, 2, 2),
        "2026-10-15.md": (3, 1, 2),
    }
    assert {row[0] for row in query("SELECT content FROM entries")} == KEPT


@pytest.mark.parametrize(
    "text",
    [
        # A job's tag, then only a status word at the end, perhaps with a count in brackets.
        "[cron] backup_photos done",
        "- [heartbeat] inbox_scan ok (0 new)",
        "[scheduler] invoice_reminder 09:30 sent",
        "[定时任务] 早报推送 07:00 成功",
        # …or only counts of what it did.
        "[memory sync 06:00] 12 entries merged",
        "[自动整理 2026-10-01] 共 20 条，删除 3 条",
        # …or its report inside the brackets.
        "[consolidated 2026-10-02 by memory tool: 8 entries, 2 merged]",
        # A clock time, a tool's name, a command and what it printed.
        "- 14:20 bash: git status → clean",
        "[18:05] shell: uptime -> 12 days",
        # The memory tool named alone in its cell of an activity table.
        "21:02 | 🧠 Memory | saved 2 entries",  # a row as the reader passes it on
    ],
)
def test_job_stamps_are_log_lines(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "[cron] the nightly backup runs at 02:00; if it failed, tell me in the morning",
        "[hook] 提交前先跑 lint，失败就停下来问我",
        "[工作] 周会改到周二 10:00，共 3 个议题",
        "[会议 10:00] 定了 3 条规则",
        "- 07:00 run: 5 km by the river → legs felt fine",
        "| 09:00 | 🧠 Memory practice for the exam |",
    ],
)
def test_writers_lines_of_a_near_shape_are_not_log_lines(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # A tool call tagged in Chinese, alone or behind its timestamp.
        '工具调用：read_file("notes/plan.md")',
        "[2026-10-03 11:20] 工具结果：ok",
        # git's own errors and what `git push` prints.
        "fatal: not a git repository (or any of the parent directories): .git",
        "error: failed to push some refs to 'git@example.org:kim/shop.git'",
        "To git@example.org:kim/shop.git",
        "a1b2c3d..e4f5a6b  main -> main",
        "! [rejected]        main -> main (fetch first)",
        "Everything up-to-date",
        # npm audit's counts, pytest's lines.
        "found 0 vulnerabilities",
        "2 vulnerabilities (1 low, 1 high)",
        "collected 17 items",
        "FAILED tests/test_cart.py::test_total - AssertionError",
        "=== short test summary info ===",
        # A heartbeat after its date and a dash; a hook's line of what it just did.
        "2026-10-04 — HEARTBEAT_OK",
        "SessionStart hook · loaded CLAUDE.md (1.4 KB)",
        "[hook] pre-compact · injected 2 files",
    ],
)
def test_other_programs_output_is_log_lines(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "Fatal: never leave the kiln on overnight",
        "Error: I said Tuesday, not Thursday",
        "To Grandma: a call every Sunday at 10:00",
        "2 vulnerabilities in the old router firmware still need a patch",
        "collected 17 items of winter clothing for the drive",
        "PostToolUse hook — runs prettier on every edit; keep it",
        "笔记本电脑：终端操作、工具调用都在本地跑",
        "Never run `git push --force` on main",
    ],
)
def test_writers_lines_that_name_programs_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize("text", ["(Dentist moved to 15:30)", "(会议 10:00，带电脑)", "(23:05)"])
def test_a_bracketed_note_with_a_clock_time_is_no_template_hint(text: str) -> None:
    """A template's hint in brackets never holds a time of day; such a note is the writer's."""
    assert judge(text) != "template placeholder"


@pytest.mark.parametrize(
    "text",
    [
        # An index line whose hook states a rule further on, or after a semicolon, or opens
        # with one for every item: a memory (TAXONOMY.md, "Kind"; quality README, set 2).
        "- [Captions](feedback_captions.md) — captions come from the archive sheet, never the EXIF",
        "- [House style](project_style.md) — tone of the newsletter; check it before any draft",
        "- [Receipts](feedback_receipts.md) — every receipt filed with its date and amount",
    ],
)
def test_an_index_hook_that_states_a_rule_is_a_memory(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "- [Sam](user_sam.md) — who Sam is, his shifts and how he likes answers",
        "- [Kiln log](project_kiln.md) — firing schedule and dated status",
    ],
)
def test_an_index_hook_that_only_says_what_the_file_holds_is_not(text: str) -> None:
    assert judge(text) is not None


@pytest.mark.parametrize(
    ("message", "category"),
    [
        # A liking with an adverb of how often or how much before its verb.
        ("I always prefer receipts by email, never on paper", "preference"),
        ("I usually like the window seat", "preference"),
        # Anyone's birthday the user asks to be reminded of: the request makes it the user's.
        ("美玲生日是正月十五，到时候提醒我", "dates"),
        ("老周生日 7 月 2 号，提前两天提醒我", "dates"),
        ("Remind me of Jo's birthday on 3 May", "dates"),
    ],
)
def test_a_users_dates_and_likings_in_common_shapes_are_memorable(
    message: str, category: str
) -> None:
    assert restraint.judge(message).category == category


@pytest.mark.parametrize(
    "message",
    ["提醒我美玲生日是哪天？", "主角的生日是 5 月 1 日", "I always like it when you ask first?"],
)
def test_questions_and_a_characters_birthday_stay_unmemorable(message: str) -> None:
    assert restraint.judge(message).category is None
