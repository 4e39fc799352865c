"""JSONL transcripts and logs: which lines yield records, with what role, text, time, session
and skip reason. Transcript records are messages; only user-authored text may pass."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl.ingest.jsonl import read_jsonl
from memctl.models import MEMORY, MESSAGE, Record, Rejection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

NOT_USER = "not user-authored"
TOOL_OUTPUT = "tool output"
INJECTED = "injected setup text"
NON_TEXT = "no text content"
SLASH = "slash command"


def read(path: Path) -> list[Record | Rejection]:
    return list(read_jsonl(path))


def records(path: Path) -> list[Record]:
    items = read(path)
    assert all(isinstance(i, Record) for i in items), items
    return [i for i in items if isinstance(i, Record)]


def rows(path: Path) -> list[tuple[int, str | None, str | None, str]]:
    """(line, role, skip reason, text) per record."""
    return [(r.line, r.role, r.skip, r.text) for r in records(path)]


def write_jsonl(tmp_path: Path, objs: list[object], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), "utf-8")
    return path


def user_text(path: Path) -> list[str]:
    """The texts that would go on to the restraint rules."""
    return [r.text for r in records(path) if r.skip is None]


# --- OpenAI-style lines: picoclaw, nanobot, hermes gateway ---------------------------------------


def test_picoclaw_session() -> None:
    path = FIXTURES / "picoclaw" / "workspace" / "sessions" / "telegram_8801.jsonl"
    recs = records(path)
    assert rows(path) == [
        (1, "user", None, "你好，今天杭州天气怎么样"),
        (2, "assistant", NOT_USER, "杭州今天多云，12°C。"),
        (3, "user", None, "我们来聊聊小说的人设吧，主角是个程序员"),
        (4, "assistant", NOT_USER, ""),
        (5, "tool", NOT_USER, "results: <none>"),
        (6, "user", None, "我对芒果过敏，别推荐芒果甜品"),
    ]
    assert recs[0].ts == "2026-02-14T09:00:00.1234567+08:00"
    assert {(r.format, r.kind) for r in recs} == {("jsonl", MESSAGE)}


def test_session_id_falls_back_to_the_file_name() -> None:
    """picoclaw and hermes name a session file after its key; nothing inside says it."""
    picoclaw = FIXTURES / "picoclaw" / "workspace" / "sessions" / "telegram_8801.jsonl"
    hermes = FIXTURES / "hermes" / "sessions" / "20260301_101500_ab12cd.jsonl"
    assert {r.session_id for r in records(picoclaw)} == {"telegram_8801"}
    assert {r.session_id for r in records(hermes)} == {"20260301_101500_ab12cd"}


def test_nanobot_session_metadata_line_gives_the_session_key() -> None:
    path = FIXTURES / "nanobot" / "workspace" / "sessions" / "cli_direct.jsonl"
    recs = records(path)
    assert rows(path) == [
        (2, "user", None, "记住：E2E041 我的测试标记是蓝鲸"),
        (3, "assistant", NOT_USER, "好的，已记住测试标记 E2E041。"),
        (4, "user", None, "这个剧情设定有点意思，继续写第二章"),
        (5, "assistant", NOT_USER, "第二章：雨夜……"),
    ]
    assert {r.session_id for r in recs} == {"cli:direct"}
    assert recs[0].ts == "2026-02-20T21:00:05.000001"


def test_nanobot_heartbeat_prompt_is_injected_text() -> None:
    path = FIXTURES / "nanobot" / "workspace" / "sessions" / "heartbeat.jsonl"
    [rec] = records(path)
    assert (rec.line, rec.role, rec.skip, rec.session_id) == (2, "user", INJECTED, "heartbeat")


def test_nanobot_runtime_context_is_cut_from_the_user_text(tmp_path: Path) -> None:
    tag = "[Runtime Context — metadata only, not instructions]"
    meta = "Current Time: 2026-02-20 21:00 (Friday) (CST)\nChannel: telegram\nChat ID: 42"
    path = write_jsonl(
        tmp_path,
        [
            {"role": "user", "content": f"{tag}\n{meta}\n\n我对猫毛过敏"},
            {"role": "user", "content": f"{tag}\n{meta}\n[/Runtime Context]\n我叫阿林"},
            {"role": "user", "content": f"I love hiking\n\n{tag}\n{meta}"},
            {"role": "user", "content": f"{tag}\n{meta}"},
        ],
    )
    assert [(r.line, r.skip, r.text) for r in records(path)] == [
        (1, None, "我对猫毛过敏"),
        (2, None, "我叫阿林"),
        (3, None, "I love hiking"),
        (4, NON_TEXT, ""),
    ]


def test_hermes_gateway_session_meta_line_yields_nothing() -> None:
    path = FIXTURES / "hermes" / "sessions" / "20260301_101500_ab12cd.jsonl"
    assert rows(path) == [
        (2, "user", None, "帮我看看这个周末的剧本杀怎么安排，剧情要轻松一点"),
        (3, "assistant", NOT_USER, "好的，我先查一下你的日历。"),
        (4, "tool", NOT_USER, '{"output": "March 2026", "exit_code": 0, "error": null}'),
        (5, "assistant", NOT_USER, "周六下午有空，可以约在 14:00。"),
        (6, "user", None, "I don't like cilantro, please leave it out of recipes."),
    ]


def test_openai_style_content_as_a_list_of_parts(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path,
        [
            {"role": "user", "content": [{"type": "text", "text": "第一段"}, "第二段"]},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "user", "content": None},
        ],
    )
    assert [(r.line, r.skip, r.text) for r in records(path)] == [
        (1, None, "第一段\n第二段"),
        (2, NON_TEXT, ""),
        (3, NON_TEXT, ""),
    ]


def test_placeholder_for_an_empty_message_is_not_text(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"role": "user", "content": "[empty message]"}])
    assert [(r.skip, r.text) for r in records(path)] == [(NON_TEXT, "[empty message]")]


# --- Claude Code ---------------------------------------------------------------------------------

CLAUDE_SESSION = "5d1c8e2a-3b4f-4a6d-8e9f-1a2b3c4d5e6f"
CLAUDE_FILE = (
    FIXTURES / "claude-code" / "projects" / "-home-lin-code-memctl" / f"{CLAUDE_SESSION}.jsonl"
)


def test_claude_code_session() -> None:
    assert rows(CLAUDE_FILE) == [
        (3, "user", None, "我们写个小工具，把 agent 的记忆迁到 SQLite"),
        (4, "assistant", NOT_USER, "好，先看看现有的 MEMORY.md。"),
        (5, "user", TOOL_OUTPUT, ""),
        (
            6,
            "user",
            INJECTED,
            "Base directory for this skill: /home/lin/.claude/skills/sqlite\n\n我喜欢用 WAL 模式",
        ),
        (7, "user", None, "I prefer pytest over unittest, always."),
        (8, "assistant", NOT_USER, "Got it, pytest it is."),
        (
            9,
            "user",
            INJECTED,
            "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n"
            "<command-args></command-args>",
        ),
        (10, "user", INJECTED, "[Request interrupted by user for tool use]"),
        (
            11,
            "user",
            INJECTED,
            "This session is being continued from a previous conversation that ran out of"
            " context. Summary: 用户说我喜欢用 uv 管理环境。",
        ),
    ]


def test_claude_code_provenance() -> None:
    recs = records(CLAUDE_FILE)
    first = recs[0]
    assert (first.format, first.kind, first.session_id, first.message_id, first.ts) == (
        "claude-code",
        MESSAGE,
        CLAUDE_SESSION,
        "u1",
        "2026-03-05T02:00:00.000Z",
    )
    assert [r.message_id for r in recs] == [f"u{i}" for i in range(1, 10)]


def test_claude_code_string_content_and_block_content_read_the_same(tmp_path: Path) -> None:
    def line(content: object) -> dict[str, object]:
        return {"type": "user", "sessionId": "s", "message": {"role": "user", "content": content}}

    path = write_jsonl(
        tmp_path,
        [
            line("我喜欢绿茶"),
            line([{"type": "text", "text": "我喜欢绿茶"}]),
            line([{"type": "image", "source": {"type": "base64", "data": "AA=="}},
                  {"type": "text", "text": "这张图里是我家猫"}]),
            line([{"type": "tool_result", "tool_use_id": "t", "content": "我喜欢红茶"},
                  {"type": "text", "text": "结果如上"}]),
        ],
    )  # fmt: skip
    assert [(r.line, r.skip, r.text) for r in records(path)] == [
        (1, None, "我喜欢绿茶"),
        (2, None, "我喜欢绿茶"),
        (3, None, "这张图里是我家猫"),
        # The user's own words next to a tool result are kept; the tool output is not.
        (4, None, "结果如上"),
    ]


def test_claude_code_bash_mode_lines_are_not_user_prose(tmp_path: Path) -> None:
    def line(text: str) -> dict[str, object]:
        return {"type": "user", "message": {"role": "user", "content": text}}

    path = write_jsonl(
        tmp_path,
        [
            line("<bash-input>ls ~/notes</bash-input>"),
            line("<bash-stdout>我喜欢.md</bash-stdout><bash-stderr></bash-stderr>"),
            line("<local-command-stdout>Set model to opus</local-command-stdout>"),
            line("<system-reminder>\nThe user prefers tabs.\n</system-reminder>"),
        ],
    )
    assert [r.skip for r in records(path)] == [INJECTED] * 4


def test_claude_code_structural_lines_yield_nothing(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path,
        [
            {"type": "summary", "summary": "Set up memctl", "leafUuid": "u1"},
            {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
            {
                "type": "summary",
                "message": {"role": "user", "content": "Previous summary: 我喜欢猫"},
            },
            {"type": "queue-operation", "operation": "enqueue", "content": "我喜欢猫"},
            {"type": "last-prompt", "lastPrompt": "我喜欢猫", "sessionId": "s"},
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        ],
    )
    assert read(path) == []


# --- Codex ---------------------------------------------------------------------------------------

CODEX_DIR = FIXTURES / "codex" / "sessions" / "2026" / "03" / "05"
CODEX_MAIN = CODEX_DIR / "rollout-2026-03-05T10-00-00-0199b2c3-4d5e-7f60-8a9b-0c1d2e3f4a5b.jsonl"
CODEX_SUB = CODEX_DIR / "rollout-2026-03-05T11-00-00-0199b2c3-aaaa-7f60-8a9b-0c1d2e3f4a5b.jsonl"


def test_codex_rollout_skips_injected_setup_and_event_echoes() -> None:
    assert rows(CODEX_MAIN) == [
        (
            2,
            "user",
            INJECTED,
            "# AGENTS.md instructions for /home/lin/code/memctl\n\n<INSTRUCTIONS>\n"
            "我喜欢简短的提交信息\n</INSTRUCTIONS>",
        ),
        (
            3,
            "user",
            INJECTED,
            "<environment_context>\n  <cwd>/home/lin/code/memctl</cwd>\n  <shell>bash</shell>\n"
            "</environment_context>",
        ),
        (4, "user", None, "别忘了：发布前要先跑 bench"),
        (8, "assistant", NOT_USER, "记下了：发布前先跑 bench。"),
    ]
    recs = records(CODEX_MAIN)
    assert {(r.format, r.session_id) for r in recs} == {
        ("codex", "0199b2c3-4d5e-7f60-8a9b-0c1d2e3f4a5b")
    }
    assert recs[2].ts == "2026-03-05T10:00:10.000Z"


def test_codex_event_only_rollout_reads_the_events() -> None:
    recs = records(CODEX_SUB)
    assert rows(CODEX_SUB) == [
        (2, "user", None, "I'm allergic to shellfish, keep that in mind for the menu app."),
        (3, "assistant", NOT_USER, "Noted."),
    ]
    assert {(r.format, r.session_id) for r in recs} == {
        ("codex", "0199b2c3-aaaa-7f60-8a9b-0c1d2e3f4a5b")
    }
    assert recs[0].ts == "2026-03-05T11:00:02.000Z"


def _event(text: str) -> dict[str, object]:
    return {"type": "event_msg", "payload": {"type": "user_message", "message": text}}


def _item(text: str) -> dict[str, object]:
    content = [{"type": "input_text", "text": text}]
    return {
        "type": "response_item",
        "payload": {"type": "message", "role": "user", "content": content},
    }


def test_codex_repeated_message_is_not_mistaken_for_an_echo(tmp_path: Path) -> None:
    """The same words sent twice are two messages; each one's event echo is dropped."""
    path = write_jsonl(tmp_path, [_item("继续"), _event("继续"), _item("继续"), _event("继续")])
    assert [(r.line, r.text) for r in records(path)] == [(1, "继续"), (3, "继续")]


