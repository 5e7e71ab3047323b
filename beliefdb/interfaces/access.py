"""Who is calling, and the memory they reach: a bearer token names a principal and a workspace
(``beliefdb token create``); the servers take both from it, never from the request."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from uuid import UUID

from beliefdb import api, errors
from beliefdb.api import BeliefDB
from beliefdb.models import Identity

#: how the servers answer each kind of error (the body is always {"error": code, "message": ...})
STATUS: tuple[tuple[type[errors.BeliefDBError], int], ...] = (
    (errors.Unauthenticated, 401),
    (errors.PermissionDenied, 403),  # not_owner, clock_not_allowed and read_only_token too
    (errors.NotFound, 404),  # unknown_workspace too
    (errors.StaleCorrectionPreview, 409),
    (errors.IdempotencyKeyReused, 409),
    (errors.IntegrityViolation, 409),
    (errors.DatabaseUnavailable, 503),
    (errors.ExtractorUnavailable, 503),
    (errors.InvalidInput, 400),
    (errors.AmbiguousId, 400),
    (errors.EvidenceMismatch, 400),
)


def status_of(exc: errors.BeliefDBError) -> int:
    """The HTTP status of a beliefdb error (500 for one no rule names: a bug to fix)."""
    return next((status for kind, status in STATUS if isinstance(exc, kind)), 500)


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
#: how long a memory set aside stays open at least, for a call that was handed it just before (and
#: has not yet taken a connection of it). Every one set aside stays open that long: at 10 s, 20
#: threads calling for 45 principals at random kept 90 connections open, past the server's limit
GRACE_S = 1.0


class Memories:
    """The memory each bearer token speaks for: one :class:`BeliefDB` per principal and workspace,
    opened on first use and kept open (each its own small pool), at most ``max_open`` of them: the
    least recently used is set aside and closed once no call holds one of its connections (so a
    server for thousands of principals keeps tens of connections, not thousands). Every request asks
    the database who its token speaks for, so a revoked token stops working at once."""

    def __init__(self, url: str, *, max_open: int = MAX_OPEN, grace_s: float = GRACE_S) -> None:
        if max_open < 1:
            raise errors.InvalidInput(f"max_open must be at least 1, not {max_open}")
        self.url = url
        self.max_open, self.grace_s = max_open, grace_s
        self._gate: api.Authenticator | None = None  # opened on first use
        self._open: OrderedDict[tuple[UUID, str], BeliefDB] = OrderedDict()
        self._handed: dict[int, float] = {}  # id(memory) -> when it was last handed to a call
        self._retired: list[BeliefDB] = []
        self._lock = threading.Lock()

    @property
    def open_count(self) -> int:
        """How many memories hold a pool now (kept, or set aside and still in use)."""
        with self._lock:
            return len(self._open) + len(self._retired)

    def identify(self, token: str | None) -> Identity:
        with self._lock:
            # (every call comes here first: the memories set aside are closed even when the calls that
            # would have closed them fail, e.g. while the server refuses new connections)
            self._close_idle()
            if self._gate is None:
                self._gate = api.authenticator(self.url)
            gate = self._gate
        return gate.identify(token)

    def memory(self, who: Identity) -> BeliefDB:
        key = (who.workspace_id, who.principal)
        with self._lock:
            self._close_idle()
            found = self._open.get(key)
            if found is None:
                found = self._open[key] = api.connect(self.url, who.workspace, principal=who.principal,
                                                      max_size=PER_MEMORY)
            self._open.move_to_end(key)
            self._handed[id(found)] = time.monotonic()
            while len(self._open) > self.max_open:
                self._retired.append(self._open.popitem(last=False)[1])
            self._close_idle()
            return found

    def _close_idle(self) -> None:
        """Close the memories set aside that no call holds (and none was handed just now); under the lock."""
        now, keep = time.monotonic(), []
        for db in self._retired:
            if db.database.in_use == 0 and now - self._handed.get(id(db), 0.0) >= self.grace_s:
                self._handed.pop(id(db), None)
                db.close()
            else:
                keep.append(db)
        self._retired = keep

    def require_writer(self, who: Identity) -> None:
        if who.read_only:
            raise errors.ReadOnlyToken("this token is read-only: it may read and preview, not change anything")

    def close(self) -> None:
        with self._lock:
            for db in [*self._open.values(), *self._retired]:
                db.close()
            self._open.clear()
            self._retired.clear()
            self._handed.clear()
            if self._gate is not None:
                self._gate.close()
                self._gate = None
