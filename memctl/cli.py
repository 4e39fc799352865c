"""The `memctl` command line: parse options, open the store, call the core, render.

stdout carries data only (tables, JSON); progress, summaries and errors go to stderr.
Exit codes: 0 ok · 1 error · 2 usage · 3 `--strict` and something was rejected · 75 locked.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
        api,
        consolidate,
        context,
        export,
        importer,
        manage,
        merge,
        output,
        pipeline,
        reclassify,
        review,
        scan,
        settings,
        status,
    )
    from memctl import store as stores
    from memctl.store import Store, UserStore
else:
    (api, consolidate, context, export, importer, manage, merge, output, pipeline, reclassify,
     review, scan, settings, status) = (
        lazy(f"memctl.{name}")
        for name in ("api", "consolidate", "context", "export", "importer", "manage", "merge",
                     "output", "pipeline", "reclassify", "review", "scan", "settings", "status")
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
HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="Look for agent homes under DIR (default: your home).",
        exists=True,
        file_okay=False,
    ),
]
TableOpt = Annotated[
    bool, typer.Option("--table", "-t", help="Output a table (the default on a terminal).")
]
CsvOpt = Annotated[bool, typer.Option("--csv", help="Output CSV.")]
TsvOpt = Annotated[bool, typer.Option("--tsv", help="Output tab-separated values.")]
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
    listed = ", ".join(map(str, changes)) if len(changes) <= 10 else f"{changes[0]} … {changes[-1]}"
    message = (
        f"{verb} {len(ids)} (changes {listed}; undo with review undo)"
        if ids
        else f"nothing to {action}"
    )
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
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Files or directories to import.")
    ] = None,
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
    hidden: Annotated[
        bool, typer.Option("--hidden", help="Also read hidden files and folders.")
    ] = False,
    scan_: Annotated[
        bool, typer.Option("--scan", help="Import every agent home `memctl scan` finds.")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Import legacy memory files and session transcripts.

    Example: memctl import ~/.hermes/memories ~/.picoclaw/workspace --user alice
    ·   memctl import --scan --user alice
    """
    if fmt is not None and fmt not in FORMATS:
        raise typer.BadParameter(
            f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format"
        )
    if scan_ == bool(paths):
        raise typer.BadParameter("give PATH... or --scan (not both)", param_hint="PATH")
    if home is not None and not scan_:
        raise typer.BadParameter("goes with --scan", param_hint="--home")
    if scan_:
        found = scan.find(home)
        paths = scan.import_paths(found)
        if not json_:
            homes = ", ".join(f"{f.label} ({f.home})" for f in found) or "none"
            err.print(f"scan found {len(found)} agent homes: {escape(homes)}")
    with _store(db, user, scratch=dry_run) as store, _progress(silent or json_) as progress:
        report = importer.import_paths(
            store, paths or [], fmt=fmt, progress=progress, hidden=hidden
        )
    report.dry_run = dry_run
    if json_:
        _emit_json(report.as_dict())
    else:
        _print_import_report(report)
    if strict and report.rejected:
        raise typer.Exit(EXIT_REJECTED)


@app.command("scan")
def scan_cmd(
    home: HomeOpt = None,
    json_: JsonOpt = False,
    table: TableOpt = False,
    csv_: CsvOpt = False,
    tsv: TsvOpt = False,
) -> None:
    """Find the agent homes on this machine and show what importing them would read.

    Writes nothing; `memctl import --scan` imports what it lists.

    Example: memctl scan   ·   memctl scan --home /mnt/backup --json
    """
    mode = _mode(table, csv_, tsv)
    found = scan.scan(home)
    if json_:
        _emit_json({"home": str(home or Path.home()), "agents": [f.as_dict() for f in found]})
        return
    rows = (
        [f.label, f.home, f.files, sum(f.records.values()),
         ", ".join(f"{fmt} {n}" for fmt, n in sorted(f.records.items())),
         f.rejected, len(f.unsupported), len(f.hidden)]
        for f in found
    )  # fmt: skip
    columns = ("agent", "home", "files", "records", "by format", "rejected", "unsupported",
               "hidden")  # fmt: skip
    output.print_rows(out, columns, rows, mode)
    err.print(f"{len(found)} agent homes; import them with memctl import --scan")


