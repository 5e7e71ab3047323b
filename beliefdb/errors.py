"""beliefdb's exceptions. Each has a stable code that the CLI prints with ``--json``; an error code
of beliefdb's SQL (``beliefdb.error_code``) raises the exception :data:`BY_ERROR_CODE` names, whose
code is the error code's name."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Final, Literal

from beliefdb.vocabulary import ErrorCode

#: Who reads the messages raised here: a program calling the library (``reason=``), a person at the
#: command line (``--reason``), or an agent over the HTTP API or the MCP tools (the body's field or the
#: tool's argument, ``reason``, a GET's query parameter ``include_fixtures=true``, and a hint names what
#: that door offers: ``POST /beliefs``, the tool ``remember``). The CLI and the servers say so for what
#: they run (:func:`wording`); anyone else gets the library's words.
Reader = Literal["library", "cli", "http", "mcp"]
_READER: ContextVar[Reader] = ContextVar("beliefdb_reader", default="library")
#: whether an HTTP request's arguments are its URL's query parameters (a GET's: ``include_fixtures=true``)
_QUERY: ContextVar[bool] = ContextVar("beliefdb_query", default=False)


@contextmanager
def wording(reader: Reader, *, query: bool = False) -> Iterator[None]:
    """Word the messages raised inside the block for ``reader`` (threads started inside get the
    library's words unless they copy the context); ``query``: over HTTP, the arguments they name are
    the URL's query parameters (a GET's), not the body's fields."""
    token, asked = _READER.set(reader), _QUERY.set(query)
    try:
        yield
    finally:
        _READER.reset(token)
        _QUERY.reset(asked)


#: whether the messages raised are for a remote caller of ``beliefdb serve`` (an agent, a browser), who is
#: not told how the server reaches its database (its socket's path, its host and port, a login)
_REMOTE: ContextVar[bool] = ContextVar("beliefdb_remote", default=False)


@contextmanager
def remote() -> Iterator[None]:
    """Word the messages raised inside the block for a remote caller of a server (:data:`_REMOTE`)."""
    token = _REMOTE.set(True)
    try:
        yield
    finally:
        _REMOTE.reset(token)


def for_remote() -> bool:
    """Whether the messages raised now are for a remote caller of a server."""
    return _REMOTE.get()


def spelled(library: str, cli: str, *, http: str | None = None, mcp: str | None = None) -> str:
    """One phrase of a message as its reader knows it: ``library`` for a program (a method, an
    argument), ``cli`` at the command line (a command, an option), ``http`` and ``mcp`` for an agent
    over those doors when what the library offers is not theirs (a file, a method): their resource or
    tool (otherwise the library's). The message itself is written once."""
    reader = _READER.get()
    if reader == "cli":
        return cli
    said = {"http": http, "mcp": mcp}.get(reader)
    return library if said is None else said


def argument(name: str, value: object = None, *, option: str | None = None) -> str:
    """An argument as a message names it: the library's keyword, ``reason=`` (with ``value``:
    ``force=True``, ``extractor='llm'``), at the command line its option, ``--reason``
    (``--force``, ``--extractor llm``; ``option`` when the CLI spells it otherwise than ``name``
    with dashes), and over HTTP and MCP the body's field or the tool's argument, ``reason`` (``force: true``;
    a GET's query parameter ``include_fixtures=true``)."""
    flag = option or "--" + name.replace("_", "-")
    if value is None:
        return spelled(f"{name}=", flag, http=name, mcp=name)
    field = f"{name}: {json.dumps(value)}" if isinstance(value, (bool, int, float, str)) else name
    parameter = f"{name}={json.dumps(value) if isinstance(value, bool) else value}" if _QUERY.get() else field
    return spelled(f"{name}={value!r}", flag if value is True else f"{flag} {value}", http=parameter, mcp=field)


class BeliefDBError(Exception):
    """Base of every error beliefdb raises on purpose."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(BeliefDBError):
    """The caller's input cannot be used (bad file, bad JSONL line, bad option)."""

    code = ErrorCode.invalid_input.name

    def __init__(self, message: str) -> None:
        super().__init__(bounded(message))


#: the longest word (an id, a name without spaces) an error that echoes what it was given says whole
LONGEST_WORD = 100
#: and the longest such message (what was given may have spaces)
LONGEST_MESSAGE = 1000


def echoed(message: str) -> str:
    """A message that names what the caller gave (an unknown id of 10 kB), bounded: a word longer than
    :data:`LONGEST_WORD` keeps its start and says how long it was, and a message still longer than
    :data:`LONGEST_MESSAGE` keeps its start and its end (the hint)."""
    message = re.sub(rf"\S{{{LONGEST_WORD + 1},}}", lambda m: f"{m.group()[:48]}… ({len(m.group()):,} characters)",
                     message)
    return bounded(message)


def bounded(message: str) -> str:
    """A message longer than :data:`LONGEST_MESSAGE` keeps its start and its end (the hint): bad input of
    10 kB (a moment, a name) is not echoed whole, while a long path or id in it is kept."""
    if len(message) > LONGEST_MESSAGE:
        message = f"{message[:600]} … ({len(message) - 800:,} characters left out) … {message[-200:]}"
    return message


