"""Per-agent logins: a database login role per agent, with a SCRAM-SHA-256 password, granted
``beliefdb_app`` and bound to one workspace (``beliefdb.agent_login``); or, for an auditor of one workspace,
granted ``beliefdb_reader`` instead (``read_only``): it reads that workspace and never writes (rule 13 of
docs/rules.md), and binds no other.

A session logged in as such a role is its own principal (``beliefdb.current_principal``: the login,
whatever it sets) and acts in its workspace only (``beliefdb.current_workspace_id`` refuses a
``beliefdb.workspace_id`` setting that names another). Making, listing and dropping them is the schema
owner's (the database user that runs ``beliefdb migrate``), as tokens are; the role's password is in
the result of :func:`create_agent` and nowhere else (the database keeps its SCRAM verifier, computed
here, so the password never travels to the server nor lands in its log).
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import quote, urlencode

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import APP_ROLE, READER_ROLE, translate, translated_errors
from beliefdb.db.queries import Q
from beliefdb.inputs import check_workspace_name
from beliefdb.models import AgentCreated, AgentLogin
from beliefdb.store.tokens import _owner_connection

# a role name that needs no quoting in a URL and no more than PostgreSQL's 63 bytes
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
MIN_PASSWORD = 12
# the shared comment that marks an agent's role in every database of the cluster: in a database where
# it is bound to no workspace, beliefdb.current_workspace_id refuses it instead of letting it bind any
MARKER = "beliefdb agent login"


def _check_name(name: str) -> None:
    if not _NAME.match(name) or name.lower().startswith("pg_"):
        raise errors.InvalidInput(
            f"invalid agent name '{name}': use 1-63 letters, digits, '_', '.', '-', starting with a letter or"
            " digit (not pg_)")


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise errors.InvalidInput(f"the password is too short: use at least {MIN_PASSWORD} characters")
    if len(password) > 1024 or any(ord(c) < 32 or ord(c) == 127 for c in password):
        raise errors.InvalidInput("the password may not hold control characters or be over 1024 characters")


def _as_owner(what: str, exc: errors.PermissionDenied) -> errors.PermissionDenied:
    return errors.PermissionDenied(f"{what} takes the schema owner (who runs 'beliefdb migrate'): {exc.message}")


def login_url(url: str, name: str, password: str) -> str:
    """A ``postgresql://`` URL for ``name`` with ``password`` to the server and database of ``url``
    (the owner's URL or key=value string, whose own user and password are left out)."""
    params: dict[str, Any] = {k: v for k, v in conninfo_to_dict(url).items()
                              if k not in ("user", "password", "passfile") and v not in (None, "")}
    host, port, dbname = params.pop("host", None), params.pop("port", None), params.pop("dbname", "")
    netloc = f"{quote(name, safe='')}:{quote(password, safe='')}@"
    if host and not str(host).startswith("/") and "," not in str(host):
        netloc += f"[{host}]" if ":" in str(host) else str(host)
        netloc += f":{port}" if port else ""
    else:  # a Unix socket directory (or several hosts) goes in the query
        params = {**({"host": host} if host else {}), **({"port": port} if port else {}), **params}
    query = f"?{urlencode(params, safe='/', quote_via=quote)}" if params else ""
    return f"postgresql://{netloc}/{quote(str(dbname), safe='')}{query}"


def create_agent(url: str, name: str, workspace: str, password: str | None = None, *,
                 read_only: bool = False) -> AgentCreated:
    """A new login role ``name`` granted ``beliefdb_app`` (``beliefdb_reader`` when ``read_only``: an auditor's)
    and bound to ``workspace``, with ``password`` (else a generated one). One transaction: the role, its binding
    and an ``agent.create`` event in the workspace's audit chain, or nothing."""
    role = READER_ROLE if read_only else APP_ROLE
    _check_name(name)
    check_workspace_name(workspace)
    chosen = password if password is not None else secrets.token_urlsafe(24)
    _check_password(chosen)
    owner: str | None = None  # the schema's owner, while it makes the role: what it may not do is a role's right
    try:
        with _owner_connection(url) as conn, translated_errors(), conn.transaction():
            found = conn.execute(Q.workspace_by_name, (workspace,)).fetchone()
            if found is None:
                owns = conn.execute(Q.owns_schema).fetchone()
                if owns is None or not owns[0]:  # (an agent's login sees its own workspace only: not found here)
                    raise errors.PermissionDenied(f"{conn.info.user} does not own schema beliefdb")
                raise errors.UnknownWorkspace(f"unknown workspace '{workspace}'")
            if conn.execute(Q.role_oid, (name,)).fetchone() is not None:
                raise errors.IntegrityViolation(f"a database role named '{name}' already exists")
            verifier = conn.pgconn.encrypt_password(chosen.encode(), name.encode(), b"scram-sha-256").decode()
            owns = conn.execute(Q.owns_schema).fetchone()
            owner = conn.info.user if owns is not None and owns[0] else None
            conn.execute(sql.SQL("create role {} login password {} in role {}").format(
                sql.Identifier(name), sql.Literal(verifier), sql.Identifier(role)))
            owner = None
            conn.execute(sql.SQL("comment on role {} is {}").format(
                sql.Identifier(name), sql.Literal(f"{MARKER} (database {conn.info.dbname})")))
            row = conn.execute(Q.agent_login_insert, {"workspace_id": found[0], "name": name}).fetchone()
            _audit(conn, found[0], "agent.create", name, **({"read_only": True} if read_only else {}))
    except errors.PermissionDenied as exc:
        if owner is not None:
            raise _create_refused(url, owner, exc, role) from exc
        raise _as_owner("creating an agent's login", exc) from exc
    assert row is not None
    return AgentCreated(name=name, workspace=workspace, workspace_id=found[0], created_at=row[0], password=chosen,
                        url=login_url(url, name, chosen), read_only=read_only)


def _audit(conn: psycopg.Connection[Any], workspace_id: Any, action: str, name: str, **more: Any) -> None:
    conn.execute(Q.bind_workspace_for_transaction, (str(workspace_id),))
    conn.execute(Q.audit_append, (action, Jsonb({"role": name, **more})))


def list_agents(url: str, workspace: str | None = None) -> list[AgentLogin]:
    """The agents' logins (of ``workspace``, or all), by name; never their passwords."""
    if workspace is not None:
        check_workspace_name(workspace)
    try:
        with _owner_connection(url) as conn, translated_errors(), conn.cursor(
                row_factory=class_row(AgentLogin)) as cur:
            if workspace is not None and conn.execute(Q.workspace_by_name, (workspace,)).fetchone() is None:
                raise errors.UnknownWorkspace(f"unknown workspace '{workspace}'")
            cur.execute(Q.agent_login_list, {"workspace": workspace, "name": None})
            return cur.fetchall()
    except errors.PermissionDenied as exc:
        raise _as_owner("listing agents' logins", exc) from exc


def drop_agent(url: str, name: str) -> AgentLogin:
    """Drop an agent's login role and its binding, with an ``agent.drop`` event in its workspace's audit
    chain (unless the workspace was deleted), and end the sessions it still has open (a session of a
    dropped role can no longer use beliefdb's schema either). Only a role made by :func:`create_agent`
    may be dropped so. Where the role was made for another database (this one restored from its dump into
    the same server), only the binding here goes (:func:`_unbound_only`): the role is that database's.

    First the role stops logging in (``nologin``, committed: none of its sessions can come back), then
    its sessions are ended, then the role and its binding go in one transaction. Ending another role's
    sessions takes its privileges: from PostgreSQL 16 a ``createrole`` owner holds the roles it made
    with the admin option alone, so it grants itself the agent's role for that moment (it goes with
    the role)."""
    _check_name(name)
    refused: errors.PermissionDenied | None = None  # the schema's owner, refused the role: what it lacks
    try:
        with _owner_connection(url) as conn, translated_errors():
            elsewhere = _unbound_only(conn, name)
            if elsewhere is not None:
                return elsewhere
            role: tuple[Any, ...] | None = None
            try:
                with conn.transaction():
                    found = _agent_logins(conn, name)
                    role = conn.execute(Q.role_oid, (name,)).fetchone()
                    if role is not None:
                        conn.execute(sql.SQL("alter role {} nologin").format(sql.Identifier(name)))
                        usage = conn.execute(Q.may_signal_role, (role[0],)).fetchone()
                        if usage is None or not usage[0]:
                            conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(name),
                                                                          sql.Identifier(str(conn.info.user))))
            except psycopg.errors.InsufficientPrivilege as exc:
                if role is None:  # (not the role: the binding, which only the schema's owner reads)
                    raise
                refused = _role_refused(conn, name, role[0], exc)
                raise refused from exc
            if role is not None:
                conn.execute(Q.end_role_sessions, (role[0],))
                conn.commit()
            with conn.transaction():
                found = _agent_logins(conn, name)
                conn.execute(Q.agent_login_delete, (name,))
                if conn.execute(Q.role_oid, (name,)).fetchone() is not None:
                    conn.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
                for login in found:
                    if login.workspace is not None:
                        _audit(conn, login.workspace_id, "agent.drop", name)
    except errors.PermissionDenied as exc:
        if exc is refused:
            raise
        raise _as_owner("dropping an agent's login", exc) from exc
    return found[0]