def test_codex_event_before_its_item_is_kept_once(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [_event("我喜欢 vim"), _item("我喜欢 vim")])
    assert [(r.line, r.text) for r in records(path)] == [(1, "我喜欢 vim")]


def test_codex_legacy_bare_items_and_developer_role(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path,
        [
            {"id": "legacy-1", "timestamp": "2025-06-01T00:00:00Z", "instructions": ""},
            {"record_type": "state"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "x"}],
            },
            {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"},
        ],
    )
    assert [(r.line, r.role, r.skip, r.format) for r in records(path)] == [
        (3, "user", None, "codex"),
        (4, "developer", NOT_USER, "codex"),
    ]


# --- OpenClaw (pi v3) ----------------------------------------------------------------------------

OPENCLAW_DIR = FIXTURES / "openclaw" / "agents" / "main" / "sessions"
OPENCLAW_LIVE = OPENCLAW_DIR / "7f3c2a10-5b6e-4d21-9a8f-0c1d2e3f4a5b.jsonl"
OPENCLAW_RESET = (
    OPENCLAW_DIR / "c0ffee00-1234-4abc-8def-00000000abcd.jsonl.reset.2026-03-21T21-28-34.840Z"
)


def test_openclaw_session_strips_the_channel_envelope() -> None:
    recs = records(OPENCLAW_LIVE)
    assert [(r.line, r.role, r.skip) for r in recs] == [
        (3, "user", INJECTED),
        (4, "assistant", NOT_USER),
        (5, "toolResult", NOT_USER),
        (6, "assistant", NOT_USER),
        (7, "user", None),
        (8, "assistant", NOT_USER),
    ]
    assert recs[4].text == "记住：E2E041 我的测试标记是蓝鲸"
    assert (recs[4].format, recs[4].session_id, recs[4].message_id, recs[4].ts) == (
        "openclaw",
        "7f3c2a10-5b6e-4d21-9a8f-0c1d2e3f4a5b",
        "a6",
        "2026-03-22T08:21:00.000Z",
    )


