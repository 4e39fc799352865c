"""The `memctl` command line: parse options, open the store, call the core, render.

stdout carries data only (tables, JSON); progress, summaries and errors go to stderr.
Exit codes: 0 ok · 1 error · 2 usage · 3 `--strict` and something was rejected · 75 locked.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memctl import __version__
from memctl.dedupe.layers import ALL_LAYERS
from memctl.errors import EXIT_ERROR, EXIT_REJECTED, EXIT_USAGE, MemctlError, StoreError
from memctl.ingest.formats import FORMATS
from memctl.lazy import lazy
from memctl.models import AUDIENCES, LAYERS, REALMS, STATUSES
from memctl.paths import default_db_path

# Each command loads only the modules it runs (`memctl --help` none of them): see lazy.py.
if TYPE_CHECKING:
    from memctl import (
        consolidate,
        context,
        export,
        importer,
        lock,
        merge,
        pipeline,
        review,
        search,
        status,
    )
    from memctl import store as stores
    from memctl.store import Store, UserStore
else:
    consolidate, context, export, importer, lock, merge, pipeline, review, search, status = (
        lazy(f"memctl.{name}")
        for name in ("consolidate", "context", "export", "importer", "lock", "merge", "pipeline",
                     "review", "search", "status")
    )  # fmt: skip
    stores = lazy("memctl.store")

app = typer.Typer(
    name="memctl",
    help="Turn an AI agent's long-term memory into a clean, trustworthy SQLite store.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Click's plain help and usage errors: typer's rich panels import rich.markdown,
    # markdown-it and pygments (~100 ms of a 150 ms budget for `memctl --help`).
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},  # a wide terminal gets longer help lines
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

UserOpt = Annotated[
    str, typer.Option("--user", "-u", envvar="MEMCTL_USER", help="Whose memory (tenant).")
]
DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        envvar="MEMCTL_DB",
        help="SQLite database (default: ~/.local/share/memctl/memctl.db).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Output JSON.")]
NlOpt = Annotated[bool, typer.Option("--nl", help="Output one JSON object per line.")]
StatusOpt = Annotated[
    list[str] | None,
    typer.Option("--status", "-s", help=f"Only these statuses ({', '.join(STATUSES)})."),
]


def _check_statuses(statuses: list[str] | None) -> list[str]:
    for s in statuses or []:
        if s not in STATUSES:
            raise typer.BadParameter(
                f"{s!r} is not one of {', '.join(STATUSES)}", param_hint="--status"
            )
    return statuses or []


@contextmanager
def _store(
    db: Path | None, user: str, *, scratch: bool = False, existing: bool = False
) -> Iterator[UserStore]:
    """Open the database for one user; map domain errors to a one-line message and exit code.

    `existing`: a read command must not leave an empty database behind a mistyped --db.
    """
    path = db or default_db_path()
    store: Store | None = None
    try:
        stores.check_user(user)
        if existing and not path.exists():
            raise StoreError(f"no memctl database at {path} (import something first)")
        store = stores.Store.open_scratch(path) if scratch else stores.Store.open(path)
        yield store.for_user(user)
    except MemctlError as exc:
        err.print(f"[red]Error:[/red] {escape(str(exc))}")
        raise typer.Exit(exc.exit_code) from None
    except sqlite3.Error as exc:
        err.print(f"[red]Error:[/red] database {escape(str(path))}: {escape(str(exc))}")
        raise typer.Exit(StoreError.exit_code) from None
    finally:
        if store is not None:
            store.close()


def _tell(json_: bool, result: dict[str, Any], message: str) -> None:
    """What a write command did: `result` on stdout as JSON for scripts, else `message`."""
    if json_:
        _emit_json(result)
    else:
        err.print(message)


def _tell_decided(json_: bool, action: str, ids: list[int], changes: list[int]) -> None:
    verb = {"approve": "approved", "reject": "rejected"}[action]
    listed = ", ".join(map(str, changes))
    message = f"{verb} {len(ids)} (changes {listed}; undo with review undo)"
    _tell(json_, {"action": action, "entries": ids, "changes": changes}, message)


def _emit_json(value: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def _emit_nl(rows: Iterable[dict[str, Any]]) -> None:
    for row in rows:
        sys.stdout.buffer.write(orjson.dumps(row) + b"\n")
    sys.stdout.flush()


@app.command("import")
def import_(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to import.")],
    user: UserOpt = "default",
    db: DbOpt = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help=f"Force a reader ({', '.join(FORMATS)})."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only; write nothing.")] = False,
    json_: JsonOpt = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 3 if any record was rejected.")
    ] = False,
    silent: Annotated[bool, typer.Option("--silent", help="No progress bar.")] = False,
) -> None:
    """Import legacy memory files and session transcripts.

    Example: memctl import ~/.hermes/memories ~/.picoclaw/workspace --user alice
    """
    if fmt is not None and fmt not in FORMATS:
        raise typer.BadParameter(
            f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format"
        )
    with _store(db, user, scratch=dry_run) as store, _progress(silent or json_) as progress:
        report = importer.import_paths(store, paths, fmt=fmt, progress=progress)
    report.dry_run = dry_run
    if json_:
        _emit_json(report.as_dict())
    else:
        _print_import_report(report)
    if strict and report.rejected:
        raise typer.Exit(EXIT_REJECTED)


@contextmanager
def _progress(quiet: bool) -> Iterator[importer.Progress | None]:
    if quiet or not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("import", total=None)

        def update(done: int, total: int, _path: str) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _print_import_report(report: importer.ImportReport) -> None:
    verb = "Would import" if report.dry_run else "Imported"
    reasons = ", ".join(f"{n} {r}" for r, n in report.skipped_by_reason.most_common())
    err.print(
        f"{verb} {len(report.by_file)} files: {report.records} records, "
        f"[green]{report.added} added[/green], {report.skipped} skipped"
        + (f" ({escape(reasons)})" if reasons else "")
        + f", {len(report.rejected)} rejected in {report.seconds:.2f}s"
    )
    extras = [
        f"{report.superseded} superseded by newer facts" if report.superseded else "",
        f"{report.restated} old facts current again (stated anew)" if report.restated else "",
        f"{report.conflicts_to_review} changes sent to review"
        if report.conflicts_to_review
        else "",
        f"{report.merged_existing} stored entries merged into earlier copies"
        if report.merged_existing
        else "",
    ]
    if any(extras):
        err.print("; ".join(e for e in extras if e))
    for red in report.redacted:
        kinds = ", ".join(red["kinds"])
        err.print(f"[yellow]redacted[/yellow] {escape(red['path'])}:{red['line']}: {escape(kinds)}")
    for r in report.rejected:
        err.print(f"[yellow]rejected[/yellow] {escape(r.path)}:{r.line}: {escape(r.reason)}")
    for u in report.unsupported:
        err.print(f"[dim]unsupported {escape(u['path'])}: {escape(u['reason'])}[/dim]")


def _check_choices(values: list[str] | None, allowed: tuple[str, ...], option: str) -> list[str]:
    for value in values or []:
        if value not in allowed:
            raise typer.BadParameter(
                f"{value!r} is not one of {', '.join(allowed)}", param_hint=option
            )
    return values or []


@app.command("list")
def list_(
    user: UserOpt = "default",
    db: DbOpt = None,
    status: StatusOpt = None,
    layer: Annotated[
        list[str] | None,
        typer.Option("--layer", "-l", help=f"Only these layers ({', '.join(LAYERS)})."),
    ] = None,
    realm: Annotated[
        list[str] | None, typer.Option("--realm", help=f"Only these realms ({', '.join(REALMS)}).")
    ] = None,
    audience: Annotated[
        list[str] | None, typer.Option("--audience", help="Only public or private entries.")
    ] = None,
    source: Annotated[
        Path | None, typer.Option("--source", help="Only entries with a source at or under PATH.")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="At most N entries.")] = None,
    json_: JsonOpt = False,
    nl: NlOpt = False,
) -> None:
    """List a user's entries.

    Example: memctl list --user alice --status active --layer profile --nl
    """
    statuses = _check_statuses(status)
    layers = _check_choices(layer, LAYERS, "--layer")
    realms = _check_choices(realm, REALMS, "--realm")
    audiences = _check_choices(audience, AUDIENCES, "--audience")
    where = os.path.abspath(source) if source is not None else None
    with _store(db, user, existing=True) as store:
        rows = store.entries(
            statuses, limit, layers=layers, realms=realms, audiences=audiences, source=where
        )
        if nl:
            _emit_nl(rows)
        elif json_:
            _emit_json(list(rows))
        else:
            table = Table("id", "status", "layer", "realm", "audience", "content")
            count = 0
            for row in rows:
                count += 1
                content = row["content"].replace("\n", " ")
                table.add_row(
                    str(row["id"]), row["status"], row["layer"], row["realm"], row["audience"],
                    escape(content[:120] + ("…" if len(content) > 120 else "")),
                )  # fmt: skip
            out.print(table)
            err.print(f"{count} entries")


@app.command()
def show(
    entry_id: Annotated[int, typer.Argument(help="Entry id.", metavar="ID")],
    user: UserOpt = "default",
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Show one entry with its sources and supersede links.

    Example: memctl show 42 --user alice
    """
    with _store(db, user, existing=True) as store:
        try:
            entry = store.entry(entry_id)
        except MemctlError as exc:
            err.print(f"[red]Error:[/red] {escape(str(exc))}")
            raise typer.Exit(exc.exit_code) from None
        entry["sources"] = store.sources(entry_id)
        entry["supersedes"] = store.supersedes(entry_id)
        entry["superseded_by"] = store.superseded_by(entry_id)
    if json_:
        _emit_json(entry)
        return
    # Fold, never cut: a hash or a path shown with "…" would be wrong when copied.
    fields = Table(show_header=False, box=None)
    fields.add_column(no_wrap=True)
    fields.add_column(overflow="fold")
    for key, value in entry.items():
        if key not in ("sources", "supersedes", "superseded_by"):
            fields.add_row(f"[bold]{key}[/bold]", escape(str(value)))
    out.print(fields)
    sources = Table(title="sources")
    for header in ("path:line", "format", "role", "ts", "merged by"):
        sources.add_column(header, overflow="fold")
    for s in entry["sources"]:
        how = s["merge_layer"] + (f" ({s['merge_score']:.2f})" if s["merge_score"] else "")
        sources.add_row(
            escape(f"{s['path']}:{s['line']}"), s["format"], s["role"] or "", s["ts"] or "", how
        )
    out.print(sources)
    for link in entry["supersedes"]:
        out.print(f"supersedes {link['old_id']}: {escape(link['reason'])}")
    for link in entry["superseded_by"]:
        out.print(f"superseded by {link['new_id']}: {escape(link['reason'])}")


