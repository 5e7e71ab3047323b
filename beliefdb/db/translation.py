"""Database errors as beliefdb's exceptions (:func:`translate`), each a one-line message that keeps the
server's hint; the refusals said in beliefdb's own words whatever statement met them are
:mod:`beliefdb.db.refusals`'. A login acting as the reader's role (an auditor's) is refused every write by the
database: :func:`reader_refusal` says so.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from beliefdb import errors
from beliefdb.db import conninfo, refusals, timeouts

#: the role an auditor's login acts as (docs/dba.md, "An auditor that must not write"): it reads, never writes
READER_ROLE = "beliefdb_reader"


# the setting behind each timeout PostgreSQL reports
_TIMEOUTS = (("statement timeout", "statement_timeout"),
             ("idle-in-transaction timeout", "idle_in_transaction_session_timeout"))


def sql_detail(exc: BaseException) -> dict[str, Any]:
    """The JSON object beliefdb's SQL puts in an error's DETAIL for a program to read (``{"waited_for":
    "analyze"}``, ``{"needs": "winner", ...}``), of a database error or of the one a beliefdb exception
    was translated from; {} for any other."""
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    detail = cause.diag.message_detail if isinstance(cause, psycopg.Error) and cause.diag else None
    if not detail or not detail.startswith("{"):
        return {}
    try:
        found = json.loads(detail)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def translate(exc: psycopg.Error) -> errors.BeliefDBError:
    """A beliefdb exception for a database error, with a one-line message that keeps the server's
    hint (what to do about it): ``message (hint: ...)``."""
    message = conninfo.masked(
        (exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)).splitlines()[0])
    hint = " ".join(exc.diag.message_hint.split()) if exc.diag and exc.diag.message_hint else ""
    if hint:
        message = f"{message} (hint: {hint})"
    sqlstate = exc.sqlstate or ""
    own = errors.from_error_code(sqlstate, message, sql_detail(exc)) or refusals.refusal(exc)  # (beliefdb.error_code)
    if own is not None:
        return own
    if isinstance(exc, psycopg.OperationalError) and not sqlstate:
        return errors.DatabaseUnavailable(message)
    if isinstance(exc, psycopg.DataError) and not sqlstate:
        # psycopg refused to send the caller's value (a NUL character in text): nothing was sent
        return errors.InvalidInput(message)
    if sqlstate == "22P05" and exc.diag and "\\u0000" in (exc.diag.message_detail or ""):
        # the same NUL, sent inside JSON (a claim's fields): said as psycopg says it of plain text
        return errors.InvalidInput("PostgreSQL text fields cannot contain NUL (0x00) bytes")
    if sqlstate.startswith("08") or sqlstate.startswith("57P"):
        return errors.DatabaseUnavailable(message)
    if sqlstate == "55P03" and sql_detail(exc).get("waited_for") == "analyze":
        # one session at a time gathers a table's statistics, whatever its workspace (every ANALYZE of
        # beliefdb's tables says so in the error's detail)
        return errors.StatisticsBusy(
            "another session is gathering planner statistics of a table this change needs (a forget gathers"
            " them before it commits, rule 14; a bulk ingest after it, in any workspace): gave up waiting after"
            f" {timeouts.named('lock_timeout')}; nothing was changed: try again")
    if sqlstate == "55P03":
        # lock_timeout: in practice the workspace's write lock, which every writer takes first
        return errors.WorkspaceBusy(
            "another writer holds this workspace (or a migration holds a table): gave up waiting after"
            f" {timeouts.named('lock_timeout')}; nothing was changed: try again")
    if sqlstate.startswith("40") or sqlstate in ("57014", "25P03"):
        # a deadlock, a serialization failure, a statement timeout, a transaction left idle too long:
        # nothing was changed, try again
        hint = next((f"{timeouts.named(setting)}; " for words, setting in _TIMEOUTS if words in message), "")
        return errors.DatabaseUnavailable(f"{message} ({hint}nothing was changed: try again)")
    if sqlstate.startswith("54"):
        # a program limit, e.g. a name longer than an index row may hold
        return errors.InvalidInput(f"too large: {message}")
    if sqlstate == "42501" and message.startswith("permission denied for schema beliefdb"):
        # beliefdb's tables without their grants: a migration that stopped before the head (migrate --sql
        # --to), or a restore without beliefdb's roles; migrate re-applies every grant
        return errors.DatabaseUnavailable(
            f"{message}: beliefdb's schema here lacks its grants (a migration stopped before the head, or a"
            " restore without beliefdb's roles): run 'beliefdb migrate' as the schema's owner")
    if sqlstate == "42501":
        return errors.PermissionDenied(message)
    if sqlstate.startswith("23"):
        return errors.IntegrityViolation(message)
    if sqlstate.startswith("22"):
        return errors.InvalidInput(message)
    return errors.BeliefDBError(message)


@contextmanager
def translated_errors() -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise translate(exc) from exc
    except UnicodeEncodeError as exc:
        # a lone surrogate in a library argument: psycopg cannot send it, and nothing was sent
        raise errors.InvalidInput(f"text that is not valid UTF-8 (a lone surrogate at position {exc.start})"
                                  " cannot be stored") from exc


def reader_refusal(exc: errors.BeliefDBError, login: str) -> errors.BeliefDBError:
    """What a session acting as the reader's role is told when the database refused it a function or a table
    (a write, or a preview, which takes the workspace's write lock): that the login only reads (rule 13), not
    only the bare "permission denied for function ingest_version"; any other error as it is."""
    cause = exc.__cause__
    said = (cause.diag.message_primary or "") if isinstance(cause, psycopg.Error) and cause.diag else ""
    if not (isinstance(cause, psycopg.errors.InsufficientPrivilege) and said.startswith("permission denied for ")):
        return exc
    return errors.PermissionDenied(
        f"login {login} is a read-only auditor's ({READER_ROLE}): it reads and never writes, and this call writes"
        f" or takes the workspace's write lock ({said}); nothing was changed (hint: a change is made by a login"
        " granted beliefdb_app)")