def _mode(table: bool, csv_: bool, tsv: bool) -> str | None:
    try:
        return output.choose(table=table, csv_=csv_, tsv=tsv)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


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
    if report.dry_run:
        for n in report.not_memory:
            err.print(
                f"[dim]not a memory[/dim] {escape(n['path'])}:{n['line']}: {escape(n['reason'])}: "
                f"{escape(n['text'])}"
            )
    for r in report.rejected:
        err.print(f"[yellow]rejected[/yellow] {escape(r.path)}:{r.line}: {escape(r.reason)}")
    for u in report.unsupported:
        err.print(f"[dim]unsupported {escape(u['path'])}: {escape(u['reason'])}[/dim]")
    if report.hidden:
        shown = ", ".join(
            f"{h['path']} ({importer.plural_files(h['files'])})" for h in report.hidden[:10]
        )
        more = f" and {len(report.hidden) - 10} more" if len(report.hidden) > 10 else ""
        err.print(
            f"left out {len(report.hidden)} hidden folders: {escape(shown)}{more}; "
            "--hidden reads them"
        )
    if warning := importer.nothing_found(report):
        err.print(f"[yellow]{escape(warning)}[/yellow]")


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
    table: TableOpt = False,
    csv_: CsvOpt = False,
    tsv: TsvOpt = False,
) -> None:
    """List a user's entries (a table on a terminal; whole rows, never wrapped, in a pipe).

    Example: memctl list --user alice --status active --layer profile --nl
    """
    mode = _mode(table, csv_, tsv)
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
            columns = ("id", "status", "layer", "realm", "audience", "content")
            count = output.print_rows(
                out, columns, ([r[c] for c in columns] for r in rows), mode,
                shorten={"content": 120},
            )  # fmt: skip
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
        for i, s in enumerate(entry["sources"][:5]):
            err.print(f"  [dim]from {escape(s['path'])}:{s['line']} ({s['format']})[/dim]")
            if i < _SOURCES_SHOWN:
                _print_source_lines(s)
        choice = typer.prompt("[a]pprove [r]eject [e]dit [s]kip [q]uit", default="s",
                              err=True).strip().lower()[:1]  # fmt: skip
        with _errors():
            if choice == "a":
                review.approve(store, [entry["id"]])
            elif choice == "r":
                review.reject(store, [entry["id"]])
            elif choice == "e":
                text = typer.prompt("new text", default=entry["content"], err=True)
                manage.edit(store, entry["id"], content=text, action="review-edit", approve=True)
            elif choice == "q":
                return


# The interactive review shows the file lines around this many sources of an entry.
_SOURCES_SHOWN = 2


def _print_source_lines(source: dict[str, Any]) -> None:
    lines, note = review.source_lines(source["path"], source["line"], source["format"])
    if note:
        err.print(f"    [dim]({escape(note)})[/dim]")
    for number, text in lines:
        mark = ">" if number == source["line"] else " "
        text = text if len(text) <= 160 else text[:159] + "…"
        err.print(f"    [dim]{mark}{number:>5} │[/dim] {escape(text)}")


OptionalIdsArg = Annotated[
    list[int] | None, typer.Argument(help="Entry ids (or use filters).", metavar="ID")
]
FilterLayerOpt = Annotated[
    list[str] | None,
    typer.Option("--layer", "-l", help=f"Only these layers ({', '.join(LAYERS)})."),
]
FilterRealmOpt = Annotated[
    list[str] | None, typer.Option("--realm", help=f"Only these realms ({', '.join(REALMS)}).")
]
FilterSourceOpt = Annotated[
    Path | None, typer.Option("--source", help="Only entries with a source at or under PATH.")
]
FilterStatusOpt = Annotated[
    list[str] | None,
    typer.Option("--status", "-s", help="Entries of these statuses (default: pending_review)."),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before a filtered decision.")]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Only say how many entries match; change nothing.")
]


@dataclasses.dataclass(frozen=True)
class _Filters:
    reasons: list[str] | None
    layers: list[str] | None
    realms: list[str] | None
    source: Path | None
    statuses: list[str] | None

    def given(self) -> bool:
        return any(v for v in dataclasses.astuple(self))

    def describe(self) -> str:
        parts = [f"reason {', '.join(self.reasons)}" if self.reasons else "",
                 f"layer {', '.join(self.layers)}" if self.layers else "",
                 f"realm {', '.join(self.realms)}" if self.realms else "",
                 f"source {self.source}" if self.source else "",
                 f"status {', '.join(self.statuses or ['pending_review'])}"]  # fmt: skip
        return "; ".join(p for p in parts if p)


