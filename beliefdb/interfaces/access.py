"""Who is calling, and the memory they reach: a bearer token names a principal and a workspace
(``beliefdb token create``); the servers take both from it, never from the request."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from beliefdb import api, errors, settings
from beliefdb.api import BeliefDB
from beliefdb.db.pooling import PROBE_AFTER
from beliefdb.models import AskResult, Identity
from beliefdb.openai_client import MAX_RETRY_AFTER

#: how the servers answer each kind of error (the body is always {"error": code, "message": ...})
STATUS: tuple[tuple[type[errors.BeliefDBError], int], ...] = (
    (errors.Unauthenticated, 401),
    (errors.PermissionDenied, 403),  # not_owner, clock_not_allowed and read_only_token too
    (errors.AlreadyRetracted, 409),  # (a NotFound: before it)
    (errors.NotFound, 404),  # unknown_workspace too
    (errors.PayloadTooLarge, 413),
    (errors.StaleCorrectionPreview, 409),
    (errors.StalePreview, 409),
    (errors.IdempotencyKeyReused, 409),
    (errors.IntegrityViolation, 409),
    (errors.NotCorrectable, 409),  # (an InvalidInput: before it)
    (errors.AlreadyResolved, 409),  # (an InvalidInput: before it)
    (errors.DocumentTooLarge, 413),  # (an InvalidInput: before it)
    (errors.DatabaseUnavailable, 503),
    (errors.ExtractorUnavailable, 503),
    (errors.ExtractorRefused, 502),  # the llm endpoint refused the request: trying again cannot help
    (errors.EmbedderRefused, 502),  # so did the embeddings endpoint
    (errors.InvalidInput, 400),
    (errors.AmbiguousId, 400),
    (errors.EvidenceMismatch, 400),
)


def status_of(exc: errors.BeliefDBError) -> int:
    """The HTTP status of a beliefdb error (500 for one no rule names: a bug to fix)."""
    return next((status for kind, status in STATUS if isinstance(exc, kind)), 500)


def code_of(exc: errors.BeliefDBError) -> str:
    """The code the HTTP API answers a beliefdb error with: its own, but ``payload_too_large`` for a text over
    the ingest limit, answered 413 as a body over the limit is (the library, the CLI and MCP: invalid_input)."""
    return errors.PayloadTooLarge.code if isinstance(exc, errors.DocumentTooLarge) else exc.code


#: the seconds a 503 workspace_busy asks a client to wait: another writer held the workspace for
#: BELIEFDB_LOCK_TIMEOUT, and nothing was written
BUSY_RETRY_AFTER = 1
#: the seconds a 503 database_unavailable asks a client to wait before trying again: once the database is
#: back, a call is served after at most the pool's probe (it then renews its connections), so just past it
DATABASE_RETRY_AFTER = math.ceil(PROBE_AFTER) + 1


def read_only_hint(message: str) -> str:
    """A not_owner's ``message`` for a read-only token: its hint (propose a correction, raise a conflict)
    names changes that token cannot make, so it says who can instead."""
    said = message.split(" (hint: ", 1)[0]
    return (f"{said} (hint: this token is read-only: it reads and previews, and proposes nothing; its owner, or a"
            " token that may write, can)")


def extractor_retry_after() -> int:
    """The seconds a 503 extractor_unavailable asks a client to wait: the wait the llm client would have
    taken next (BELIEFDB_LLM_BACKOFF doubled for each of its BELIEFDB_LLM_HTTP_RETRIES, 4 by default) in
    whole seconds, at least 1 and at most the 30 it waits itself for an endpoint's Retry-After."""
    current = settings.load()
    wait = current.llm_backoff * 2.0 ** min(current.llm_http_retries, 32)
    return max(1, min(math.ceil(wait), math.ceil(MAX_RETRY_AFTER)))


def retry_seconds(exc: errors.BeliefDBError | str) -> int | None:
    """The seconds to wait before trying again after a 503 (an error, or its code); None for another, which
    trying again will not mend. The HTTP API sends them as ``Retry-After``, the MCP tools as ``retry_after``."""
    code = exc if isinstance(exc, str) else exc.code
    seconds = {errors.WorkspaceBusy.code: lambda: BUSY_RETRY_AFTER,
               errors.DatabaseUnavailable.code: lambda: DATABASE_RETRY_AFTER,
               errors.ExtractorUnavailable.code: extractor_retry_after}.get(code)
    return seconds() if seconds is not None else None


