"""Red-team findings (issue 22): a session cannot be someone else or rewrite history.

* An idempotency key names one request: the same key with another request is refused
  (``idempotency_key_reused``), not answered ``already_applied`` while the new request is dropped.
* Forgetting what another principal owns is refused (``not_owner``, naming the owner), the preview
  too; only a login granted ``beliefdb_eraser`` may forget anything in its workspace, audited as such.
* A session may fix its clock (``beliefdb.now``) for writing only when its login may
  (``beliefdb_clock``): anyone else's write with a fixed clock is refused and writes nothing.
* The application role cannot append events to the audit chain itself.
* Forgetting leaves nothing of the forgotten text in the planner statistics (``pg_statistic``).

The sessions that must be refused log in as roles of their own (granted ``beliefdb_app`` only), as an
agent's login would: never as the test suite's superuser."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import anyio
import psycopg
import pytest
from conftest import Cli, url_at
from fastapi.testclient import TestClient
from forgets import forget
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import api, errors
from beliefdb.interfaces.http import create_app
from beliefdb.store import lifecycle

pytestmark = pytest.mark.robustness

QUOTE = "Returns are accepted within 7 days of delivery."
YESTERDAY = "2020-01-01T00:00:00Z"


def su_all(db_url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def counts(db_url: str) -> dict[str, int]:
    """Rows of every workspace table (superuser: every workspace)."""
    tables = [r[0] for r in su_all(db_url, """
        select c.relname from pg_catalog.pg_class c
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = 'workspace_id'
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r' order by 1""")]
    return {t: su_all(db_url, sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(t)).as_string(None)
                      )[0][0] for t in tables}


@pytest.fixture
def login(db_url: str) -> Iterator[Callable[..., str]]:
    """Make a login role of its own (with a password, so it connects whatever the server's
    authentication), granted ``beliefdb_app`` and the given roles; returns its URL. Dropped after."""
    made: list[str] = []

    def make(*roles: str) -> str:
        name, password = f"agent_{secrets.token_hex(4)}", secrets.token_hex(12)
        su_all(db_url, sql.SQL("create role {} login password {}").format(
            sql.Identifier(name), sql.Literal(password)).as_string(None))
        made.append(name)
        for role in ("beliefdb_app", *roles):
            su_all(db_url, sql.SQL("grant {} to {}").format(sql.Identifier(role), sql.Identifier(name)).as_string(None))
        return make_conninfo(db_url, user=name, password=password)

    yield make
    for name in made:
        su_all(db_url, sql.SQL("drop role if exists {}").format(sql.Identifier(name)).as_string(None))


@contextmanager
def agent_session(url: str, workspace_id: str, *, now: str | None = None) -> Iterator[psycopg.Connection[Any]]:
    """A session of an agent's own login, bound to a workspace, acting as beliefdb_app (as the library
    binds one); ``now`` fixes its clock for the whole session."""
    with psycopg.connect(url_at(url, now) if now else url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("set role beliefdb_app")
        yield conn


@pytest.fixture
def window(alice: beliefdb.BeliefDB) -> UUID:
    """Alice's belief: returns within 7 days, from her internal note."""
    return alice.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE,
                          source="internal-note", text=f"Note. {QUOTE}", authority="internal").accepted[0].id


# --- defect 5: an idempotency key names one request ---------------------------------------------

def test_a_key_reused_for_another_correction_is_refused_and_the_same_request_is_idempotent(
        cli: Cli, db_url: str, window: UUID) -> None:
    args = ["correct", str(window), "--reviewer", "rita", "--apply", "--expect-revision", "1", "--as", "alice",
            "--idempotency-key", "k-1"]
    first = cli.json(*args[:2], "Returns within 10 days.", *args[2:], "--value", "10 days")
    assert first["already_applied"] is False and first["replacement"]
    before = counts(db_url)
    refused = cli.error(*args[:2], "Returns within 30 days.", *args[2:], "--value", "30 days",
                        code="idempotency_key_reused")
    assert "k-1" in refused["message"], refused
    assert counts(db_url) == before
    line = cli.one_line_error(*args[:2], "Returns within 30 days.", *args[2:], "--value", "30 days")
    assert "idempotency key k-1" in line
    # the same request again is the first one's answer, as before
    again = cli.json(*args[:2], "Returns within 10 days.", *args[2:], "--value", "10 days")
    assert again["already_applied"] is True and again["replacement"] == first["replacement"]
    assert {k: v for k, v in counts(db_url).items() if k not in ("audit_event", "audit_head")} == {
        k: v for k, v in before.items() if k not in ("audit_event", "audit_head")}
    assert su_all(db_url, "select count(*) from beliefdb.belief where value = '30 days'") == [(0,)]


