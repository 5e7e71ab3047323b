"""Settings an agent's login can forge change nothing it may not (docs/security.md): every session may set
any ``beliefdb.*`` setting, so beliefdb's audit chain and its writers' clock never take one on trust.
Each test performs the attack as an agent's login (``beliefdb agent create``) and asserts it has no
effect."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql

import beliefdb
from beliefdb import api


def su(url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Rows of a statement run as the database's superuser (the test's own URL), committed."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


@pytest.fixture
def agent(cli: Cli, db_url: str) -> Iterator[tuple[str, str]]:
    """An agent's login bound to a new workspace holding one source written by the owner: (its URL, the
    workspace's name); the role is dropped at the end (roles are the cluster's)."""
    ws = f"ws_{uuid.uuid4().hex[:8]}"
    api.create_workspace(ws, url=db_url)
    with beliefdb.connect(db_url, ws) as db:
        db.ingest_text("# Sky\n\nThe sky colour is blue.\n", source="sky.md", authority="official")
    name = f"attacker_{uuid.uuid4().hex[:8]}"
    made = cli.json("agent", "create", name, "-w", ws)
    yield made["url"], ws
    su(db_url, sql.SQL("drop owned by {0}; drop role if exists {0}").format(sql.Identifier(name)).as_string(None))


def chain(db_url: str, ws: str) -> tuple[int, int, bool]:
    """(head seq, last event's seq, whether audit verify says ok) of a workspace, read as the superuser."""
    row = su(db_url, "select h.seq,"
                     " (select max(e.seq) from beliefdb.audit_event e where e.workspace_id = h.workspace_id),"
                     " (select v.ok from beliefdb.audit_verify(h.workspace_id) v)"
                     " from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id where w.name = %s",
             (ws,))
    return row[0]


@pytest.mark.parametrize("forged_last", ["garbage", "named earlier event"])
def test_a_forged_audit_state_cannot_leave_the_head_behind(db_url: str, agent: tuple[str, str],
                                                           forged_last: str) -> None:
    """_audit_append kept what a transaction appended in a setting the caller can write: an agent that
    claimed 5,000 appends (so the head waited for the commit) and then changed the setting before its
    commit left the head behind its event, and every later write of the workspace, by anyone, failed on
    a duplicate event (and verify called the event appended outside beliefdb). The head now follows the
    events the transaction inserted, whatever the setting says."""
    url, ws = agent
    with psycopg.connect(url) as conn:
        setting = conn.execute("select 'beliefdb.audit_' || replace(beliefdb.current_workspace_id()::text, '-', '')"
                               ).fetchone()[0]  # type: ignore[index]
        conn.execute("select set_config(%s, '5000/0/' || repeat('0', 64) || '/' || (select ctid::text from"
                     " beliefdb.audit_head), true)", (setting,))
        conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is green.')")
        if forged_last == "garbage":
            conn.execute("select set_config(%s, 'garbage', true)", (setting,))
        else:
            # a well-formed state naming a real event of the chain that is not the last
            conn.execute("select set_config(%s, concat_ws('/', 5000, e.seq, encode(e.hash, 'hex'), h.ctid), true)"
                         " from beliefdb.audit_event e, beliefdb.audit_head h"
                         " where e.workspace_id = h.workspace_id and e.seq = 1", (setting,))
        conn.commit()
    head, last, ok = chain(db_url, ws)
    assert head == last and ok
    # the workspace still takes writes, the owner's and the agent's, and its chain still verifies
    with beliefdb.connect(db_url, ws) as db:
        db.ingest_text("# Grass\n\nThe grass colour is green.\n", source="grass.md", authority="official")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is blue.')")
    head, last, ok = chain(db_url, ws)
    assert head == last and ok


FORGE_LAST = ("select set_config(%s, concat_ws('/', 5000, e.seq, encode(e.hash, 'hex'), h.ctid), true)"
              " from beliefdb.audit_head h, lateral (select e.seq, e.hash from beliefdb.audit_event e"
              " where e.workspace_id = h.workspace_id order by e.seq desc limit 1) e")


@pytest.mark.parametrize("how", ["check fired early", "check rolled back", "deferred flag off"])
def test_a_forged_audit_state_cannot_outlive_the_commit_check(db_url: str, agent: tuple[str, str], how: str) -> None:
    """The head of a transaction past its 1,024th append to a workspace waits for one check at the
    commit (audit_head_at_commit), not one per event: an agent that forged its count and then made
    that check run before its commit (set constraints ... immediate), rolled back the subtransaction
    that queued it, or set the flag its queueing reads, and forged its state again to name the
    chain's last event, still cannot leave the head behind its later events."""
    url, ws = agent
    with psycopg.connect(url) as conn:
        setting = conn.execute("select 'beliefdb.audit_' || replace(beliefdb.current_workspace_id()::text, '-', '')"
                               ).fetchone()[0]  # type: ignore[index]
        conn.execute("select set_config(%s, '5000/0/' || repeat('0', 64) || '/' || (select ctid::text from"
                     " beliefdb.audit_head), true)", (setting,))
        if how == "check fired early":
            conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is green.')")
            conn.execute("set constraints beliefdb.audit_head_at_commit immediate")
            conn.execute("set constraints beliefdb.audit_head_at_commit deferred")
        elif how == "check rolled back":
            conn.execute("savepoint forged")
            conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is green.')")
            conn.execute("rollback to savepoint forged")
        else:
            conn.execute("select set_config('beliefdb.audit_deferred', 'off', true)")
            conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is green.')")
            conn.execute("select set_config('beliefdb.audit_deferred', 'off', true)")
        conn.execute(FORGE_LAST, (setting,))
        conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is red.')")
        conn.execute(FORGE_LAST, (setting,))
        conn.execute("select beliefdb.ingest_version('attack2.txt', 'Agent A note: the grass is red.')")
        conn.commit()
    head, last, ok = chain(db_url, ws)
    assert head == last and ok
    with beliefdb.connect(db_url, ws) as db:
        db.ingest_text("# Grass\n\nThe grass colour is green.\n", source="grass.md", authority="official")
    head, last, ok = chain(db_url, ws)
    assert head == last and ok


@pytest.mark.parametrize(("setting", "own_tables"), [("beliefdb.locked_at", False), ("beliefdb.batch_clock", False),
                                                     ("beliefdb.locked_at", True), ("beliefdb.batch_clock", True)])
def test_a_writer_cannot_date_its_write_before_its_lock(db_url: str, agent: tuple[str, str], setting: str,
                                                        own_tables: bool) -> None:
    """clock() dated a writer's rows from beliefdb.locked_at (or a bulk batch's beliefdb.batch_clock) when
    it lay within the transaction, and _lock_workspace set locked_at only when it was empty: an agent
    that set it to its transaction's start before writing had its version recorded before another
    principal's write that committed earlier. A write is now dated when it took the write lock, also
    when the agent made temporary tables of the names beliefdb keeps the lock's time and a batch in."""
    url, ws = agent
    with psycopg.connect(url) as conn:
        started: datetime = conn.execute("select now()").fetchone()[0]  # type: ignore[index]
        if own_tables:
            conn.execute("create temporary table beliefdb_audit_batch (action text not null, n bigint not null)")
            conn.execute("create temporary table beliefdb_write_lock (xact xid8 not null, at timestamptz not null)")
            conn.execute("insert into pg_temp.beliefdb_write_lock values (pg_current_xact_id(), now())")
        conn.execute("select set_config(%s, now()::text, true)", (setting,))
        # meanwhile the owner writes a version of its own and commits
        with beliefdb.connect(db_url, ws) as db:
            db.ingest_text("# Sky\n\nThe sky colour is grey.\n", source="sky.md", authority="official")
        committed: datetime = su(db_url, "select clock_timestamp()")[0][0]
        conn.execute("select beliefdb.ingest_version('attack.txt', 'Agent A note: the sky is green.')")
        # a second write of the same transaction, the setting forged again in between: the first lock's time
        conn.execute("select set_config(%s, now()::text, true)", (setting,))
        conn.execute("select beliefdb.ingest_version('attack2.txt', 'Agent A note: the sea is red.')")
        conn.commit()
    versions = ("select s.name, max(v.recorded_at) from beliefdb.source_version v"
                " join beliefdb.source s on s.id = v.source_id join beliefdb.workspace w on w.id = s.workspace_id"
                " where w.name = %s group by s.name")
    dated = dict(su(db_url, versions, (ws,)))
    owners = dated["sky.md"]
    assert dated["attack.txt"] > started
    assert dated["attack.txt"] >= committed > owners
    assert dated["attack2.txt"] == dated["attack.txt"]


def _bind(conn: psycopg.Connection[Any], name: str) -> None:
    conn.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace where name = %s),"
                 " false)", (name,))