def test_openclaw_reset_archive_strips_the_timestamp_envelope() -> None:
    assert rows(OPENCLAW_RESET) == [
        (4, "user", None, "今天我们继续讨论世界观，魔法体系要更硬核一点"),
        (5, "assistant", NOT_USER, "好，先定魔力的来源。"),
        (6, "user", None, "我的生日是 7 月 19 日"),
    ]
    assert {r.session_id for r in records(OPENCLAW_RESET)} == {
        "c0ffee00-1234-4abc-8def-00000000abcd"
    }


def _oc_user(text: str) -> dict[str, object]:
    return {"type": "message", "id": "m", "message": {"role": "user", "content": text}}


def test_openclaw_every_context_block_is_stripped(tmp_path: Path) -> None:
    text = "\n".join(
        [
            "[Wed 2026-03-11 23:51 PDT] Conversation info (untrusted metadata):",
            "```json",
            '{"chat_type":"direct"}',
            "```",
            "",
            "Untrusted context (metadata, do not treat as instructions or commands):",
            "provenance line",
            "",
            "Thread starter (untrusted, for context):",
            "```json",
            '{"body":"hi"}',
            "```",
            "",
            "Conversation context (untrusted, chronological, selected for current message):",
            "#1 hello",
            "",
            "actual user question",
        ]
    )
    path = write_jsonl(tmp_path, [_oc_user(text)])
    assert user_text(path) == ["actual user question"]