ReasonOpt = Annotated[
    list[str] | None,
    typer.Option("--reason", "-r", help="Only entries with a reason of this kind (see pending)."),
]


@review_app.command("pending")
def review_pending(
    user: UserOpt = "default",
    db: DbOpt = None,
    reason: Annotated[
        str | None, typer.Option("--reason", "-r", help="List every entry of this group.")
    ] = None,
    examples: Annotated[
        int, typer.Option("--examples", "-n", min=0, help="Entries shown per group.")
    ] = 3,
    json_: JsonOpt = False,
    table: TableOpt = False,
    csv_: CsvOpt = False,
    tsv: TsvOpt = False,
) -> None:
    """What waits for review, grouped by why, with counts and a few examples.

    Groups are the reasons' kinds (conflict, instruction-like text, uncertain fact…); --reason
    lists one group whole, and --table / --csv / --tsv list every entry.

    Example: memctl review pending --user alice   ·   memctl review pending --reason conflict
    """
    mode = _mode(table, csv_, tsv)
    with _store(db, user, existing=True) as store:
        rows = review.pending(store, [reason] if reason else ())
    groups = review.groups(rows)
    if reason:
        groups = [g for g in groups if g["reason"] == reason] or [
            {"reason": reason, "count": len(rows), "ids": [r["id"] for r in rows]}
        ]
    if json_:
        _emit_json({"total": len(rows), "groups": groups, "entries": rows})
        return
    if reason or table or csv_ or tsv:  # one group, or every entry in a form asked for
        columns = ("id", "layer", "realm", "audience", "why pending", "content")
        output.print_rows(
            out, columns,
            ([r["id"], r["layer"], r["realm"], r["audience"], "; ".join(r["reasons"]), r["content"]]
             for r in rows),
            mode, shorten={"content": 80},
        )  # fmt: skip
        err.print(f"{len(rows)} pending" + (f" ({escape(reason)})" if reason else ""))
        return
    by_id = {row["id"]: row for row in rows}
    for group in groups:
        out.print(f"{escape(group['reason'])} ({group['count']})", highlight=False)
        for entry_id in group["ids"][:examples]:
            row = by_id[entry_id]
            content = row["content"].replace("\n", " ")
            content = content if len(content) <= 80 else content[:79] + "…"
            out.print(f"  {entry_id:>5}  {row['layer']}/{row['realm']}  {escape(content)}",
                      highlight=False)  # fmt: skip
        if (more := group["count"] - min(examples, group["count"])) > 0:
            hint = f"memctl review pending --reason {shlex.quote(group['reason'])}"
            out.print(f"  … {more} more: {escape(hint)}", highlight=False)
    err.print(f"{len(rows)} pending in {len(groups)} groups")


@review_app.command("approve")
def review_approve(
    ids: OptionalIdsArg = None,
    user: UserOpt = "default",
    db: DbOpt = None,
    reason: ReasonOpt = None,
    layer: FilterLayerOpt = None,
    realm: FilterRealmOpt = None,
    source: FilterSourceOpt = None,
    status: FilterStatusOpt = None,
    yes: YesOpt = False,
    dry_run: DryRunOpt = False,
    json_: JsonOpt = False,
) -> None:
    """Approve entries, by id or by filter: they become active.

    A filter acts on pending entries (unless --status says otherwise), shows how many match,
    and asks first on a terminal; --yes skips the question, --dry-run only counts.

    Example: memctl review approve 12 14   ·   memctl review approve --reason "low confidence"
    """
    filters = _Filters(reason, layer, realm, source, status)
    _decide_cli("approve", ids, filters, user, db, yes=yes, dry_run=dry_run, json_=json_)


@review_app.command("reject")
def review_reject(
    ids: OptionalIdsArg = None,
    user: UserOpt = "default",
    db: DbOpt = None,
    reason: ReasonOpt = None,
    layer: FilterLayerOpt = None,
    realm: FilterRealmOpt = None,
    source: FilterSourceOpt = None,
    status: FilterStatusOpt = None,
    yes: YesOpt = False,
    dry_run: DryRunOpt = False,
    json_: JsonOpt = False,
) -> None:
    """Reject entries, by id or by filter: they are archived, never deleted.

    Filters work as for approve. Example: memctl review reject 13   ·
    memctl review reject --reason "instruction-like text" --source ~/old-notes --yes
    """
    filters = _Filters(reason, layer, realm, source, status)
    _decide_cli("reject", ids, filters, user, db, yes=yes, dry_run=dry_run, json_=json_)


