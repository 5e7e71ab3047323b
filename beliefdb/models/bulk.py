"""What a bulk ingest did (beliefdb.api.bulk)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from beliefdb.models.ingest import IngestFailure, IngestReport


@dataclass(frozen=True)
class BulkReport:
    """Many documents ingested in batches, one transaction each; the totals, and each document's report."""

    documents: int
    batches: int
    new_versions: int
    accepted: int
    corroborated: int
    rejected: int
    seconds: float
    #: why some new beliefs have no embedding yet (``beliefdb embed`` backfills), if any
    embedding_deferred: str | None = None
    #: why the grown tables' planner statistics were not gathered after the run (a login not the schema
    #: owner's: autovacuum gathers them), if they were not
    statistics_deferred: str | None = None
    reports: list[IngestReport] = field(default_factory=list)
    #: the documents refused before anything of them was written (unreadable, not UTF-8, empty, too large),
    #: each with why: the others were stored
    failed: list[IngestFailure] = field(default_factory=list)

    @property
    def beliefs_per_s(self) -> float:
        """New beliefs stored per second of the whole run."""
        return self.accepted / self.seconds if self.seconds > 0 else 0.0

    # what each document's report lists, totalled (``ingest --bulk --json`` gives them at its top)

    @property
    def superseded(self) -> int:
        """Beliefs superseded by the new versions (rule 8 of docs/rules.md)."""
        return sum(len(r.superseded) for r in self.reports)

    @property
    def unsupported(self) -> int:
        """Beliefs that lost their support: no version in force quotes them any more."""
        return sum(len(r.unsupported) for r in self.reports)

    @property
    def flagged(self) -> int:
        """Decisions that lost their last support and need review."""
        return sum(len(r.flagged) for r in self.reports)

    @property
    def held(self) -> int:
        """Actions held because their decision needs review."""
        return sum(len(r.held) for r in self.reports)

    @property
    def conflicts(self) -> int:
        """Conflicts a person must settle (rule 8)."""
        return sum(len(r.conflicts) for r in self.reports)

    @property
    def current_again(self) -> int:
        """Beliefs, decisions and actions current again."""
        return sum(len(r.current_again) for r in self.reports)

    @property
    def skipped(self) -> int:
        """Sentences that produced no belief."""
        return sum(len(r.skipped) for r in self.reports)

    @property
    def warnings(self) -> int:
        """Sentences a person should check (``self_contradictory``)."""
        return sum(len(r.warnings) for r in self.reports)

    @property
    def rejected_by_reason(self) -> dict[str, int]:
        """The rejected claims counted by reason, the most frequent first (offsets in a reason are left out:
        "quote is in the source at […), not at the given offsets […)")."""
        counts = Counter(reason_kind(x.reason) for r in self.reports for x in r.rejected)
        return dict(counts.most_common())


#: offsets a rejection's reason may name ("at [12, 40)")
_OFFSETS = re.compile(r"\[\d+, \d+\)")


def reason_kind(reason: str) -> str:
    """A rejection's reason without the offsets it names, so that those alike count together."""
    return _OFFSETS.sub("[…)", reason)
