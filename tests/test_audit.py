"""Truth rule 12: every change appends to a per-workspace SHA-256 hash chain that the application
role cannot rewrite, and `audit verify` names the first broken link."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer
from beliefdb.models import AuditResult
from beliefdb.store.workspaces import create_workspace

GENESIS = bytes(32)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@contextmanager
def superuser(url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(url, autocommit=True) as conn:
        yield conn


@contextmanager
def app_session(url: str, workspace_id: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("set role beliefdb_app")
        yield conn


def workspace_id(url: str, name: str) -> str:
    with superuser(url) as conn:
        row = conn.execute("select id::text from beliefdb.workspace where name = %s", (name,)).fetchone()
    assert row is not None
    return str(row[0])


def chain(url: str, ws: str) -> list[tuple[Any, ...]]:
    """(seq, action, principal, payload) of a workspace's events in order, read as superuser."""
    with superuser(url) as conn:
        return conn.execute("select seq, action, principal, payload from beliefdb.audit_event "
                            "where workspace_id = %s order by seq", (ws,)).fetchall()


def keyed(url: str, ws: str, seq: int, digest: bytes) -> str:
    """What event seq records of a digest: the HMAC-SHA-256 under the workspace's secret of the event's
    salt (its seq and time) and the digest (hex)."""
    with superuser(url) as conn:
        row = conn.execute("select k.key, beliefdb._audit_salt(e.seq, e.at) from beliefdb.audit_key k"
                           " join beliefdb.audit_event e on e.workspace_id = k.workspace_id"
                           " where k.workspace_id = %s and e.seq = %s", (ws, seq)).fetchone()
    assert row is not None, "the workspace has its secret from its first keyed event"
    return hmac.new(bytes(row[0]), bytes(row[1]) + digest, hashlib.sha256).hexdigest()


def verify_sql(url: str, ws: str) -> tuple[Any, ...]:
    with superuser(url) as conn:
        row = conn.execute("select ok, events, first_broken from beliefdb.audit_verify(%s)", (ws,)).fetchone()
    assert row is not None
    return tuple(row)


def remember(db: beliefdb.BeliefDB, n: int, value: str = "7 days", source: str | None = None,
             authority: str | None = None) -> None:
    text = f"Note {n}. Returns are accepted within {value}."
    report = db.remember(f"returns within {value}", "return_policy", "window", value,
                         f"Returns are accepted within {value}.", source=source or f"note-{n}", text=text,
                         authority=authority)
    assert len(report.accepted) + len(report.corroborated) == 1, report


@pytest.fixture
def busy(db_url: str, bdb: beliefdb.BeliefDB) -> tuple[str, str, int]:
    """The default workspace after a few ingests: (url, workspace id, number of events)."""
    remember(bdb, 1, "7 days", source="chat")
    remember(bdb, 2, "15 days", source="policy", authority="official")
    remember(bdb, 3, "15 days", source="faq")
    ws = bdb.database.workspace_id
    n = len(chain(db_url, ws))
    assert n > 6  # the genesis, then each ingest's one event and its embeddings'
    assert verify_sql(db_url, ws) == (True, n, None)
    return db_url, ws, n


# ---------------------------------------------------------------------------------------------
# appending
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_every_mutation_appends(db_url: str) -> None:
    ws = workspace_id(db_url, "default")
    before = chain(db_url, ws)
    assert [e[1] for e in before] == ["workspace.insert"]

    text = "Hello. Returns are accepted within 7 days."
    with beliefdb.connect(db_url, principal="agent-7") as db:
        db.remember("returns within 7 days", "return_policy", "window", "7 days",
                    "Returns are accepted within 7 days.", source="chat", text=text)
        after_ingest = chain(db_url, ws)
        new = after_ingest[len(before):]
        actions = [e[1] for e in new]
        # one event for the ingest, its statements' rows its entries; only its embeddings are written after it
        assert actions[0] == "ingest" and set(actions[1:]) == {"embedding_model.insert", "belief_embedding.insert"}
        ingest = new[0][3]
        ops = [f"{r['table']}.{r['op']}" for r in ingest["rows"]]
        for expected in ("source.insert", "source_version.insert", "fragment.insert", "belief.insert",
                         "justification.insert", "justification_antecedent.insert", "evidence.insert"):
            assert expected in ops, (expected, ops)
        # seq continues the chain, stamped with the acting principal
        assert [e[0] for e in after_ingest] == list(range(1, len(after_ingest) + 1))
        assert {e[2] for e in new} == {"agent-7"}
        assert ingest["source"] == "chat" and ingest["version"] == 1 and ingest["accepted"] == 1
        # the text and the rows it wrote are recorded by digests keyed to the event (rule 14: no plain
        # digest of words a forget may mask later), which whoever holds the workspace's secret can recompute
        assert "sha256" not in ingest and "text_sha256" not in ingest
        assert ingest["text_hmac"] == keyed(db_url, ws, new[0][0], hashlib.sha256(text.encode()).digest())
        belief_insert = next(r for r in ingest["rows"] if r["table"] == "belief" and r["op"] == "insert")
        assert belief_insert["count"] == 1
        assert len(belief_insert["keys"]) == 1 and len(belief_insert["rows_hmac"]) == 64
        assert not any("rows_sha256" in r for r in ingest["rows"])
        # the chain keeps hashes and keys, not text
        assert "Returns are accepted" not in json.dumps([e[3] for e in new])

        # a superseding ingest: relation and status change are recorded too
        db.remember("returns within 15 days", "return_policy", "window", "15 days",
                    "Returns are accepted within 15 days.", source="policy",
                    text="Returns are accepted within 15 days.", authority="official")
        after_supersede = chain(db_url, ws)
        (second,) = [e[3] for e in after_supersede[len(after_ingest):] if e[1] == "ingest"]
        assert {"relation.insert", "belief.update"} <= {f"{r['table']}.{r['op']}" for r in second["rows"]}

        # a write of vectors (the application's own, through its function) is audited as well: the
        # switch to another model drops the vectors of every other
        with db.database.transaction() as conn:
            conn.execute("select beliefdb.embedding_switch('another-model')")
        last = chain(db_url, ws)[-1]
        assert last[1] == "belief_embedding.delete" and last[3]["count"] == 2 and last[2] == "agent-7"
        assert db.audit_verify() == AuditResult(ok=True, events=len(after_supersede) + 1, first_broken=None)


