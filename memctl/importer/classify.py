"""Stage 5, classify: realm, layer, audience, scores, status and the fact each new entry states.

A big file's new entries are classified in a forked worker while the main process runs the
dedupe engine and writes everything else (the two cost about the same; machines have 2 cores).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, overload

from memctl import changes, supersede
from memctl.classify import Classification, classify, confidential, home, scopes
from memctl.importer import accept
from memctl.importer.accept import Accepted
from memctl.importer.batch import Batch
from memctl.ingest import frontmatter, markdown
from memctl.models import unshared
from memctl.parallel import Helper, Shared
from memctl.store import UserStore
from memctl.store.fields import classified_row

# Not an entry column: whether the classifier found a realm cue on the line (for settle_realms).
REALM_CUED = "realm_cued"

# content, ts, section, path, category, layer hint, the people its file names privately
# (relatives, confidential clients: confidential.people), and a table row's header.
Job = tuple[str, str | None, str | None, str, str | None, str | None, frozenset[str], str | None]


def start(batch: list[Accepted], helper: Helper | None = None) -> Shared[Job, dict[str, Any]]:
    """Classification of `batch` begun; its results are taken from the returned share. Forks
    only for a file whose accepting forked too: the classifier is loaded by then."""
    relatives = (
        confidential.people(
            [a.content for a in batch], [a.record.section for a in batch], batch[0].record.path
        )
        if batch
        else frozenset()
    )
    fork = len(batch) >= accept.PARALLEL_MIN
    return Shared(Jobs(batch, relatives), classified, fork=fork, helper=helper if fork else None)


class Jobs(Sequence[Job]):
    """The jobs of `batch`, each made when a process takes it: a list of them all, kept until
    the last was classified, held ~100 bytes a new entry in the main process."""

    def __init__(self, batch: list[Accepted], relatives: frozenset[str]) -> None:
        self._batch, self._relatives = batch, relatives

    def __len__(self) -> int:
        return len(self._batch)

    @overload
    def __getitem__(self, index: int) -> Job: ...
    @overload
    def __getitem__(self, index: slice) -> list[Job]: ...
    def __getitem__(self, index: int | slice) -> Job | list[Job]:
        if isinstance(index, slice):
            return [job(a, self._relatives) for a in self._batch[index]]
        return job(self._batch[index], self._relatives)


def merged_away(batch: Batch) -> list[int]:
    """Where in `batch.to_classify` the entries merged away at birth are (not classified)."""
    return [i for i, a in enumerate(batch.to_classify) if batch.merged_at_birth(a)]


def job(a: Accepted, relatives: frozenset[str] = frozenset()) -> Job:
    r = a.record
    content = unshared(a.content)  # a job may be pickled for the worker
    return (content, r.ts, r.section, r.path, a.category, r.layer_hint, relatives, r.header)


def classified(job: Job) -> dict[str, Any]:
    """The classifier's fields for one new entry, and the fact it states (if about the user)."""
    content, ts, section, path, category, layer_hint, relatives, header = job
    c = classify_row(
        content, header, ts=ts, section=section, path=path, category=category,
        relatives=relatives, dated=frontmatter.has(layer_hint, markdown.DATED_LINE),
    )  # fmt: skip
    # What the file says its records are (front matter) bounds the classifier's layer.
    layer = frontmatter.apply_hint(c.layer, layer_hint)
    fields = {**classified_row(c, layer=layer), REALM_CUED: c.realm_cued}
    # Facts shape supersede chains only where they are about the real user (same rule as
    # re-classify and edit use).
    fields.update(supersede.fact_fields(content, c.realm))
    return fields


def classify_row(text: str, header: str | None, **context: Any) -> Classification:
    """`classify` of a record, a table row read with its header (Record.header): the column
    names say what each cell's value is (a wage, a phone number), and so who may see it; not
    whose the row is nor what kind of memory it keeps, which the row says alone (a "姓名" column
    lists other people, not the user's name). The header adds to what the row says of its
    audience, never takes it away: a row private alone stays private."""
    c = classify(text, **context)
    if header is None or c.audience == "private":
        return c
    return dataclasses.replace(
        c, audience=classify(markdown.with_header(text, header), **context).audience
    )


# A new entry as its file's realms are settled: id, text, realm, whether its line said the
# realm, layer, audience and whether it keeps a fact about the user.
Settling = tuple[int, str, str, bool, str, str, bool]


def settling(entry_id: int, content: str, fields: dict[str, Any]) -> Settling:
    return (
        entry_id, content, fields["realm"], fields[REALM_CUED], fields["layer"],
        fields["audience"], fields["fact_key"] is not None,
    )  # fmt: skip