@app.command("export")
def export_(
    user: UserOpt = "default",
    db: DbOpt = None,
    status: StatusOpt = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
    ] = None,
) -> None:
    """Export a user's memories (every status by default) as JSON that `memctl import` reads back.

    Example: memctl export --user alice -o alice.json
    """
    statuses = _check_statuses(status)
    with _store(db, user, existing=True) as store:
        data = export.export_document(store, statuses)
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        output.write_bytes(data)
    except OSError as exc:
        err.print(f"[red]Error:[/red] cannot write {escape(str(output))}: {exc.strerror}")
        raise typer.Exit(1) from None
    err.print(f"Exported to {escape(str(output))}")


review_app = typer.Typer(
    help="Settle what memctl is unsure of: list, approve, reject, edit, undo.",
    no_args_is_help=False,
    invoke_without_command=True,
)
app.add_typer(review_app, name="review")
IdsArg = Annotated[list[int], typer.Argument(help="Entry ids.", metavar="ID...")]
EntryArg = Annotated[int, typer.Argument(help="Entry id.", metavar="ID")]


@review_app.callback()
def review_(
    ctx: typer.Context,
    user: UserOpt = "default",
    db: DbOpt = None,
) -> None:
    """Review pending entries one by one on a terminal (approve / reject / edit / skip / quit).

    Example: memctl review --user alice      (interactive)   ·   memctl review pending --json
    """
    if ctx.invoked_subcommand is not None:
        return
    if not _on_terminal():
        err.print(
            "[red]Error:[/red] interactive review needs a terminal; use `memctl review pending`"
        )
        raise typer.Exit(EXIT_USAGE)
    with _store(db, user, existing=True) as store:
        _interactive_review(store)