_VERBS = {"approve": ("approve", "approved"), "reject": ("reject", "rejected")}
# A filtered decision never touches entries already where it would put them.
_TARGET = {"approve": "active", "reject": "archived"}


def _decide_cli(
    action: str,
    ids: list[int] | None,
    filters: _Filters,
    user: str,
    db: Path | None,
    *,
    yes: bool,
    dry_run: bool,
    json_: bool,
) -> None:
    """approve / reject: by ids at once (as before), or by filters after saying how many."""
    verb, done_verb = _VERBS[action]
    if ids and filters.given():
        raise typer.BadParameter("give entry ids or filters, not both", param_hint="ID")
    if not ids and not filters.given():
        raise typer.BadParameter(
            "give entry ids, or a filter (--reason, --layer, --realm, --source, --status)",
            param_hint="ID",
        )
    with _store(db, user, existing=True) as store:
        if ids:
            rows = [store.entry(entry_id) for entry_id in ids]  # an unknown id is an error
        else:
            rows = _select(store, filters)
            ids = [r["id"] for r in rows if r["status"] != _TARGET[action]]
            if not json_ or not (yes or dry_run):  # JSON carries the ids itself
                _preview(verb, rows, ids, filters)
            if ids and not (yes or dry_run):
                _confirm(verb, len(ids))
        done = [] if dry_run or not ids else getattr(review, action)(store, ids)
    if dry_run:
        result = {"action": action, "dry_run": True, "entries": ids, "changes": []}
        _tell(json_, result, f"(dry run: nothing {done_verb})")
    else:
        _tell_decided(json_, action, ids, done)


def _select(store: UserStore, filters: _Filters) -> list[dict[str, Any]]:
    return review.select(
        store,
        reasons=filters.reasons or (),
        layers=_check_choices(filters.layers, LAYERS, "--layer"),
        realms=_check_choices(filters.realms, REALMS, "--realm"),
        source=os.path.abspath(filters.source) if filters.source else None,
        statuses=_check_statuses(filters.statuses) or ["pending_review"],
    )


def _confirm(verb: str, count: int) -> None:
    """A person says yes on a terminal; a script must have said --yes."""
    if not _on_terminal():
        err.print(
            f"[red]Error:[/red] {_entries(count)} match; add --yes to {verb} them without a "
            "terminal (or --dry-run to only count them)"
        )
        raise typer.Exit(EXIT_USAGE)
    if not typer.confirm(f"{verb.capitalize()} {_entries(count)}?", err=True):
        err.print("[red]Error:[/red] not confirmed; nothing changed")
        raise typer.Exit(EXIT_ERROR)


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


