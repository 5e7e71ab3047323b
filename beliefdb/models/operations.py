"""Lifecycle and operations: confidence rounds, expiry, outcomes, forgetting, calibration,
migrations, workspaces, the embedded server, settings, the rules.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from beliefdb.models.changes import Changes


@dataclass(frozen=True)
class ConfidenceReport:
    """What a decay or recompute of every confidence moved as of ``now`` (``preview``: would move):
    beliefs under ``threshold`` are low confidence."""

    now: datetime
    beliefs: int
    changed: int
    lowered: int
    raised: int
    became_low: int
    recovered: int
    low_confidence: int
    threshold: float
    preview: bool = False



@dataclass(frozen=True)
class Expired:
    """Beliefs whose valid time had ended by ``now``, processed (rule 16), and the change they made."""

    expired: int
    beliefs: list[UUID]
    now: datetime
    changes: Changes



@dataclass(frozen=True)
class OutcomeRecorded:
    """An outcome recorded for a decision or action; ``status``: the action's status after it."""

    id: UUID
    node: UUID
    kind: str
    outcome: str
    status: str | None = None



@dataclass(frozen=True)
class Mention:
    """Where a forgotten subject's name is still written (``kind`` decision, action, outcome, run, step,
    review, correction, source, version or retraction: typed by people; belief: what a source said of
    another subject; its ``id``, the ``field`` that names it and its ``owner``). Forget leaves it: it is
    someone's own words, not text taken from what was forgotten, and the name may be another's; ``hint``
    says how to deal with it."""

    kind: str
    id: UUID
    field: str
    owner: str | None
    hint: str


@dataclass(frozen=True)
class TextMention:
    """Where a stored source text still names a forgotten subject once forget masked what it forgets
    (``masked``: where forget with ``mask_mentions`` masked the name): another speaker's turn ("Nice to meet
    you Maya"), another document. The ``source``'s name and its ``version`` (``id``: the version's), how
    many times (``count``), the ``excerpt`` around the first (the name masked in it, clipped with "…"), the
    source's ``owner``, and a ``hint``. The same names and matching rule as :class:`Mention`."""

    source: str
    version: int
    id: UUID
    count: int
    excerpt: str
    owner: str | None
    masked: bool
    hint: str


#: the kinds of forget's mentions that are waiting texts', and every kind that is no typed text's
_PENDING = ("queued", "proposed")
_NOT_TYPED = ("text", "more", *_PENDING)


@dataclass(frozen=True)
class PendingMention:
    """Where a text waiting to be stored still names a forgotten subject once forget masked what it forgets:
    ``kind`` queued (a job's document not ingested yet: ``id`` the job's) or proposed (a version proposed to a
    source's owner, a correction proposed to a belief's owner: ``id`` the review item's), the ``field`` that
    names it (text, content, statement or value), the ``source``'s name, its ``status``, whose call masking
    it is (``owner``: the job's submitter, the source's or the belief's owner), who wrote it (``by``), how
    many times (``count``), the ``excerpt`` around the first (the name masked in it), ``masked`` (forget with
    ``mask_mentions`` masked it there: a worker or an approval stores no name), and a ``hint``."""

    kind: str
    id: str
    field: str
    source: str | None
    status: str
    owner: str | None
    by: str | None
    count: int
    excerpt: str
    masked: bool
    hint: str