def _on_terminal() -> bool:
    """Whether a person can answer questions (stdin is a terminal)."""
    return sys.stdin.isatty()


def _interactive_review(store: UserStore) -> None:
    queue = review.pending(store)
    if not queue:
        err.print("Nothing to review.")
        return
    for number, entry in enumerate(queue, start=1):
        err.print(
            f"\n[bold]#{entry['id']}[/bold] ({number}/{len(queue)}) "
            f"{entry['layer']} · {entry['realm']} · {entry['audience']}"
        )
        err.print(escape(entry["content"]))
        for reason in entry["reasons"]:
            err.print(f"  [yellow]why pending:[/yellow] {escape(reason)}")
        for s in entry["sources"][:5]:
            err.print(f"  [dim]from {escape(s['path'])}:{s['line']} ({s['format']})[/dim]")
        choice = typer.prompt("[a]pprove [r]eject [e]dit [s]kip [q]uit", default="s",
                              err=True).strip().lower()[:1]  # fmt: skip
        with _errors():
            if choice == "a":
                review.approve(store, [entry["id"]])
            elif choice == "r":
                review.reject(store, [entry["id"]])
            elif choice == "e":
                text = typer.prompt("new text", default=entry["content"], err=True)
                review.edit(store, entry["id"], content=text, action="review-edit", approve=True)
            elif choice == "q":
                return