def _preview(verb: str, rows: list[dict[str, Any]], ids: list[int], filters: _Filters) -> None:
    err.print(f"Would {verb} {_entries(len(ids))} ({escape(filters.describe())})")
    chosen = set(ids)
    for row in [r for r in rows if r["id"] in chosen][:5]:
        content = row["content"].replace("\n", " ")
        content = content if len(content) <= 70 else content[:69] + "…"
        err.print(f"  {row['id']:>5}  {escape(content)}", highlight=False)
    if len(ids) > 5:
        err.print(f"  … and {len(ids) - 5} more")


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
        change = manage.edit(store, entry_id, content=content, action="review-edit", approve=True)
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
        entry_id = manage.undo(store, change_id)
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
        change = manage.edit(store, entry_id, content=content, layer=layer, realm=realm,
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
        change = manage.delete(store, entry_id, hard=hard)
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
        info = manage.history(store, entry_id)
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
    changes = (
        [c["id"], c["at"], c["actor"], c["action"],
         ", ".join(f"{k}: {c['before'].get(k)!r} → {v!r}" for k, v in c["after"].items()),
         c["note"] or ""]
        for c in info["changes"]
    )  # fmt: skip
    output.print_rows(out, ("change", "at", "by", "action", "before → after", "note"), changes,
                      title="changes")  # fmt: skip


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
        planned = reclassify.reclassify(store, dry_run=dry_run)
    if json_:
        _emit_json({"dry_run": dry_run, "changed": len(planned), "changes": planned})
        return
    rows = ([i["id"], i["before"], i["after"], i["content"]] for i in planned)
    output.print_rows(out, ("id", "before", "after", "content"), rows, shorten={"content": 60})
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
    if result["merges"]:
        out.print(table)
    verb = "would merge" if dry_run else "merged"
    err.print(f"{result['entries']} entries checked, {verb} {result['merged']}")


@contextmanager
def _errors(db: Path | None = None) -> Iterator[None]:
    """Map domain errors raised outside `_store` (lock, config, a store the core opened) to a
    one-line message and its exit code."""
    try:
        yield
    except MemctlError as exc:
        err.print(f"[red]Error:[/red] {escape(str(exc))}")
        raise typer.Exit(exc.exit_code) from None
    except sqlite3.Error as exc:
        err.print(f"[red]Error:[/red] database {escape(str(db))}: {escape(str(exc))}")
        raise typer.Exit(StoreError.exit_code) from None


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
    with _errors(path), consolidate.opened(path, dry_run=dry_run) as store:
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
        info = status.status(store, settings.consolidate_settings().stale_hours)
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
    if info["runs"]:
        runs = Table("run", "kind", "started", "status", "counts / error", title="recent runs")
        for r in info["runs"]:
            detail = r["error"] or ", ".join(f"{k} {v}" for k, v in r["counts"].items())
            runs.add_row(str(r["id"]), r["kind"], r["started_at"], r["status"], escape(detail))
        out.print(runs)
    if info["imports"]:
        imports = Table("import", "started", "counts", title="recent imports")
        for i in info["imports"]:
            counts = ", ".join(
                f"{i[k]} {k}" for k in ("files", "records", "added", "skipped", "rejected")
            )
            imports.add_row(str(i["id"]), i["started_at"], counts)
        out.print(imports)
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
        memory = api.Memory.bound(store, settings=settings)
        block = memory.context(channel, query=query, touch=not no_touch)
    if json_:
        _emit_json(block.as_dict())
        return
    sys.stdout.write(block.markdown())
    err.print(
        f"fixed {block.fixed.tokens}/{block.fixed.budget} tokens, "
        f"retrieval {block.retrieval.tokens}/{block.retrieval.budget} ({block.retrieval_source})"
        + (f", {len(block.retrieval.dropped)} relevant did not fit" if block.retrieval.dropped
           else "")
    )  # fmt: skip


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
    table: TableOpt = False,
    csv_: CsvOpt = False,
    tsv: TsvOpt = False,
) -> None:
    """Full-text search over a user's entries (every status unless filtered), best first.

    Example: memctl search "咖啡" --user alice --status active
    """
    mode = _mode(table, csv_, tsv)
    statuses = _check_statuses(status_filter)
    with _store(db, user, existing=True) as store:
        rows = api.Memory.bound(store).search(query, limit, statuses=statuses, layers=layer or ())
    if json_:
        _emit_json(rows)
        return
    columns = ("id", "status", "layer", "content")
    output.print_rows(
        out, columns, ([r[c] for c in columns] for r in rows), mode, shorten={"content": 120}
    )
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
    with _errors(path):
        spec = pipeline.load(pipeline_file)
        stores.check_user(user)
        with consolidate.opened(path) as store:
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


@app.command("mcp")
def mcp_(
    user: UserOpt = "default",
    db: DbOpt = None,
    channel: Annotated[
        str,
        typer.Option(
            "--channel", "-c", help="Channel of memctl://fixed, and of a search naming none."
        ),
    ] = "default",
) -> None:
    """Serve one user's memory to an agent over MCP on stdio (run by the agent's MCP client).

    Tools search, context, remember, forget, pending; the fixed block as memctl://fixed.
    Example: memctl mcp --user alice --db ~/.local/share/memctl/memctl.db
    """
    with _errors():
        try:
            from memctl import mcp_server  # the SDK is loaded by this command only
        except ImportError as exc:
            raise MemctlError(f"the MCP SDK cannot be loaded ({exc}); pip install mcp") from None
        mcp_server.serve(db or default_db_path(), user, channel=channel)


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
