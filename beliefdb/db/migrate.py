"""Schema migrations: alembic revisions of checked-in SQL, plus re-applied functions and views.

``sql/`` is the canonical schema. Tables change only through revisions in ``migrations/``;
the other files of ``sql/`` are ``create or replace`` and re-applied after every upgrade.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import psycopg
from psycopg import sql

from beliefdb import settings
from beliefdb.db import conninfo
from beliefdb.db.connector import connect, translate
from beliefdb.db.queries import Q
from beliefdb.errors import (
    BeliefDBError,
    DatabaseUnavailable,
    ExtensionConflict,
    MigrationFailed,
    PermissionDenied,
    SchemaMismatch,
    WorkspaceBusy,
)
from beliefdb.models import MigrationStatus

if TYPE_CHECKING:  # alembic and SQLAlchemy load only when a migration runs: CLI start-up stays quick
    from alembic.config import Config
    from sqlalchemy import Engine

# Every file of sql/, in the order they apply: the one list migrate, the fingerprint, canonical_sql(),
# scripts/sql_reference.py and the schema test read. Paths are relative to sql/: schema/ (schema,
# types, tables, seed rows), internal/ (what the application never calls: underscored functions,
# trigger functions and their triggers) and api/ (what the application role and DBAs call, the
# views, the grants). Files are numbered across the three in apply order, so their names sort in
# this order. The extensions come right after the schema: schema/02_extensions.sql finds or creates
# pgvector and pg_trgm and puts their schemas on the session's search path (a migration applies it
# before its revisions too, which name them as well). A language sql body is checked when it is
# created: the session functions the tables' defaults call come before the tables, and the API's
# confidence_factors before the internals that store it; the seed rows come last (the workspace
# they add starts its audit chain by trigger).
# schema/10_tables.sql is the tables as the revisions leave them (tables change only through a
# revision); the others are re-applied (create or replace) after every upgrade.
SQL_FILES = (
    "schema/00_schema.sql",
    "schema/02_extensions.sql",
    "api/05_session.sql",
    "schema/10_tables.sql",
    "internal/20_integrity.sql",
    "internal/22_derived_columns.sql",
    "internal/24_adjacency.sql",
    "internal/26_ownership.sql",
    "internal/28_audit.sql",
    "internal/30_closure.sql",
    "internal/32_changes.sql",
    "internal/34_conflicts.sql",
    "internal/36_claims.sql",
    "internal/37_bulk.sql",
    "internal/38_decisions.sql",
    "internal/40_review.sql",
    "internal/41_forgotten_lines.sql",
    "internal/42_forgetting.sql",
    "internal/43_forget_mentions.sql",
    "internal/44_traces.sql",
    "internal/46_retrieval.sql",
    "internal/47_vector_index.sql",
    "api/48_confidence.sql",
    "internal/49_confidence.sql",
    "api/50_audit.sql",
    "api/52_holding.sql",
    "api/53_targets.sql",
    "api/54_support_walk.sql",
    "api/55_impact.sql",
    "api/56_beliefs.sql",
    "api/57_bulk.sql",
    "api/58_jobs.sql",
    "api/59_turns.sql",
    "api/60_decisions.sql",
    "api/62_agent_access.sql",
    "api/64_lifecycle.sql",
    "api/66_traces.sql",
    "api/68_retrieval.sql",
    "api/70_dba_tools.sql",
    "api/75_views.sql",
    "api/80_privileges.sql",
    "schema/90_seed.sql",
)
TABLES_FILE = "schema/10_tables.sql"
EXTENSIONS_FILE = "schema/02_extensions.sql"
# the schema and beliefdb's roles: the one place the roles are created (roles belong to the cluster,
# so a pg_dump of the database does not carry them)
ROLES_FILE = "schema/00_schema.sql"
REAPPLIED_FILES = tuple(name for name in SQL_FILES if name != TABLES_FILE)


def _packaged_or_source(name: str) -> Path:
    package = Path(__file__).resolve().parent.parent  # beliefdb/, where the wheel puts sql/ and migrations/
    for candidate in (package / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"beliefdb cannot find its {name}/ directory next to {package}")


def sql_dir() -> Path:
    """The canonical SQL files: inside the wheel, or at the top of a source checkout."""
    return _packaged_or_source("sql")


def migrations_dir() -> Path:
    return _packaged_or_source("migrations")


def fingerprint() -> str:
    """SHA-256 of everything a migration applies: sql/ and the revisions. Stored in the database
    (as the comment of the version table) so first use can tell when the package changed."""
    digest = hashlib.sha256()
    # each file under its path relative to its folder: a name may repeat across sql/'s sections
    files = [(f"sql/{name}", sql_dir() / name) for name in SQL_FILES] + [
        (f"migrations/{path.relative_to(migrations_dir()).as_posix()}", path)
        for path in sorted((migrations_dir() / "versions").glob("*.[ps][yq]*"))]
    for name, path in files:
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint_comment() -> str:
    """The comment of the version table that says the schema is exactly this package's."""
    return f"beliefdb schema {fingerprint()}"


