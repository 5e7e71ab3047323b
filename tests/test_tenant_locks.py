"""One workspace's agent cannot hold up or misreport another workspace's work through locks every
login may take (rule 13 of docs/rules.md): ``pg_advisory_lock`` is PostgreSQL's, executable by
everyone, and ``pg_locks`` shows every session's locks to everyone. So nothing another workspace's
writers or workers do may rest on an advisory lock alone."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb import api, errors

pytestmark = pytest.mark.robustness

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
SHIPPING = "# Shipping\n\nThe shipping time is 2 days.\n"
#: the first key of the advisory lock job_take took on a job's id ('job' in ASCII), which beliefdb.jobs read
JOB_KEY = 6975330


def su(url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Rows of a statement run as the database's superuser (the test's own URL), committed."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


@pytest.fixture
def agent_of_a(db_url: str) -> Iterator[str]:
    """Workspaces A and B, each with a belief; the URL of an agent's login bound to A (a role of the
    cluster's: dropped at the end)."""
    for ws, text in (("A", POLICY), ("B", SHIPPING)):
        api.create_workspace(ws, url=db_url)
        with beliefdb.connect(db_url, ws) as db:
            db.ingest_text(text, source=f"{ws}.md", authority="official")
    name = f"mallory_{uuid.uuid4().hex[:8]}"
    yield api.create_agent(name, "A", url=db_url).url
    su(db_url, sql.SQL("drop role if exists {}").format(sql.Identifier(name)).as_string(None))


def app_session(url: str, workspace: str) -> psycopg.Connection[Any]:
    """A connection of the schema owner acting as the application role in a workspace (as the
    library's and the servers' are), not in autocommit."""
    conn = psycopg.connect(url)
    conn.execute("select beliefdb.use_workspace(%s)", (workspace,))
    conn.execute("set role beliefdb_app")
    conn.commit()
    return conn


def held_by(conn: psycopg.Connection[Any], pid: int) -> list[tuple[int, int, int]]:
    """The advisory locks session ``pid`` holds, as ``conn`` sees them in pg_locks: (classid, objid, objsubid)."""
    rows = conn.execute("select classid::bigint, objid::bigint, objsubid::integer from pg_catalog.pg_locks"
                        " where locktype = 'advisory' and granted and pid = %s", (pid,)).fetchall()
    return [(int(a), int(b), int(c)) for a, b, c in rows]


def take(conn: psycopg.Connection[Any], lock: tuple[int, int, int]) -> None:
    """Take an advisory lock seen in pg_locks, at session level (held until ``conn`` closes)."""
    high, low, subid = lock
    if subid == 1:  # one bigint key: its high half is classid, its low half objid
        key = (high << 32) | low
        conn.execute("select pg_catalog.pg_advisory_lock(%s::bigint)", (key - (1 << 64) if key >= 1 << 63 else key,))
    else:  # two integer keys
        conn.execute("select pg_catalog.pg_advisory_lock(%s::integer, %s::integer)",
                     tuple(k - (1 << 32) if k >= 1 << 31 else k for k in (high, low)))


def decide(conn: psycopg.Connection[Any]) -> None:
    """Record a decision citing the workspace's belief (a write: it takes the workspace's lock and
    propagates what rests on its belief)."""
    conn.execute("select beliefdb.decide('ship it', jsonb_build_array(jsonb_build_array("
                 "(select b.id::text from beliefdb.belief b limit 1))))")


