"""Stage 7, supersede: the file's new facts against the user's chains, and the facts its exact
copies state again (memctl.supersede)."""

from __future__ import annotations

from memctl import supersede
from memctl.importer.batch import Batch
from memctl.store import UserStore

Chains = supersede.Chains


def settle(
    store: UserStore, batch: Batch, created: list[int], chains: supersede.Chains
) -> tuple[dict[str, int], int]:
    """Chains brought up to date for the `created` entries and the restated ones: the counts
    of `supersede.resolve`, and how many superseded facts are current again.

    `chains` are those the run's earlier files left, kept while only their `resolve` changed
    their entries: a restored export (its own links and statuses), stored entries merged into
    new ones and restated facts change them behind the chains' back, so they are read again.
    """
    if batch.merges_stored or any(a.record.format == "memctl-export" for a in batch.new.values()):
        chains.clear()
    resolved = supersede.resolve(store, created, chains=chains)
    if batch.stated:
        chains.clear()
    return resolved, supersede.restate(store, batch.stated)
