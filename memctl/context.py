"""`memctl context`: the memory block injected into the agent's next prompt.

Two blocks with hard budgets (seed 001, section 四): a fixed block (boundary, persona,
relationship, profile) of at most `budget.fixed` tokens, and a retrieval block (episodic,
procedural entries relevant to the query, via FTS5/BM25, else the most recent) of at most
`budget.retrieval` tokens. A fixed-layer entry whose layer confidence is below
`fixed.min_confidence` is only perhaps a fact of that layer: it competes in the retrieval block
instead. Only active, unexpired, unmerged entries are used; private entries
only in private channels; fictional entries only in role-play channels. The block starts with
CONTEXT_MARKER so no reader ever re-imports it from a later transcript.
"""

from __future__ import annotations

import math
import re
import sqlite3
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memctl import CONTEXT_MARKER, search
from memctl.errors import ConfigError
from memctl.settings import data_file, merge_checked
from memctl.store import Store, UserStore, now_iso
from memctl.store.entries import Unsure, Visible

FIXED_LAYERS = ("boundary", "persona", "relationship", "profile")
RETRIEVAL_LAYERS = ("episodic", "procedural")

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


def count_tokens(text: str) -> int:
    """Estimated tokens: each CJK character 1, each other word 1.3, rounded up."""
    return len(_CJK.findall(text)) + math.ceil(1.3 * len(_WORD.findall(text)))


@dataclass(frozen=True)
class Channel:
    name: str
    private: bool = False
    roleplay: bool = False


@dataclass(frozen=True)
class Settings:
    fixed_budget: int
    retrieval_budget: int
    max_hits: int
    recent: int
    index_per_call: int
    write_wait_ms: int
    channels: dict[str, Channel]
    headings: dict[str, str]
    # The retrieval block's last line when relevant entries did not fit; "{count}" is filled in.
    dropped_notice: str = ""
    fixed_min_confidence: float = 0.0

    def channel(self, name: str) -> Channel:
        return self.channels.get(name, Channel(name))


def load_settings(path: Path | None = None, overrides: dict[str, Any] | None = None) -> Settings:
    """Defaults from memctl/data/context.toml, then `path` (a TOML file), then `overrides`.

    A key the defaults do not have, or a value of another type, is refused naming the key;
    `[channels.NAME]` tables may name any channel.
    """
    raw = data_file("context")
    where = ""
    try:
        if path is not None:
            where = f"{path}: "
            try:
                extra = tomllib.loads(path.read_text(encoding="utf-8"))
            except OSError as exc:
                raise ConfigError(exc.strerror or str(exc)) from None
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"invalid TOML: {exc}") from None
            _merge(raw, extra)
        where = ""
        _merge(raw, overrides or {})
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None
    budget = raw["budget"]
    return Settings(
        fixed_budget=budget["fixed"],
        retrieval_budget=budget["retrieval"],
        max_hits=budget["max_hits"],
        recent=budget["recent"],
        index_per_call=raw["index"]["per_call"],
        write_wait_ms=raw["writes"]["wait_ms"],
        channels={
            name: Channel(name, c["private"], c["roleplay"]) for name, c in raw["channels"].items()
        },
        headings=dict(raw["headings"]),
        dropped_notice=raw["notice"]["dropped"],
        fixed_min_confidence=float(raw["fixed"]["min_confidence"]),
    )


_CHANNEL = {"private": False, "roleplay": False}


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
    # Any channel name may be added; each channel has exactly the keys of _CHANNEL.
    if isinstance(extra.get("channels"), dict):
        for name in extra["channels"]:
            base["channels"].setdefault(name, {})
    for table in base["channels"].values():
        for key, value in _CHANNEL.items():
            table.setdefault(key, value)
    merge_checked(base, extra)
    counts = {f"budget.{k}": v for k, v in base["budget"].items()}
    counts["index.per_call"] = base["index"]["per_call"]
    counts["writes.wait_ms"] = base["writes"]["wait_ms"]
    for name, value in counts.items():
        if value < 0:
            raise ConfigError(f"{name}: must be 0 or more, got {value}")


@dataclass
class Block:
    budget: int
    tokens: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    # Entries offered that the budget left out: id, layer and what their line would cost.
    dropped: list[dict[str, Any]] = field(default_factory=list)
    # Per entry added: the lines it added (its heading too) and their tokens, its own line's.
    _added: list[tuple[int, int, int]] = field(default_factory=list)

    def try_add(self, heading: str | None, entry: dict[str, Any]) -> bool:
        line = "- " + " ".join(entry["content"].split())
        own = count_tokens(line)
        cost = own + (count_tokens(heading) if heading else 0)
        if self.tokens + cost > self.budget:
            self.dropped.append({"id": entry["id"], "layer": entry["layer"], "tokens": own})
            return False
        if heading:
            self.lines.append(heading)
        self.lines.append(line)
        self.tokens += cost
        self.entries.append(
            {"id": entry["id"], "layer": entry["layer"], "content": entry["content"]}
        )
        self._added.append((2 if heading else 1, cost, own))
        return True

    def end_with_notice(self, notice: str) -> None:
        """When entries were left out, end the block with `notice` ("{count}" filled in) so the
        agent knows its memory is incomplete. The budget stays hard: the last entries added
        make room for the line if they must; a budget too small for it gets no line."""
        if not self.dropped or not notice:
            return
        line = notice.replace("{count}", str(len(self.dropped)))
        while self.tokens + count_tokens(line) > self.budget and self.entries:
            lines, cost, own = self._added.pop()
            del self.lines[-lines:]
            self.tokens -= cost
            entry = self.entries.pop()
            self.dropped.insert(0, {"id": entry["id"], "layer": entry["layer"], "tokens": own})
            line = notice.replace("{count}", str(len(self.dropped)))
        if self.tokens + count_tokens(line) <= self.budget:
            self.lines.append(line)
            self.tokens += count_tokens(line)

    def as_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "budget": self.budget, "entries": self.entries}