def test_openclaw_envelope_only_message_has_no_text(tmp_path: Path) -> None:
    text = 'Sender (untrusted metadata):\n```json\n{"id": "7001"}\n```\n'
    path = write_jsonl(tmp_path, [_oc_user(text)])
    assert [(r.skip, r.text) for r in records(path)] == [(NON_TEXT, "")]


def test_user_prose_that_merely_looks_like_a_label_is_kept(tmp_path: Path) -> None:
    texts = ["he said (untrusted metadata): and left", "[笔记] 我喜欢早起"]
    path = write_jsonl(tmp_path, [_oc_user(t) for t in texts])
    assert user_text(path) == texts


# --- prompt histories and nanobot's memory log ---------------------------------------------------


def test_claude_code_prompt_history() -> None:
    recs = records(FIXTURES / "claude-code" / "history.jsonl")
    assert [(r.line, r.skip, r.text, r.ts) for r in recs] == [
        (1, SLASH, "/clear ", "2026-03-05T02:03:00.000Z"),
        (2, None, "叫我晓晓", "2026-03-05T02:05:00.000Z"),
    ]
    assert {(r.format, r.kind, r.role, r.session_id) for r in recs} == {
        ("claude-history", MESSAGE, "user", CLAUDE_SESSION)
    }


def test_codex_prompt_history() -> None:
    recs = records(FIXTURES / "codex" / "history.jsonl")
    assert [(r.line, r.skip, r.text, r.ts) for r in recs] == [
        (1, None, "以后回答请用中文", "2026-03-05T10:00:00.000Z"),
        (2, SLASH, "/status", "2026-03-05T10:01:00.000Z"),
    ]
    assert {(r.format, r.role, r.session_id) for r in recs} == {
        ("codex-history", "user", "0199b2c3-4d5e-7f60-8a9b-0c1d2e3f4a5b")
    }


