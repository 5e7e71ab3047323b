"""Beliefs, their evidence and why we believe them. Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg.types.range import Range


@dataclass(frozen=True)
class Workspace:
    id: UUID
    name: str
    created_at: datetime



@dataclass(frozen=True)
class Belief:
    id: UUID
    statement: str
    subject: str
    attribute: str
    value: str
    kind: str
    scope: dict[str, Any]
    valid_time: Range[datetime]
    confidence: float
    confidence_kind: str
    status: str
    revision: int
    owner: str
    recorded_at: datetime
    evidence_count: int
    #: the world it belongs to (rule 15): production, or fixture / synthetic (the label of the source
    #: that first stated it; all of its evidence comes from that world)
    provenance: str = "production"



@dataclass(frozen=True)
class Evidence:
    belief_id: UUID
    role: str
    quote: str
    fragment_id: UUID
    start_offset: int
    end_offset: int
    source: str
    origin_type: str
    authority: str
    provenance: str
    version: int
    version_label: str | None
    version_sha256: str
    in_force: bool
    created_at: datetime
    #: who said the quote and when, when its fragment is a turn of a conversation (else None)
    speaker: str | None = None
    spoken_at: datetime | None = None
    #: its quote, its version or its source retracted (then, for an as-of why): it supports nothing (rule 5)
    retracted: bool = False



@dataclass(frozen=True)
class SourceExcerpt:
    """The text of a fragment's source version around it: ``excerpt`` starts at character
    ``excerpt_start`` of the version (``length`` characters in all), so the fragment's quote is
    ``excerpt[start_offset - excerpt_start:end_offset - excerpt_start]``."""

    fragment_id: UUID
    source: str
    version: int
    version_label: str | None
    start_offset: int
    end_offset: int
    excerpt_start: int
    excerpt: str
    length: int
    #: the version or its whole source is retracted
    retracted: bool



@dataclass(frozen=True)
class ConfidenceFactor:
    factor: str
    detail: str
    weight: float



@dataclass(frozen=True)
class HistoryEntry:
    """A supersession (``new_belief`` replaced ``old_belief``) or a conflict a belief took part in, kept
    as history once it no longer applies (rule 3)."""

    new_belief: UUID
    new_statement: str
    new_value: str
    old_belief: UUID
    old_statement: str
    old_value: str
    kind: str
    reason: str
    at: datetime
    #: when the supersession ended (rule 8 settled the pair the other way), or the conflict was settled
    #: (a supersession between its two beliefs: a review's winner, or rule 8), None while it has not
    ended: datetime | None = None
    #: whether it applies: not ended, and ``new_belief`` holds (rule 3: one whose superseder stopped
    #: holding replaces nothing, though it stays as history); a conflict, while it is not settled and
    #: both its beliefs are current (rule 8)
    in_effect: bool = True
    #: a conflict a supersession between its beliefs settled (``ended``: when): the belief that won
    winner: UUID | None = None
    #: ... and that supersession's reason ("conflict resolved by alice": a review's winner; or rule 8's)
    settled_by: str | None = None



@dataclass(frozen=True)
class Retraction:
    """A retraction of the belief, or of a fragment, version or source its evidence comes from: when
    (and why), and when it was restored (None: still retracted, or not by the moment asked about)."""

    what: str  # belief, fragment, version or source
    name: str  # the source's name (the belief's statement for the belief itself)
    version: int | None
    retracted_at: datetime
    reason: str | None
    restored_at: datetime | None


@dataclass(frozen=True)
class BuiltOn:
    """A decision citing a belief, with its status and the actions carrying it out."""

    decision_id: UUID
    title: str
    decision_status: str
    actions: list[dict[str, Any]]
    #: the latest recorded outcome ({"outcome", "note", "at", "by"}), if any
    outcome: dict[str, Any] | None = None



@dataclass(frozen=True)
class Derived:
    """A belief derived from another (``derive``): it holds while all it is derived from are current."""

    belief_id: UUID
    statement: str
    status: str
    #: whether the reason it is derived by still holds (every belief it is derived from current)
    live: bool
    #: the world it belongs to (rule 15): listed under a production belief only when fixtures are asked for
    provenance: str = "production"



@dataclass(frozen=True)
class Why:
    """A belief with everything that explains it."""

    belief: Belief
    evidence: list[Evidence]
    confidence: list[ConfidenceFactor]
    replaced: list[HistoryEntry]
    replaced_by: list[HistoryEntry]
    conflicts: list[HistoryEntry]
    built_on: list[BuiltOn] = field(default_factory=list)
    #: the beliefs derived from it (also built on it)
    derived: list[Derived] = field(default_factory=list)
    #: the retractions of it and of where its evidence comes from, oldest first
    retractions: list[Retraction] = field(default_factory=list)



@dataclass(frozen=True)
class AuditResult:
    ok: bool
    events: int
    first_broken: int | None
    #: what is wrong at the first broken link, in words (which event, and what was touched)
    problem: str | None = None