def fingerprint_statement() -> str:
    """The statement that records the fingerprint (the version table is alembic's, not the schema's)."""
    return sql.SQL("comment on table beliefdb.alembic_version is {};\n").format(
        sql.Literal(fingerprint_comment())).as_string(None)


def is_current(url: str) -> bool:
    """Whether the database holds exactly what this package would migrate to (cheap: no alembic)."""
    try:
        with connect(url) as conn:
            row = conn.execute("select obj_description(to_regclass('beliefdb.alembic_version'), 'pg_class')"
                               ).fetchone()
            moved = moved_extensions(conn)
    except psycopg.Error as exc:
        raise translate(exc) from exc
    return row is not None and row[0] == fingerprint_comment() and not moved


def moved_extensions(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """The extensions moved to another schema (``alter extension ... set schema``) since the migration
    that applied the functions searching them, each with where it is now: those functions no longer
    find it until a migration applies them again."""
    return {name: schema for name, schema in conn.execute(Q.moved_extensions).fetchall()}


def canonical_sql() -> str:
    """All of sql/ in order (SQL_FILES): what a fresh migrate must be equivalent to."""
    return "\n".join((sql_dir() / name).read_text(encoding="utf-8") for name in SQL_FILES)


# a statement of a released revision (never changed: tests/test_migrations_released.py) that returns a
# row only to set something: 0015's search path, 0047's principal. psql prints each row it returns.
_SETTING = re.compile(r"^select (pg_catalog\.set_config\(.*?;)[ \t]*$", re.MULTILINE | re.DOTALL)


def quiet(script: str) -> str:
    """An offline script's statements as they are, but those that set something with a ``select
    pg_catalog.set_config(...)`` at the start of a line, which run in a block as ``perform``: the same
    setting, and no row for psql to print in the middle of the upgrade."""
    return _SETTING.sub(lambda m: f"do $quiet$\nbegin\n    perform {m.group(1)}\nend\n$quiet$;", script)


def run_sql(script: str) -> None:
    """Execute a script inside the running alembic migration (online or offline)."""
    from alembic import context

    if context.is_offline_mode():
        context.get_context().impl.static_output(quiet(script))
        return
    bind = context.get_bind()
    # the driver connection runs multi-statement scripts verbatim (no bind-parameter parsing)
    driver = bind.connection.driver_connection
    assert driver is not None
    driver.execute(script)


def engine_for(conninfo: str) -> Engine:
    """A SQLAlchemy engine over psycopg for any libpq URL or key=value conninfo string."""
    from sqlalchemy import create_engine, pool

    return create_engine("postgresql+psycopg://", poolclass=pool.NullPool,
                         creator=lambda: connect(conninfo, migration=True))


def _config(conninfo: str, output: io.StringIO | None = None) -> Config:
    from alembic.config import Config

    cfg = Config(output_buffer=output) if output is not None else Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.attributes["conninfo"] = conninfo
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config("")).get_current_head()
    assert head is not None
    return head