def test_a_key_reused_for_another_belief_or_reviewer_is_refused(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    one = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE,
                       source="note", text=QUOTE, authority="internal").accepted[0].id
    fee = "The restocking fee is 10%."
    two = bdb.remember("Fee is 10%", "return_policy", "fee", "10%", fee,
                       source="fees", text=fee, authority="internal").accepted[0].id
    bdb.apply_correction(one, "Returns within 10 days.", reviewer="rita", expect_revision=1, idempotency_key="k")
    before = counts(db_url)
    with pytest.raises(errors.IdempotencyKeyReused, match="idempotency key k"):
        bdb.apply_correction(two, "Fee is 5%.", reviewer="rita", expect_revision=1, idempotency_key="k")
    with pytest.raises(errors.IdempotencyKeyReused):
        bdb.apply_correction(one, "Returns within 10 days.", reviewer="someone else", expect_revision=1,
                             idempotency_key="k")
    assert counts(db_url) == before


def test_a_key_reused_for_another_proposal_is_refused(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB,
                                                     db_url: str, window: UUID) -> None:
    """Bob's correction of alice's belief is a proposal: the key names it too."""
    first = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="bo",
                                 expect_revision=1, idempotency_key="p-1")
    assert first.proposed and not first.already_applied
    before = counts(db_url)
    with pytest.raises(errors.IdempotencyKeyReused, match="p-1"):
        bob.apply_correction(window, "Returns within 60 days.", value="60 days", reviewer="bo", expect_revision=1,
                             idempotency_key="p-1")
    assert counts(db_url) == before
    again = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="bo",
                                 expect_revision=1, idempotency_key="p-1")
    assert again.proposed and again.already_applied and again.review_item == first.review_item
    # once alice approves it, the same request is the correction her approval made
    assert first.review_item is not None
    alice.resolve_review(first.review_item, "approved")
    done = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="bo",
                                expect_revision=1, idempotency_key="p-1")
    assert done.already_applied and done.replacement is not None


def test_a_reused_key_is_409_over_http_and_a_tool_error_over_mcp(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    window = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE,
                         source="note", text=QUOTE, authority="internal").accepted[0].id
    token = api.create_token("default", "alice", url=db_url).token
    headers = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(db_url, mcp=False)) as client:
        body = {"belief": str(window), "statement": "Returns within 10 days.", "expected_revision": 1,
                "idempotency_key": "h-1"}
        # (the window is the library's principal's: alice's correction of it is a proposal, keyed all the same)
        assert client.post("/corrections", json=body, headers=headers).status_code == 200
        reused = client.post("/corrections", json=body | {"statement": "Returns within 99 days."}, headers=headers)
        assert reused.status_code == 409, reused.text
        assert reused.json()["error"] == "idempotency_key_reused"
        assert client.post("/corrections", json=body, headers=headers).json()["already_applied"] is True

    from mcp.client import Client

    from beliefdb.interfaces.mcp import build

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            arguments = {"belief": str(window), "statement": "Returns within 11 days.", "expected_revision": 1,
                         "idempotency_key": "m-1"}
            done = await client.call_tool("correct", arguments)
            assert not done.is_error, done.content[0].text
            result = await client.call_tool("correct", arguments | {"statement": "Returns within 12 days."})
            assert result.is_error
            assert json.loads(result.content[0].text)["error"] == "idempotency_key_reused"

    anyio.run(session)