@dataclass(frozen=True)
class Forgotten:
    """What forgetting a source, a subject or a belief took away (``preview``: would take away).
    ``would_flag`` is ``flagged`` under the name a preview gives it. ``jobs`` and ``proposals``: the jobs
    (queued, failed or done) and the proposed versions whose text or turns it masked, or cleared (a
    forgotten source's jobs). ``mentions``: where people typed a forgotten subject's name, left as typed.
    ``text_mentions``: where the stored source texts still name it (``mask_mentions``: where they named it,
    masked), counted in each version; ``pending_mentions``: where the texts waiting to be stored (queued,
    proposed) name it. Each lists the first 100; ``text_mentions_total`` and ``pending_mentions_total`` say
    how many there are in all, ``text_mentions_count`` and ``pending_mentions_count`` how many times (what
    ``mask_mentions`` masks: every one)."""

    target: str
    versions: int
    fragments: int
    beliefs: int
    evidence: int
    embeddings: int
    redacted: int
    flagged: list[UUID]
    would_flag: list[UUID]
    held: list[UUID]
    changes: Changes
    preview: bool = False
    jobs: int = 0
    proposals: int = 0
    mentions: list[Mention] = field(default_factory=list)
    text_mentions: list[TextMention] = field(default_factory=list)
    pending_mentions: list[PendingMention] = field(default_factory=list)
    text_mentions_total: int = 0
    text_mentions_count: int = 0
    pending_mentions_total: int = 0
    pending_mentions_count: int = 0

    def __post_init__(self) -> None:
        # (read from SQL as jsonb objects: the source texts' of kind text, and the waiting texts' of kind
        # queued and proposed, in the same array)
        given = self.mentions or []
        object.__setattr__(self, "mentions", [m if isinstance(m, Mention) else Mention(
            kind=m["kind"], id=UUID(str(m["id"])), field=m["field"], owner=m.get("owner"), hint=m["hint"])
            for m in given if isinstance(m, Mention) or m["kind"] not in _NOT_TYPED])
        waiting: list[Any] = [m for m in given if isinstance(m, dict) and m["kind"] in _PENDING]
        waiting += list(self.pending_mentions or [])
        object.__setattr__(self, "pending_mentions", [m if isinstance(m, PendingMention) else PendingMention(
            kind=m["kind"], id=str(m["id"]), field=m["field"], source=m.get("source"), status=m["status"],
            owner=m.get("owner"), by=m.get("by"), count=int(m["count"]), excerpt=m["excerpt"], masked=bool(m["masked"]),
            hint=m["hint"]) for m in waiting])
        in_text = [m for m in given if isinstance(m, dict) and m["kind"] == "text"] + list(self.text_mentions or [])
        object.__setattr__(self, "text_mentions", [m if isinstance(m, TextMention) else TextMention(
            source=m["source"], version=int(m["version"]), id=UUID(str(m["id"])), count=int(m["count"]),
            excerpt=m["excerpt"], owner=m.get("owner"), masked=bool(m["masked"]), hint=m["hint"])
            for m in in_text])
        # (how many in all: an entry of kind more follows a listing it cut, else the listing is all)
        more = {m["of"]: m for m in given if isinstance(m, dict) and m["kind"] == "more"}
        for of, listed in (("text", self.text_mentions), ("pending", self.pending_mentions)):
            if of in more:
                total, count = int(more[of]["total"]), int(more[of]["count"])
            else:
                total = getattr(self, f"{of}_mentions_total") or len(listed)
                count = getattr(self, f"{of}_mentions_count") or sum(m.count for m in listed)
            object.__setattr__(self, f"{of}_mentions_total", total)
            object.__setattr__(self, f"{of}_mentions_count", count)

    def fingerprint(self) -> str:
        """What this report says would go (or went), in a few characters a client carries back from a
        preview: what is forgotten, the counts, and the change to what rested on it, whose nodes name
        each belief and fragment that goes (``forget(expect=...)``, as a retraction's)."""
        parts = [self.target, self.versions, self.fragments, self.beliefs, self.evidence, self.embeddings,
                 self.redacted, self.changes.fingerprint()]
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]



@dataclass(frozen=True)
class Migration:
    """The schema revision before and after a migration (equal: it was already current, or ``refreshed``:
    at that revision, its functions, views and grants were another beliefdb's and were applied again)."""

    before: str | None
    after: str
    refreshed: bool = False


@dataclass(frozen=True)
class VectorIndex:
    """The vector index of one embedding dimension after ``beliefdb db vector-index``: ``hnsw`` (under
    20,000 vectors), ``ivfflat`` (over halfvec, ``lists`` k-means lists) or None (exact search: over
    2,000 dimensions HNSW is not possible), whether this run built it (``built``: created or rebuilt;
    false when it already fitted the store), how long the call took, and why it failed (``error``:
    nothing of that dimension changed)."""

    dim: int
    index: str | None
    lists: int | None
    built: bool
    seconds: float
    error: str | None = None