def _unbound_only(conn: psycopg.Connection[Any], name: str) -> AgentLogin | None:
    """Where the agent's role was made for another database of this server (this one a copy of it, restored
    from its dump or made from it as a template: its bindings came along, the role is the cluster's), only its
    binding here goes, with an ``agent.drop`` event that names that database: dropping the role took the other
    database's agent away too. None: not so (that database renamed or dropped since: the role is this one's)."""
    with conn.transaction():
        found = _agent_logins(conn, name)
        if found[0].role_of_database is None:
            return None
        conn.execute(Q.agent_login_delete, (name,))
        for login in found:
            if login.workspace is not None:
                _audit(conn, login.workspace_id, "agent.drop", name, role_of_database=login.role_of_database)
    return found[0]


def _create_refused(url: str, owner: str, exc: errors.PermissionDenied, role: str) -> errors.PermissionDenied:
    """Why the schema's owner may not make an agent's role: it takes createrole and, from PostgreSQL 16, the
    admin option on ``role``, beliefdb_app or beliefdb_reader (which a superuser's plain grant does not give): the
    hint names what it lacks."""
    with _owner_connection(url) as conn, translated_errors():
        app = conn.execute(Q.role_oid, (role,)).fetchone()
        rights = conn.execute(Q.role_rights, (app[0],)).fetchone() if app is not None else None
    createrole, admin = (bool(rights[0]), bool(rights[1])) if rights is not None else (False, False)
    runs = ([] if createrole else [f"\"alter role {owner} createrole\""]) + (
        [] if admin else [f"\"grant {role} to {owner} with admin option\""])
    if not runs:  # (refused for another reason: both, as the server's message says the rest)
        runs = [f"\"alter role {owner} createrole\"", f"\"grant {role} to {owner} with admin option\""]
    return errors.PermissionDenied(
        f"creating an agent's login makes a login role in {role}, and {owner} may not: {exc.message}"
        f" (hint: run 'beliefdb agent create' as a superuser, or a superuser runs {' and '.join(runs)} once)")