def test_every_workspace_table_is_audited(postgresql: psycopg.Connection[Any]) -> None:
    """Every table holding workspace rows has an audit trigger for insert, update and delete: the
    application writes a few directly and the rest through functions with owner rights. Not
    adjacency: its rows only repeat node, justification and justification_antecedent (whose changes
    are audited), written by their triggers; not agent_login, which only the schema owner's beliefdb
    agent create|drop write, each appending its own event (agent.create, agent.drop), and which keeps a
    binding after its workspace (and chain) is deleted; not lexeme_frequency, derived from belief by its
    triggers as adjacency is; not retraction_period, derived from the retracted_at of node, source and
    source_version (whose changes are audited) by their triggers; not authority_change, derived from
    the authority of source (whose changes are audited) by its trigger; not job and job_start, the queue's
    bookkeeping: what a job changes is audited by the ingest it runs (in the job's own transaction), and
    a queued document's text is not a change of memory until then; not audit_key, the chain's own secret
    for its forget events' digests, made by a workspace's first forget (whose event records its use)."""
    missing = postgresql.execute("""
        select c.relname, op
          from pg_catalog.pg_class c,
               unnest(array['INSERT', 'UPDATE', 'DELETE']) op
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
           and (has_table_privilege('beliefdb_app', c.oid, op)
                or (exists (select from pg_catalog.pg_attribute a
                             where a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped)
                    and c.relname not in ('audit_event', 'audit_head', 'adjacency', 'agent_login',
                                          'lexeme_frequency', 'retraction_period', 'job', 'job_start',
                                          'audit_key', 'authority_change')))
           and not exists (
                select from pg_catalog.pg_trigger t
                 where t.tgrelid = c.oid and not t.tgisinternal
                   and (t.tgfoid = pg_catalog.to_regprocedure('beliefdb._audit_rows_' || c.relname || '()')
                        or t.tgfoid = 'beliefdb.audit_workspace_created()'::regprocedure)
                   and (t.tgtype & (case op when 'INSERT' then 4 when 'DELETE' then 8 else 16 end)) <> 0)
         order by 1, 2
    """).fetchall()
    # column-level insert (name) on workspace is covered by its genesis trigger
    assert missing == []


def test_hand_written_writes_are_audited_whoever_writes(db_url: str) -> None:
    """The application role records its embedding model through its function, a DBA writes anything:
    both are changes too, stamped with the principal of the session."""
    ws = workspace_id(db_url, "default")
    before = len(chain(db_url, ws))
    with app_session(db_url, ws) as conn:
        conn.execute("select beliefdb.record_embedding_model('m', 3)")
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (ws,))
        conn.execute("select set_config('beliefdb.principal', 'dba:alice', false)")
        conn.execute("insert into beliefdb.node (kind) values ('decision')")
        conn.execute("update beliefdb.node set created_at = '2000-01-01'")
    events = chain(db_url, ws)[before:]
    assert [e[1] for e in events] == ["embedding_model.insert", "node.insert", "node.update"]
    assert [e[2] for e in events][1:] == ["dba:alice", "dba:alice"]


def test_app_cannot_append_events_of_its_own_making(db_url: str) -> None:
    """Events come only from beliefdb's own changes (issue 22): the summaries go through
    beliefdb._audit, which the application role may not call, and beliefdb.audit is gone."""
    ws = workspace_id(db_url, "default")
    with app_session(db_url, ws) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select beliefdb._audit('note', '{\"why\": \"test\"}')")
        with pytest.raises(psycopg.errors.UndefinedFunction):
            conn.execute("select beliefdb.audit('note', '{\"why\": \"test\"}')")
    assert [e[1] for e in chain(db_url, ws)] == ["workspace.insert"]
    assert verify_sql(db_url, ws) == (True, 1, None)


