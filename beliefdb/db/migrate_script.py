"""The offline upgrade (``beliefdb migrate --sql``): the script alembic's offline mode writes, with the
guard and the lock it starts with, for a DBA to read and run with psql (migrations/env.py writes it)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from psycopg import sql

from beliefdb.db.migrate import _config, revisions
from beliefdb.errors import InvalidInput, argument, spelled


def _named_revision(name: str, known: Sequence[str], argument_name: str, option: str) -> str:
    if name == "head":
        return known[-1]
    if name not in known:
        raise InvalidInput(f"{spelled(argument_name, option)}: unknown revision {name!r} (this beliefdb has"
                           f" {known[0]} to {known[-1]}, or say head)")
    return name


def upgrade_sql(url: str = "", *, from_revision: str | None = None, to_revision: str | None = None) -> str:
    """The SQL of an upgrade from ``from_revision`` (None: from nothing) to ``to_revision`` (None: the
    head), as alembic's offline mode writes it: one transaction a DBA can read and run with psql. It
    refuses, changing nothing, a database at another revision than ``from_revision``; one that reaches
    the head re-applies the functions, views and grants and records the fingerprint, as an online
    upgrade does (migrations/env.py)."""
    from alembic import command

    known = revisions()
    target = _named_revision(to_revision, known, "to_revision", "--to") if to_revision is not None else known[-1]
    start = (_named_revision(from_revision, known, "from_revision", "--from")
             if from_revision is not None else None)
    if start is not None and known.index(start) > known.index(target):
        raise InvalidInput(f"{argument('from_revision', start, option='--from')} is later than"
                           f" {argument('to_revision', target, option='--to')}: beliefdb does not downgrade"
                           " (restore a backup instead)")
    out = io.StringIO()
    command.upgrade(_config(url, out), f"{start}:{target}" if start is not None else target, sql=True)
    return out.getvalue()


def offline_preamble(start: str | None, target: str) -> str:
    """What an offline script runs first, inside its transaction: a header, quiet notices (psql printed
    one for each ``drop ... if exists`` of something absent, "does not exist, skipping"; what a DBA must
    read is a warning), no statement and no lock timeout (a migration has none, whatever a DBA set for
    the role or the database), the lock an online upgrade takes, and a guard that refuses a database at another
    revision than ``start`` (alembic's own update of the version row would match nothing there and let
    the table changes through). The lock is taken in the guard's block, which returns no rows: psql
    printed the result of a ``select pg_advisory_xact_lock(...)``."""
    return sql.SQL("""\
-- beliefdb schema upgrade from {start_text} to revision {target_text} (beliefdb migrate --sql): one transaction
set local client_min_messages = warning;
set local statement_timeout = 0;
set local lock_timeout = 0;
do $guard$
declare
    v_at text;
begin
    perform pg_advisory_xact_lock(hashtext('beliefdb.migrate'));
    if to_regclass('beliefdb.alembic_version') is not null then
        select max(version_num) into v_at from beliefdb.alembic_version;
    end if;
    if v_at is distinct from {start} then
        raise exception 'this script upgrades beliefdb from %, but this database is at %',
              coalesce({start}, 'nothing (no beliefdb schema)'), coalesce(v_at, 'nothing (no beliefdb schema)')
              using hint = 'print the script for this database with: beliefdb migrate --sql'
                           || coalesce(' --from ' || v_at, '');
    end if;
end
$guard$;
""").format(start=sql.Literal(start), target_text=sql.SQL(target),
            start_text=sql.SQL(f"revision {start}" if start is not None else "nothing")).as_string(None)


def partial_upgrade_note(target: str, head: str) -> str:
    """Why a script that stops short of the head re-applies nothing."""
    return (f"\n-- This script stops at revision {target}, before the head {head}: it changes tables only.\n"
            "-- The functions, views and grants of sql/ are the head's; the script that reaches the head\n"
            f"-- re-applies them (beliefdb migrate --sql --from {target}).\n")