# --- defect 8: forgetting what others own -----------------------------------------------------

def _correction_source(db_url: str, correction: UUID) -> str:
    return str(su_all(db_url, """
        select s.name from beliefdb.correction c
          join beliefdb.fragment f on f.id = c.fragment_id
          join beliefdb.source_version v on v.id = f.source_version_id
          join beliefdb.source s on s.id = v.source_id where c.id = %s""", (correction,))[0][0])


def test_another_principal_cannot_forget_a_correction_source(cli: Cli, db_url: str, alice: beliefdb.BeliefDB,
                                                             window: UUID) -> None:
    """The finding: bob forgot the source of alice's correction, which deleted her replacement and
    made her old value current again (while retracting the same source was refused)."""
    fixed = alice.apply_correction(window, "Returns within 10 days.", value="10 days", reviewer="a",
                                   expect_revision=1)
    assert fixed.correction is not None and fixed.replacement is not None
    name = _correction_source(db_url, fixed.correction)
    before = counts(db_url)
    fingerprint = cli.json("forget", "--source", name, "--preview", "--as", "alice")["fingerprint"]
    for preview in (["--expect", fingerprint], ["--preview"]):
        refused = cli.error("forget", "--source", name, *preview, "--as", "bob", code="not_owner")
        assert "alice" in refused["message"], refused
        assert counts(db_url) == before
    assert [b.value for b in alice.beliefs(subject="return_policy")] == ["10 days"]
    # the owner may
    assert json.loads(forget(cli, "--source", name, "--as", "alice", "--json").stdout)["beliefs"] == 1


def test_another_principal_cannot_forget_a_shared_source(db_url: str, alice: beliefdb.BeliefDB,
                                                         bob: beliefdb.BeliefDB, window: UUID) -> None:
    before = counts(db_url)
    for preview in (True, False):
        with pytest.raises(errors.NotOwner, match=r"internal-note.*alice"):
            lifecycle.forget(bob.database, source="internal-note", preview=preview)
        assert counts(db_url) == before


def test_an_owner_cannot_forget_what_leaves_anothers_belief_without_support(
        db_url: str, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, window: UUID) -> None:
    """Alice's own source, but bob's belief rests on it alone: forgetting it would delete bob's."""
    derived = bob.derive("No returns after a week", "return_policy", "late_returns", "refused", [window]).id
    before = counts(db_url)
    for preview in (True, False):
        with pytest.raises(errors.NotOwner, match=f"{derived}.*bob"):
            lifecycle.forget(alice.database, source="internal-note", preview=preview)
        assert counts(db_url) == before
    # once bob lets his belief go, alice forgets her source
    lifecycle.forget(bob.database, belief=derived)
    assert lifecycle.forget(alice.database, source="internal-note").beliefs == 1


def test_an_eraser_forgets_anything_of_its_workspace_and_is_named_in_the_audit(
        db_url: str, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, window: UUID,
        login: Callable[..., str]) -> None:
    derived = bob.derive("No returns after a week", "return_policy", "late_returns", "refused", [window]).id
    dpo = login("beliefdb_eraser")
    dpo_name = psycopg.conninfo.conninfo_to_dict(dpo)["user"]
    with agent_session(dpo, alice.database.workspace_id) as conn:
        row = conn.execute("select beliefs, preview from beliefdb.forget('source', 'internal-note', true)").fetchone()
        assert row == (2, True)
        assert conn.execute("select beliefs from beliefdb.forget('source', 'internal-note')").fetchone() == (2,)
    assert su_all(db_url, "select count(*) from beliefdb.belief where id in (%s, %s)", (window, derived)) == [(0,)]
    event = su_all(db_url, "select principal, payload from beliefdb.audit_event where action = 'forget' "
                           "order by seq desc limit 1")[0]
    assert event[0] == dpo_name
    assert event[1]["eraser"] == dpo_name and event[1]["owners"] == ["alice", "bob"]
    assert alice.audit_verify().ok