def test_another_workspaces_agent_cannot_hold_up_its_writes(db_url: str, agent_of_a: str) -> None:
    """A writer of B held an advisory lock on B's id (propagate's, one at a time per workspace), which
    pg_locks shows to every login and any login may take: A's agent took it, and every write of B
    waited for it and failed (workspace_busy). B's writers are serialised by B's own lock now (a row
    lock on its audit chain's head, which the application role cannot take), and show nothing to take."""
    b = app_session(db_url, "B")
    with psycopg.connect(agent_of_a, autocommit=True) as mallory:
        decide(b)  # (B's transaction, open: what its writer holds, as another login sees it)
        seen = held_by(mallory, b.info.backend_pid)
        b.commit()
        for lock in seen:
            take(mallory, lock)
        b.execute("set lock_timeout = '2s'")
        b.commit()
        try:
            decide(b)
            b.commit()
            blocked = None
        except psycopg.errors.LockNotAvailable as exc:
            b.rollback()
            blocked = str(exc)
    b.close()
    assert blocked is None, f"A's agent held up B's write with the locks it saw: {blocked}"
    assert seen == []
    assert su(db_url, "select count(*) from beliefdb.decision d join beliefdb.workspace w on w.id = d.workspace_id"
                      " where w.name = 'B'") == [(2,)]


def test_another_workspaces_agent_cannot_show_its_queued_jobs_running(db_url: str, agent_of_a: str) -> None:
    """beliefdb.jobs showed a queued job running when any session held the advisory lock on its id
    (job_take took one): A's agent, guessing B's job ids from its own (they are one sequence), made
    B's queued jobs look running and hid them from jobs --status queued, and, holding the key first,
    made a job B's worker held look queued. Running now means a transaction in progress holds the
    job's row (its xmax), which only B's own sessions can lock."""
    with beliefdb.connect(db_url, "B") as db:
        (job,) = db.submit(text=POLICY, source="returns.md")
        with psycopg.connect(agent_of_a, autocommit=True) as mallory:
            mallory.execute("select pg_catalog.pg_advisory_lock(%s::integer, %s::integer)", (JOB_KEY, job))
            assert [(j.id, j.status) for j in db.jobs()] == [(job, "queued")]
            assert [j.id for j in db.jobs(status="queued")] == [job]
            assert db.jobs(status="running") == []
            # a worker of B that takes it: running, whoever else holds a lock of that key
            worker = app_session(db_url, "B")
            taken = worker.execute("select j.id from beliefdb.job_take('w') j").fetchone()
            assert taken == (job,)
            assert [(j.id, j.status) for j in db.jobs()] == [(job, "running")]
            worker.rollback()
            worker.close()
        assert [(j.id, j.status) for j in db.jobs()] == [(job, "queued")]


def test_a_worker_shows_its_job_running_to_its_own_workspace_only(db_url: str, agent_of_a: str) -> None:
    """The job a worker of B holds is running to B; to A (whose job ids are other numbers) nothing changes."""
    with beliefdb.connect(db_url, "A") as a, beliefdb.connect(db_url, "B") as b:
        (mine,) = a.submit(text=SHIPPING, source="shipping.md")
        (theirs,) = b.submit(text=POLICY, source="returns.md")
        worker = app_session(db_url, "B")
        assert worker.execute("select j.id from beliefdb.job_take('w') j").fetchone() == (theirs,)
        assert [(j.id, j.status) for j in b.jobs()] == [(theirs, "running")]
        assert [(j.id, j.status) for j in a.jobs()] == [(mine, "queued")]
        worker.rollback()
        worker.close()


@pytest.mark.parametrize("table", ["belief_embedding", "embedding_model"])
def test_another_workspaces_agent_cannot_lock_the_embedding_tables(agent_of_a: str, db_url: str, table: str) -> None:
    """The application role could update and delete the embedding tables, and so lock them in access
    exclusive mode: an agent's login of A held that lock and B's ask waited for it (12 s, until it let
    go). It writes vectors through functions now, and may take no lock that stops another's search."""
    with psycopg.connect(agent_of_a) as mallory:
        for mode in ("access exclusive", "exclusive", "share row exclusive", "share", "row exclusive"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), mallory.transaction():
                mallory.execute(sql.SQL("lock table {} in {} mode").format(
                    sql.Identifier("beliefdb", table), sql.SQL(mode)))
    # B's memory still stores and searches vectors (through the functions)
    with beliefdb.connect(db_url, "B") as db:
        assert db.embed().missing == 0
        assert db.ask("how long is shipping").beliefs