def answered(answer: AskResult) -> AskResult:
    """An ask's answer as a server's door sends it: memory that could not be asked (``memory_unavailable``) is
    the error that kept it from answering, ``workspace_busy`` (another writer held the workspace) or else
    ``database_unavailable``, a 503 with Retry-After over HTTP and a tool error with ``retry_after`` over MCP,
    as every other call answers them (the library and the CLI answer it as a status, with the code)."""
    if answer.status == "memory_unavailable":
        if answer.error == errors.WorkspaceBusy.code:
            raise errors.WorkspaceBusy(answer.reason or "another writer holds this workspace: try again")
        raise errors.DatabaseUnavailable(f"memory unavailable: {answer.reason}")
    return answer


def retry_after(exc: errors.BeliefDBError | str) -> dict[str, str]:
    """The ``Retry-After`` header of a 503 (an error, or its code), JSON or page alike; none for another."""
    seconds = retry_seconds(exc)
    return {"Retry-After": str(seconds)} if seconds is not None else {}


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer ...`` header."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


#: how many principals' memories the servers keep open at once (each a pool that keeps a connection
#: open): past it, the one used least recently is closed once no call is using it
MAX_OPEN = 32
#: connections one principal's memory opens at most (its calls at once; more wait for one)
PER_MEMORY = 2


class Memories:
    """The memory each bearer token speaks for: one :class:`BeliefDB` per principal and workspace,
    opened on first use and kept open (each its own small pool), at most ``max_open`` of them: the
    least recently used is set aside, and closed when the last call using it ends (so a server for
    thousands of principals keeps tens of connections, not thousands). A call holds its memory from
    :meth:`lease` to its end, between its transactions too: a memory set aside is never closed under
    a call still using it. Every request asks the database who its token speaks for, so a revoked
    token stops working at once."""

    def __init__(self, url: str, *, max_open: int = MAX_OPEN) -> None:
        if max_open < 1:
            raise errors.InvalidInput(f"max_open must be at least 1, not {max_open}")
        self.url = url
        self.max_open = max_open
        self._gate: api.Authenticator | None = None  # opened on first use
        self._open: OrderedDict[tuple[UUID, str], BeliefDB] = OrderedDict()
        self._leases: dict[int, int] = {}  # id(memory) -> how many calls hold it now
        self._retired: dict[int, BeliefDB] = {}  # set aside, closed when its last lease ends
        self._lock = threading.Lock()

    @property
    def open_count(self) -> int:
        """How many memories hold a pool now (kept, or set aside and still in use)."""
        with self._lock:
            return len(self._open) + len(self._retired)

    def identify(self, token: str | None) -> Identity:
        with self._lock:
            if self._gate is None:
                self._gate = api.authenticator(self.url)
            gate = self._gate
        return gate.identify(token)

    @contextmanager
    def lease(self, who: Identity) -> Iterator[BeliefDB]:
        """The memory of ``who``'s principal in its workspace, held for the ``with`` block: the call's
        whole length, whatever it does between its transactions."""
        key = (who.workspace_id, who.principal)
        retire: list[BeliefDB] = []
        with self._lock:
            found = self._open.get(key)
            if found is None:
                found = self._open[key] = api.connect(self.url, who.workspace, principal=who.principal,
                                                      max_size=PER_MEMORY)
            self._open.move_to_end(key)
            self._leases[id(found)] = self._leases.get(id(found), 0) + 1
            while len(self._open) > self.max_open:
                retire.append(self._open.popitem(last=False)[1])
            idle = self._set_aside(retire)
        self._close(idle)
        try:
            yield found
        except errors.NotOwner as exc:
            if not who.read_only:
                raise
            raise errors.NotOwner(read_only_hint(exc.message)) from None
        finally:
            with self._lock:
                left = self._leases.pop(id(found), 1) - 1  # (none left after close(): the server stopped)
                if left:
                    self._leases[id(found)] = left
                idle = [self._retired.pop(id(found))] if not left and id(found) in self._retired else []
            self._close(idle)

    def _set_aside(self, memories: list[BeliefDB]) -> list[BeliefDB]:
        """Set these memories aside (under the lock): those no call holds, to close now."""
        idle = []
        for db in memories:
            if id(db) in self._leases:
                self._retired[id(db)] = db
            else:
                idle.append(db)
        return idle

    @staticmethod
    def _close(memories: list[BeliefDB]) -> None:
        """Close these memories (outside the lock: closing a pool waits for its workers)."""
        for db in memories:
            db.close()

    @staticmethod
    def require_writer(who: Identity) -> None:
        if who.read_only:
            raise errors.ReadOnlyToken("this token is read-only: it may read and preview, not change anything")

    def close(self) -> None:
        with self._lock:
            memories = [*self._open.values(), *self._retired.values()]
            self._open.clear()
            self._retired.clear()
            self._leases.clear()
            gate, self._gate = self._gate, None
        self._close(memories)
        if gate is not None:
            gate.close()