def test_a_transaction_is_dated_in_each_workspace_from_its_lock_there(db_url: str) -> None:
    """The time of a transaction's first lock was kept for the transaction, whatever the workspace: one that
    locked workspace A, then waited for B's lock while another writer of B committed, dated its writes in
    B before that writer's."""
    api.create_workspace("ws_a", url=db_url)
    api.create_workspace("ws_b", url=db_url)
    with psycopg.connect(db_url) as conn:
        _bind(conn, "ws_a")
        conn.execute("select beliefdb.lock_workspace()")
        (in_a,) = conn.execute("select beliefdb.clock()").fetchone() or (None,)
        conn.execute("select pg_sleep(0.05)")
        _bind(conn, "ws_b")
        conn.execute("select beliefdb.lock_workspace()")
        (in_b,) = conn.execute("select beliefdb.clock()").fetchone() or (None,)
        _bind(conn, "ws_a")
        conn.execute("select beliefdb.lock_workspace()")
        (in_a_again,) = conn.execute("select beliefdb.clock()").fetchone() or (None,)
        conn.rollback()
    assert in_a is not None and in_b is not None
    assert (in_b - in_a).total_seconds() >= 0.05
    assert in_a_again == in_a


def test_the_lock_time_table_stays_small_in_a_long_session(db_url: str) -> None:
    """A row deleted and another inserted at every transaction's lock grew the session's table without end
    (no vacuum reaches a temporary table): a worker's or a server's connection lives for days."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        _bind(conn, "default")
        for _ in range(3000):
            with conn.transaction():
                conn.execute("select beliefdb.lock_workspace()")
        (size,) = conn.execute("select pg_relation_size('pg_temp.beliefdb_write_lock')").fetchone() or (0,)
    assert size <= 8192
