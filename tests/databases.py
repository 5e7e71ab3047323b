"""A database of a test module's own, cloned from the session's migrated template (for module-scoped
fixtures that seed data once and are only read, or that a server outside the test process uses)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo
from pytest_postgresql.executors import NoopExecutor


@contextlib.contextmanager
def cloned_database(executor: NoopExecutor, prefix: str) -> Iterator[str]:
    """A new database made from the migrated template; its URL; dropped afterwards (connections and all)."""
    admin = make_conninfo(host=executor.host, port=executor.port, user=executor.user, dbname="postgres")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {} template {}").format(
            sql.Identifier(name), sql.Identifier(executor.template_dbname)))
    try:
        yield make_conninfo(admin, dbname=name)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