def current_revision(url: str) -> str | None:
    """The revision a database is at, or None if beliefdb was never migrated there."""
    from alembic.runtime.migration import MigrationContext

    engine = engine_for(url)
    try:
        with engine.connect() as connection:
            ctx = MigrationContext.configure(connection, opts={"version_table_schema": "beliefdb"})
            return ctx.get_current_revision()
    except Exception as exc:  # sqlalchemy wraps driver errors in its own types
        cause = getattr(exc, "orig", None)
        if isinstance(cause, psycopg.Error) and cause.sqlstate == "42501":
            raise _not_the_owner(cause) from exc
        if isinstance(cause, psycopg.Error):  # (said as the server's errors are, not as SQLAlchemy prints them)
            error = translate(cause)
            error.message = f"cannot read the schema version: {error.message}"
            error.args = (error.message,)
            raise error from exc
        raise DatabaseUnavailable(conninfo.masked(f"cannot read the schema version: {exc}".splitlines()[0])) from exc
    finally:
        engine.dispose()


def _not_the_owner(exc: psycopg.Error) -> BeliefDBError:
    """What a user who may not read beliefdb's version table (any user but the schema's owner) is told."""
    if exc.sqlstate != "42501":  # insufficient_privilege: on the version table, or on the whole schema
        return translate(exc)
    return PermissionDenied(f"cannot read the schema version: {exc.diag.message_primary} (hint: migrate, or check,"
                            " as the schema's owner: the user that ran the first beliefdb migrate)")


def role_names() -> list[str]:
    """The roles ``ROLES_FILE`` creates, in its order."""
    return re.findall(r"^\s*create role (\w+)", (sql_dir() / ROLES_FILE).read_text(encoding="utf-8"), re.MULTILINE)


def create_roles(url: str, *, again: str | None = None) -> None:
    """Create beliefdb's roles as ``ROLES_FILE`` says (idempotent) and grant ``beliefdb_app`` and
    ``beliefdb_clock`` to the user it connects as, and nothing else: the schema that file also creates is
    dropped again where there was none. The first step of every migration (so a revision may name any
    role), of a restore (so the dump's grants and policies apply) and ``beliefdb db roles``. A refusal's
    hint says to run ``again`` again (None: beliefdb migrate)."""
    script = (sql_dir() / ROLES_FILE).read_text(encoding="utf-8")
    try:
        with connect(url, migration=True) as conn:
            conn.execute("select pg_advisory_xact_lock(hashtext('beliefdb.migrate'))")  # as alembic's env.py
            if again is not None:
                conn.execute(Q.roles_hint_again, (again,))
            row = conn.execute("select to_regnamespace('beliefdb') is not null").fetchone()
            conn.execute(script)
            if row is not None and not row[0]:
                conn.execute("drop schema beliefdb")
    except psycopg.Error as exc:
        raise translate(exc) from exc


def newer_schema(current: str, head: str) -> str:
    """What a schema at a revision this package does not know is told (a newer beliefdb migrated it)."""
    return (f"the schema is at revision {current}, which this beliefdb (head {head}) does not know: a newer"
            " beliefdb migrated it (hint: run that release or a later one; beliefdb does not downgrade)")


def upgrade(url: str) -> tuple[str | None, str]:
    """Upgrade to head (idempotent; re-applies functions and views), beliefdb's roles first.
    Returns (before, after)."""
    done = upgrade_found(url)
    return done.found, done.head


class Upgrade(NamedTuple):
    """What ``upgrade_found`` did: the revision it found and whether the schema it found was this
    package's already (both read under the migration's lock: one that waited for another migration
    finds that one's work done), the head it left, and the grants on beliefdb's objects it revoked,
    as the warnings of sql/api/80_privileges.sql say them (one per role)."""

    found: str | None
    head: str
    was_current: bool
    revoked: tuple[str, ...]