def test_a_correction_is_one_event_holding_its_statements_rows(busy: tuple[str, str, int],
                                                               bdb: beliefdb.BeliefDB) -> None:
    """A correction's apply appends one event, correction.apply, not one per statement (issue 21):
    its statements' entries (table, op, count, keys, rows_hmac: what each event carried) are its
    rows, in statement order; the chain verifies, and a tampered entry is its first broken link."""
    url, ws, _ = busy
    x = bdb.remember("returns within 9 days", "restock", "window", "9 days", "Restocking takes 9 days.",
                     source="desk", text="Desk. Restocking takes 9 days.").accepted[0].id
    decision = bdb.decide("Promise a restock", because=[x]).id
    before = len(chain(url, ws))
    seen = bdb.why(x).belief.revision
    result = bdb.apply_correction(x, "Restocking takes 12 days.", reviewer="rita", expect_revision=seen)
    events = chain(url, ws)[before:]
    # (then only the replacement's embedding, which the library writes after the apply)
    assert (events[0][0], events[0][1]) == (before + 1, "correction.apply")
    assert {e[1] for e in events[1:]} <= {"belief_embedding.insert"}
    after = len(chain(url, ws))
    payload = events[0][3]
    assert payload["correction"] == str(result.correction) and payload["belief"] == str(x)
    assert payload["replacement"] == str(result.replacement) and payload["flagged"] == [str(decision)]
    rows = payload["rows"]
    ops = [f"{r['table']}.{r['op']}" for r in rows]
    assert {"node.insert", "source.insert", "source_version.insert", "fragment.insert", "belief.insert",
            "justification.insert", "justification_antecedent.insert", "evidence.insert", "correction.insert",
            "relation.insert", "belief.update", "node.update", "decision.update", "review_item.insert"} <= set(ops)
    # statement order: what is made comes before the propagation that follows it
    assert ops.index("correction.insert") < ops.index("relation.insert") < ops.index("decision.update")
    assert all(r["count"] == len(r["keys"]) and len(r["rows_hmac"]) == 64 for r in rows)
    # its rows counted: the three nodes it made, the replacement, the correction, the flagged decision
    made = next(r for r in rows if r["table"] == "node" and r["op"] == "insert")
    assert made["count"] == 3 and str(result.replacement) in made["keys"] and str(result.correction) in made["keys"]
    assert next(r for r in rows if r["table"] == "belief" and r["op"] == "insert")["keys"] == [str(result.replacement)]
    assert next(r for r in rows if r["table"] == "decision")["keys"] == [str(decision)]
    # a row's digest can be recomputed from the row with the workspace's secret (the correction row does
    # not change afterwards)
    with superuser(url) as conn:
        row = conn.execute("select c::text from beliefdb.correction c where c.id = %s",
                           (result.correction,)).fetchone()
    assert row is not None
    assert next(r for r in rows if r["table"] == "correction")["rows_hmac"] == \
        keyed(url, ws, before + 1, hashlib.sha256(row[0].encode()).digest())
    # the chain keeps hashes and keys, not the reviewer's text
    assert "Restocking takes 12 days" not in json.dumps(payload)
    assert verify_sql(url, ws) == (True, after, None)
    # a tampered entry (one row fewer counted) is the first broken link
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        conn.execute("update beliefdb.audit_event set payload = jsonb_set(payload, '{rows,0,count}', '2') "
                     "where workspace_id = %s and seq = %s", (ws, before + 1))
        assert conn.execute("select ok, first_broken from beliefdb.audit_verify(%s)",
                            (ws,)).fetchone() == (False, before + 1)
    assert verify_sql(url, ws) == (True, after, None)
    # the same correction again changes nothing and appends nothing
    again = bdb.apply_correction(x, "Restocking takes 12 days.", reviewer="rita", expect_revision=seen)
    assert again.already_applied and len(chain(url, ws)) == after


def test_only_a_correction_counts_its_statements_into_one_event(db_url: str) -> None:
    """The application role cannot make its writes skip their events by pretending to run an
    operation: the setting is only a hint, what counts is the schema owner's temporary table, and
    opening one is not granted."""
    ws = workspace_id(db_url, "default")
    before = len(chain(db_url, ws))
    with app_session(db_url, ws) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("select beliefdb._audit_open(%s)", (ws,))
    with psycopg.connect(db_url) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (ws,))
        conn.execute("set role beliefdb_app")
        conn.execute("create temporary table beliefdb_audit_operation (xact xid8 not null, workspace_id uuid not null, "
                     "step bigint not null generated by default as identity, entry jsonb)")
        conn.execute("insert into pg_temp.beliefdb_audit_operation values (pg_current_xact_id(), %s, 0, null)", (ws,))
        conn.execute("select set_config('beliefdb.audit_operation', %s, true)", (ws,))
        conn.execute("select beliefdb.record_embedding_model('m', 3)")
        assert conn.execute("select count(*) from pg_temp.beliefdb_audit_operation").fetchone() == (1,)
        conn.commit()
    events = chain(db_url, ws)[before:]
    assert [(e[1], e[3]["count"]) for e in events] == [("embedding_model.insert", 1)]
    assert verify_sql(db_url, ws) == (True, before + 1, None)


# ---------------------------------------------------------------------------------------------
# verifying
# ---------------------------------------------------------------------------------------------


def test_verify_ok_on_an_untouched_chain(busy: tuple[str, str, int], bdb: beliefdb.BeliefDB) -> None:
    url, ws, n = busy
    assert bdb.audit_verify() == AuditResult(ok=True, events=n, first_broken=None)
    with superuser(url) as conn:
        head = conn.execute("select seq, hash from beliefdb.audit_head where workspace_id = %s", (ws,)).fetchone()
        last = conn.execute("select seq, hash from beliefdb.audit_event where workspace_id = %s "
                            "order by seq desc limit 1", (ws,)).fetchone()
    assert head == last


@pytest.mark.slow
def test_chain_recomputes_outside_the_database(busy: tuple[str, str, int]) -> None:
    """hash = sha256(prev_hash || ws 0x1f seq 0x1f epoch-microseconds 0x1f principal 0x1f action ||
    sha256(payload)): the chain can be checked without trusting beliefdb's own SQL."""
    url, ws, n = busy
    with superuser(url) as conn:
        rows = conn.execute("select seq, at, principal, action, payload::text, payload_hash, prev_hash, hash "
                            "from beliefdb.audit_event where workspace_id = %s order by seq", (ws,)).fetchall()
    assert len(rows) == n
    prev = GENESIS
    for seq, at, principal, action, payload, payload_hash, prev_hash, link in rows:
        assert bytes(prev_hash) == prev, seq
        assert bytes(payload_hash) == hashlib.sha256(payload.encode()).digest(), seq
        micros = (at - EPOCH) // timedelta(microseconds=1)
        fields = "\x1f".join([ws, str(seq), str(micros), principal, action]).encode()
        assert bytes(link) == hashlib.sha256(prev + fields + bytes(payload_hash)).digest(), seq
        prev = bytes(link)


def _middle(n: int) -> int:
    return n // 2


