"""memctl's Python API: one user's memory in one database, for agents written in Python.

    from memctl.api import Memory

    with Memory(db="~/.local/share/memctl/memctl.db", user="alice") as memory:
        memory.remember("The user prefers short answers", source="session-42")
        block = memory.context("work", query="deploy steps")
        prompt = block.markdown() + user_turn
        for hit in memory.search("deploy", limit=5):
            print(hit["id"], hit["content"])

Every method reads and writes only the bound user's rows (another user's id is "not found").
Errors a caller can cause raise `memctl.errors.MemctlError` subclasses with a one-line message:
`UsageError` (bad argument), `EntryNotFound`, `StoreError`. `memctl search`, `memctl context`
and `memctl mcp` are thin adapters over this class.

Text given to `remember` is treated like a line of a memory file the agent wrote (a Record of
kind MEMORY, role "assistant"): not like a transcript message, whose restraint rules keep only
what the *user* said and would drop all agent text. It goes through the importer's own path
(redaction of credentials, exact and near dedupe, classification, supersede chains), so text
that tries to instruct the model, or that the classifier is unsure of, waits in review as
`pending_review`. Its provenance is a source with format "api" (or "mcp"), path
"api:<user>", a line number counting the user's remembered texts, and the time of the call.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from memctl import CONTEXT_MARKER, context, importer, manage, review, search
from memctl.errors import UsageError
from memctl.models import AUDIENCES, REALMS, Record
from memctl.normalise import raw_hash
from memctl.paths import default_db_path
from memctl.settings import data_file
from memctl.store import Store, UserStore, now_iso

__all__ = ["Forgotten", "Memory", "Remembered"]

ADDED = "added"
DUPLICATE = "duplicate"
REJECTED = "rejected"
SKIPPED = "skipped"


@dataclass(frozen=True)
class Remembered:
    """What `Memory.remember` did with the text.

    outcome: "added" (a new entry), "duplicate" (the user already had it: the text is recorded
        as one more source of `entry_id`), "rejected" (too long, say) or "skipped" (nothing
        left to keep: empty, or memctl's own injected block); `reasons` says why.
    entry_id, status: the entry holding the text and its status ("active", "pending_review",
        or, for a duplicate of a forgotten entry, "archived"); None when rejected or skipped.
    reasons: why the entry waits for review (instruction-like text, low confidence…), or why
        the text was rejected or skipped.
    merged_by: for a duplicate, how it matched: "exact", "template", "jaccard", "simhash", or
        "already imported" (this very text was remembered at this line before).
    redacted: kinds of credential replaced by "[REDACTED:kind]" before anything was stored.
    superseded: older facts of the user this one replaced (a new city, say).
    content: the entry's text as stored.
    """

    outcome: str
    entry_id: int | None
    status: str | None
    content: str | None = None
    reasons: list[str] = field(default_factory=list)
    merged_by: str | None = None
    redacted: list[str] = field(default_factory=list)
    superseded: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome, "entry_id": self.entry_id, "status": self.status,
            "content": self.content, "reasons": self.reasons, "merged_by": self.merged_by,
            "redacted": self.redacted, "superseded": self.superseded,
        }  # fmt: skip


@dataclass(frozen=True)
class Forgotten:
    """What `Memory.forget` did: `entry_id` is archived (never deleted); `change_id` is the
    logged change, which `memctl review undo CHANGE` (or `Memory.undo`) reverts."""

    entry_id: int
    change_id: int

    def as_dict(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "change_id": self.change_id}


@dataclass(frozen=True)
class Limits:
    query_chars: int
    messages_used: int
    message_chars: int
    messages_max: int
    search_max: int


@cache
def limits() -> Limits:
    """The limits in memctl/data/api.toml."""
    raw = data_file("api")
    return Limits(
        query_chars=raw["query"]["max_chars"],
        messages_used=raw["messages"]["use"],
        message_chars=raw["messages"]["max_chars"],
        messages_max=raw["messages"]["max_items"],
        search_max=raw["search"]["max_limit"],
    )


class Memory:
    """One user's memory in one memctl database.

    `db`: the SQLite file (default `$MEMCTL_DB`, else ~/.local/share/memctl/memctl.db; created
    if missing). `user`: whose memory (default `$MEMCTL_USER`, else "default"). `origin`: the
    format recorded for remembered text ("api"; `memctl mcp` uses "mcp"). `actor`: who forgets
    (the change log's actor; default `$MEMCTL_ACTOR`, else the login name). `settings`: context
    budgets and channel rules (default memctl/data/context.toml; see `context.load_settings`).

    Use it as a context manager, or call `close()`. One instance is for one thread.
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        user: str | None = None,
        *,
        origin: str = "api",
        actor: str | None = None,
        settings: context.Settings | None = None,
    ) -> None:
        path = Path(db).expanduser() if db is not None else default_db_path()
        user = user if user is not None else os.environ.get("MEMCTL_USER") or "default"
        _check_text(user, "user")
        self._owned: Store | None = Store.open(path)
        try:
            self._user = self._owned.for_user(user)
        except BaseException:
            self._owned.close()
            raise
        self._init(origin, actor, settings)

    @classmethod
    def bound(
        cls,
        store: UserStore,
        *,
        origin: str = "api",
        actor: str | None = None,
        settings: context.Settings | None = None,
    ) -> Memory:
        """A Memory over a store the caller opened (and closes): for the CLI's adapters."""
        memory = cls.__new__(cls)
        memory._owned = None
        memory._user = store
        memory._init(origin, actor, settings)
        return memory

    def _init(self, origin: str, actor: str | None, settings: context.Settings | None) -> None:
        self.origin = origin
        self.actor = actor
        self._run: importer.Run | None = None
        self.settings = settings or context.load_settings()

    @property
    def user(self) -> str:
        return self._user.user_id

    @property
    def path(self) -> str:
        return self._user.store.path

    def close(self) -> None:
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 20,
        *,
        statuses: Sequence[str] = (),
        layers: Sequence[str] = (),
        channel: str | None = None,
    ) -> list[dict[str, Any]]:
        """Full-text search over the user's entries (every status unless `statuses` says),
        best first. Each hit is the entry's columns (`id, content, status, layer, realm,
        audience, importance, ts, created_at…`, as `memctl show --json`) plus `score` (BM25,
        lower is better) — the shape `memctl search --json` prints.

        `channel`: only what may be shown there, by the rules `context` follows: active
        entries; private ones only in a private channel, fictional ones only in role-play.
        """
        _check_query(query)
        _check_int(limit, "limit", 1, limits().search_max)
        audiences: tuple[str, ...] = ()
        realms: tuple[str, ...] = ()
        if channel is not None:
            if statuses:
                raise UsageError("a channel searches active entries: give no statuses with it")
            rules = self.settings.channel(_check_channel(channel))
            statuses = ("active",)
            audiences = AUDIENCES if rules.private else ("public",)
            realms = tuple(r for r in REALMS if rules.roleplay or r != "fictional")
        return search.search(
            self._user, query, statuses=tuple(statuses), layers=tuple(layers), limit=limit,
            audiences=audiences, realms=realms,
        )  # fmt: skip

    def context(
        self,
        channel: str,
        query: str | None = None,
        messages: Sequence[str] | None = None,
        *,
        touch: bool = True,
    ) -> context.Context:
        """The block to inject into the agent's next prompt, for `channel` (its rules say
        whether private and role-play entries may appear; see memctl/data/context.toml).

        Retrieval is driven by `query`, else by the last user `messages` of the conversation
        (oldest first; the last three, cut to 500 characters), else by recency. Returns a
        `context.Context`: `.markdown()` is the text to inject; `.as_dict()` is the shape of
        `memctl context --json` (`fixed` and `retrieval` blocks with tokens, budget and entries,
        `retrieval.source` "search" / "recent" / "none", `tokens`, `markdown`). `touch`: record
        that the entries were used (their `last_used_at`).
        """
        _check_channel(channel)
        if query is not None:
            _check_query(query)
        elif messages is not None:
            query = context.query_from_messages(
                _check_messages(messages), limits().messages_used, limits().message_chars
            )
        return context.build(self._user, channel, query=query, settings=self.settings, touch=touch)

    def fixed_block(self, channel: str) -> str:
        """Only the fixed block (boundary, persona, relationship, profile) for `channel`, as
        Markdown starting with memctl's context marker: what every turn of that channel gets."""
        block = self.context(channel, touch=False)
        return "\n".join([CONTEXT_MARKER, *block.fixed.lines]) + "\n"

    def pending(self) -> list[dict[str, Any]]:
        """Entries waiting for a person's review, oldest first: the entry's columns plus
        `reasons` (why it waits) and `sources` (where it came from) — the shape of
        `memctl review pending --json`. Their text is evidence, never instructions."""
        return review.pending(self._user)

    # -- writing ---------------------------------------------------------------------------

    def remember(self, text: str, *, source: str | None = None) -> Remembered:
        """Keep `text` (from the agent) as a memory, as an import would: see the module doc.

        `source`: where the agent got it (a session or conversation id), kept as the source's
        `session_id`. Returns a `Remembered`; text the store cannot take (too long, empty) is
        reported there as rejected or skipped, not raised.
        """
        _check_text(text, "text")
        if source is not None:
            _check_text(source, "source")
        path = f"{self.origin}:{self.user}"
        record = Record(
            text=text, path=path, line=_next_line(self._user, path), format=self.origin,
            role="assistant", ts=now_iso(), session_id=source,
        )  # fmt: skip
        # The near-duplicate index of the last call is kept while the store is as that call
        # left it: loading it costs a read of every signature (0.8 s for 10k entries).
        if self._run is None or not self._run.current():
            self._run = importer.Run(self._user)
        report = importer.import_records(self._user, path, [record], self._run)
        if report.rejected:
            return Remembered(REJECTED, None, None, reasons=[report.rejected[0].reason])
        redacted = [kind for red in report.redacted for kind in red["kinds"]]
        found = self._user.sources.find(path, record.line, raw_hash(text))
        if found is None:  # nothing to keep: empty, or memctl's own block
            reasons = list(report.skipped_by_reason)
            return Remembered(SKIPPED, None, None, reasons=reasons, redacted=redacted)
        entry = self._user.entry(found["entry_id"])
        if report.added:
            outcome, merged_by = ADDED, None
        elif importer.ALREADY_IMPORTED in report.skipped_by_reason:
            outcome, merged_by = DUPLICATE, importer.ALREADY_IMPORTED
        else:
            outcome, merged_by = DUPLICATE, found["merge_layer"]
        pending = entry["status"] == "pending_review" and entry["review_reasons"]
        reasons = orjson.loads(entry["review_reasons"]) if pending else []
        return Remembered(
            outcome, entry["id"], entry["status"], entry["content"], reasons, merged_by,
            redacted, report.superseded,
        )  # fmt: skip

    def forget(self, entry_id: int) -> Forgotten:
        """Archive one of the user's entries (never deleted; it leaves every context block).
        Logged as a change that `memctl review undo CHANGE` reverts."""
        _check_int(entry_id, "entry_id", 1)
        if self._user.entry(entry_id)["status"] == "archived":
            raise UsageError(f"entry {entry_id} is already archived")
        change = manage.delete(self._user, entry_id, who=self.actor)
        return Forgotten(entry_id, change)

    def undo(self, change_id: int) -> int:
        """Revert a logged change (a forget, say), as `memctl review undo`; the entry's id."""
        _check_int(change_id, "change_id", 1)
        return manage.undo(self._user, change_id, who=self.actor)

    def import_paths(self, paths: Iterable[str | os.PathLike[str]]) -> importer.ImportReport:
        """Import memory files and transcripts, as `memctl import PATH...` does. Returns the
        report; `.as_dict()` is the shape of `memctl import --json`."""
        return importer.import_paths(self._user, [Path(p).expanduser() for p in paths])


def _next_line(user: UserStore, path: str) -> int:
    """The next line number of the user's remembered texts (sources are unique per line)."""
    return user.sources.last_line(path) + 1


def _check_text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{name} must be a string, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{name} is not valid Unicode (it holds a lone surrogate)") from None
    return value


def _check_channel(channel: object) -> str:
    if not _check_text(channel, "channel").strip():
        raise UsageError("channel must not be empty")
    return str(channel)


def _check_query(query: object) -> None:
    text = _check_text(query, "query")
    if len(text) > limits().query_chars:
        raise UsageError(
            f"query too long ({len(text):,} characters, limit {limits().query_chars:,})"
        )


def _check_messages(messages: object) -> list[str]:
    if isinstance(messages, str) or not isinstance(messages, Sequence):
        raise UsageError("messages must be a list of strings")
    if len(messages) > limits().messages_max:
        raise UsageError(f"too many messages ({len(messages):,}, limit {limits().messages_max:,})")
    return [_check_text(m, "each message") for m in messages]


def _check_int(value: object, name: str, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an integer, not {type(value).__name__}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high:,}" if high is not None else f"{low} or more"
        raise UsageError(f"{name} must be {bounds}, got {value}")
