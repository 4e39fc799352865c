"""Stage 5, classify: realm, layer, audience, scores, status and the fact each new entry states.

A big file's new entries are classified in a forked worker while the main process runs the
dedupe engine and writes everything else (the two cost about the same; machines have 2 cores).
"""

from __future__ import annotations

from typing import Any

from memctl import supersede
from memctl.classify import classify, home, home_realms, kin, scope_realms
from memctl.importer import accept
from memctl.importer.accept import Accepted
from memctl.importer.batch import Batch
from memctl.ingest import frontmatter
from memctl.parallel import Shared
from memctl.store import UserStore
from memctl.store.fields import classified_row

# Not an entry column: whether the classifier found a realm cue on the line (for settle_realms).
REALM_CUED = "realm_cued"

# content, ts, section, path, category, layer hint, and the relatives its file names.
Job = tuple[str, str | None, str | None, str, str | None, str | None, frozenset[str]]


def start(batch: list[Accepted]) -> Shared[Job, dict[str, Any]]:
    """Classification of `batch` begun; its results are taken from the returned share. Forks
    only for a file whose accepting forked too: the classifier is loaded by then."""
    relatives = kin.names(a.content for a in batch)
    return Shared(
        [job(a, relatives) for a in batch], classified, fork=len(batch) >= accept.PARALLEL_MIN
    )


def merged_away(batch: Batch) -> list[int]:
    """Where in `batch.to_classify` the entries merged away at birth are (not classified)."""
    return [i for i, a in enumerate(batch.to_classify) if batch.merged_at_birth(a)]


def job(a: Accepted, relatives: frozenset[str] = frozenset()) -> Job:
    r = a.record
    return (a.content, r.ts, r.section, r.path, a.category, r.layer_hint, relatives)


def classified(job: Job) -> dict[str, Any]:
    """The classifier's fields for one new entry, and the fact it states (if about the user)."""
    content, ts, section, path, category, layer_hint, relatives = job
    c = classify(content, ts=ts, section=section, path=path, category=category, relatives=relatives)
    # What the file says its records are (front matter) bounds the classifier's layer.
    layer = frontmatter.apply_hint(c.layer, layer_hint)
    fields = {**classified_row(c, layer=layer), REALM_CUED: c.realm_cued}
    # Facts shape supersede chains only where they are about the real user (same rule as
    # re-classify and edit use).
    fields.update(supersede.fact_fields(content, c.realm))
    return fields


# A new entry's id, text, realm, whether its line said the realm, layer and audience.
Line = tuple[int, str, str, bool, str, str]


def settle_realms(
    store: UserStore, lines: list[tuple[int, str, str, bool]], path: str | None = None
) -> None:
    """A file's new lines (id, text, realm, cued) that say nothing of their realm take the one
    their section's or their file's lines agree on (see scope_realms)."""
    # Sources are written before this runs.
    sections = store.sources.sections_of_new(path) if path is not None else {}
    realms = scope_realms([(sections.get(i), t, r, cued) for i, t, r, cued in lines], path)
    store.entries.amend_new(
        [
            {"id": i, "realm": realm, **supersede.fact_fields(text, realm)}
            for (i, text, was, _), realm in zip(lines, realms, strict=True)
            if realm is not None and was != realm
        ]
    )


def settle_homes(store: UserStore, files: dict[str, list[Line]]) -> None:
    """After every file of an import is written: the lines of each home's files that serve the
    home's job (memctl.classify.home) take work, their sections settle anew, and know-how that
    nothing in its file settles takes the realm the home's know-how agrees on (home_realms).
    Only the entries whose realm this changes are written."""
    homes: dict[str | None, list[str]] = {}
    for path in files:
        homes.setdefault(home.home_of(path), []).append(path)
    rows: list[dict[str, Any]] = []
    for paths in homes.values():
        scoped: list[tuple[str, list[home.HomeLine]]] = []
        for p in paths:
            sections = store.sources.sections_of_new(p)
            scoped.append(
                (p, [(sections.get(i), t, r, c, la, a) for i, t, r, c, la, a in files[p]])
            )
        # What settle_realms left, file by file, and what the home's job makes of it.
        before = [
            [realm or line[2] for line, realm in zip(lines, _scoped(lines, p), strict=True)]
            for p, lines in scoped
        ]
        after = home_realms(scoped)
        for p, was, now in zip(paths, before, after, strict=True):
            rows.extend(
                {"id": line[0], "realm": realm, **supersede.fact_fields(line[1], realm)}
                for line, old, realm in zip(files[p], was, now, strict=True)
                if realm != old
            )
    store.entries.amend_new(rows)


def _scoped(lines: list[home.HomeLine], path: str) -> list[str | None]:
    return scope_realms([(s, t, r, c) for s, t, r, c, _, _ in lines], path)