@review_app.command("pending")
def review_pending(user: UserOpt = "default", db: DbOpt = None, json_: JsonOpt = False) -> None:
    """List entries waiting for review, with why each waits.

    Example: memctl review pending --user alice
    """
    with _store(db, user, existing=True) as store:
        rows = review.pending(store)
    if json_:
        _emit_json(rows)
        return
    table = Table("id", "layer", "realm", "audience", "content", "why pending")
    for row in rows:
        table.add_row(str(row["id"]), row["layer"], row["realm"], row["audience"],
                      escape(row["content"][:80]), escape("; ".join(row["reasons"])))  # fmt: skip
    out.print(table)
    err.print(f"{len(rows)} pending")


@review_app.command("approve")
def review_approve(
    ids: IdsArg, user: UserOpt = "default", db: DbOpt = None, json_: JsonOpt = False
) -> None:
    """Approve entries: they become active. Example: memctl review approve 12 14"""
    with _store(db, user, existing=True) as store:
        done = review.approve(store, ids)
    _tell_decided(json_, "approve", ids, done)


@review_app.command("reject")
def review_reject(
    ids: IdsArg, user: UserOpt = "default", db: DbOpt = None, json_: JsonOpt = False
) -> None:
    """Reject entries: they are archived, never deleted. Example: memctl review reject 13"""
    with _store(db, user, existing=True) as store:
        done = review.reject(store, ids)
    _tell_decided(json_, "reject", ids, done)