def test_a_superuser_is_no_eraser_by_being_one(db_url: str, bob: beliefdb.BeliefDB, window: UUID) -> None:
    """The library's sessions log in as the schema's owner (a superuser here) for every principal: the
    right to erase is granted, never implied."""
    assert su_all(db_url, "select rolsuper from pg_catalog.pg_roles where rolname = current_user") == [(True,)]
    with pytest.raises(errors.NotOwner):
        lifecycle.forget(bob.database, belief=window)


# --- defect 9: a fixed clock does not rewrite history ------------------------------------------

def test_an_agent_cannot_write_with_a_fixed_clock(db_url: str, bdb: beliefdb.BeliefDB,
                                                  login: Callable[..., str]) -> None:
    """The finding: a session set beliefdb.now to yesterday and wrote, and beliefs as of yesterday
    gained a belief that did not exist then."""
    agent = login()
    ws = bdb.database.workspace_id
    before = counts(db_url)
    with agent_session(agent, ws, now=YESTERDAY) as conn:
        assert conn.execute("select beliefdb.clock()").fetchone()[0].year == 2020  # reading it is fine
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select beliefdb.ingest_version('backdated', 'Returns are accepted within 99 days.')")
        assert refused.value.sqlstate == "BD010", refused.value
        assert "beliefdb.now" in str(refused.value) and "beliefdb_clock" in str(refused.value)
        with pytest.raises(psycopg.Error) as also:
            conn.execute("select beliefdb.record_embedding_model('m', 3)")
        assert also.value.sqlstate == "BD010"
        # reading the past stays open to it
        assert conn.execute("select count(*) from beliefdb.beliefs_as_of(%s)", (YESTERDAY,)).fetchone() == (0,)
    assert counts(db_url) == before
    # every workspace's (beliefs_as_of is the bound workspace's, and refuses with none bound)
    believed = "select count(*) from beliefdb.belief b where beliefdb.believed_at(b, '2020-01-02')"
    assert su_all(db_url, believed) == [(0,)]
    # with its clock not fixed, the same agent writes (at the real time)
    with agent_session(agent, ws) as conn:
        conn.execute("select beliefdb.ingest_version('backdated', 'Returns are accepted within 99 days.')")
    assert su_all(db_url, "select count(*) from beliefdb.source_version where recorded_at > now() - interval '1 hour'"
                  ) == [(1,)]


def test_an_agent_reads_with_a_fixed_clock_past_an_expiry(db_url: str, bdb: beliefdb.BeliefDB,
                                                           login: Callable[..., str]) -> None:
    """A user trial: an agent's login set its clock past a belief's valid time to read (beliefs, ask), and
    was refused clock_not_allowed, because the read first processed the expiry; a read writes nothing, so
    reading as of another time stays open to it (rule 13)."""
    rate = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE, source="note",
                        text=f"Note. {QUOTE}", authority="internal", valid_to="2027-06-01T00:00:00Z").accepted[0].id
    before = counts(db_url)
    with beliefdb.connect(url_at(login(), "2028-01-01T00:00:00Z")) as agent:
        assert agent.beliefs() == []
        assert [b.status for b in agent.beliefs(include_all=True) if b.id == rate] == ["current"]
        assert agent.ask("how many days for returns?").beliefs == []
    assert counts(db_url) == before
    assert [b.id for b in bdb.beliefs()] == [rate]


def test_an_agent_cannot_date_a_write_as_an_expiry(db_url: str, bdb: beliefdb.BeliefDB,
                                                   login: Callable[..., str]) -> None:
    """What an expiry changes is dated when the valid time ended (rule 16) through a setting and a
    working table of beliefdb's own: an agent that sets the one and makes the other itself dates
    nothing it writes."""
    agent = login()
    with agent_session(agent, bdb.database.workspace_id) as conn:
        conn.execute("select set_config('beliefdb.expiry_clock', %s, false)", (YESTERDAY,))
        conn.execute("create temporary table beliefdb_expiry_clock (at timestamptz not null)")
        conn.execute("insert into pg_temp.beliefdb_expiry_clock values (%s)", (YESTERDAY,))
        conn.execute("select beliefdb.ingest_version('backdated', 'Returns are accepted within 99 days.')")
    assert su_all(db_url, "select extract(year from recorded_at)::int >= 2026 from beliefdb.source_version"
                  ) == [(True,)]