# (tampering as superuser, first_broken as a function of the middle event k and chain length n)
TAMPERING: dict[str, tuple[str | list[str], Callable[[int, int], int]]] = {
    "payload edited": ("update beliefdb.audit_event set payload = payload || '{\"count\": 99}' "
                       "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "payload hash edited": ("update beliefdb.audit_event set payload_hash = sha256('x') "
                            "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "action edited": ("update beliefdb.audit_event set action = 'nothing.happened' "
                      "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "principal edited": ("update beliefdb.audit_event set principal = 'someone-else' "
                         "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "time edited": ("update beliefdb.audit_event set at = at - interval '1 day' "
                    "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    # the link that breaks is the one from the survivor after the gap back to the event before it
    "middle event deleted": ("delete from beliefdb.audit_event where workspace_id = %(ws)s and seq = %(k)s",
                             lambda k, n: k + 1),
    "first event deleted": ("delete from beliefdb.audit_event where workspace_id = %(ws)s and seq = 1",
                            lambda k, n: 2),
    # nothing follows the last event: the head still names it, so the missing seq n is reported
    "last event deleted": ("delete from beliefdb.audit_event where workspace_id = %(ws)s and seq = %(n)s",
                           lambda k, n: n),
    "all events deleted": ("delete from beliefdb.audit_event where workspace_id = %(ws)s", lambda k, n: 1),
    "hash edited": ("update beliefdb.audit_event set hash = sha256(hash) "
                    "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "prev hash edited": ("update beliefdb.audit_event set prev_hash = sha256(prev_hash) "
                         "where workspace_id = %(ws)s and seq = %(k)s", lambda k, n: k),
    "last hash edited": ("update beliefdb.audit_event set hash = sha256(hash) "
                         "where workspace_id = %(ws)s and seq = %(n)s", lambda k, n: n),
    # two neighbours swap places: the event now at k was linked as k + 1
    "events swapped": (["update beliefdb.audit_event set seq = 1000000 where workspace_id = %(ws)s and seq = %(k)s",
                        "update beliefdb.audit_event set seq = %(k)s where workspace_id = %(ws)s and seq = %(k)s + 1",
                        "update beliefdb.audit_event set seq = %(k)s + 1 where workspace_id = %(ws)s "
                        "and seq = 1000000"], lambda k, n: k),
    # events all hold, but the head says the chain went further: events were cut off the end
    "head moved on": ("update beliefdb.audit_head set seq = seq + 1 where workspace_id = %(ws)s",
                      lambda k, n: n + 1),
    # an event appended behind beliefdb's back (a valid link, but the head does not know it):
    # the first link that does not belong is the new event n + 1
    "event appended past the head": (
        """
        insert into beliefdb.audit_event (workspace_id, seq, at, principal, action, payload, payload_hash,
                                          prev_hash, hash)
        select e.workspace_id, e.seq + 1, e.at, e.principal, 'forged', '{}', beliefdb.audit_payload_hash('{}'),
               e.hash, beliefdb.audit_link_hash(e.hash, e.workspace_id, e.seq + 1, e.at, e.principal, 'forged',
                                                beliefdb.audit_payload_hash('{}'))
          from beliefdb.audit_event e
         where e.workspace_id = %(ws)s and e.seq = %(n)s
        """, lambda k, n: n + 1),
}


# what audit_verify says is wrong at the first broken link (its problem), as a function of k and n
PROBLEM: dict[str, Callable[[int, int], str]] = {
    "payload edited": lambda k, n: f"event {k} (",
    "payload hash edited": lambda k, n: "its payload or payload_hash was changed after it was recorded",
    "action edited": lambda k, n: "its hash does not cover its seq, time, principal, action and payload",
    "principal edited": lambda k, n: f"event {k} (",
    "time edited": lambda k, n: "one of them was changed after it was recorded",
    "middle event deleted": lambda k, n: f"event {k} is missing",
    "first event deleted": lambda k, n: "event 1 is missing",
    "last event deleted": lambda k, n: f"event {n} is missing",
    "all events deleted": lambda k, n: f"events 1 to {n} are missing",
    "hash edited": lambda k, n: f"event {k} (",
    "prev hash edited": lambda k, n: f"its prev_hash is not the hash of event {k - 1}",
    "last hash edited": lambda k, n: f"event {n} (",
    "events swapped": lambda k, n: f"its prev_hash is not the hash of event {k - 1}",
    "head moved on": lambda k, n: f"event {n + 1} is missing: the head (audit_head) says the chain ends at {n + 1}",
    "event appended past the head": lambda k, n: f"event {n + 1} (forged) is past the head (audit_head), "
                                                 f"which says the chain ends at {n}",
}


@pytest.fixture(scope="module")
def shared_chain(embedded_server: EmbeddedServer) -> Iterator[tuple[str, str, int]]:
    """A database whose default workspace has a chain of some events, built once; tests tamper
    with it only inside transactions they roll back."""
    admin = embedded_server.status().url
    assert admin is not None
    name = f"audit_{uuid.uuid4().hex[:12]}"
    with superuser(admin) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    url = make_conninfo(admin, dbname=name)
    migrate.upgrade(url)
    with beliefdb.connect(url) as db:
        remember(db, 1, "7 days", source="chat")
        remember(db, 2, "15 days", source="policy", authority="official")
        remember(db, 3, "15 days", source="faq")
        ws = db.database.workspace_id
    n = len(chain(url, ws))
    assert n > 6  # the genesis, then each ingest's one event and its embeddings'
    yield url, ws, n
    with superuser(admin) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.mark.parametrize("tampering", list(TAMPERING))
def test_verify_finds_the_first_broken_link(shared_chain: tuple[str, str, int], tampering: str) -> None:
    """The first link that does not hold, and what is wrong with it (an auditor reads which event,
    and whether its payload, its link or the chain's end was touched)."""
    url, ws, n = shared_chain
    assert verify_sql(url, ws) == (True, n, None)
    statements, first_broken = TAMPERING[tampering]
    k = _middle(n)
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        for statement in [statements] if isinstance(statements, str) else statements:
            cur = conn.execute(statement, {"ws": ws, "k": k, "n": n})
            assert cur.rowcount >= 1
        events = conn.execute("select count(*) from beliefdb.audit_event where workspace_id = %s",
                              (ws,)).fetchone()
        assert events is not None
        expected = (False, events[0], first_broken(k, n))
        assert conn.execute("select ok, events, first_broken from beliefdb.audit_verify(%s)",
                            (ws,)).fetchone() == expected
        # and it says what is wrong there, in words
        problem = conn.execute("select problem from beliefdb.audit_verify(%s)", (ws,)).fetchone()
        assert problem is not None and PROBLEM[tampering](k, n) in problem[0], problem
        # the application role, bound to the workspace, reads the same verdict
        conn.execute("select set_config('beliefdb.workspace_id', %s, true)", (ws,))
        conn.execute("set local role beliefdb_app")
        assert conn.execute("select ok, events, first_broken, problem from beliefdb.audit_verify()"
                            ).fetchone() == (*expected, problem[0])
    # rolled back: the shared chain is whole again
    assert verify_sql(url, ws) == (True, n, None)


@pytest.mark.parametrize("switch", ["disable trigger belief_audit_update", "disable trigger user",
                                    "enable replica trigger belief_audit_update"])
def test_an_audit_trigger_left_off_is_reported(shared_chain: tuple[str, str, int], switch: str) -> None:
    """A DBA who turns a table's audit trigger off changes rows that no event records, and the links
    all still hold: verify said ok. While it is off the chain records nothing of that table, so
    verify says so, naming the trigger, with the next event as the first that may be missing."""
    url, ws, n = shared_chain
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        conn.execute(sql.SQL("alter table beliefdb.belief {}").format(sql.SQL(switch)))
        conn.execute("update beliefdb.belief set value = 'forged' where workspace_id = %s", (ws,))
        ok, events, first_broken, problem = conn.execute(
            "select ok, events, first_broken, problem from beliefdb.audit_verify(%s)", (ws,)).fetchone() or ()
        assert (ok, events, first_broken) == (False, n, n + 1)
        assert "beliefdb.belief" in problem and "belief_audit_update" in problem and "off" in problem
        conn.execute("alter table beliefdb.belief enable trigger all")
        # on again, the chain's links all hold, but the beliefs do not say what they were stored saying
        ok, first_broken, problem = conn.execute(
            "select ok, first_broken, problem from beliefdb.audit_verify(%s)", (ws,)).fetchone() or ()
        assert (ok, first_broken) == (False, n + 1), problem
        assert "does not say what it said when it was stored" in problem and "no event records" in problem, problem
    assert verify_sql(url, ws) == (True, n, None)


# what a belief rests on, changed by hand: (statements, whether the audit triggers are on)
RESTS_ON: dict[str, tuple[str, bool]] = {
    "value updated": ("update beliefdb.belief set value = 'forged' "
                      "where workspace_id = %(ws)s and id = %(belief)s", True),
    "statement updated": ("update beliefdb.belief set statement = 'forged' "
                          "where workspace_id = %(ws)s and id = %(belief)s", True),
    "evidence deleted": ("delete from beliefdb.evidence where workspace_id = %(ws)s and belief_id = %(belief)s", True),
    "value updated, triggers off": ("update beliefdb.belief set value = 'forged' "
                                    "where workspace_id = %(ws)s and id = %(belief)s", False),
    "evidence deleted, triggers off": ("delete from beliefdb.evidence "
                                       "where workspace_id = %(ws)s and belief_id = %(belief)s", False),
    "quote changed, triggers off": ("update beliefdb.evidence set quote = 'Returns are accepted within 30 days.' "
                                    "where workspace_id = %(ws)s and belief_id = %(belief)s", False),
    "evidence moved to another belief, triggers off": (
        "update beliefdb.evidence set belief_id = (select b.id from beliefdb.belief b where b.workspace_id = %(ws)s "
        "and b.id <> %(belief)s order by b.id limit 1) where workspace_id = %(ws)s and belief_id = %(belief)s", False),
}


@pytest.mark.parametrize("tampering", list(RESTS_ON))
def test_verify_finds_what_a_belief_rests_on_changed_by_hand(shared_chain: tuple[str, str, int],
                                                             tampering: str) -> None:
    """A DBA's hand-written update of what a belief says, or delete of its evidence, appended an event
    like beliefdb's own and verify said ok; with the triggers off, nothing at all. beliefdb never
    changes what a belief says, and deletes evidence only with its belief, fragment or justification:
    verify now names the belief, and the event that changed it (or that none records it)."""
    url, ws, n = shared_chain
    statement, triggers_on = RESTS_ON[tampering]
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        row = conn.execute("select id from beliefdb.belief where workspace_id = %s and value = '7 days'",
                           (ws,)).fetchone()
        assert row is not None
        belief = row[0]
        if not triggers_on:
            conn.execute("set local session_replication_role = replica")
        assert conn.execute(statement, {"ws": ws, "belief": belief}).rowcount >= 1
        conn.execute("set local session_replication_role = origin")
        events = n + 1 if triggers_on else n
        ok, counted, first_broken, problem = conn.execute(
            "select ok, events, first_broken, problem from beliefdb.audit_verify(%s)", (ws,)).fetchone() or ()
        assert (ok, counted, first_broken) == (False, events, n + 1), problem
        assert str(belief) in problem, problem
        if triggers_on:
            action = conn.execute("select action || ' by ' || principal from beliefdb.audit_event "
                                  "where workspace_id = %s and seq = %s", (ws, n + 1)).fetchone()
            assert action is not None and f"event {n + 1} ({action[0]}" in problem, problem
        else:
            assert "no event records" in problem, problem
        if tampering.startswith("evidence moved"):
            # the row where it is now, and the reason it was one of, left without it
            assert "(2 rows in all are not as beliefdb stored them)" in problem, problem
        # the application role, bound to the workspace, reads the same verdict
        conn.execute("select set_config('beliefdb.workspace_id', %s, true)", (ws,))
        conn.execute("set local role beliefdb_app")
        assert conn.execute("select ok, events, first_broken, problem from beliefdb.audit_verify()"
                            ).fetchone() == (False, events, n + 1, problem)
    assert verify_sql(url, ws) == (True, n, None)


# rows deleted or texts changed by a superuser with the triggers off (session_replication_role =
# replica: no event, no cascade): (statements, what the problem says, besides that no event records it)
GONE: dict[str, tuple[list[str], list[str]]] = {
    "version text changed": (
        ["update beliefdb.source_version set content = content || ' Or 90 days.' where workspace_id = %(ws)s"
         " and id = %(version)s"],
        ["version 1 of source 'chat' (%(version)s): its text does not hash to its sha256"]),
    "version text replaced, fragments no longer at their offsets": (
        ["update beliefdb.source_version set content = 'Returns: 90 days. ' || content where workspace_id = %(ws)s"
         " and id = %(version)s"],
        ["version 1 of source 'chat' (%(version)s): its text does not hash to its sha256",
         "its fragments' offsets may no longer point at their words"]),
    "belief deleted": (
        ["delete from beliefdb.belief where workspace_id = %(ws)s and id = %(belief)s"],
        ["belief %(belief)s was deleted outside beliefdb: its node is left without its row in beliefdb.belief",
         "rows in all are not as beliefdb stored them"]),
    "belief deleted with its node": (
        ["delete from beliefdb.belief where workspace_id = %(ws)s and id = %(belief)s",
         "delete from beliefdb.node where workspace_id = %(ws)s and id = %(belief)s"],
        ["belief %(belief)s: its evidence from fragment %(fragment)s is left behind: the belief no longer exists"]),
    "node deleted": (
        ["delete from beliefdb.node where workspace_id = %(ws)s and id = %(belief)s"],
        ["belief %(belief)s has no node: its node was deleted outside beliefdb"]),
    "fragment deleted": (
        ["delete from beliefdb.fragment where workspace_id = %(ws)s and id = %(fragment)s"],
        ["fragment %(fragment)s was deleted outside beliefdb: its node is left without its row in "
         "beliefdb.fragment"]),
}


@pytest.mark.parametrize("tampering", list(GONE))
def test_verify_finds_rows_deleted_and_texts_changed_with_the_triggers_off(shared_chain: tuple[str, str, int],
                                                                           tampering: str) -> None:
    """A superuser with the triggers off (session_replication_role = replica) changed a version's text
    alone (its sha256 no longer its text's, its fragments' offsets at other words), or deleted a belief
    outright (its node, evidence and reasons left behind: no cascade): verify said ok. It now names the
    version or the row, and that no event records the change."""
    url, ws, n = shared_chain
    statements, says = GONE[tampering]
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        row = conn.execute("select b.id, e.fragment_id, f.source_version_id from beliefdb.belief b"
                           " join beliefdb.evidence e on e.workspace_id = b.workspace_id and e.belief_id = b.id"
                           " join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id"
                           " where b.workspace_id = %s and b.value = '7 days'", (ws,)).fetchone()
        assert row is not None
        names = {"ws": ws, "belief": row[0], "fragment": row[1], "version": row[2]}
        conn.execute("set local session_replication_role = replica")
        for statement in statements:
            assert conn.execute(statement, names).rowcount == 1  # type: ignore[arg-type]
        conn.execute("set local session_replication_role = origin")
        ok, counted, first_broken, problem = conn.execute(
            "select ok, events, first_broken, problem from beliefdb.audit_verify(%s)", (ws,)).fetchone() or ()
        assert (ok, counted, first_broken) == (False, n, n + 1), problem
        for said in says:
            assert said % names in problem, problem
        assert "no event records the change" in problem, problem
        # the application role, bound to the workspace, reads the same verdict
        conn.execute("select set_config('beliefdb.workspace_id', %s, true)", (ws,))
        conn.execute("set local role beliefdb_app")
        assert conn.execute("select ok, events, first_broken, problem from beliefdb.audit_verify()"
                            ).fetchone() == (False, n, n + 1, problem)
    assert verify_sql(url, ws) == (True, n, None)


def test_verify_names_the_event_that_deleted_a_belief(shared_chain: tuple[str, str, int]) -> None:
    """With the triggers on, a hand-written delete of a belief row (not its node, as beliefdb deletes)
    appends its event, and the cascade takes its evidence: verify names the belief and the event."""
    url, ws, n = shared_chain
    with psycopg.connect(url) as conn, conn.transaction(force_rollback=True):
        row = conn.execute("select id from beliefdb.belief where workspace_id = %s and value = '7 days'",
                           (ws,)).fetchone()
        assert row is not None
        conn.execute("delete from beliefdb.belief where workspace_id = %s and id = %s", (ws, row[0]))
        deleted = conn.execute("select seq from beliefdb.audit_event where workspace_id = %s"
                               " and action = 'belief.delete'", (ws,)).fetchone()
        assert deleted is not None
        ok, first_broken, problem = conn.execute(
            "select ok, first_broken, problem from beliefdb.audit_verify(%s)", (ws,)).fetchone() or ()
        assert (ok, first_broken) == (False, deleted[0]), problem
        assert f"belief {row[0]} was deleted outside beliefdb" in problem, problem
        assert f"the last event to change it is event {deleted[0]} (belief.delete by" in problem, problem
    assert verify_sql(url, ws) == (True, n, None)


@pytest.mark.slow
def test_redacted_payload_still_verifies(busy: tuple[str, str, int], bdb: beliefdb.BeliefDB) -> None:
    """Forgetting may drop a payload; the chain links payload hashes, so it still verifies."""
    url, ws, n = busy
    with superuser(url) as conn:
        conn.execute("update beliefdb.audit_event set payload = null where workspace_id = %s and seq = %s",
                     (ws, _middle(n)))
    assert bdb.audit_verify() == AuditResult(ok=True, events=n, first_broken=None)


def test_relinking_after_an_edit_is_caught_by_the_head(busy: tuple[str, str, int], bdb: beliefdb.BeliefDB) -> None:
    """Edit event k and recompute every later link (but not the head row, which the chain's
    writers lock): every event verifies, only the head no longer matches, so n + 1 is reported."""
    url, ws, n = busy
    k = _middle(n)
    with superuser(url) as conn, conn.transaction():
        conn.execute("update beliefdb.audit_event set action = 'nothing.happened' "
                     "where workspace_id = %s and seq = %s", (ws, k))
        for seq in range(k, n + 1):
            conn.execute("""
                update beliefdb.audit_event e
                   set prev_hash = coalesce((select p.hash from beliefdb.audit_event p
                                              where p.workspace_id = e.workspace_id and p.seq = e.seq - 1),
                                            beliefdb.audit_genesis()),
                       hash = beliefdb.audit_link_hash(
                                  coalesce((select p.hash from beliefdb.audit_event p
                                             where p.workspace_id = e.workspace_id and p.seq = e.seq - 1),
                                           beliefdb.audit_genesis()),
                                  e.workspace_id, e.seq, e.at, e.principal, e.action, e.payload_hash)
                 where e.workspace_id = %s and e.seq = %s
            """, (ws, seq))
    result = bdb.audit_verify()
    assert (result.ok, result.events, result.first_broken) == (False, n, n + 1)
    assert result.problem is not None and f"ends at event {n} but its hash is not that event's" in result.problem


def test_later_appends_do_not_heal_a_broken_chain(busy: tuple[str, str, int], bdb: beliefdb.BeliefDB) -> None:
    url, ws, n = busy
    k = _middle(n)
    with superuser(url) as conn:
        conn.execute("update beliefdb.audit_event set action = 'x' where workspace_id = %s and seq = %s", (ws, k))
    remember(bdb, 9, "30 days", source="later")
    result = bdb.audit_verify()
    assert not result.ok and result.first_broken == k and result.events > n


# ---------------------------------------------------------------------------------------------
# the application role cannot forge
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("statement", [
    "insert into beliefdb.audit_event (workspace_id, seq, principal, action, payload_hash, prev_hash, hash) "
    "values (%(ws)s, 1000, 'me', 'forged', '\\x00', '\\x00', '\\x00')",
    "insert into beliefdb.audit_head (workspace_id, seq, hash) values (%(other)s, 0, '\\x00')",
    "select beliefdb._audit_append(%(ws)s, 'forged', '{}')",
    "select beliefdb._audit_append(%(other)s, 'forged', '{}')",
])
def test_app_cannot_forge_events(db_url: str, statement: str) -> None:
    ws = workspace_id(db_url, "default")
    other = str(create_workspace(db_url, "other").id)
    before = (chain(db_url, ws), chain(db_url, other))
    with app_session(db_url, ws) as conn, pytest.raises(pg_errors.InsufficientPrivilege,
                                                        match="permission denied"):
        conn.execute(statement, {"ws": ws, "other": other})
    assert (chain(db_url, ws), chain(db_url, other)) == before
    assert verify_sql(db_url, ws)[0] and verify_sql(db_url, other)[0]


# ---------------------------------------------------------------------------------------------
# concurrency and independence
# ---------------------------------------------------------------------------------------------

WRITERS = 8


@pytest.mark.slow
def test_concurrent_writers_never_fork_the_chain(db_url: str) -> None:
    ws = workspace_id(db_url, "default")
    barrier = threading.Barrier(WRITERS)
    failures: list[BaseException] = []

    def writer(i: int) -> None:
        try:
            with beliefdb.connect(db_url, principal=f"writer-{i}") as db:
                barrier.wait(timeout=30)
                for round_ in range(2):
                    db.remember(f"item {i} costs {round_}", f"item-{i}", "price", f"{round_} EUR",
                                f"Item {i} costs {round_} EUR.", source=f"feed-{i}",
                                text=f"Round {round_}. Item {i} costs {round_} EUR.")
        except BaseException as exc:  # reported below, with the thread's own traceback
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert failures == []

    events = chain(db_url, ws)
    seqs = [e[0] for e in events]
    assert seqs == list(range(1, len(events) + 1))
    ingests = [e for e in events if e[1] == "ingest"]
    assert len(ingests) == WRITERS * 2
    assert {e[2] for e in ingests} == {f"writer-{i}" for i in range(WRITERS)}
    assert verify_sql(db_url, ws) == (True, len(events), None)
    with superuser(db_url) as conn:
        head = conn.execute("select seq from beliefdb.audit_head where workspace_id = %s", (ws,)).fetchone()
        links = conn.execute("""
            select count(*) from beliefdb.audit_event e
              join beliefdb.audit_event p on p.workspace_id = e.workspace_id and p.seq = e.seq - 1
             where e.workspace_id = %s and e.prev_hash = p.hash
        """, (ws,)).fetchone()
    assert head == (len(events),)
    assert links == (len(events) - 1,)


def test_an_event_is_never_dated_before_the_one_before_it(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    """A user trial: two processes, the second waiting for the first's workspace lock; the second's event
    (seq 9) was dated before the first's (seq 5), at its transaction's start. An event is dated when it is
    appended, after the lock (dba.md: "the real time they were appended at"): never before the event
    before it in its workspace's chain, and the chain still verifies."""
    ws = workspace_id(db_url, "default")
    before = len(chain(db_url, ws))

    def session() -> psycopg.Connection[Any]:
        conn = psycopg.connect(db_url, application_name=f"audit-order-{uuid.uuid4().hex[:8]}")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (ws,))
        conn.execute("set role beliefdb_app")
        conn.commit()
        return conn

    first, second = session(), session()
    failures: list[BaseException] = []
    try:
        second.execute("select now()")  # its transaction starts before the first writes
        first.execute("select beliefdb.ingest_version('first.md', 'Returns are accepted within 7 days.')")

        def waits() -> None:
            try:
                second.execute("select beliefdb.ingest_version('second.md', 'Returns are accepted within 9 days.')")
                second.commit()
            except BaseException as exc:  # reported below
                failures.append(exc)

        waiter = threading.Thread(target=waits)
        waiter.start()
        name = second.info.parameter_status("application_name")
        deadline = datetime.now(UTC) + timedelta(seconds=30)
        with superuser(db_url) as su:
            while not su.execute("select count(*) > 0 from pg_stat_activity where application_name = %s"
                                 " and wait_event_type = 'Lock'", (name,)).fetchone()[0]:  # type: ignore[index]
                assert datetime.now(UTC) < deadline, "the second writer never waited for the first's lock"
        first.commit()
        waiter.join(timeout=60)
        assert not waiter.is_alive() and failures == []
    finally:
        first.close()
        second.close()
    with superuser(db_url) as su:
        events = su.execute("select seq, at from beliefdb.audit_event where workspace_id = %s order by seq",
                            (ws,)).fetchall()
    assert len(events) > before
    assert [e for e, later in itertools.pairwise(events) if later[1] < e[1]] == []
    assert verify_sql(db_url, ws) == (True, len(events), None)


@pytest.mark.slow
def test_workspace_chains_are_independent(db_url: str) -> None:
    a_id = workspace_id(db_url, "default")
    b_id = str(create_workspace(db_url, "B").id)
    with beliefdb.connect(db_url) as a, beliefdb.connect(db_url, workspace="B") as b:
        remember(a, 1)
        remember(b, 1)
        remember(b, 2, "30 days", source="policy", authority="official")
        remember(a, 3, "15 days", source="policy")
        a_events, b_events = chain(db_url, a_id), chain(db_url, b_id)
        # each chain numbers from 1 and starts at the genesis hash
        assert [e[0] for e in a_events] == list(range(1, len(a_events) + 1))
        assert [e[0] for e in b_events] == list(range(1, len(b_events) + 1))
        with superuser(db_url) as conn:
            starts = conn.execute("select workspace_id::text, prev_hash from beliefdb.audit_event where seq = 1"
                                  ).fetchall()
            assert {w: bytes(h) for w, h in starts if w in (a_id, b_id)} == {a_id: GENESIS, b_id: GENESIS}
            conn.execute("update beliefdb.audit_event set payload = '{}' where workspace_id = %s and seq = 2",
                         (b_id,))
        broken = b.audit_verify()
        assert (broken.ok, broken.events, broken.first_broken) == (False, len(b_events), 2)
        assert broken.problem is not None and broken.problem.startswith("event 2 (")
        assert a.audit_verify() == AuditResult(ok=True, events=len(a_events), first_broken=None)
        # A keeps appending on its own intact chain
        remember(a, 4, "20 days", source="mail")
        assert a.audit_verify().ok
        assert b.audit_verify().first_broken == 2


# ---------------------------------------------------------------------------------------------
# the CLI
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_audit_verify_json(cli: Cli, busy: tuple[str, str, int]) -> None:
    url, ws, n = busy
    assert cli.json("audit", "verify") == {"ok": True, "events": n, "first_broken": None, "problem": None}

    text = cli("audit", "verify")
    assert "ok" in text.stdout and str(n) in text.stdout

    k = _middle(n)
    with superuser(url) as conn:
        conn.execute("delete from beliefdb.audit_event where workspace_id = %s and seq = %s", (ws, k))
    missing = f"event {k} is missing"
    broken = cli.json("audit", "verify", expect=1)
    assert (broken["ok"], broken["events"], broken["first_broken"]) == (False, n - 1, k + 1)
    assert missing in broken["problem"]

    broken_text = cli("audit", "verify", expect=1)
    assert "BROKEN" in broken_text.stdout and str(k + 1) in broken_text.stdout and missing in broken_text.stdout


def test_cli_audit_verify_names_the_workspace(cli: Cli, db_url: str) -> None:
    b_id = str(create_workspace(db_url, "B").id)
    with superuser(db_url) as conn:
        conn.execute("update beliefdb.audit_event set action = 'x' where workspace_id = %s and seq = 1", (b_id,))
    assert cli.json("audit", "verify") == {"ok": True, "events": 1, "first_broken": None, "problem": None}
    broken = cli.json("audit", "verify", "--workspace", "B", expect=1)
    assert (broken["ok"], broken["events"], broken["first_broken"]) == (False, 1, 1)
    assert broken["problem"].startswith("event 1 (x): its hash does not cover")
    assert cli.json("audit", "verify", "--workspace", "nowhere", expect=1)["error"] == "unknown_workspace"


def test_cli_audit_verify_says_when_no_event_records_the_change(cli: Cli, busy: tuple[str, str, int]) -> None:
    """A belief changed with the triggers off is found past the chain's last event: the CLI said
    "first broken link at event n + 1 (of n)", an event that does not exist. It says what is wrong
    after the last event."""
    url, ws, n = busy
    with superuser(url) as conn, conn.transaction():
        conn.execute("set local session_replication_role = replica")
        conn.execute("update beliefdb.belief set value = 'forged' where workspace_id = %s and value = '7 days'", (ws,))
    text = cli("audit", "verify", expect=1).stdout
    assert f"event {n + 1} (of {n})" not in text, text
    assert text.startswith(f"audit chain BROKEN: after its last event (event {n}): belief "), text
    assert "no event records the change" in text
