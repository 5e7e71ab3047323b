"""Lifecycle and operations: confidence rounds, expiry, outcomes, calibration,
migrations, workspaces, the embedded server, settings, the rules.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
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
    #: the same request again by its idempotency key, nothing recorded: the outcome the first one recorded
    #: (the action's status now; rule 18)
    already_applied: bool = False



@dataclass(frozen=True)
class Migration:
    """The schema revision before and after a migration (equal: it was already current, or ``refreshed``:
    at that revision, its functions, views and grants were another build's of beliefdb, by their fingerprint, and
    this one's were applied again)."""

    before: str | None
    after: str
    refreshed: bool = False
    # grants on beliefdb's objects that its allow-list does not make, revoked (default privileges of
    # the migrating role, or by hand): one line per role, naming it and what it held
    revoked: tuple[str, ...] = ()


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
    functions, views and grants (the fingerprint ``migrate`` records), and with the extensions where
    those functions look for them (``moved_extensions``: each moved since, and the schema it is in now)."""

    current: str | None
    head: str
    behind: int | None
    up_to_date: bool
    moved_extensions: dict[str, str] = field(default_factory=dict)



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
class RevokedToken(Token):
    """A bearer token ``revoke_token`` revoked: ``already_revoked`` when it was revoked before (at
    ``revoked_at``), and nothing changed."""

    already_revoked: bool = False


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
    ``can_login`` is False when the role was dropped or altered by hand since. ``role_of_database``:
    another database of this server, when the role was made for that one: this database is a copy of it
    (restored from its dump, or made from it as a template), whose bindings came along while the role is the
    cluster's, shared (None otherwise). ``read_only``: an auditor's login (``agent create --read-only``), a member
    of beliefdb_reader and not of beliefdb_app: it reads its workspace and never writes."""

    name: str
    workspace: str | None
    workspace_id: UUID
    created_at: datetime
    can_login: bool
    role_of_database: str | None = None
    read_only: bool = False


@dataclass(frozen=True)
class AgentCreated:
    """A new agent login: ``password`` and ``url`` (which holds it) are shown this once. ``read_only``: granted
    beliefdb_reader instead of beliefdb_app (an auditor of the workspace: it reads and never writes)."""

    name: str
    workspace: str
    workspace_id: UUID
    created_at: datetime
    password: str
    url: str
    read_only: bool = False


@dataclass(frozen=True)
class Identity:
    """Who a bearer token speaks for: the principal and the workspace the servers bind to it."""

    token_id: UUID
    workspace_id: UUID
    workspace: str
    principal: str
    read_only: bool
