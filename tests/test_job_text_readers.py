"""Who reads a queued document's text (the job table's payload): a text not stored yet is not every
principal's to read. An agent's login of the workspace read another principal's queued document with
``select payload from beliefdb.job``; row-level security now shows an agent's login only the jobs it
submitted, an eraser (``beliefdb_eraser``) every job of its workspace, and the schema owner's sessions
(the workers, the servers, the trusted CLI) every one, as before."""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb.store.agents import create_agent, drop_agent

SECRET = "The merger with Initech closes on 3 March.\n"


def _texts(conn: psycopg.Connection[Any]) -> list[str]:
    return sorted(r[0] for r in conn.execute("select payload ->> 'text' from beliefdb.job"))


def test_an_agents_login_reads_only_its_own_queued_texts(alice: beliefdb.BeliefDB, db_url: str,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    alice.submit(text=SECRET, source="merger.md")
    made = create_agent(db_url, "agent_reader", "default", "agent-reader-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn:
            assert _texts(conn) == []
            conn.execute("select beliefdb.job_submit('ingest', %s::jsonb)",
                         (json.dumps([{"source": "mine.md", "text": "mine"}]),))
            assert _texts(conn) == ["mine"]
            # the listing still names every job of the workspace, without its text
            assert sorted(r[0] for r in conn.execute("select source from beliefdb.jobs()")) == ["merger.md", "mine.md"]
    finally:
        drop_agent(db_url, "agent_reader")
    # an eraser reads every queued text of its workspace (forget finds the names in them)
    name, password = "dpo_jobs", "a-password-of-its-own"
    postgresql.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name), sql.Literal(password)))
    postgresql.execute(sql.SQL("grant beliefdb_app, beliefdb_eraser to {}").format(sql.Identifier(name)))
    postgresql.commit()
    try:
        with psycopg.connect(make_conninfo(db_url, user=name, password=password), autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(alice.database.workspace_id),))
            conn.execute("set role beliefdb_app")
            assert _texts(conn) == sorted(["mine", SECRET])
    finally:
        postgresql.rollback()
        postgresql.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
        postgresql.commit()
    # the schema owner's session acting as the application role: every one, as before
    with alice.database.transaction() as conn:
        assert _texts(conn) == sorted(["mine", SECRET])