@dataclass(frozen=True)
class MigrationStatus:
    """Whether a database holds this package's schema (``migrate --check``). ``current`` is the
    revision it is at (None: beliefdb was never migrated there), ``behind`` how many revisions an
    upgrade would apply (None: a revision this package does not know, from a newer beliefdb), and
    ``up_to_date`` whether migrate has nothing to do: at the head revision with this package's
    functions, views and grants (the fingerprint ``migrate`` records)."""

    current: str | None
    head: str
    behind: int | None
    up_to_date: bool



@dataclass(frozen=True)
class WorkspaceDeleted:
    """A deleted workspace and what it held; all of it, its audit chain too, went with it, but for the
    agents' logins bound to it (``agent_logins``, ``beliefdb agent create``): their binding stays, so that
    none can bind another workspace (each still logs in, and sees and writes nothing), and each role
    stays on the server until dropped (``hint`` says how: ``beliefdb agent drop NAME``)."""

    id: UUID
    name: str
    sources: int
    beliefs: int
    decisions: int
    runs: int
    #: the agents' logins still bound to the deleted workspace, by name
    agent_logins: list[str] = field(default_factory=list)
    #: what drops them (None when there is none)
    hint: str | None = None



@dataclass(frozen=True)
class Setting:
    """One ``BELIEFDB_*`` variable as beliefdb sees it now (``beliefdb config``)."""

    name: str
    #: str, int, float, path or secret (a secret's value is masked)
    type: str
    value: str | int | float | None
    default: str | int | float | None
    #: environment or default
    source: str
    help: str


@dataclass(frozen=True)
class Rule:
    """One truth rule as docs/rules.md states it (``beliefdb rules N``)."""

    number: int
    title: str
    text: str


@dataclass(frozen=True)
class CalibrationBin:
    """Beliefs with ``lower <= confidence < upper`` (the last bin includes 1.0). Empty bins have no
    mean, accuracy or gap. ``gap`` is accuracy − mean confidence: negative means overconfident."""

    lower: float
    upper: float
    count: int
    correct: int
    mean_confidence: float | None
    accuracy: float | None
    gap: float | None


@dataclass(frozen=True)
class KindSummary:
    confidence_kind: str
    count: int
    correct: int
    accuracy: float
    mean_confidence: float


@dataclass(frozen=True)
class Calibration:
    """The reliability table of a labelled sample and its expected calibration error."""

    count: int
    correct: int
    accuracy: float
    mean_confidence: float
    ece: float
    bins: list[CalibrationBin]
    by_kind: list[KindSummary]


@dataclass(frozen=True)
class ServerStatus:
    home: Path
    pgdata: Path
    initialized: bool
    running: bool
    pid: int | None
    url: str | None


@dataclass(frozen=True)
class Token:
    """A bearer token of the servers as listed: never its secret (only the SHA-256 of it is stored)."""

    id: UUID
    workspace: str
    principal: str
    read_only: bool
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class TokenCreated:
    """A new bearer token: ``token`` is its secret, shown this once."""

    token: str
    id: UUID
    workspace: str
    principal: str
    read_only: bool
    created_at: datetime


@dataclass(frozen=True)
class AgentLogin:
    """A login role made by ``beliefdb agent create``, bound to one workspace; never its password.
    ``workspace`` is None once that workspace was deleted (the login then sees and writes nothing);
    ``can_login`` is False when the role was dropped or altered by hand since."""

    name: str
    workspace: str | None
    workspace_id: UUID
    created_at: datetime
    can_login: bool


@dataclass(frozen=True)
class AgentCreated:
    """A new agent login: ``password`` and ``url`` (which holds it) are shown this once."""

    name: str
    workspace: str
    workspace_id: UUID
    created_at: datetime
    password: str
    url: str


@dataclass(frozen=True)
class Identity:
    """Who a bearer token speaks for: the principal and the workspace the servers bind to it."""

    token_id: UUID
    workspace_id: UUID
    workspace: str
    principal: str
    read_only: bool
