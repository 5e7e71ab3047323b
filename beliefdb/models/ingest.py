"""What an ingest did with each candidate, and its report.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from uuid import UUID

from beliefdb.models.changes import Changes


@dataclass(frozen=True)
class Accepted:
    id: UUID
    statement: str
    subject: str
    attribute: str
    value: str
    quote: str
    start: int
    end: int
    #: when its valid time ended, when that was before it was stored (it is stored expired, never current)
    ended: datetime | None = None



@dataclass(frozen=True)
class Rejected:
    statement: str
    quote: str
    reason: str



@dataclass(frozen=True)
class Corroborated:
    id: UUID
    statement: str
    quote: str
    start: int
    end: int



@dataclass(frozen=True)
class CurrentAgain:
    """A node current again after an ingest (``changes.became_current``), with its kind and status
    now: a belief that held all along (not ``started_holding``) is current again because what
    superseded it stopped holding; a decision or action because it holds again, its status
    (needs_review, held) unchanged until it is reviewed."""

    id: UUID
    kind: str
    status: str | None
    started_holding: bool



@dataclass(frozen=True)
class Unchanged:
    """A candidate already recorded from this very evidence (whatever became of its belief since)."""

    id: UUID
    statement: str



@dataclass(frozen=True)
class Superseded:
    """A supersession rule 8 settled: ``old`` loses, ``new`` wins. Either may be the belief the ingest
    stored: a new claim that loses to a stronger or more recent one is the ``old`` of its pair."""

    #: the belief superseded (the loser)
    old: UUID
    #: the belief that supersedes it (the winner)
    new: UUID



@dataclass(frozen=True)
class Conflict:
    a: UUID
    b: UUID
    #: why it is a conflict, not a supersession: equal authority and recency, or the loser belongs to
    #: another principal (who must choose)
    reason: str = "equal authority and recency: a person must choose (rule 8)"



#: why a sentence produced no belief: no rule matched it (``no_pattern``), the quote aimed at it was
#: rejected by the evidence gate (``gate``), or it repeats a sentence already listed (``duplicate``)
SkipReason = Literal["no_pattern", "gate", "duplicate", "forgotten"]


@dataclass(frozen=True)
class Skipped:
    """A sentence of the text (or a table's cell the rule extractor could not name) that is the source of no
    belief, and why (``text[start:end] == quote``, but
    for words forgotten before in its source, masked: one all forgotten has reason ``forgotten`` and
    an empty quote)."""

    quote: str
    start: int
    end: int
    reason: SkipReason
    detail: str



@dataclass(frozen=True)
class ExtractionWarning:
    """Something in a sentence a person should check; the sentence is handled as usual.

    ``self_contradictory``: a number word and a different numeral for one quantity ("sixty (90)
    days"); ``numbers`` are the two, in the order the sentence gives them."""

    kind: Literal["self_contradictory"]
    quote: str
    start: int
    end: int
    numbers: list[int]
    message: str



@dataclass(frozen=True)
class Reread:
    """A belief a new version keeps by the quote it repeats (rule 2) that the version now reads as
    another claim of the same value: the heading, list label or column above the line was renamed. Both
    hold; the kept one until its owner retracts or corrects it."""

    #: the belief kept
    id: UUID
    subject: str
    attribute: str
    value: str
    #: the new belief the same quote gives now
    now: UUID
    now_subject: str
    now_attribute: str


@dataclass(frozen=True)
class IngestReport:
    """What one ingest of one text did."""

    source: str
    #: the version the text is (None when it was only proposed to the source's owner)
    version: int | None
    new_version: bool
    fragments: int
    path: str | None = None
    accepted: list[Accepted] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    corroborated: list[Corroborated] = field(default_factory=list)
    unchanged: list[Unchanged] = field(default_factory=list)
    superseded: list[Superseded] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    reverified: list[UUID] = field(default_factory=list)
    #: re-verified beliefs whose quote the new version reads as another claim (a renamed heading or label)
    reread: list[Reread] = field(default_factory=list)
    unsupported: list[UUID] = field(default_factory=list)
    flagged: list[UUID] = field(default_factory=list)
    held: list[UUID] = field(default_factory=list)
    #: what is current again (each id of ``changes.became_current``, with its kind and status)
    current_again: list[CurrentAgain] = field(default_factory=list)
    #: why the new beliefs were stored without embeddings (``beliefdb embed`` backfills), if they were
    embedding_deferred: str | None = None
    #: the net change report (what stopped being or became current, flags, holds)
    changes: Changes | None = None
    #: another principal's source: the text waits for its owner as a review item; nothing changed (a
    #: preview names no item, None, unless the same proposal is open already: the ingest opens its own)
    proposed: bool = False
    review_item: UUID | None = None
    owner: str | None = None
    #: what a text that changed nothing was (the same as a version in force, or a retracted one)
    note: str | None = None
    #: a turn's request sent again with its idempotency key: nothing appended; the version the first one
    #: went to, and the beliefs recorded from its turn as ``unchanged`` (rule 18 of docs/rules.md)
    already_applied: bool = False
    #: a preview: nothing was written
    preview: bool = False
    #: the sentences that are the source of no belief, in text order (headings, labels and very short
    #: lines are left out: :func:`beliefdb.text.skips.left_out`)
    skipped: list[Skipped] = field(default_factory=list)
    #: sentences to check, e.g. ones that contradict themselves
    warnings: list[ExtractionWarning] = field(default_factory=list)
    #: how to get beliefs from the skipped sentences (None when nothing was skipped)
    hint: str | None = None



@dataclass(frozen=True)
class IngestFailure:
    """A file that could not be ingested; nothing of it was stored."""

    path: str
    error: str
    message: str
