"""beliefdb's functions keep working tables in the session's temporary schema and write and read them
with the schema owner's rights. A relation of one of those names that the session's own login made
first (an agent's, with a trigger or a view's function of its choosing) must never be used by them:
its code would run as the owner, which in the default setup is a superuser, and could read every
workspace. Each test plants such a relation as an agent would, calls the API, and checks that the
planted code never ran."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from beliefdb.store.agents import create_agent, drop_agent

# what the planted code would record: who it ran as, and how many beliefs of every workspace it saw;
# and, past a rollback (a sequence is not transactional), that it ran at all
PLANT = """
create temporary table loot (who text, n bigint);
create temporary sequence ran;
create function pg_temp.steal() returns trigger language plpgsql as $f$
begin
    perform nextval('pg_temp.ran');
    insert into pg_temp.loot select current_user, (select count(*) from beliefdb.belief);
    return null;
end $f$;
create function pg_temp.peek() returns integer language plpgsql as $f$
begin
    perform nextval('pg_temp.ran');
    insert into pg_temp.loot select current_user, (select count(*) from beliefdb.belief);
    return 1;
end $f$;
"""


@pytest.fixture
def agent(db_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    made = create_agent(db_url, f"agent_{uuid.uuid4().hex[:8]}", "default", "agent-temp-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn:
            conn.execute(PLANT)
            yield conn
    finally:
        drop_agent(db_url, made.name)


def _trap(conn: psycopg.Connection[tuple[object, ...]], table: str, columns: str) -> None:
    conn.execute(f"create temporary table {table} ({columns})")  # type: ignore[arg-type]
    conn.execute(f"create trigger steal after insert or update or delete or truncate on pg_temp.{table}"  # type: ignore[arg-type]
                 " for each statement execute function pg_temp.steal()")


def _loot(conn: psycopg.Connection[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """What the planted code recorded; [("ran", n)] if it ran in a transaction rolled back since."""
    rows = conn.execute("select * from pg_temp.loot").fetchall()
    ran = conn.execute("select is_called from pg_temp.ran").fetchone()
    return rows or ([("ran", 1)] if ran == (True,) else [])


def test_ingest_does_not_write_a_fragment_table_the_session_made(agent: psycopg.Connection[tuple[object, ...]]) -> None:
    _trap(agent, "beliefdb_new_fragment",
          "id uuid, s integer, e integer, text text, speaker text, spoken_at timestamptz")
    agent.execute("select beliefdb.ingest_version('pwn.txt', 'Refund window: 30 days')")
    assert _loot(agent) == []
    assert agent.execute("select count(*) from beliefdb.source_version").fetchone() == (1,)


@pytest.mark.parametrize("table", ["beliefdb_changes", "beliefdb_evaluation", "beliefdb_audit_operation"])
def test_a_view_in_place_of_a_session_working_table_is_not_read(
        agent: psycopg.Connection[tuple[object, ...]], table: str) -> None:
    agent.execute(f"create temporary view {table} as select pg_temp.peek() as x")  # type: ignore[arg-type]
    agent.execute("select beliefdb.ingest_version('pwn.txt', 'Refund window: 30 days')")
    assert _loot(agent) == []
    assert agent.execute("select count(*) from beliefdb.source_version").fetchone() == (1,)


def _stage(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    text = "Refund window: 30 days"
    conn.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values (1, 'bulk.txt', %s)",
                 (text,))
    conn.execute("insert into pg_temp.beliefdb_bulk_fragment (n, start_offset, end_offset) values (1, 0, %s)",
                 (len(text),))
    conn.execute("insert into pg_temp.beliefdb_bulk_claim (n, ord, statement, subject, attribute, value, quote,"
                 " start_offset, end_offset) values (1, 1, %s, 'refund_policy', 'window', '30 days', %s, 0, %s)",
                 (text, text, len(text)))


def test_a_bulk_batch_does_not_write_run_tables_the_session_made(agent: psycopg.Connection[tuple[object, ...]]) -> None:
    _trap(agent, "beliefdb_bulk_first", "n integer, at timestamptz, source_id uuid, version_id uuid")
    _trap(agent, "beliefdb_bulk_rival", "n integer, ord integer")
    with agent.transaction():
        agent.execute("select beliefdb.bulk_stage()")
        _stage(agent)
        reports = agent.execute("select * from beliefdb.bulk_ingest_batch()").fetchall()
    assert len(reports) == 1
    assert _loot(agent) == []
    assert agent.execute("select count(*) from beliefdb.belief").fetchone() == (1,)


def test_a_bulk_batch_does_not_read_staging_the_session_made(agent: psycopg.Connection[tuple[object, ...]]) -> None:
    """Staging not made by bulk_stage (a view of the agent's, calling its own function) is nothing staged."""
    with agent.transaction():
        agent.execute("create temporary view beliefdb_bulk_document as"
                      " select 1 as n, 'x.txt'::text as source, 'x'::text as content, pg_temp.peek() as p")
        agent.execute("create temporary table beliefdb_bulk_fragment (n integer)")
        agent.execute("create temporary table beliefdb_bulk_claim (n integer)")
        with pytest.raises(psycopg.Error) as refused:
            agent.execute("select * from beliefdb.bulk_ingest_batch()")
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == "nothing staged: call beliefdb.bulk_stage() and COPY the batch first"
    assert _loot(agent) == []


def test_a_view_in_place_of_the_write_lock_table_is_not_read(agent: psycopg.Connection[tuple[object, ...]]) -> None:
    agent.execute("create temporary view beliefdb_write_lock as"
                  " select pg_current_xact_id() as xact, clock_timestamp() as at, pg_temp.peek() as p")
    agent.execute("select beliefdb.ingest_version('pwn.txt', 'Refund window: 30 days')")
    assert _loot(agent) == []
    assert agent.execute("select count(*) from beliefdb.source_version").fetchone() == (1,)