def settle_realms(
    store: UserStore, lines: list[Settling], path: str | None = None
) -> list[home.Line]:
    """A file's new lines that say nothing of their realm take the one their section's or
    their file's lines agree on (see scope_realms). Returns the lines as settled, for their
    home (settle_homes)."""
    if not lines:  # nothing new (a rerun of known files): no lexicon to load
        return []
    # The worker's chunks come back in no fixed order (memctl.parallel): in entry order, what a
    # home learns first from the file (its first job statements) does not depend on timing.
    lines = sorted(lines, key=lambda line: line[0])
    # Sources are written before this runs.
    sections = store.sources.sections_of_new(path) if path is not None else {}
    found = scopes([(sections.get(i), t, r, cued) for i, t, r, cued, *_ in lines], path)
    settled, amended = [], []
    for (i, text, was, cued, layer, audience, fact), (scoped, by_section) in zip(
        lines, found, strict=True
    ):
        realm = home.takes_scope(scoped, layer)
        if realm is not None and was != realm:
            facts = supersede.fact_fields(text, realm)
            amended.append({"id": i, "realm": realm, **facts})
            fact = facts["fact_key"] is not None
        settled.append(home.Line(i, text, realm or was, cued, layer, audience, fact, by_section))
    store.entries.amend_new(amended)
    return settled


# The homes an import's files belong to (memctl.classify.home.home_of).
Homes = set[str | None]


def keep(store: UserStore, homes: Homes, path: str, lines: list[home.Line]) -> None:
    """A file's settled lines kept for its home's vote, with the file's writes: the vote
    counts the home's lines of this import and of every one before it (settle_homes)."""
    folder = home.home_of(path)
    homes.add(folder)
    store.home_lines.put(folder, path, home.with_kin(lines), settled=False)


def settle_homes(store: UserStore, homes: Homes) -> None:
    """After every file of an import is written: the know-how of each home that serves the
    user's job (memctl.classify.home) and says no realm of its own takes work, and a relative
    one file of the home introduced is family where another names them.

    The vote counts every line the home keeps (table home_lines), not only this import's: a
    rerun after a kill between two files, or today's notes after yesterday's profile, votes
    as one import of all of them. Nothing to do when every line was counted before (a
    re-import of known files). The lines no vote counted yet are amended as new; a line an
    earlier vote settled otherwise changes, logged, unless a person set that field."""
    unsettled = store.home_lines.homes(unsettled=True)
    if not unsettled:
        return
    # A project's memory takes its project file's verdict, and a project its memory's
    # (home.project_work, memory_work): every home of the import, and the project or memory
    # of a home that votes now, is read, the ones with nothing new for that only.
    evidence: dict[str | None, home.Evidence] = {}
    texts: dict[int, str] = {}  # the texts of the homes read
    voted: dict[int, str] = {}  # …of the homes that vote now
    fresh: set[int] = set()
    # The realm its file gave each line of a home that votes now, and was counted before.
    counted: dict[int, str] = {}
    read = unsettled | homes | home.project_partners(unsettled, store.home_lines.homes())
    for folder in sorted(read, key=lambda f: (f is not None, f or "")):
        evidence[folder] = home.Evidence()
        for path, rows in store.home_lines.of_home(folder):
            lines = home.with_kin(home.Line(*row[:-1]) for row in rows)
            # A line kept before its names were (home_lines.kin NULL) keeps them now.
            store.home_lines.name(
                [line for line, row in zip(lines, rows, strict=True) if row[8] is None]
            )
            evidence[folder].add(path, lines)
            fresh.update(row[0] for row in rows if not row[-1])
            texts.update((line.id, line.text) for line in lines)
            if folder in unsettled:
                voted.update((line.id, line.text) for line in lines)
                counted.update((row[0], row[2]) for row in rows if row[-1])
    for e in evidence.values():  # what the vote found of lines that came without it
        store.home_lines.learn(e.learnt)
    voting = [e for folder, e in evidence.items() if folder in unsettled]
    work = home.job_lines(evidence, texts, unsettled)
    _amend(store, "realm", dict.fromkeys(work, home.WORK), fresh)
    # A line an earlier vote gave the job that this one does not is its file's again: the home
    # ends as one import of all its files would (its life outweighs the job once more notes
    # came). Only a candidate can have been given it, and only from work: what else a line
    # holds, the vote did not give it.
    again = {
        i: counted[i]
        for e in voting
        for i in e.candidates
        if i in counted and i not in work and counted[i] != home.WORK
    }
    _amend(store, "realm", again, fresh, only_from=home.WORK)
    _amend(store, "audience", dict.fromkeys(home.unmarked(evidence, unsettled), "public"), fresh)
    family = [i for e in voting if e.relatives for i in e.family(voted)]
    _amend(store, "audience", dict.fromkeys(family, "private"), fresh)
    store.home_lines.settle(unsettled)


def _amend(
    store: UserStore,
    field: str,
    values: dict[int, str],
    fresh: set[int],
    only_from: str | None = None,
) -> None:
    """`field` set to each entry's value in `values`: amended where no vote settled it yet;
    logged where one did, on a live entry whose field a person did not set (and whose field
    is `only_from`, when given)."""
    ids = sorted(values)
    store.entries.amend_new([{"id": i, field: values[i]} for i in ids if i in fresh])
    old = [i for i in ids if i not in fresh]
    if not old:
        return
    rows = store.entries_by_id(f"id, {field}, status", old)
    differ = [
        r[0]
        for r in rows
        if r[1] != values[r[0]] and r[2] in supersede.LIVE and only_from in (None, r[1])
    ]
    decided = store.log.fields_set(changes.HUMAN) if differ else {}
    changes.update_many(
        store,
        "classify",
        [
            (i, {field: values[i]}, "the home's vote")
            for i in differ
            if field not in decided.get(i, ())
        ],
        who="memctl",
    )