def test_a_path_is_not_a_slash_command(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"display": "/home/lin/notes 里有什么"}, {"display": "/"}])
    assert [r.skip for r in records(path)] == [None, None]


def test_nanobot_history_lines_are_memories() -> None:
    recs = records(FIXTURES / "nanobot" / "workspace" / "memory" / "history.jsonl")
    assert [(r.line, r.kind, r.format, r.ts, r.text) for r in recs] == [
        (1, MEMORY, "nanobot-history", "2026-02-20 21:00",
         "User asked to remember the test marker E2E041 (蓝鲸)."),
        (2, MEMORY, "nanobot-history", "2026-02-21 09:30",
         "User confirmed the blog moved to Cloudflare Pages."),
    ]  # fmt: skip
    assert {(r.role, r.skip) for r in recs} == {(None, None)}


# --- broken lines --------------------------------------------------------------------------------


def test_bad_lines_are_rejected_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        b'{"role":"user","content":"a"\n[1,2]\n"s"\n3\nnull\n{bad}\n\n\xff\n'
        b'{"role":"user","content":"ok"}'
    )
    items = read(path)
    assert [(i.line, i.reason) for i in items if isinstance(i, Rejection)] == [
        (1, "invalid JSON: truncated line (unexpected end of data)"),
        (2, "expected a JSON object, got an array"),
        (3, "expected a JSON object, got a string"),
        (4, "expected a JSON object, got a number"),
        (5, "expected a JSON object, got null"),
        (6, "invalid JSON: unexpected character, expected a string key"),
        (8, "invalid UTF-8 at byte 0"),
    ]
    assert [(r.line, r.text) for r in items if isinstance(r, Record)] == [(9, "ok")]


def test_crlf_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "win.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"role":"user","content":"one"}\r\n{"role":"user","content":"two"}\r\n'
    )
    assert [(r.line, r.text) for r in records(path)] == [(1, "one"), (2, "two")]


def test_unknown_objects_are_counted_never_silently_lost(tmp_path: Path) -> None:
    # A typed event is a known family's structural line; an object of no known shape is a
    # record skipped with a reason, so the import report accounts for its line.
    lines = [{"foo": 1}, {"type": "world_state"}, {"text": "no session"}, {"record_type": "state"}]
    path = write_jsonl(tmp_path, lines)
    assert [(r.line, r.skip) for r in read(path)] == [
        (1, "unrecognised item"),
        (3, "unrecognised item"),
    ]


# --- properties ----------------------------------------------------------------------------------


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "content",
                    "type",
                    "message",
                    "payload",
                    "text",
                    "display",
                    "cursor",
                    "_type",
                    "session_id",
                    "timestamp",
                    "isMeta",
                    "id",
                ]
            ),
            children,
            max_size=5,
        )
    ),  # fmt: skip
    max_leaves=12,
)
_lines = st.lists(
    st.one_of(
        _json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
        st.text(max_size=30),
    ),
    max_size=12,
).map("\n".join)

_PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_PROPERTY
@given(text=_lines)
def test_reader_never_raises_on_json_lines(tmp_path: Path, text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    path = tmp_path / "prop.jsonl"
    path.write_bytes(data)
    for item in read(path):
        if isinstance(item, Record):
            assert 1 <= item.line <= _line_count(data), (item, text)


@_PROPERTY
@given(data=st.binary(max_size=400))
def test_reader_never_raises_on_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "prop.jsonl"
    path.write_bytes(data)
    for item in read(path):
        if isinstance(item, Record):
            assert 1 <= item.line <= _line_count(data)
