"""The typed record the stages pass along: one file's accepted records and what each stage
decided about them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from memctl.dedupe import Merge
from memctl.importer.accept import Accepted


@dataclass
class Batch:
    path: str
    fresh: list[Accepted]  # not imported from this path before
    new: dict[str, Accepted]  # by norm_hash: the first record of each text new to the user
    planned: dict[str, int]  # by norm_hash: the id each new text's entry gets
    first_id: int  # the lowest of them: a merge's duplicate below it was stored before
    skipped: Counter[str]  # records skipped, by reason
    # New texts the classifier decides: all but restored exports, taken as they were.
    to_classify: list[Accepted]
    merges: list[Merge] = field(default_factory=list)
    born_merged: dict[int, Merge] = field(default_factory=dict)  # new entries merged at birth
    stated: dict[int, list[str]] = field(default_factory=dict)  # entry -> times restated
    added: int = 0

    @property
    def merges_stored(self) -> bool:
        """Whether a stored entry is merged into a new one (a new, earlier copy of it)."""
        return any(m.dup < self.first_id for m in self.merges)

    def merged_at_birth(self, a: Accepted) -> bool:
        return self.planned[a.norm_hash] in self.born_merged
