"""Stage 5, classify: realm, layer, audience, scores, status and the fact each new entry states.

A big file's new entries are classified in a forked worker while the main process runs the
dedupe engine and writes everything else (the two cost about the same; machines have 2 cores).
"""

from __future__ import annotations

from typing import Any

from memctl import supersede
from memctl.classify import classify, kin, scope_realms
from memctl.importer import accept
from memctl.importer.accept import Accepted
from memctl.importer.batch import Batch
from memctl.ingest import frontmatter
from memctl.parallel import Helper, Shared
from memctl.store import UserStore
from memctl.store.fields import classified_row

# Not an entry column: whether the classifier found a realm cue on the line (for settle_realms).
REALM_CUED = "realm_cued"

# content, ts, section, path, category, layer hint, and the relatives its file names.
Job = tuple[str, str | None, str | None, str, str | None, str | None, frozenset[str]]


def start(batch: list[Accepted], helper: Helper | None = None) -> Shared[Job, dict[str, Any]]:
    """Classification of `batch` begun; its results are taken from the returned share. Forks
    only for a file whose accepting forked too: the classifier is loaded by then."""
    relatives = kin.names(a.content for a in batch)
    fork = len(batch) >= accept.PARALLEL_MIN
    return Shared(
        [job(a, relatives) for a in batch], classified, fork=fork, helper=helper if fork else None
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