def upgrade_found(url: str) -> Upgrade:
    """``upgrade``, saying what it found and what it revoked (``Upgrade``)."""
    from alembic import command
    from alembic.util import CommandError
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    before = current_revision(url)
    known = revisions()
    if before is not None and before not in known:
        raise MigrationFailed(newer_schema(before, known[-1]))
    create_roles(url)
    cfg = _config(url)
    try:
        command.upgrade(cfg, "head")
    except CommandError as exc:  # alembic's own refusals (a revision it cannot find): one line
        raise MigrationFailed(f"migration failed: {str(exc).splitlines()[0]}") from exc
    except psycopg.Error as exc:
        raise _failed(exc) from exc
    except SQLAlchemyError as exc:
        cause = exc.orig if isinstance(exc, DBAPIError) else None
        if isinstance(cause, psycopg.Error):
            raise _failed(cause) from exc
        raise MigrationFailed(f"migration failed: {str(exc).splitlines()[0]}") from exc
    found, was_current = cfg.attributes.get("found", (before, False))
    return Upgrade(found, head_revision(), was_current, tuple(cfg.attributes.get("revoked", ())))


# What schema/02_extensions.sql raises when pgvector or pg_trgm cannot be used as the database has it
EXTENSION_PRECONDITION = "55000"  # object_not_in_prerequisite_state


def _failed(exc: psycopg.Error) -> BeliefDBError:
    """What a migration that stopped on ``exc`` raises: its own code, the server's hint kept."""
    error = translate(exc)
    if exc.sqlstate == EXTENSION_PRECONDITION:
        return ExtensionConflict(error.message)
    if isinstance(error, SchemaMismatch):  # (its advice is to migrate: this is the migration, stopped)
        said = exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)
        return MigrationFailed(f"migration failed: {said.splitlines()[0]}")
    if type(error) is BeliefDBError:  # nothing more specific than the database's own message
        return MigrationFailed(f"migration failed: {error.message}")
    return error


def revisions() -> list[str]:
    """Every revision of migrations/, oldest first (the history is one line: no branches)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_config(""))
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def status(url: str) -> MigrationStatus:
    """Where the schema of ``url`` stands against this package (``migrate --check``); changes nothing."""
    try:
        with psycopg.connect(url) as conn:
            # (a migration in progress holds the schema's locks until it commits: --check says so after
            # the lock timeout, rather than waiting for it)
            conn.execute("select set_config('lock_timeout', %s, false)",
                         (f"{int(settings.load().lock_timeout * 1000)}ms",))
            table = conn.execute("select to_regclass('beliefdb.alembic_version') is not null,"
                                 " obj_description(to_regclass('beliefdb.alembic_version'), 'pg_class')").fetchone()
            installed, recorded = table if table is not None else (False, None)
            row = conn.execute("select max(version_num) from beliefdb.alembic_version").fetchone() \
                if installed else None
            moved = moved_extensions(conn)
    except psycopg.errors.LockNotAvailable as exc:
        raise WorkspaceBusy("the schema is locked by another session (a migration in progress?); nothing was"
                            " checked: try again once it is done (BELIEFDB_LOCK_TIMEOUT: how long --check waits)"
                            ) from exc
    except psycopg.Error as exc:
        raise _not_the_owner(exc) from exc
    current = row[0] if row is not None else None
    known = revisions()
    head = known[-1]
    if current is None:
        behind: int | None = len(known)
    elif current in known:
        behind = len(known) - 1 - known.index(current)
    else:
        behind = None
    fresh = recorded == fingerprint_comment()
    return MigrationStatus(current=current, head=head, behind=behind,
                           up_to_date=current == head and fresh and not moved, moved_extensions=moved)
