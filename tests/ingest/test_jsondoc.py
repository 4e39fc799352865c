"""Whole-file JSON documents: ChatGPT exports, memory exports, legacy session files, and the
index files that must be reported as unsupported rather than guessed at."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import pytest

from memctl.ingest.jsondoc import UnknownFormat, read_json
from memctl.models import MEMORY, MESSAGE, Record, Rejection

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

NOT_USER = "not user-authored"
INJECTED = "injected setup text"
NON_TEXT = "no text content"


def read(path: Path) -> list[Record | Rejection]:
    return list(read_json(path))


def records(path: Path) -> list[Record]:
    items = read(path)
    assert all(isinstance(i, Record) for i in items), items
    return [i for i in items if isinstance(i, Record)]


def write_json(tmp_path: Path, doc: Any, name: str = "doc.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


# --- ChatGPT conversations.json ------------------------------------------------------------------


def test_chatgpt_walks_the_active_branch_from_current_node() -> None:
    recs = records(FIXTURES / "chatgpt" / "conversations.json")
    assert [(r.line, r.role, r.skip, r.text) for r in recs] == [
        (1, "system", NOT_USER, ""),
        (2, "user", None, "帮我想一个周末剧本杀的本子，人设要有反转"),
        (3, "assistant", NOT_USER, "可以做一个民国背景的密室……"),
        # "My favourite colour is red." sits on the abandoned branch and is never read.
        (4, "user", None, "My favourite tea is 正山小种."),
        (5, "assistant", NOT_USER, "好选择。"),
        (6, "user", None, "今天心情不错"),
        (7, "assistant", NOT_USER, "那太好了！"),
    ]
    assert [(r.session_id, r.message_id, r.ts) for r in recs[1:2] + recs[5:6]] == [
        ("6790aaaa-0000-8000-9000-000000000001", "u1", "2026-02-25T06:13:30.000Z"),
        (None, "q1", "2026-02-26T10:00:00.000Z"),
    ]
    assert {(r.format, r.kind) for r in recs} == {("chatgpt", MESSAGE)}


def _node(nid: str, parent: str | None, children: list[str], role: str, text: Any,
          **meta: Any) -> dict[str, Any]:  # fmt: skip
    parts = text if isinstance(text, list) else [text]
    message = {
        "id": nid,
        "author": {"role": role},
        "create_time": 1700000000,
        "content": {"content_type": "text", "parts": parts},
        "metadata": meta,
    }
    return {"id": nid, "parent": parent, "children": children, "message": message}


def test_chatgpt_without_current_node_follows_the_last_child(tmp_path: Path) -> None:
    mapping = {
        "a": _node("a", None, ["b"], "user", "开头"),
        "b": _node("b", "a", ["old", "new"], "assistant", "回答"),
        "old": _node("old", "b", [], "user", "旧的分支"),
        "new": _node("new", "b", [], "user", "新的分支"),
    }
    path = write_json(tmp_path, [{"title": "t", "mapping": mapping}])
    assert [(r.line, r.text) for r in records(path)] == [(1, "开头"), (2, "回答"), (3, "新的分支")]


def test_chatgpt_single_conversation_object(tmp_path: Path) -> None:
    mapping = {"a": _node("a", None, [], "user", "我喜欢爬山")}
    path = write_json(tmp_path, {"id": "c-1", "mapping": mapping, "current_node": "a"})
    assert [(r.line, r.text, r.session_id) for r in records(path)] == [(1, "我喜欢爬山", "c-1")]


def test_chatgpt_hidden_messages_are_injected_context(tmp_path: Path) -> None:
    """Custom instructions and memory ChatGPT adds to a conversation, not typed by the user."""
    mapping = {
        "a": _node("a", None, ["b"], "user", "The user likes 爬山.",
                   is_visually_hidden_from_conversation=True),
        "b": _node("b", "a", [], "user", "今天天气很好"),
    }  # fmt: skip
    path = write_json(tmp_path, [{"mapping": mapping, "current_node": "b"}])
    assert [(r.line, r.skip) for r in records(path)] == [(1, INJECTED), (2, None)]


def test_chatgpt_non_text_parts_are_ignored(tmp_path: Path) -> None:
    image = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}
    mapping = {
        "a": _node("a", None, ["b"], "user", [image, "这是我家的猫"]),
        "b": _node("b", "a", [], "user", [image]),
    }
    path = write_json(tmp_path, [{"mapping": mapping, "current_node": "b"}])
    assert [(r.line, r.skip, r.text) for r in records(path)] == [
        (1, None, "这是我家的猫"),
        (2, NON_TEXT, ""),
    ]


def test_chatgpt_cycle_in_parents_does_not_hang(tmp_path: Path) -> None:
    mapping = {
        "a": _node("a", "b", ["b"], "user", "一"),
        "b": _node("b", "a", ["a"], "user", "二"),
    }
    path = write_json(tmp_path, [{"mapping": mapping, "current_node": "b"}])
    assert [r.text for r in records(path)] == ["一", "二"]


# --- memory exports ------------------------------------------------------------------------------


def test_kinetaios_export() -> None:
    recs = records(FIXTURES / "exports" / "kinetaios-export.json")
    assert [(r.line, r.text, r.ts, r.session_id, r.message_id) for r in recs] == [
        (1, "用户的猫叫年糕，是一只橘猫", "2026-03-04T04:53:20.000Z", "c-17", "m1"),
        (2, "Prefers concise answers: conclusion first, details after.",
         "2026-03-04T04:55:00.000Z", None, "m2"),
        (3, "服务器 SSH 端口改成了 2222", "2026-03-04T04:56:40.000Z", None, "m3"),
    ]  # fmt: skip
    assert {(r.format, r.kind, r.skip) for r in recs} == {("memories-json", MEMORY, None)}
    assert all(r.fields == {} for r in recs)


def test_memctl_export_restores_entry_fields(tmp_path: Path) -> None:
    source = {"path": "/home/lin/MEMORY.md", "line": 3, "format": "markdown", "raw_hash": "r1:x"}
    doc = {
        "version": 1,
        "exportedAt": 1772700000000,
        "user": "lin",
        "memories": [
            {
                "id": 7,
                "content": "喜欢绿茶",
                "realm": "real",
                "layer": "profile",
                "status": "active",
                "audience": "private",
                "importance": 0.7,
                "emotional_weight": None,
                "confidence": 0.9,
                "ts": "2026-02-01",
                "created_at": "2026-02-01T00:00:00.000Z",
                "sources": [source],
                "supersedes": [{"old_id": 3, "reason": "conflict"}],
            }
        ],
    }
    [rec] = records(write_json(tmp_path, doc))
    assert (rec.line, rec.text, rec.format, rec.kind, rec.ts, rec.message_id) == (
        1,
        "喜欢绿茶",
        "memctl-export",
        MEMORY,
        "2026-02-01",
        "7",
    )
    assert rec.fields == {
        "realm": "real",
        "layer": "profile",
        "status": "active",
        "audience": "private",
        "importance": 0.7,
        "confidence": 0.9,
        "ts": "2026-02-01",
        "created_at": "2026-02-01T00:00:00.000Z",
        "export_id": 7,
        "sources": [source],
        "supersedes": [{"old_id": 3, "reason": "conflict"}],
    }


def test_memory_without_text_content_is_rejected(tmp_path: Path) -> None:
    doc = {"memories": [{"content": "好"}, {"content": 3}, "纯文本", None]}
    items = read(write_json(tmp_path, doc))
    assert [(i.line, i.text) if isinstance(i, Record) else (i.line, i.reason) for i in items] == [
        (1, "好"),
        (2, "memory without a text 'content'"),
        (3, "纯文本"),
        (4, "memory without a text 'content'"),
    ]


def test_string_list_export() -> None:
    recs = records(FIXTURES / "exports" / "notes.json")
    assert [(r.line, r.text, r.format, r.kind) for r in recs] == [
        (1, "每周五 18:00 前发周报给老板", "json-strings", MEMORY),
        (2, "用户对花生过敏", "json-strings", MEMORY),
        (3, "  ", "json-strings", MEMORY),
    ]


def test_list_of_memory_objects(tmp_path: Path) -> None:
    path = write_json(tmp_path, [{"content": "a", "id": "x"}, {"content": "b"}])
    assert [(r.line, r.text, r.format, r.message_id) for r in records(path)] == [
        (1, "a", "memories-json", "x"),
        (2, "b", "memories-json", None),
    ]


# --- legacy session files ------------------------------------------------------------------------


def test_picoclaw_legacy_session_json() -> None:
    recs = records(FIXTURES / "picoclaw" / "workspace" / "sessions" / "agent_main_main.json")
    assert [(r.line, r.role, r.skip, r.text) for r in recs] == [
        (1, "user", None, "Remember that my dentist appointment is on 2026-03-10"),
        (2, "assistant", NOT_USER, "Noted: dentist on 2026-03-10."),
        (3, "user", NON_TEXT, "[empty message]"),
    ]
    assert {(r.format, r.session_id) for r in recs} == {("session-json", "agent:main:main")}


def test_hermes_cli_session_log() -> None:
    path = FIXTURES / "hermes" / "sessions" / "session_20260302_090000_ef34ab.json"
    recs = records(path)
    assert [(r.line, r.role, r.skip, r.text) for r in recs] == [
        (1, "user", None, "以后都用中文回答我"),
        (2, "assistant", NOT_USER, "好的，之后都用中文。"),
        (3, "user", None, "今天的世界观设定讨论就到这里"),
        (4, "assistant", NOT_USER, "好的，下次继续。"),
    ]
    assert {(r.format, r.session_id) for r in recs} == {("session-json", "20260302_090000_ef34ab")}


def test_bare_message_list_and_a_bad_message(tmp_path: Path) -> None:
    path = write_json(tmp_path, {"messages": [{"role": "user", "content": "hi"}, "oops"]})
    items = read(path)
    assert [(i.line, i.text) for i in items if isinstance(i, Record)] == [(1, "hi")]
    assert [(i.line, i.reason) for i in items if isinstance(i, Rejection)] == [
        (2, "message is not a JSON object")
    ]
    path = write_json(tmp_path, [{"role": "user", "content": "hello"}], "list.json")
    assert [(r.line, r.format) for r in records(path)] == [(1, "session-json")]


# --- unsupported and broken documents ------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        FIXTURES / "hermes" / "sessions" / "sessions.json",
        FIXTURES / "picoclaw" / "workspace" / "sessions" / "telegram_8801.meta.json",
    ],
    ids=["hermes-sessions-index", "picoclaw-meta"],
)
def test_index_and_metadata_files_are_unknown_format(path: Path) -> None:
    with pytest.raises(UnknownFormat, match="no memories or messages"):
        read(path)


@pytest.mark.parametrize(
    "doc",
    [
        {"dingtalk:0153": {"channel": "dingtalk", "message_count": 6}},
        [{"session_key": "a"}, {"session_key": "b"}],
        3,
        "just a string",
        [1, 2],
    ],
    ids=["nanobot-index", "list-of-objects", "number", "string", "numbers"],
)
def test_documents_without_memories_are_unknown_format(tmp_path: Path, doc: Any) -> None:
    with pytest.raises(UnknownFormat):
        read(write_json(tmp_path, doc))


def test_empty_list_yields_nothing(tmp_path: Path) -> None:
    assert read(write_json(tmp_path, [])) == []


def test_invalid_json_is_rejected_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "memories": [\n    oops\n  ]\n}\n', encoding="utf-8")
    assert [(i.line, i.reason) for i in read(path) if isinstance(i, Rejection)] == [
        (3, "invalid JSON: unexpected character, expected a JSON value")
    ]


def test_bom_and_utf16_documents(tmp_path: Path) -> None:
    text = json.dumps(["记住这条"], ensure_ascii=False)
    bom = tmp_path / "bom.json"
    bom.write_bytes(codecs.BOM_UTF8 + text.encode("utf-8"))
    wide = tmp_path / "wide.json"
    wide.write_bytes(text.encode("utf-16"))
    assert [r.text for r in records(bom)] == ["记住这条"]
    assert [r.text for r in records(wide)] == ["记住这条"]


def test_a_list_of_texts_with_stray_values_keeps_the_texts_and_rejects_the_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.json"
    path.write_text('["用户对花生过敏", null, "每周五发周报", 42, true, "I like tea"]')
    got = list(read(path))
    assert [(r.line, r.text) for r in got if isinstance(r, Record)] == [
        (1, "用户对花生过敏"), (3, "每周五发周报"), (6, "I like tea"),
    ]  # fmt: skip
    assert [(r.line, r.reason) for r in got if isinstance(r, Rejection)] == [
        (2, "list item is not a text (null)"),
        (4, "list item is not a text (a number)"),
        (5, "list item is not a text (true/false)"),
    ]


@pytest.mark.parametrize(
    "doc", ['[1, 2, "three"]', '["a", {"content": "b"}]', '["a", ["b"]]'], ids=str
)
def test_lists_that_are_not_mostly_texts_are_still_unknown(tmp_path: Path, doc: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(doc)
    with pytest.raises(UnknownFormat):
        list(read(path))
