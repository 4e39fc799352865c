"""Stage 7, supersede: the file's new facts against the user's chains, and the facts its exact
copies state again (memctl.supersede)."""

from __future__ import annotations

from memctl import supersede
from memctl.importer.batch import Batch
from memctl.store import UserStore


def settle(store: UserStore, batch: Batch, created: list[int]) -> tuple[dict[str, int], int]:
    """Chains brought up to date for the `created` entries and the restated ones: the counts
    of `supersede.resolve`, and how many superseded facts are current again."""
    resolved = supersede.resolve(store, created)
    return resolved, supersede.restate(store, batch.stated)