class NotFound(BeliefDBError):
    """An id, name or file that does not exist."""

    code = ErrorCode.not_found.name

    def __init__(self, message: str) -> None:
        super().__init__(echoed(message))


class UnknownWorkspace(NotFound):
    """A workspace that does not exist: never created, or deleted since a memory was opened on it."""

    code = ErrorCode.unknown_workspace.name


class UnknownBelief(NotFound):
    """A belief id or prefix that names no belief of the workspace (or one forgotten since)."""

    code = "unknown_belief"


class AmbiguousId(BeliefDBError):
    """An id prefix that begins more than one node's id: give more of it."""

    code = ErrorCode.ambiguous_id.name

    def __init__(self, message: str) -> None:
        super().__init__(echoed(message))


class EvidenceMismatch(BeliefDBError):
    """The database refused evidence whose quote is not the source text at its offsets."""

    code = ErrorCode.evidence_mismatch.name


class IntegrityViolation(BeliefDBError):
    """A rule the database keeps (supersession cycle, duplicate name, ...) was broken."""

    code = ErrorCode.integrity_violation.name


class DatabaseUnavailable(BeliefDBError):
    """The database cannot be reached or started, or none of a memory's pooled connections came free in 30 s
    (each stayed in use by another call: open the memory with a larger ``max_size``)."""

    code = "database_unavailable"


class WorkspaceBusy(DatabaseUnavailable):
    """Another writer held the workspace's write lock (or a migration a table) longer than
    ``BELIEFDB_LOCK_TIMEOUT``; nothing was changed (the servers answer 503)."""

    code = "workspace_busy"


class StatisticsBusy(WorkspaceBusy):
    """Another session (of any workspace) gathered planner statistics of a table this change needed longer than
    ``BELIEFDB_LOCK_TIMEOUT``: sessions take turns at it database-wide. A forget or a workspace delete of its own
    transaction has been tried again first; nothing was changed."""


class DatabaseReadOnly(DatabaseUnavailable):
    """The database takes no writes (a hot standby, or ``default_transaction_read_only``): a change is refused
    and nothing was changed; reads work (the servers answer 503)."""

    code = "database_read_only"


class SchemaMismatch(DatabaseUnavailable):
    """The database's beliefdb schema is not this beliefdb's: a function, column or type it calls is missing
    (another release migrated it; run ``beliefdb migrate``). Nothing was changed (the servers answer 503)."""

    code = "schema_mismatch"


class PermissionDenied(BeliefDBError):
    """The login may not do this (a role, a grant, an agent bound to another workspace): the message says what."""

    code = "permission_denied"


class NotOwner(PermissionDenied):
    """Only a belief's owner may change its status: propose a correction or raise a conflict."""

    code = ErrorCode.not_owner.name


class StaleCorrectionPreview(BeliefDBError):
    """The belief changed since the preview: preview again, then apply with the new revision."""

    code = ErrorCode.stale_correction_preview.name


class StalePreview(BeliefDBError):
    """What the change would do is no longer what its preview showed (its fingerprint): nothing was
    written; preview again (the servers answer 409)."""

    code = "stale_preview"


class IdempotencyKeyReused(BeliefDBError):
    """An idempotency key already named another request: nothing was written (the servers answer 409)."""

    code = ErrorCode.idempotency_key_reused.name


class ClockNotAllowed(PermissionDenied):
    """The session fixed its clock (``beliefdb.now``) and its login may not write with a fixed clock."""

    code = ErrorCode.clock_not_allowed.name


class Unauthenticated(BeliefDBError):
    """No valid bearer token: none given, unknown, or revoked (the servers answer 401)."""

    code = "unauthenticated"


class ReadOnlyToken(PermissionDenied):
    """A read-only token asked for a change (the servers answer 403)."""

    code = "read_only_token"


class AlreadyRetracted(NotFound):
    """Nothing to retract: what the retraction names is retracted already (a retry of one that was applied;
    the servers answer 409). A NotFound, as it was before it had its own code."""

    code = "already_retracted"


class AlreadyResolved(InvalidInput):
    """A verdict on a review item approved, rejected or closed already (one sent again, or on an item that
    settled by itself; the message says by whom; the servers answer 409). An InvalidInput, as it was before."""

    code = "already_resolved"


class PayloadTooLarge(BeliefDBError):
    """A request body over the server's limit, refused as it arrives, before it is read (the HTTP API
    answers 413; no SQL raises it)."""

    code = "payload_too_large"


class DocumentTooLarge(InvalidInput):
    """A text over the ingest limit: invalid_input to the library, the CLI and MCP; the HTTP API answers 413."""


class ExtractorUnavailable(BeliefDBError):
    """An extractor's service (e.g. the LLM endpoint) failed or kept answering unusably; nothing was stored."""

    code = "extractor_unavailable"


