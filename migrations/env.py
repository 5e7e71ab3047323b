"""Alembic environment for beliefdb: plain SQL, no ORM models.

Revisions execute checked-in SQL for tables; after them, in the same transaction, the
re-appliable files of sql/ (functions, views, privileges, seed rows) are applied again and the
fingerprint recorded. Those files are the head's: an upgrade that stops at an earlier revision
(``upgrade 0005``, ``--sql --to 0005``) changes tables only, and the one that reaches the head
re-applies them. Offline (``--sql``), the script starts with a guard that refuses a database at
another revision than the one it upgrades from.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg
from alembic import context
from sqlalchemy import text

from beliefdb.db.migrate import (
    EXTENSIONS_FILE,
    REAPPLIED_FILES,
    ROLES_FILE,
    engine_for,
    fingerprint_comment,
    fingerprint_statement,
    moved_extensions,
    run_sql,
    sql_dir,
)
from beliefdb.db.migrate_script import offline_preamble, partial_upgrade_note

config = context.config
conninfo: str = config.attributes.get("conninfo", "")


def _extensions() -> None:
    # the revisions name pgvector's and pg_trgm's types and operators unqualified: this finds (or
    # creates) the extensions and puts their schemas on the session's search path first
    run_sql((sql_dir() / EXTENSIONS_FILE).read_text(encoding="utf-8"))


def _target() -> tuple[str, str]:
    """(the revision this upgrade stops at, the head)."""
    script = context.script
    head = script.get_current_head()
    assert head is not None, "migrations/ has one head"
    argument = context.get_revision_argument()
    destination = argument[0] if isinstance(argument, tuple) else argument
    if destination in (None, "head", "heads"):
        return head, head
    revision = script.get_revision(destination)
    assert revision is not None
    return revision.revision, head


# The functions of schema beliefdb are this release's sql/: one an earlier release made and this one
# does not (a signature since changed, a function since removed) would stay, callable with its old
# behaviour. Each create or replace writes its function's catalog row again (a new row version: a new
# ctid, even in the transaction that created it, where xmin stays the same: a revision's function on a
# fresh install), so a function whose row is the one it had before the files ran was not made by them,
# and is dropped; one that objects of
# the DBA's depend on is kept, with a warning (what a DBA reads: a script of migrate --sql prints no
# notices). The grants come after (a revoke writes every function's row again).
STALE_BEFORE = """\
create temp table beliefdb_functions_before on commit drop as
select p.oid, p.xmin::text || '/' || p.ctid::text as version
  from pg_catalog.pg_proc p
 where p.pronamespace = 'beliefdb'::regnamespace
   and not exists (select from pg_catalog.pg_depend d
                    where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e');
"""
STALE_DROP = """\
do $stale$
declare
    v_function regprocedure;
begin
    for v_function in
        select p.oid::regprocedure
          from pg_catalog.pg_proc p
          join pg_temp.beliefdb_functions_before b on b.oid = p.oid and b.version = p.xmin::text || '/' || p.ctid::text
    loop
        begin
            execute pg_catalog.format('drop routine %s', v_function);
        exception when dependent_objects_still_exist or insufficient_privilege then
            raise warning 'beliefdb keeps %, which this release does not make: %', v_function, sqlerrm;
        end;
    end loop;
end
$stale$;
drop table pg_temp.beliefdb_functions_before;
"""
GRANTS_FILE = "api/80_privileges.sql"


def _reapply() -> None:
    target, head = _target()
    if target == head:
        run_sql(STALE_BEFORE)
        for name in REAPPLIED_FILES:
            if name == GRANTS_FILE:
                run_sql(STALE_DROP)
            run_sql((sql_dir() / name).read_text(encoding="utf-8"))
        run_sql(fingerprint_statement())
    elif context.is_offline_mode():
        run_sql(partial_upgrade_note(target, head))


def _keep_revoked(into: list[str]) -> Callable[[psycopg.errors.Diagnostic], None]:
    def keep(notice: psycopg.errors.Diagnostic) -> None:
        message = notice.message_primary or ""
        if notice.severity_nonlocalized == "WARNING" and message.startswith("beliefdb revoked"):
            into.append(f"{message} (hint: {notice.message_hint})" if notice.message_hint else message)
    return keep


def run_offline() -> None:
    context.configure(url="postgresql+psycopg://", literal_binds=True, version_table_schema="beliefdb",
                      transactional_ddl=True)
    # the first revision's insert of the version row without "returning version_num", a row psql printed
    context.get_context()._version.implicit_returning = False
    with context.begin_transaction():
        run_sql(offline_preamble(context.get_starting_revision_argument(), _target()[0]))
        # beliefdb's roles first, as an online upgrade makes them (migrate.create_roles): a user who may
        # not make or be granted them is told what a superuser runs, before any revision names them
        run_sql((sql_dir() / ROLES_FILE).read_text(encoding="utf-8"))
        _extensions()
        context.run_migrations()
        _reapply()


def run_online() -> None:
    engine = engine_for(conninfo)
    with engine.connect() as connection:
        # one migrator at a time, and the version table's schema must exist first
        connection.execute(text("select pg_advisory_xact_lock(hashtext('beliefdb.migrate'))"))
        connection.execute(text("create schema if not exists beliefdb"))
        context.configure(connection=connection, version_table_schema="beliefdb",
                          transaction_per_migration=False)
        # what this migration found, under the lock (migrate.upgrade_found reports it)
        recorded = connection.execute(text("select obj_description(to_regclass('beliefdb.alembic_version'),"
                                           " 'pg_class')")).scalar()
        driver = connection.connection.driver_connection
        assert driver is not None
        config.attributes["found"] = (context.get_context().get_current_revision(),
                                      recorded == fingerprint_comment() and not moved_extensions(driver))
        # the grants sql/api/80_privileges.sql takes back, one warning per role (psycopg drops notices
        # unless a handler takes them)
        driver.add_notice_handler(_keep_revoked(config.attributes.setdefault("revoked", [])))
        with context.begin_transaction():
            _extensions()
            context.run_migrations()
            _reapply()
        connection.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