def test_the_clock_role_may_fix_the_clock_and_decay_stays_open_to_agents(db_url: str, bdb: beliefdb.BeliefDB,
                                                                        login: Callable[..., str]) -> None:
    ws = bdb.database.workspace_id
    with agent_session(login("beliefdb_clock"), ws, now=YESTERDAY) as conn:
        conn.execute("select beliefdb.ingest_version('as-of-tool', 'Returns are accepted within 5 days.')")
    assert su_all(db_url, "select extract(year from recorded_at)::int from beliefdb.source_version") == [(2020,)]
    # decay as of a moment sets the clock for its own computation only: an agent may preview it, and run
    # it as of now
    with agent_session(login(), ws) as conn:
        row = conn.execute("select preview, now from beliefdb.decay('2030-01-01', 'decay', true)").fetchone()
        assert row is not None and row[0] is True and row[1].year == 2030
        row = conn.execute("select preview, now from beliefdb.decay()").fetchone()
        assert row is not None and row[0] is False and row[1].year < 2030
        assert conn.execute("select current_setting('beliefdb.now', true)").fetchone() in ((None,), ("",))
    # written as of a moment, by the clock's role only
    with agent_session(login("beliefdb_clock"), ws) as conn:
        row = conn.execute("select now from beliefdb.decay('2030-01-01')").fetchone()
        assert row is not None and row[0].year == 2030


def test_an_agent_cannot_store_the_confidences_of_another_moment(db_url: str, bdb: beliefdb.BeliefDB,
                                                                 login: Callable[..., str]) -> None:
    """A DBA trial: an agent login that may not fix its clock passed a moment ten years ahead to decay, and
    every belief of the workspace, whoever owned it, was stored with the confidence it would have then
    (under the threshold: demoted in retrieval) until the next decay."""
    held = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE, source="note",
                        text=f"Note. {QUOTE}", authority="internal").accepted[0].id
    before = su_all(db_url, "select confidence from beliefdb.belief")
    events = su_all(db_url, "select count(*) from beliefdb.audit_event")
    ws = bdb.database.workspace_id
    with agent_session(login(), ws) as conn:
        for moment in ("2036-01-01", "2020-01-01"):
            with pytest.raises(psycopg.DatabaseError) as raised:
                conn.execute("select * from beliefdb.decay(%s)", (moment,))
            assert raised.value.sqlstate == "BD010"
            assert "would store the confidences of that moment" in str(raised.value)
            conn.rollback()
        # (its preview says what that moment would make of them, and writes nothing)
        row = conn.execute("select lowered, preview from beliefdb.decay('2036-01-01', 'decay', true)").fetchone()
        assert row == (1, True)
    assert su_all(db_url, "select confidence from beliefdb.belief") == before
    assert su_all(db_url, "select count(*) from beliefdb.audit_event") == events
    # (through the library too: its own error, nothing written)
    with beliefdb.connect(login()) as agent, pytest.raises(errors.ClockNotAllowed):
        agent.decay(now=datetime(2036, 1, 1, tzinfo=UTC))
    assert [b.id for b in bdb.beliefs()] == [held]
    assert su_all(db_url, "select confidence from beliefdb.belief") == before


# --- defect 10: the audit chain takes events only from beliefdb's own changes --------------------

def test_the_application_role_cannot_append_to_the_audit_chain(db_url: str, bdb: beliefdb.BeliefDB,
                                                               login: Callable[..., str]) -> None:
    ws = bdb.database.workspace_id
    before = su_all(db_url, "select count(*) from beliefdb.audit_event")
    with agent_session(login(), ws) as conn:
        for call in ("select beliefdb.audit('note', '{}')", "select beliefdb._audit('note', '{}')",
                     "select beliefdb._audit_append(%s, 'note', '{}')"):
            with pytest.raises((pg_errors.InsufficientPrivilege, pg_errors.UndefinedFunction)):
                conn.execute(call, (ws,) if "%s" in call else None)
    assert su_all(db_url, "select count(*) from beliefdb.audit_event") == before
    granted = su_all(db_url, """
        select p.proname from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and p.proname in ('audit', '_audit', '_audit_append')
           and has_function_privilege('beliefdb_app', p.oid, 'execute')""")
    assert granted == []


