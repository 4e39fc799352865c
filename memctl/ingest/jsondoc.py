"""Whole-file JSON documents: exports, ChatGPT `conversations.json`, legacy session files.

For a JSON document, a record's `line` is the item's 1-based position in its list (the message
index in a session, the memory index in an export), since the file has no useful line structure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from memctl.ingest.textio import iso_time, read_document
from memctl.ingest.transcripts import INJECTED, Context, _message, _str, records_from_item
from memctl.models import MEMORY, Record, Rejection
from memctl.store.fields import EXPORT_FIELDS


class UnknownFormat(Exception):
    """The file parsed, but holds nothing memctl knows how to read."""


def read_json(path: Path) -> Iterator[Record | Rejection]:
    shown = str(path)
    data = read_document(path)
    if isinstance(data, Rejection):
        yield data
        return
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        yield Rejection(shown, exc.lineno, f"invalid JSON: {exc.msg}")
        return
    yield from _dispatch(doc, shown, path.name)


def _dispatch(doc: Any, shown: str, name: str) -> Iterator[Record | Rejection]:
    if isinstance(doc, dict) and isinstance(doc.get("memories"), list):
        yield from _memories(doc, shown)
    elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        sid = _str(doc.get("session_id")) or _str(doc.get("key"))
        yield from _messages(doc["messages"], Context(shown, "session-json", sid))
    elif isinstance(doc, dict) and isinstance(doc.get("mapping"), dict):
        yield from _chatgpt([doc], shown)
    elif isinstance(doc, list) and _texts_mostly(doc):
        # A list of texts with a stray null or number: the texts are read, each stray item
        # is rejected with its position, instead of the whole file being refused.
        for i, item in enumerate(doc, start=1):
            if isinstance(item, str):
                yield Record(item, shown, i, "json-strings", MEMORY)
            else:
                yield Rejection(shown, i, f"list item is not a text ({_json_kind(item)})")
    elif isinstance(doc, list) and doc and all(isinstance(x, dict) for x in doc):
        if all("mapping" in x for x in doc):
            yield from _chatgpt(doc, shown)
        elif all("role" in x for x in doc):
            yield from _messages(doc, Context(shown, "session-json"))
        elif all(isinstance(x.get("content"), str) for x in doc):
            yield from _memories({"memories": doc}, shown)
        else:
            raise UnknownFormat("JSON array of objects with no memories or messages")
    elif isinstance(doc, list) and not doc:
        return
    else:
        raise UnknownFormat("JSON with no memories or messages (an index or metadata file?)")


def _texts_mostly(items: list[Any]) -> bool:
    """At least half the items are texts and none is an object or a list (those are another
    shape of document, not a list of texts with a stray value)."""
    texts = sum(isinstance(x, str) for x in items)
    return (
        texts > 0 and 2 * texts >= len(items) and not any(isinstance(x, dict | list) for x in items)
    )


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return "a number" if isinstance(value, int | float) else type(value).__name__


def _memories(doc: dict[str, Any], shown: str) -> Iterator[Record | Rejection]:
    """memctl's export, KinetAios's `{version: 1, exportedAt, memories}`, or a list of them."""
    memctl = "user" in doc
    fmt = "memctl-export" if memctl else "memories-json"
    for i, item in enumerate(doc["memories"], start=1):
        if isinstance(item, str):
            yield Record(item, shown, i, fmt, MEMORY)
            continue
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            yield Rejection(shown, i, "memory without a text 'content'")
            continue
        fields = {k: item[k] for k in EXPORT_FIELDS if item.get(k) is not None} if memctl else {}
        if memctl:
            fields["export_id"] = item.get("id")
            fields["sources"] = item.get("sources") or []
            fields["supersedes"] = item.get("supersedes") or []
        yield Record(
            item["content"],
            shown,
            i,
            fmt,
            MEMORY,
            ts=iso_time(item.get("ts") or item.get("created_at")),
            session_id=_str(item.get("conversation_id")),
            message_id=_str(item.get("id")),
            fields=fields,
        )


def _messages(messages: list[Any], ctx: Context) -> Iterator[Record | Rejection]:
    for i, msg in enumerate(messages, start=1):
        if isinstance(msg, dict):
            yield from records_from_item(msg, i, ctx)
        else:
            yield Rejection(ctx.path, i, "message is not a JSON object")


def _chatgpt(conversations: list[dict[str, Any]], shown: str) -> Iterator[Record | Rejection]:
    """ChatGPT export: each conversation's active branch, walked back from `current_node`."""
    position = 0
    for conv in conversations:
        mapping = conv.get("mapping")
        if not isinstance(mapping, dict):
            continue
        ctx = Context(shown, "chatgpt", _str(conv.get("conversation_id")) or _str(conv.get("id")))
        for node in _active_branch(mapping, conv.get("current_node")):
            msg = node.get("message")
            if not isinstance(msg, dict):
                continue
            position += 1
            author = _dict(msg.get("author"))
            parts = _dict(msg.get("content")).get("parts")
            texts = [p for p in parts if isinstance(p, str)] if isinstance(parts, list) else []
            # Custom instructions and memories ChatGPT adds to the conversation are hidden
            # from it; the user did not type them.
            hidden = _dict(msg.get("metadata")).get("is_visually_hidden_from_conversation")
            yield from _message(
                {"role": author.get("role"), "content": texts}, position, ctx,
                ts=iso_time(msg.get("create_time")), message_id=_str(msg.get("id")),
                skip=INJECTED if hidden else None,
            )  # fmt: skip


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _active_branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    if not isinstance(current, str) or current not in mapping:
        # No current_node (older exports): follow the last child from the root.
        roots = [n for n in mapping.values() if isinstance(n, dict) and not n.get("parent")]
        node = roots[0] if roots else None
        while node and node.get("children"):
            node = mapping.get(node["children"][-1])
        current = node.get("id") if node else None
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            break
        branch.append(node)
        current = node.get("parent")
    return branch[::-1]