def _role_refused(conn: psycopg.Connection[Any], name: str, oid: Any,
                  exc: psycopg.errors.InsufficientPrivilege) -> errors.PermissionDenied:
    """Why the schema's owner may not alter or drop an agent's role: altering and dropping a role takes
    createrole and, from PostgreSQL 16, the admin option on it, which a createrole login holds on the roles
    it made only (not on an agent a superuser made)."""
    owner = str(conn.info.user)
    rights = conn.execute(Q.role_rights, (oid,)).fetchone()
    createrole, admin = (bool(rights[0]), bool(rights[1])) if rights is not None else (False, False)
    grant = f"\"grant {name} to {owner} with admin option\""
    if createrole and admin:  # (refused for another reason: as the server says it)
        return _as_owner("dropping an agent's login", errors.PermissionDenied(translate(exc).message))
    if createrole:
        said, runs = f"has no admin option on role {name}: it did not create it", grant
    elif admin:
        said, runs = "has no createrole", f"\"alter role {owner} createrole\""
    else:
        said, runs = f"has neither createrole nor the admin option on role {name}", \
            f"\"alter role {owner} createrole\" and {grant}"
    message = (exc.diag.message_primary or str(exc)).splitlines()[0]
    return errors.PermissionDenied(
        f"dropping an agent's login drops its role {name}, and {owner}, the schema's owner, may not: {message}"
        f" ({owner} {said}) (hint: run 'beliefdb agent drop' as a superuser, or a superuser runs {runs} once)")


def _agent_logins(conn: psycopg.Connection[Any], name: str) -> list[AgentLogin]:
    with conn.cursor(row_factory=class_row(AgentLogin)) as cur:
        cur.execute(Q.agent_login_list, {"workspace": None, "name": name})
        found = cur.fetchall()
    if not found:
        raise errors.NotFound(f"unknown agent '{name}' (beliefdb agent list shows them)")
    return found


__all__ = ["MARKER", "MIN_PASSWORD", "create_agent", "drop_agent", "list_agents", "login_url"]