# --- defect 11: planner statistics keep nothing forgotten ------------------------------------------

SECRET = "zq-secret-subject-4471"


def _in_statistics(db_url: str, text: str) -> list[tuple[Any, ...]]:
    """Every (table, column) whose pg_statistic sampled values hold ``text``."""
    return su_all(db_url, """
        select s.starelid::regclass::text, a.attname
          from pg_catalog.pg_statistic s
          join pg_catalog.pg_attribute a on a.attrelid = s.starelid and a.attnum = s.staattnum
         where s.starelid in (select c.oid from pg_catalog.pg_class c where c.relnamespace = 'beliefdb'::regnamespace)
           and concat_ws(' ', s.stavalues1::text, s.stavalues2::text, s.stavalues3::text, s.stavalues4::text,
                         s.stavalues5::text) like '%%' || %s || '%%'""", (text,))


@pytest.mark.slow
def test_forget_leaves_the_text_in_no_planner_statistics(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    for i in range(6):
        quote = f"Customer {i} asked about {SECRET} on day {i}."
        bdb.remember(f"Asked {i}", SECRET, f"question_{i}", f"day {i}", quote, source=f"chat-{i}", text=quote,
                     authority="user")
        other = f"Shipping for order {i} is free."
        bdb.remember(f"Shipping {i}", "shipping", f"order_{i}", "free", other, source=f"ship-{i}", text=other,
                     authority="user")
    su_all(db_url, "analyze beliefdb.belief, beliefdb.fragment, beliefdb.evidence, beliefdb.source_version")
    common = su_all(db_url, "select most_common_vals::text from pg_catalog.pg_stats "
                            "where schemaname = 'beliefdb' and tablename = 'belief' and attname = 'subject'")
    assert common and SECRET in common[0][0], common
    assert _in_statistics(db_url, SECRET)
    result = bdb.forget(subject=SECRET)
    assert result.beliefs == 6
    assert _in_statistics(db_url, SECRET) == []
    assert su_all(db_url, "select count(*) from beliefdb.belief where subject = %s", (SECRET,)) == [(0,)]


def test_a_forget_that_empties_a_table_leaves_its_text_in_no_planner_statistics(
        db_url: str, bdb: beliefdb.BeliefDB) -> None:
    """ANALYZE of a table with no row left stores nothing, and so kept the values it had sampled: a
    forget of the only beliefs of the database left the subject in belief's statistics (and the quotes
    in evidence's, the texts in source_version's). Those of a table the forget empties are cleared."""
    for i in range(6):
        quote = f"Customer {i} asked about {SECRET} on day {i}."
        bdb.remember(f"Asked {i}", SECRET, f"question_{i}", f"day {i}", quote, source=f"chat-{i}", text=quote,
                     authority="user")
    su_all(db_url, "analyze beliefdb.belief, beliefdb.fragment, beliefdb.evidence, beliefdb.source_version")
    assert ("beliefdb.belief", "subject") in _in_statistics(db_url, SECRET)
    assert bdb.forget(subject=SECRET).beliefs == 6
    assert su_all(db_url, "select count(*) from beliefdb.belief") == [(0,)]
    assert _in_statistics(db_url, SECRET) == []
    # every table it analyses is one it clears when empty
    (body,) = su_all(db_url, "select pg_get_functiondef('beliefdb._analyze_text_tables()'::regprocedure)")[0]
    analysed, cleared = body.split("perform beliefdb._clear_empty_statistics(")
    assert sorted(re.findall(r"beliefdb\.(\w+) \(", analysed)) == sorted(re.findall(r"'beliefdb\.(\w+)'", cleared))