@review_app.command("edit")
def review_edit(
    entry_id: EntryArg,
    content: Annotated[str, typer.Option("--content", help="The corrected text.")],
    user: UserOpt = "default",
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Correct a pending entry's text and approve it.

    Example: memctl review edit 12 --content "我对花生过敏"
    """
    with _store(db, user, existing=True) as store:
        change = review.edit(store, entry_id, content=content, action="review-edit", approve=True)
    _tell(
        json_,
        {"action": "review-edit", "entry": entry_id, "change": change},
        f"edited and approved {entry_id} (change {change})",
    )


@review_app.command("undo")
def review_undo(
    change_id: Annotated[
        int, typer.Argument(help="Change id (see memctl history).", metavar="CHANGE")
    ],
    user: UserOpt = "default",
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Undo a decision: restore what a change altered. Example: memctl review undo 31"""
    with _store(db, user, existing=True) as store:
        entry_id = review.undo(store, change_id)
    _tell(
        json_,
        {"action": "undo", "undid": change_id, "entry": entry_id},
        f"undid change {change_id} on entry {entry_id}",
    )


@app.command("edit")
def edit_(
    entry_id: EntryArg,
    user: UserOpt = "default",
    db: DbOpt = None,
    content: Annotated[str | None, typer.Option("--content", help="New text.")] = None,
    layer: Annotated[str | None, typer.Option("--layer", help="New layer.")] = None,
    realm: Annotated[str | None, typer.Option("--realm", help="New realm.")] = None,
    audience: Annotated[str | None, typer.Option("--audience", help="public or private.")] = None,
    status_: Annotated[str | None, typer.Option("--status", help="New status.")] = None,
    importance: Annotated[float | None, typer.Option("--importance", help="0 to 1.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Edit an entry's text or fields (logged and reversible).

    Example: memctl edit 42 --audience private --importance 0.9
    """
    with _store(db, user, existing=True) as store:
        change = review.edit(store, entry_id, content=content, layer=layer, realm=realm,
                             audience=audience, status=status_, importance=importance)  # fmt: skip
    _tell(
        json_,
        {"action": "edit", "entry": entry_id, "change": change},
        f"edited {entry_id} (change {change})",
    )


@app.command("delete")
def delete_(
    entry_id: EntryArg,
    user: UserOpt = "default",
    db: DbOpt = None,
    hard: Annotated[
        bool, typer.Option("--hard", help="Remove for good, with its sources (asks first).")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before --hard.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Delete an entry: archived by default (reversible); --hard removes it for good.

    Example: memctl delete 42   ·   memctl delete 42 --hard --yes
    """
    with _store(db, user, existing=True) as store:
        if hard and not yes:
            entry = store.entry(entry_id)
            if not _on_terminal() or not typer.confirm(
                f"Remove entry {entry_id} ({entry['content'][:60]!r}) and its sources for good?",
                err=True,
            ):
                err.print("[red]Error:[/red] not confirmed (use --yes to skip the question)")
                raise typer.Exit(EXIT_ERROR)
        change = review.delete(store, entry_id, hard=hard)
    _tell(
        json_,
        {"action": "remove" if hard else "archive", "entry": entry_id, "change": change},
        f"{'removed' if hard else 'archived'} {entry_id}",
    )


@app.command("history")
def history_(
    entry_id: EntryArg, user: UserOpt = "default", db: DbOpt = None, json_: JsonOpt = False
) -> None:
    """Show an entry's supersede chain and every change made to it.

    Example: memctl history 42 --user alice
    """
    with _store(db, user, existing=True) as store:
        info = review.history(store, entry_id)
    if json_:
        _emit_json(info)
        return
    entry = info["entry"]
    out.print(f"[bold]#{entry['id']}[/bold] {entry['status']}: {escape(entry['content'])}")
    for link in info["chain"]:
        if "supersedes" in link:
            out.print(
                f"  #{link['entry']} supersedes #{link['supersedes']}: {escape(link['reason'])}"
            )
        else:
            out.print(f"  #{link['entry']} superseded by #{link['superseded_by']}: "
                      f"{escape(link['reason'])}")  # fmt: skip
    for rel in info["related"]:
        out.print(f"  #{rel['id']} ({rel['status']}): {escape(rel['content'])}")
    table = Table("change", "at", "by", "action", "before → after", title="changes")
    for c in info["changes"]:
        diff = ", ".join(f"{k}: {c['before'].get(k)!r} → {v!r}" for k, v in c["after"].items())
        table.add_row(str(c["id"]), c["at"], escape(c["actor"]), c["action"], escape(diff))
    out.print(table)


@app.command("classify")
def classify_(
    user: UserOpt = "default",
    db: DbOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only; write nothing.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Re-classify a user's live entries (e.g. after a lexicon change); report what changes.

    Example: memctl classify --dry-run --user alice
    """
    with _store(db, user, existing=True) as store:
        planned = review.reclassify(store, dry_run=dry_run)
    if json_:
        _emit_json({"dry_run": dry_run, "changed": len(planned), "changes": planned})
        return
    table = Table("id", "content", "before", "after")
    for item in planned:
        table.add_row(str(item["id"]), escape(item["content"][:60]),
                      escape(str(item["before"])), escape(str(item["after"])))  # fmt: skip
    out.print(table)
    err.print(f"{'would change' if dry_run else 'changed'} {len(planned)} entries")


@app.command("dedupe")
def dedupe_(
    user: UserOpt = "default",
    db: DbOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only; write nothing.")] = False,
    layers: Annotated[
        list[str] | None,
        typer.Option("--layers", help=f"Only these layers ({', '.join(ALL_LAYERS)})."),
    ] = None,
    jaccard: Annotated[
        float | None, typer.Option("--jaccard", help="Bigram Jaccard threshold [default: 0.75].")
    ] = None,
    hamming: Annotated[
        int | None, typer.Option("--hamming", help="SimHash distance limit [default: 3].")
    ] = None,
    examples: Annotated[int, typer.Option("--examples", help="Examples shown per layer.")] = 3,
    json_: JsonOpt = False,
) -> None:
    """Find and merge near-duplicate entries (template, jaccard, simhash layers).

    Example: memctl dedupe --dry-run --user alice   ·   memctl dedupe --layers jaccard --jaccard 0.8
    """
    chosen = _check_choices(layers, ALL_LAYERS, "--layers") or list(ALL_LAYERS)
    if jaccard is not None and not 0 < jaccard <= 1:
        raise typer.BadParameter("must be in (0, 1]", param_hint="--jaccard")
    if hamming is not None and not 0 <= hamming <= 16:
        raise typer.BadParameter("must be between 0 and 16", param_hint="--hamming")
    from memctl.dedupe.config import DedupeConfig

    config = DedupeConfig.default()
    if jaccard is not None:
        config = dataclasses.replace(config, jaccard=jaccard)
    if hamming is not None:
        config = dataclasses.replace(config, hamming=hamming)
    with _store(db, user, scratch=dry_run, existing=True) as store:
        result = merge.dedupe_user(store, config, chosen, dry_run=dry_run)
    if json_:
        _emit_json(result)
        return
    table = Table("layer", "merged", "example (merged away → kept)", title="near duplicates")
    for layer, items in result["merges"].items():
        shown = "\n".join(
            f"#{m['dup']} {(m['dup_content'] or '')[:50]!r} → #{m['into']} ({m['why']})"
            for m in items[:examples]
        )
        table.add_row(layer, str(len(items)), escape(shown))
    out.print(table)
    verb = "would merge" if dry_run else "merged"
    err.print(f"{result['entries']} entries checked, {verb} {result['merged']}")


@contextmanager
def _errors() -> Iterator[None]:
    """Map domain errors raised outside `_store` (lock, config) to a one-line message."""
    try:
        yield
    except MemctlError as exc:
        err.print(f"[red]Error:[/red] {escape(str(exc))}")
        raise typer.Exit(exc.exit_code) from None


@app.command("consolidate")
def consolidate_(
    db: DbOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report only; write nothing.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Clean the store: expire, enforce caps, decay, index, checkpoint. Safe from cron.

    Takes an exclusive lock on DB.lock: a second run while one holds it exits 75 at once.
    Example (crontab): */10 * * * * memctl consolidate --db ~/.local/share/memctl/memctl.db
    """
    path = db or default_db_path()
    with _errors(), ExitStack() as stack:
        if not dry_run:
            stack.enter_context(lock.exclusive(path))
        store = stack.enter_context(_store(path, "default", scratch=dry_run)).store
        report = consolidate.consolidate(store, dry_run=dry_run)
    if json_:
        _emit_json(report.as_dict())
        return
    steps = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    verb = "Would consolidate" if dry_run else "Consolidated"
    err.print(f"{verb} (run #{report.run_id}, {report.status}): {steps} in {report.seconds:.2f}s")


@app.command("status")
def status_(user: UserOpt = "default", db: DbOpt = None, json_: JsonOpt = False) -> None:
    """Show runs, entry counts, pending reviews, size, and warnings for a failed or stale run.

    Example: memctl status --user alice --json
    """
    with _store(db, user, existing=True) as store:
        info = status.status(store, consolidate.load_settings().stale_hours)
    if json_:
        _emit_json(info)
        return
    out.print(f"[bold]{escape(info['database'])}[/bold] {info['size_bytes']:,} bytes")
    out.print(
        f"user {escape(info['user'])}: {info['entries']} entries, "
        f"{info['pending_review']} pending review"
    )
    for key in ("by_status", "by_layer", "by_realm", "by_audience"):
        pairs = ", ".join(f"{k} {v}" for k, v in info[key].items())
        out.print(f"  {key.removeprefix('by_')}: {pairs or '-'}")
    runs = Table("run", "kind", "started", "status", "counts / error", title="recent runs")
    for r in info["runs"]:
        detail = r["error"] or ", ".join(f"{k} {v}" for k, v in r["counts"].items())
        runs.add_row(str(r["id"]), r["kind"], r["started_at"], r["status"], escape(detail))
    out.print(runs)
    for warning in info["warnings"]:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}")


@app.command("context")
def context_(
    channel: Annotated[str, typer.Option("--channel", "-c", help="Channel the block is for.")],
    user: UserOpt = "default",
    db: DbOpt = None,
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="What the next turn is about.")
    ] = None,
    from_session: Annotated[
        Path | None,
        typer.Option("--from-session", help="Use the last user messages of this transcript."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML with budgets and channel rules.")
    ] = None,
    no_touch: Annotated[
        bool, typer.Option("--no-touch", help="Do not record that the entries were used.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Build the memory block to inject into the agent's next prompt.

    Example: memctl context --channel work --query "部署流程" --user alice
    """
    with _errors():
        settings = context.load_settings(config)
        if from_session is not None:
            query = context.query_from_session(from_session)
    with _store(db, user, existing=True) as store:
        block = context.build(store, channel, query=query, settings=settings, touch=not no_touch)
    if json_:
        _emit_json(block.as_dict())
        return
    sys.stdout.write(block.markdown())
    err.print(
        f"fixed {block.fixed.tokens}/{block.fixed.budget} tokens, "
        f"retrieval {block.retrieval.tokens}/{block.retrieval.budget} ({block.retrieval_source})"
    )


@app.command("search")
def search_(
    query: Annotated[str, typer.Argument(help="Words to look for.")],
    user: UserOpt = "default",
    db: DbOpt = None,
    status_filter: StatusOpt = None,
    layer: Annotated[
        list[str] | None, typer.Option("--layer", "-l", help="Only these layers.")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="At most N results.")] = 20,
    json_: JsonOpt = False,
) -> None:
    """Full-text search over a user's entries (every status unless filtered), best first.

    Example: memctl search "咖啡" --user alice --status active
    """
    statuses = _check_statuses(status_filter)
    with _store(db, user, existing=True) as store:
        search.sync(store.store)
        rows = search.search(
            store, query, statuses=tuple(statuses), layers=tuple(layer or ()), limit=limit
        )
    if json_:
        _emit_json(rows)
        return
    table = Table("id", "status", "layer", "content")
    for row in rows:
        table.add_row(str(row["id"]), row["status"], row["layer"], escape(row["content"][:120]))
    out.print(table)
    err.print(f"{len(rows)} results")


@app.command("run")
def run_(
    pipeline_file: Annotated[Path, typer.Argument(help="Pipeline TOML file.", metavar="FILE")],
    user: UserOpt = "default",
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Run a declarative pipeline (see pipelines/), holding the consolidation lock.

    Example: memctl run pipelines/nightly.toml --db ~/.local/share/memctl/memctl.db
    """
    path = db or default_db_path()
    with _errors(), ExitStack() as stack:
        spec = pipeline.load(pipeline_file)
        stack.enter_context(lock.exclusive(path))
        store = stack.enter_context(_store(path, user)).store
        results = pipeline.run(spec, store, user)
    if json_:
        _emit_json({"pipeline": spec.name, "steps": results})
        return
    for r in results:
        if r["run"] == "import":
            err.print(
                f"{r['step']} import: {r['added']} added, {r['skipped']} skipped, "
                f"{r['rejected_count']} rejected"
            )
        else:
            counts = ", ".join(f"{k} {v}" for k, v in r["counts"].items())
            err.print(f"{r['step']} consolidate: {r['status']} ({counts})")


def _version(value: bool) -> None:
    if value:
        print(f"memctl {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show version.")
    ] = False,
) -> None:
    """Turn an AI agent's long-term memory into a clean, trustworthy SQLite store."""


def main() -> None:
    app()
