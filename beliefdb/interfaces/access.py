"""Who is calling, and the memory they reach: a bearer token names a principal and a workspace
(``beliefdb token create``); the servers take both from it, never from the request."""

from __future__ import annotations

import threading
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


class Memories:
    """The memory each bearer token speaks for: one :class:`BeliefDB` per principal and workspace,
    opened on first use and kept open (each its own small pool). Every request asks the database
    who its token speaks for, so a revoked token stops working at once."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._gate: api.Authenticator | None = None  # opened on first use
        self._open: dict[tuple[UUID, str], BeliefDB] = {}
        self._lock = threading.Lock()

    def identify(self, token: str | None) -> Identity:
        with self._lock:
            if self._gate is None:
                self._gate = api.authenticator(self.url)
            gate = self._gate
        return gate.identify(token)

    def memory(self, who: Identity) -> BeliefDB:
        key = (who.workspace_id, who.principal)
        with self._lock:
            found = self._open.get(key)
            if found is None:
                found = self._open[key] = api.connect(self.url, who.workspace, principal=who.principal)
            return found

    def require_writer(self, who: Identity) -> None:
        if who.read_only:
            raise errors.ReadOnlyToken("this token is read-only: it may read and preview, not change anything")

    def close(self) -> None:
        with self._lock:
            for db in self._open.values():
                db.close()
            self._open.clear()
            if self._gate is not None:
                self._gate.close()
                self._gate = None