@dataclass
class Context:
    channel: Channel
    query: str | None
    fixed: Block
    retrieval: Block
    retrieval_source: str  # "search", "recent" or "none"

    def markdown(self) -> str:
        return "\n".join([CONTEXT_MARKER, *self.fixed.lines, *self.retrieval.lines]) + "\n"

    def as_dict(self) -> dict[str, Any]:
        return {
            "channel": vars(self.channel),
            "query": self.query,
            "fixed": self.fixed.as_dict(),
            "retrieval": {
                **self.retrieval.as_dict(),
                "source": self.retrieval_source,
                "dropped": self.retrieval.dropped,
            },
            "tokens": self.fixed.tokens + self.retrieval.tokens,
            "markdown": self.markdown(),
        }


def build(
    user: UserStore,
    channel_name: str,
    *,
    query: str | None = None,
    settings: Settings | None = None,
    now: datetime | None = None,
    touch: bool = True,
) -> Context:
    settings = settings or load_settings()
    channel = settings.channel(channel_name)
    moment = (now or datetime.now(UTC)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    visible = Visible(moment, channel.private, channel.roleplay)
    unsure = Unsure(RETRIEVAL_LAYERS, FIXED_LAYERS, settings.fixed_min_confidence)

    fixed = Block(settings.fixed_budget - count_tokens(CONTEXT_MARKER))
    for layer in FIXED_LAYERS:
        heading: str | None = settings.headings[layer]
        rows = user.entries.visible_in_layer(
            visible, layer, settings.fixed_min_confidence, settings.fixed_budget
        )
        for row in rows:
            if fixed.try_add(heading, row):
                heading = None
    fixed.tokens += count_tokens(CONTEXT_MARKER)
    fixed.budget = settings.fixed_budget

    retrieval = Block(settings.retrieval_budget)
    source = "none"
    candidates: list[dict[str, Any]] = []
    if query and query.strip():
        with _unless_busy(user.store, settings.write_wait_ms):
            search.sync(user.store, limit=settings.index_per_call)
        expression = search.match_expression(query)
        if expression:
            candidates = user.entries.visible_matching(
                search.ACTIVE, expression, visible, unsure, settings.max_hits
            )
            source = "search" if candidates else source
    if not candidates:
        recent = user.entries.visible_newest(visible, unsure, settings.recent * 20)
        by_time = sorted(recent, key=_recency, reverse=True)
        candidates = by_time[: settings.recent]
        source = "recent" if candidates else "none"
    heading = settings.headings["retrieval"]
    for entry in candidates:
        if retrieval.try_add(heading, entry):
            heading = None
    retrieval.end_with_notice(settings.dropped_notice)

    if touch:
        used = [e["id"] for e in fixed.entries + retrieval.entries]
        if used:
            with _unless_busy(user.store, settings.write_wait_ms), user.store.transaction():
                user.entries.mark_used(used, now_iso())
    return Context(channel, query, fixed, retrieval, source)


@contextmanager
def _unless_busy(store: Store, wait_ms: int) -> Iterator[None]:
    """Do the block's writes if the database is free within `wait_ms`, else skip them.

    A context call's writes are bookkeeping (indexing new entries, last-used times); an import
    holding the write lock for a whole file must not make the agent's turn wait for it.
    """
    try:
        with store.meta.waiting_at_most(wait_ms):
            yield
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc) and "busy" not in str(exc):
            raise


def _recency(entry: dict[str, Any]) -> str:
    return str(entry.get("ts") or entry.get("created_at") or "")


def query_from_session(path: Path, messages: int = 3, max_chars: int = 500) -> str:
    """The last few user messages of a transcript, as a retrieval query (≤ max_chars)."""
    from memctl.ingest.detect import READERS, UnknownFormat, detect
    from memctl.models import MESSAGE, Record

    try:
        records = list(READERS[detect(path)](path))
    except (OSError, UnknownFormat) as exc:
        raise ConfigError(f"--from-session {path}: {exc}") from None
    texts = [
        r.text
        for r in records
        if isinstance(r, Record) and r.kind == MESSAGE and r.role == "user" and not r.skip
    ]
    return query_from_messages(texts, messages, max_chars)


def query_from_messages(texts: list[str], messages: int = 3, max_chars: int = 500) -> str:
    """The last few of these user messages, as a retrieval query (≤ max_chars); memctl's own
    injected block is never part of a query."""
    texts = [t for t in texts if CONTEXT_MARKER not in t]
    return "\n".join(texts[-messages:])[-max_chars:]
