"""Lines of a memory file that are not memories, by the classes of TAXONOMY.md's "Kind" table
(noise.toml): template slots never filled in, tool calls with their results, instructions for
where the memory file's entries go. Invented lines of the shapes agents write; each class has
memories of a near shape beside it that must be kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import skips as _skips

from memctl.importer.accept import accept
from memctl.ingest import restraint
from memctl.ingest.markdown import read_markdown
from memctl.ingest.noise import judge
from memctl.models import Record

SLOT = "template placeholder"
LOG = "log line"
ABOUT = "about the memory file"


@pytest.mark.parametrize(
    "text",
    [
        # A template's slot, alone or after its label or checkbox, nobody filled in.
        "{{客户名单}}",
        "{{ client_name }}",
        "客户：{{客户名}}",
        "**Name:** {{user_name}}",
        "- Next service: {{date}}",
        # A table row whose cells beyond its serial number are only hints ("| 5 | _(add)_ | | |").
        "5 | _(add)_",
        "6 | (待填写)",
        "3 | {{曲目}} | {{调弦}}",
    ],
)
def test_unfilled_slots_are_placeholders(text: str) -> None:
    assert judge(text) == SLOT


@pytest.mark.parametrize(
    "text",
    [
        "Helm values use {{ .Values.image.tag }} for the tag, never latest",
        "邮件模板里的 {{客户名}} 由脚本替换，发送前检查一遍",
        "5 | 吉他弦 | 每月换 (D'Addario 10-46)",
        "1 | 吉他弦 | 每月换",
    ],
)
def test_memories_that_hold_a_slot_or_a_hint_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # An activity table's row: a clock time, a tool's name (an emoji before it), its object.
        "09:14 | 🔧 read_file | glossary/星穹.xlsx",
        "22:40 | 🔧 exec | xbench --project 迈德 → 0 errors",
        "10:02 | ✏️ write_file | memory/2026-11-30.md",
        "**14:05** | web_search | 上海 天气",
        # A command in backticks and what it returned: a status word or a count.
        "`read_file ~/stream/golive.txt` → ok",
        '`notion.search "raid list"` → 12 results',
        "`exec make deploy` -> exit 0",
        "read_file MEMORY.md → 3 hits",
        "memory_search 周报 → 0 results",
    ],
)
def test_tool_calls_with_their_results_are_log_lines(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "11:00 | 和客户通话 | 确认交稿日期 12-05",
        "09:00 | daily_report | 发日报给老板",
        "07:00 | run_club | 5 km easy along the canal",
        "直播前先跑 `obs --check` → 全绿才开播",
        "`make test` → must pass before every push",
        "Run `pnpm build` → then upload dist/ to the bucket",
    ],
)
def test_rules_about_commands_and_schedules_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # Where the file's new entries go, and the slot a writer leaves for later.
        "以后新记的事实请写在对应小节下，不要堆在这里",
        "新的信息请写到对应的小节里",
        "预约结束后在这里补上结果",
        "面试完在此处补充结果",
        "HISTORY.md 只追加不改旧条目，每条一行，以时间戳开头。",
        "MEMORY.md is append-only: never rewrite old entries",
        "Add the outcome here after the appointment.",
        "Write new facts under the matching section, not here.",
    ],
)
def test_instructions_about_the_memory_file(text: str) -> None:
    assert judge(text) == ABOUT


@pytest.mark.parametrize(
    "text",
    [
        "周报写在飞书文档对应小节下，不要发群里",
        "面试结果出来后告诉妈妈",
        "Add the tracking number to the order sheet after shipping.",
        "The audit log is append-only: never rewrite old rows",
    ],
)
def test_instructions_about_other_files_are_kept(text: str) -> None:
    assert judge(text) is None


def test_an_italic_line_right_under_the_title_is_the_files_tagline(tmp_path: Path) -> None:
    skips = _skips(
        tmp_path,
        "# SOUL.md - Who You Are\n\n_You are not a tool, you are becoming a companion._\n\n"
        "## Core\n\n- Warm, a bit dry.\n\n_Be brief in the evenings._\n",
    )
    assert skips["_You are not a tool, you are becoming a companion._"] == ABOUT
    # The same italics further down are the writer's own line.
    assert skips["_Be brief in the evenings._"] is None
    assert skips["Warm, a bit dry."] is None


def test_a_tagline_of_a_class_of_its_own_keeps_its_reason(tmp_path: Path) -> None:
    skips = _skips(tmp_path, "# USER\n\n_Fill this in during your first conversation._\n")
    assert skips["_Fill this in during your first conversation._"] == SLOT


def test_an_italic_tagline_about_the_person_is_kept(tmp_path: Path) -> None:
    skips = _skips(tmp_path, "# USER\n\n*My owner is a night-shift nurse in Leeds.*\n\n- x\n")
    assert skips["*My owner is a night-shift nurse in Leeds.*"] is None
    skips = _skips(tmp_path, "# SOUL\n\n_I'm Pim, the household helper._\n\n- x\n")
    assert skips["_I'm Pim, the household helper._"] is None


@pytest.mark.parametrize(
    "text",
    [
        # Turns of a conversation pasted into one history entry, each behind its role's tag.
        "[user] 今天能多玩半小时吗 [assistant] 按规则周末 2 小时",
        "[User] can we move the call? [Assistant] Sure, Thursday 10:00 works.",
        "user: 帮我订周五的票\nassistant: 好的，已经订好了",
    ],
)
def test_a_pasted_exchange_is_a_log_line(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "User asked the assistant to keep replies short; agreed.",
        "用户：周五不加班；助手记下了",
        "[user] 不喜欢被叫全名",
    ],
)
def test_a_summary_of_an_exchange_is_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # What an agent's tools and test runners print back, pasted into a note.
        ("File created successfully at: /home/lin/notes/plan.md", LOG),
        ("The file /home/lin/app.py has been updated.", LOG),
        ("Todos have been modified successfully.", LOG),
        ("Command running in background with ID: bash_1", LOG),
        ("Process exited with code 0", LOG),
        ("[INFO] Build succeeded", LOG),
        ("===== 5 passed in 0.31s =====", LOG),
        ("PASS src/app.test.ts", LOG),
        ("test result: ok. 42 passed; 0 failed", LOG),
        ("NO_REPLY", LOG),
        ("[[reply_to_current]]", LOG),
        # Ids a program generated, alone or under their label.
        ("run_id: 7f3a9c1e-2b4d-4e8f-9a1b-0c2d3e4f5a6b", LOG),
        ("40bb35f2-284a-429f-9235-f94a359bb5c5", LOG),
        ("msg_01HXYZ8K2ABCDEF", LOG),
        # The agent's receipt of its own memory upkeep.
        ("自动整理：合并了 3 条重复记忆", LOG),
        ("memory consolidated: 5 entries merged", LOG),
        ("记忆整理完成，新增 2 条", LOG),
        # A label whose value is only a slot.
        ("**Name:** [Your Name]", SLOT),
        ("电话：xxx", SLOT),
        ("生日：____", SLOT),
        ("**Timezone:** <!-- fill in -->", SLOT),
        ("[在此填写]", SLOT),
        ("TODO: fill in", SLOT),
        # The memory file's size, load and own metadata.
        ("保持本文件在 2000 字以内", ABOUT),
        ("This file is loaded into every session.", ABOUT),
        ("*Last reviewed 2026-11-20 by the agent*", ABOUT),
        ("记录时间：2026-11-20 10:00", ABOUT),
    ],
)
def test_other_shapes_of_each_class(text: str, reason: str) -> None:
    assert judge(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "run_id is printed by the nightly job; paste it into the ticket",
        "12 tests must pass before merge",
        "NO_REPLY when the message is only an emoji reaction",
        "电话：138xxxx1234（妈妈）",
        "每次回复控制在 200 字以内",
        "The file server has been updated to Ubuntu 24.04.",
        "PASS the salt rule: no salt in Dad's soup",
        "Session 2026-11-20: decided to move the blog to Astro",
    ],
)
def test_memories_of_near_shapes_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "message",
    [
        # Feedback on what the conversation offered, not a taste of the user's (label `chat`).
        "我喜欢第二个方案",
        "I like the second option better",
        "I prefer the shorter version",
        "I love you",
        # A request for now, and a question whether something was remembered.
        "call me when it's done",
        "帮我把 2026-11-20 的日志找出来",
        "记住这个文件的路径了吗",
        "我不吃这一套",
    ],
)
def test_chat_in_a_transcript_is_not_remembered(message: str) -> None:
    assert restraint.judge(message).category is None


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("我喜欢喝无糖的乌龙茶", "preference"),
        ("I prefer tabs over spaces", "preference"),
        ("叫我老王就行", "address"),
        ("call me Lin", "address"),
        ("2026-12-09 我要去 KVR 办居留", "dated_event"),
        ("2026-12-01 老板让我去上海出差", "dated_event"),
        ("2026-11-30 妈妈给我寄了腊肠", "dated_event"),
        ("记住：我对青霉素过敏", "remember"),
        ("记住我不吃辣，好吗", "remember"),
        ("我不吃香菜", "diet"),
    ],
)
def test_what_the_user_tells_about_themselves_is_remembered(message: str, category: str) -> None:
    assert restraint.judge(message).category == category


def test_a_title_in_brackets_is_the_heading_of_the_block_below(tmp_path: Path) -> None:
    path = tmp_path / "USER.md"
    path.write_text(
        "# USER\n\n【工作习惯】\n\n- 早上九点前不开会\n\n[饮食]\n- 不吃辣\n\n=== 家庭 ===\n\n"
        "- 女儿上初二\n\n【注意】周末不要发工作消息\n\n[x] 已完成迁移\n\n【待补充】\n",
        encoding="utf-8",
    )
    got = {r.text: (r.section, accept(r)) for r in read_markdown(path) if isinstance(r, Record)}
    assert got["早上九点前不开会"][0] == "USER > 工作习惯"
    assert got["不吃辣"][0] == "USER > 饮食"
    assert got["女儿上初二"][0] == "USER > 家庭"
    assert "【工作习惯】" not in got
    # A title with its statement on the same line, or a checked box, is a memory.
    assert not isinstance(got["【注意】周末不要发工作消息"][1], str)
    assert not isinstance(got["[x] 已完成迁移"][1], str)
    assert got["【待补充】"][1] == "label with no content"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # A hermes entry that is only a heading, a slot, a usage counter, a note on the file.
        ("[偏好]", "label with no content"),
        ("=== 工作 ===", "label with no content"),
        ("<placeholder>", SLOT),
        ("[MEMORY FULL: 2,200/2,200 chars]", LOG),
        ("Usage: 812/2200 chars", LOG),
        ("注：这里的条目会被注入到每次对话", ABOUT),
        ("*本文件最后整理于 2026-11-20*", ABOUT),
        ("以上偏好长期有效，有变化我会告诉你", "qualifier"),
    ],
)
def test_entries_that_only_head_or_count(text: str, reason: str) -> None:
    assert judge(text) == reason


@pytest.mark.parametrize(
    "text",
    ["[REDACTED]", "Budget: 812/2200 RMB left this month", "上海 | 2/3 chars 的限制是微信的"],
)
def test_entries_near_those_shapes_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # Tool calls of an agent's terminal, pasted into a daily note.
        "09:14 | Edited | app.py",
        "⏺ Bash(npm test)",
        "⎿  Read 120 lines",
        "Read(/home/lin/app.py)",
        "🔧 Bash: git push origin main",
        "14:03 Edit app.py (+12 -3)",
        "14:05 Bash `npm test` → 42 passed",
        # What git, package managers, the shell and HTTP print.
        "[main 3f2a9c1] fix: cache key",
        "2 files changed, 10 insertions(+), 3 deletions(-)",
        "Already up to date.",
        "Switched to a new branch 'fix-cache'",
        "added 120 packages in 3s",
        "Successfully installed requests-2.32.3",
        "Requirement already satisfied: numpy",
        "bash: foo: command not found",
        "curl: (7) Failed to connect to localhost port 8080",
        "Permission denied (publickey).",
        "404 Not Found",
    ],
)
def test_what_programs_print_is_a_log_line(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "09:14 Edited the invoice template; new rate is 85 €/h",
        "Bash(git push) is blocked by the hook; push from the terminal",
        "npm run build before deploy",
        "git push only after review",
        "[main] is the branch to deploy from",
        "404 pages go to /not-found, never to the home page",
    ],
)
def test_rules_about_those_programs_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # An agent workspace's instructions on its own files.
        "Read `USER.md` first — that is the person you work for",
        "Then read `memory/YYYY-MM-DD.md` for yesterday",
        "Each week, prune MEMORY.md of stale entries",
        "Once `BOOTSTRAP.md` is done, delete it",
        "**Never load in group chats**: it holds private context",
        "You wake up fresh every time; the notes are all you keep",
        "Lesson learnt → update TOOLS.md",
    ],
)
def test_instructions_on_the_agents_own_files(text: str) -> None:
    assert judge(text) == ABOUT


@pytest.mark.parametrize(
    "text",
    [
        "Read `docs/ARCHITECTURE.md` before touching the scheduler",
        "Update the README when a flag changes",
        "Load the dishwasher after dinner, never in the morning",
    ],
)
def test_instructions_on_other_files_are_kept(text: str) -> None:
    assert judge(text) is None


def test_a_chat_pasted_as_lines_of_its_own_is_a_log(tmp_path: Path) -> None:
    skips = _skips(
        tmp_path,
        "# 2026-11-20\n\n**User:** can we move the call?\n\n**Assistant:** Done, Thursday 10:00."
        "\n\n**User:** thanks\n\n- 用户：周五不加班\n- 助手：好的\n- 用户：那周六呢\n\n"
        "## Notes\n\n- **User:** prefers morning calls\n- **Assistant:** is called Pim\n",
        "2026-11-20.md",
    )
    for text in (
        "**User:** can we move the call?",
        "**User:** thanks",
        "助手：好的",
        "用户：那周六呢",
    ):
        assert skips[text] == LOG
    # Two labels of a profile list, each once, are no chat.
    assert skips["**User:** prefers morning calls"] is None
    assert skips["**Assistant:** is called Pim"] is None


def test_facts_under_the_same_role_label_are_no_chat(tmp_path: Path) -> None:
    skips = _skips(
        tmp_path, "# USER\n\n- 用户：喜欢喝茶\n- 用户：住在杭州\n- 助手：叫小满\n", "USER.md"
    )
    assert list(skips.values()) == [None, None, None]


@pytest.mark.parametrize(
    "text",
    [
        # A command echoed after a prompt, an exit status, what a build or a server prints.
        "lin@nas:~$ docker ps",
        "root@vps:/srv# systemctl restart nginx",
        "PS C:\\Users\\lin> dir",
        "❯ git status",
        ">>> import pandas as pd",
        "In [3]: df.head()",
        "exit 1",
        "Exited with code 1",
        "returncode: 1",
        "real\t0m1.234s",
        "[1]+  Done                    npm run dev",
        "Segmentation fault (core dumped)",
        "✨  Done in 3.21s.",
        "webpack 5.89.0 compiled successfully in 812 ms",
        "Build completed in 12.3s",
        "Listening on http://localhost:3000",
        "INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)",
        "Cloning into 'app'...",
        "remote: Enumerating objects: 5, done.",
        "warning: LF will be replaced by CRLF in app.py.",
    ],
)
def test_command_echoes_and_what_they_print_are_log_lines(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "服务器重启用 `systemctl restart nginx`",
        "Dev server listens on http://localhost:3000",
        "家里 NAS 的 ssh：lin@nas",
        "Build takes about 12 s; don't cancel it",
        "Exit 12 on the A9 is the fastest way to the farm",
        "Done in time for the school run is what matters",
    ],
)
def test_facts_about_commands_and_servers_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # The order or the date of the lines around it, and a note still being written.
        ("排名不分先后", "qualifier"),
        ("In no particular order.", "qualifier"),
        ("以上为 2026 年 11 月的情况", "qualifier"),
        ("The list above is as of November 2026.", "qualifier"),
        ("持续更新中...", ABOUT),
        ("To be continued", ABOUT),
    ],
)
def test_lines_about_their_neighbours_or_the_note(text: str, reason: str) -> None:
    assert judge(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "不分先后，两个孩子都要公平对待",
        "持续更新中的项目：苍蓝回响 2.0",
        "WIP: 迁移到 Astro，还差评论区",
    ],
)
def test_statements_that_start_like_them_are_kept(text: str) -> None:
    assert judge(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "trace_id=4bf92f3577b34da6",
        "id: 7f3a9c1e-2b4d-4e8f-9a1b-0c2d3e4f5a6b",
        "3f2a9c1e7b4d5a6c",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
)
def test_generated_ids_are_log_lines(text: str) -> None:
    assert judge(text) == LOG


@pytest.mark.parametrize(
    "text",
    [
        "id: 小林的工号是 A1024",
        "6222021234567890",
        "ID: 110101199003071234",
        "[WARN] 周末不要给客户发邮件",
        "User: Lin, a Go developer. Assistant: called Pim, dry humour.",
        # The wrench alone marks no tool call: a plumber's repair.
        "09:14 | 🔧 水管师傅上门 | 换了阀门",
        "deadbeef is the test account's pin",
    ],
)
def test_near_ids_are_kept(text: str) -> None:
    assert judge(text) is None