class ExtractorRefused(BeliefDBError):
    """An extractor's service refused the request (the LLM endpoint answered HTTP 400, 401, 403, 404 or 422:
    a bad key, an unknown model): trying again cannot help until its settings change; nothing was stored."""

    code = "extractor_refused"


class PlotUnavailable(BeliefDBError):
    """The reliability diagram was asked for but matplotlib (the ``plot`` extra) is not installed."""

    code = "plot_unavailable"


class ModelMismatch(BeliefDBError):
    """The workspace's embeddings belong to another model."""

    code = ErrorCode.embedding_model_mismatch.name


class WorkspaceNotEmpty(InvalidInput):
    """A workspace that still holds data is deleted only when asked to (``force``)."""

    code = "workspace_not_empty"


class NotCorrectable(InvalidInput):
    """The belief cannot be corrected in the state it is in now: superseded (the message names the belief that
    replaced it, and the one in force where that was replaced in turn: correct that one), retracted (restore it
    first), or, for another principal's proposal, not current. A conflict with the current state, as a changed
    revision is: nothing was written (the servers answer 409). Still an :class:`InvalidInput`, as it was before."""

    code = "not_correctable"


class DatabaseNotEmpty(InvalidInput):
    """A restore goes into a database without beliefdb, unless asked to replace it (``clean``)."""

    code = "database_not_empty"


class EmbedderUnavailable(BeliefDBError):
    """The embedder cannot embed right now (endpoint down, model missing)."""

    code = "embedder_unavailable"


class EmbedderRefused(EmbedderUnavailable):
    """The embeddings endpoint refused the request (HTTP 400, 401, 403, 404 or 422: a bad key, an unknown
    model): trying again cannot help until its settings change. Still an :class:`EmbedderUnavailable`, so
    what does without the embedder still does (a write defers its vectors, ``ask`` searches text and names)."""

    code = "embedder_refused"


class MigrationFailed(BeliefDBError):
    """A migration stopped on an error of the database; nothing of it was applied."""

    code = "migration_failed"


class ExtensionConflict(MigrationFailed):
    """An extension beliefdb needs (pgvector, pg_trgm) cannot be used as the database has it: not on
    the server, not creatable by the migrating user, or too old. beliefdb never creates it where it
    may not, nor updates or moves one it did not create: the message's hint says who does what."""

    code = "extension_conflict"


class ServeUnavailable(BeliefDBError):
    """The servers' packages (FastAPI, uvicorn, the MCP SDK) are not installed, or the server cannot listen
    (its port in use, say)."""

    code = "serve_unavailable"


#: What each error code of beliefdb's SQL raises here (the one internal code, preview_rolled_back,
#: never leaves the database).
BY_ERROR_CODE: Final[Mapping[str, type[BeliefDBError]]] = MappingProxyType({
    ErrorCode.evidence_mismatch: EvidenceMismatch,
    ErrorCode.integrity_violation: IntegrityViolation,
    ErrorCode.unknown_workspace: UnknownWorkspace,
    ErrorCode.not_found: NotFound,
    ErrorCode.invalid_input: InvalidInput,
    ErrorCode.ambiguous_id: AmbiguousId,
    ErrorCode.stale_correction_preview: StaleCorrectionPreview,
    ErrorCode.not_owner: NotOwner,
    ErrorCode.idempotency_key_reused: IdempotencyKeyReused,
    ErrorCode.clock_not_allowed: ClockNotAllowed,
    ErrorCode.embedding_model_mismatch: ModelMismatch,
})


def from_error_code(sqlstate: str, message: str, detail: Mapping[str, object] | None = None) -> BeliefDBError | None:
    """The exception for one of beliefdb's own error codes, or None for any other SQLSTATE. A not-found
    whose ``detail`` (the JSON object of the error's DETAIL, :func:`beliefdb.db.connector.sql_detail`) says
    it looked for a belief (``{"unknown": ["belief"]}``: ``beliefdb.resolve_belief`` found no belief by
    that id or prefix; ``beliefdb.resolve_node`` lists every kind it looked among) is :class:`UnknownBelief`,
    whatever its words; an invalid input whose detail names the state that keeps a belief from being corrected
    (``{"not_correctable": "superseded", ...}``: ``beliefdb._correction_is_proposal``) is :class:`NotCorrectable`;
    nothing to retract because it is retracted already (``{"already": "retracted"}``: ``beliefdb.retract``) is
    :class:`AlreadyRetracted`, and a verdict on a review item resolved already (``{"already": "resolved"}``) is
    :class:`AlreadyResolved`."""
    kind = BY_ERROR_CODE.get(sqlstate)
    unknown = (detail or {}).get("unknown")
    if kind is NotFound and isinstance(unknown, list) and "belief" in unknown:
        kind = UnknownBelief
    if kind is InvalidInput and (detail or {}).get("not_correctable") is not None:
        kind = NotCorrectable
    if kind is NotFound and (detail or {}).get("already") == "retracted":
        kind = AlreadyRetracted
    if kind is InvalidInput and (detail or {}).get("already") == "resolved":
        kind = AlreadyResolved
    return kind(message) if kind is not None else None