#: what an agent's login of A could call to gather the shared tables' planner statistics (an ANALYZE,
#: whose lock on each table stays until its transaction ends)
ANALYZING_CALLS = ["select beliefdb.refresh_ranking_stats(true)", "select beliefdb.refresh_ranking_stats()",
                   "select beliefdb.bulk_analyze()",
                   "select beliefdb.refresh_ranking_stats(true), pg_catalog.pg_sleep(0)"]


def forget_b(db_url: str) -> str | None:
    """B's owner forgets its source (a forget gathers the text tables' statistics before it commits,
    rule 14); None, or what it said when it could not."""
    with beliefdb.connect(db_url, "B") as db:
        try:
            done = db.forget(source="B.md")
        except errors.BeliefDBError as exc:
            return exc.message
    assert (done.versions, done.preview) == (1, False)
    return None


@pytest.mark.parametrize("call", ANALYZING_CALLS)
def test_another_workspaces_agent_cannot_hold_up_its_forget(db_url: str, agent_of_a: str, call: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's login of A ran ANALYZE on the tables every workspace shares (refresh_ranking_stats,
    bulk_analyze) and kept its transaction open: B's forget, which gathers them too, waited for it and
    gave up (workspace_busy), every retry. Only a session of the schema's owner gathers them now; the
    agent's call is refused and holds nothing."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "1")
    with psycopg.connect(agent_of_a) as mallory:  # (not autocommit: its transaction stays open)
        try:
            mallory.execute(call)
            refused = None
        except psycopg.errors.InsufficientPrivilege as exc:
            refused = str(exc)
        held = forget_b(db_url)
    assert held is None, f"A's agent held up B's forget: {held}"
    assert refused is not None and "schema's owner" in refused
    # counting A's ranking statistics again, which takes no table's lock, stays the agent's
    with psycopg.connect(agent_of_a) as mallory:
        counted = mallory.execute("select beliefdb.refresh_ranking_stats(false)").fetchone()
    assert counted == su(db_url, "select count(*) from beliefdb.lexeme_frequency f join beliefdb.workspace w"
                                 " on w.id = f.workspace_id where w.name = 'A'")[0]


def test_another_workspaces_agents_large_ingest_cannot_hold_up_its_forget(db_url: str, agent_of_a: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An ingest adding more beliefs than the planner knows of gathered the tables' statistics in its
    transaction (plans for a few rows read every row): an agent's login of A ingested 100 claims and
    kept its transaction open, and B's forget waited for it. An agent's ingest leaves them as they are."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "1")
    text = " ".join(f"Item {n} costs {n} EUR." for n in range(100))
    claims = []
    for n in range(100):
        quote = f"Item {n} costs {n} EUR."
        start = text.index(quote)
        claims.append({"statement": quote, "subject": f"item_{n}", "attribute": "price", "value": f"{n} EUR",
                       "quote": quote, "start": start, "end": start + len(quote)})
    with psycopg.connect(agent_of_a) as mallory:
        report = mallory.execute("select beliefdb.ingest_version('items.md', %s, p_claims => %s)",
                                 (text, Jsonb(claims))).fetchone()
        held = forget_b(db_url)
        assert report is not None and len(report[0]["accepted"]) == 100
        mallory.rollback()
    assert held is None, f"A's agent held up B's forget: {held}"


def test_an_agents_bulk_ingest_leaves_the_statistics_to_autovacuum(db_url: str, agent_of_a: str) -> None:
    """The library's bulk ingest gathers the grown tables' statistics after its last batch when its session
    is the schema owner's; through an agent's login it stores everything and says they are left to autovacuum."""
    with beliefdb.connect(agent_of_a, "A") as db:
        report = db.bulk_ingest(("one.md", POLICY.replace("7", "9")), ("two.md", SHIPPING.replace("2", "3")),
                                embed=False)
    assert report.documents == 2 and report.accepted >= 2
    assert report.statistics_deferred is not None and "autovacuum" in report.statistics_deferred
    with beliefdb.connect(db_url, "B") as db:
        again = db.bulk_ingest(("three.md", POLICY), embed=False)
    assert again.statistics_deferred is None
