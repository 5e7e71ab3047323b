"""Bearer tokens of the HTTP and MCP servers: each binds one principal to one workspace.

A token is ``bdb_`` and 43 random URL-safe characters; the database keeps only the SHA-256 of it.
Making, listing and revoking tokens is the schema owner's (the database user that runs ``beliefdb
migrate``), as deleting a workspace is: the application role may not read the table, so no agent
can mint itself a token that speaks for someone else. The servers ask ``beliefdb.authenticate``,
which the application role may call, who a token speaks for (:class:`Authenticator`).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

import psycopg
from psycopg.rows import class_row

from beliefdb import errors
from beliefdb.db.connector import app_pool, connect, not_installed, probe, translated_errors
from beliefdb.db.queries import Q
from beliefdb.inputs import check_workspace_name
from beliefdb.models import Identity, RevokedToken, Token, TokenCreated

PREFIX = "bdb_"
_PRINCIPAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:+-]{0,127}$")


def digest(token: str) -> bytes:
    """The SHA-256 the database keeps of a token."""
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).digest()


def _owner_connection(url: str) -> psycopg.Connection[Any]:
    probe(url)
    with translated_errors():
        conn = connect(url)
        installed = conn.execute(Q.beliefdb_installed).fetchone()
    if installed is None or installed[0] is None:
        conn.close()
        raise not_installed()
    return conn


def _as_owner(exc: errors.PermissionDenied) -> errors.PermissionDenied:
    return errors.PermissionDenied(
        f"managing tokens takes the schema owner (who runs 'beliefdb migrate'): {exc.message}")


def create_token(url: str, workspace: str, principal: str, *, read_only: bool = False) -> TokenCreated:
    """A new token for ``principal`` in ``workspace``; its secret is in the result and nowhere else."""
    check_workspace_name(workspace)
    if not _PRINCIPAL.match(principal):
        raise errors.InvalidInput(
            f"invalid principal '{principal}': use 1-128 letters, digits, '_', '.', '@', ':', '+', '-',"
            " starting with a letter or digit")
    token = PREFIX + secrets.token_urlsafe(32)
    try:
        with _owner_connection(url) as conn, translated_errors(), conn.transaction():
            found = conn.execute(Q.workspace_by_name, (workspace,)).fetchone()
            if found is None:
                raise errors.UnknownWorkspace(f"unknown workspace '{workspace}'")
            row = conn.execute(Q.token_insert, {"workspace_id": found[0], "sha256": digest(token),
                                                "principal": principal, "read_only": read_only}).fetchone()
    except errors.PermissionDenied as exc:
        raise _as_owner(exc) from exc
    assert row is not None
    return TokenCreated(token=token, id=row[0], workspace=workspace, principal=principal, read_only=read_only,
                        created_at=row[1])


def list_tokens(url: str, workspace: str | None = None) -> list[Token]:
    """The tokens (of ``workspace``, or of all), oldest first: ids, principals, never secrets."""
    if workspace is not None:
        check_workspace_name(workspace)
    try:
        with _owner_connection(url) as conn, translated_errors(), conn.cursor(row_factory=class_row(Token)) as cur:
            if workspace is not None and conn.execute(Q.workspace_by_name, (workspace,)).fetchone() is None:
                raise errors.UnknownWorkspace(f"unknown workspace '{workspace}'")
            cur.execute(Q.token_list, {"workspace": workspace})
            return cur.fetchall()
    except errors.PermissionDenied as exc:
        raise _as_owner(exc) from exc


def revoke_token(url: str, ref: str) -> RevokedToken:
    """Revoke a token by id or unique id prefix of at least 4 characters, as every id prefix (a shorter
    one is refused even when it names one token, ambiguous when it begins several). Revoking it again
    changes nothing and says so (``already_revoked``)."""
    text = ref.strip().lower()
    if not re.fullmatch(r"[0-9a-f-]{1,36}", text):
        raise errors.InvalidInput(f"not a token id: '{ref}' (the id 'beliefdb token list' shows, not the secret)")
    short = len(text.replace("-", "")) < 4
    try:
        with _owner_connection(url) as conn, translated_errors(), conn.transaction():
            ids = conn.execute(Q.token_by_prefix, (text,)).fetchall()
            if len(ids) > 1:
                more = "at least 4 characters" if short else "more characters"
                raise errors.AmbiguousId(f"token id prefix {ref} matches more than one token: give {more} of the id")
            if short:
                raise errors.InvalidInput(f"token id prefix {ref} is too short: give at least 4 characters of the id")
            if not ids:
                raise errors.NotFound(f"unknown token {ref}")
            with conn.cursor(row_factory=class_row(RevokedToken)) as cur:
                cur.execute(Q.token_revoke, (ids[0][0],))
                revoked = cur.fetchone()
    except errors.PermissionDenied as exc:
        raise _as_owner(exc) from exc
    assert revoked is not None
    return revoked


#: what a call without a token is told
NO_TOKEN = "a valid bearer token is required (beliefdb token create)"


class Authenticator:
    """Who bearer tokens speak for, asked of the database each time (a revoked token stops working at
    once), over a small pool of the application role's connections bound to no workspace."""

    def __init__(self, url: str) -> None:
        self._pool = app_pool(url)
        self._url = url

    def identify(self, token: str | None) -> Identity:
        """The principal and workspace of a valid token; :class:`~beliefdb.errors.Unauthenticated`
        for none, an unknown or a revoked one."""
        if not token or not token.startswith(PREFIX) or len(token) > 256:
            raise errors.Unauthenticated(NO_TOKEN)
        with translated_errors(), self._pool.connection() as conn, \
                conn.cursor(row_factory=class_row(Identity)) as cur:
            cur.execute(Q.authenticate, (digest(token),))
            found = cur.fetchone()
        if found is None:
            raise errors.Unauthenticated("unknown or revoked bearer token")
        return found

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Authenticator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["PREFIX", "Authenticator", "create_token", "digest", "list_tokens", "revoke_token"]
