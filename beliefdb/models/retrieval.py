"""What ``ask`` answers, and what an embedding job did."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from beliefdb.models.beliefs import Belief, Evidence


@dataclass(frozen=True)
class Answer:
    """A belief returned by ask, with what a caller needs to trust it or not."""

    belief: Belief
    evidence: list[Evidence]
    warnings: list[str]
    conflicts: list[dict[str, Any]]
    replaced: list[dict[str, Any]]
    provenance: str
    low_confidence: bool
    score: float
    similarity: float | None
    matched_by: list[str]


@dataclass(frozen=True)
class AskResult:
    status: str  # ok | no_match | memory_unavailable
    question: str
    as_of: datetime | None
    beliefs: list[Answer] = field(default_factory=list)
    context: str = ""
    degraded: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class EmbedReport:
    model: str
    embedded: int
    missing: int
    switched: bool = False
    index: str | None = None
