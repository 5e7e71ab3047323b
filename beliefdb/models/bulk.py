"""What a bulk ingest did (beliefdb.api.bulk)."""

from __future__ import annotations

from dataclasses import dataclass, field

from beliefdb.models.ingest import IngestReport


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
    reports: list[IngestReport] = field(default_factory=list)

    @property
    def beliefs_per_s(self) -> float:
        """New beliefs stored per second of the whole run."""
        return self.accepted / self.seconds if self.seconds > 0 else 0.0
