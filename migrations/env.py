"""Alembic environment for beliefdb: plain SQL, no ORM models.

Revisions execute checked-in SQL for tables; after them, in the same transaction, the
re-appliable files of sql/ (functions, views, privileges, seed rows) are applied again.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from beliefdb.db.migrate import EXTENSIONS_FILE, REAPPLIED_FILES, engine_for, fingerprint_statement, run_sql, sql_dir

config = context.config
conninfo: str = config.attributes.get("conninfo", "")


def _extensions() -> None:
    # the revisions name pgvector's and pg_trgm's types and operators unqualified: this finds (or
    # creates) the extensions and puts their schemas on the session's search path first
    run_sql((sql_dir() / EXTENSIONS_FILE).read_text(encoding="utf-8"))


def _reapply() -> None:
    for name in REAPPLIED_FILES:
        run_sql((sql_dir() / name).read_text(encoding="utf-8"))
    run_sql(fingerprint_statement())


def run_offline() -> None:
    context.configure(url="postgresql+psycopg://", literal_binds=True, version_table_schema="beliefdb",
                      transactional_ddl=True)
    with context.begin_transaction():
        run_sql("create schema if not exists beliefdb;\n")
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
        with context.begin_transaction():
            _extensions()
            context.run_migrations()
            _reapply()
        connection.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
