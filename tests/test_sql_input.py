"""The SQL API called by hand with bad input, as an agent's login (docs/dba.md, "Agents' logins"): what the
CLI and the library refuse as ``invalid_input`` was a raw PostgreSQL error from SQL (a check constraint,
a not-null violation, "cannot extract elements from a scalar", "invalid input syntax for type integer"),
or a misleading one ("quote is not the source text at the given offsets" for a claim without offsets).
Each is beliefdb's own error now, naming the field and what is accepted, and nothing is written. Each
input shape is checked by one internal function (``beliefdb._check_claims`` for claims, and so on) that
every function taking it calls."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from beliefdb.store.agents import create_agent, drop_agent

TEXT = "Hello there."
CLAIM = {"statement": "People say hello.", "subject": "greeting", "attribute": "word", "value": "hello",
         "quote": "Hello there.", "start": 0, "end": 12}


@pytest.fixture
def agent(db_url: str) -> Iterator[psycopg.Connection[Any]]:
    """A session of an agent's login bound to the default workspace (``beliefdb agent create``)."""
    name = f"agent_{uuid.uuid4().hex[:8]}"
    made = create_agent(db_url, name, "default", "agent-input-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn:
            yield conn
    finally:
        drop_agent(db_url, name)


def _refused(conn: psycopg.Connection[Any], query: str, args: tuple[Any, ...] = (), code: str = "BD005") -> str:
    with pytest.raises(psycopg.Error) as refused:
        conn.execute(query, args)  # type: ignore[arg-type]
    assert refused.value.sqlstate == code, (refused.value.sqlstate, str(refused.value))
    return refused.value.diag.message_primary or ""


def _written(conn: psycopg.Connection[Any]) -> tuple[Any, ...]:
    row = conn.execute("select (select count(*) from beliefdb.source), (select count(*) from beliefdb.belief),"
                       " (select count(*) from beliefdb.decision), (select count(*) from beliefdb.embedding_model)"
                       ).fetchone()
    assert row is not None
    return tuple(row)


def _without(*keys: str) -> dict[str, Any]:
    return {k: v for k, v in CLAIM.items() if k not in keys}


@pytest.mark.parametrize(("claims", "words"), [
    ([{**CLAIM, "kind": "bogus"}], ["claim 1", "unknown belief kind bogus", "choose from: fact, rule"]),
    ([{**CLAIM, "scope": "eu"}], ["claim 1", "scope", "object", "not a string"]),
    ([{**CLAIM, "scope": {"region": 5}}], ["claim 1", "scope", "region is a number", "value is text"]),
    ([{**CLAIM, "scope": {" ": "EU"}}], ["claim 1", "scope", "without a name"]),
    ([_without("subject")], ["claim 1", "subject", "non-empty string", "missing"]),
    ([{**CLAIM, "subject": " "}], ["claim 1", "subject", "non-empty string"]),
    ([_without("value")], ["claim 1", "value", "string", "missing"]),
    ([{**CLAIM, "value": 3}], ["claim 1", "value", "string", "not a number"]),
    ([_without("statement")], ["claim 1", "statement", "missing"]),
    ([CLAIM, {**CLAIM, "start": "zero"}], ["claim 2", "start", "whole number", "not a string"]),
    ([_without("start", "end")], ["claim 1", "start", "missing"]),
    ([{**CLAIM, "start": -2}], ["claim 1", "start", "-2"]),
    ([{**CLAIM, "start": 5, "end": 2}], ["claim 1", "end", "after start"]),
    ([_without("quote")], ["claim 1", "quote", "missing"]),
    ([None], ["claim 1", "null", "object"]),
    ("x", ["claims", "array", "not a string"]),
    ({"statement": "x"}, ["claims", "array", "not an object"]),
])
def test_ingest_version_refuses_a_malformed_claim_naming_it(agent: psycopg.Connection[Any], claims: Any,
                                                            words: list[str]) -> None:
    message = _refused(agent, "select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                       (TEXT, json.dumps(claims)))
    for word in words:
        assert word in message, (word, message)
    assert _written(agent) == (0, 0, 0, 0)


def test_a_claim_whose_quote_is_elsewhere_is_still_the_gates_to_reject(agent: psycopg.Connection[Any]) -> None:
    """Well formed, but not the text at its offsets: rejected with its reason, as before (not an error)."""
    report = agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                           (TEXT, json.dumps([{**CLAIM, "start": 1}]))).fetchone()
    assert report is not None
    assert [r["reason"] for r in report[0]["rejected"]] == ["quote is not the source text at the given offsets"]


@pytest.mark.parametrize(("fragments", "words"), [
    ([{"start": 5, "end": 2}], ["fragment 1", "end", "after start"]),
    ([{}], ["fragment 1", "start", "missing"]),
    ([{"start": -2, "end": 3}], ["fragment 1", "start", "-2"]),
    ([{"start": 0, "end": 40}], ["fragment 1", "end", "40", "12 characters"]),
    ([{"start": 0, "end": 12}, "x"], ["fragment 2 is a string", "not an object"]),
    ({"start": 0}, ["fragments", "array"]),
])
def test_ingest_version_refuses_a_malformed_fragment_naming_it(agent: psycopg.Connection[Any], fragments: Any,
                                                               words: list[str]) -> None:
    message = _refused(agent, "select beliefdb.ingest_version('z.md', %s, p_fragments => %s::jsonb)",
                       (TEXT, json.dumps(fragments)))
    for word in words:
        assert word in message, (word, message)
    assert _written(agent) == (0, 0, 0, 0)


@pytest.mark.parametrize(("reasons", "words"), [
    ("[1,2]", ["reason 1", "is a number", "not an array"]),
    ('[["abcd"],"x"]', ["reason 2", "is a string", "not an array"]),
    ('[[1]]', ["reason 1", "belief ids", "not a number"]),
    ('"x"', ["reasons", "array of arrays", "not a string"]),
    ("[[]]", ["reason 1", "names no belief", "at least one belief id"]),
    ('[["abcd"],[]]', ["reason 2", "names no belief", "at least one belief id"]),
])
def test_decide_refuses_reasons_of_another_shape(agent: psycopg.Connection[Any], reasons: str,
                                                 words: list[str]) -> None:
    message = _refused(agent, "select beliefdb.decide('t', %s::jsonb)", (reasons,))
    for word in words:
        assert word in message, (word, message)
    assert _written(agent) == (0, 0, 0, 0)


def test_decide_in_run_checks_the_reasons_it_is_given_first(agent: psycopg.Connection[Any]) -> None:
    """Its own words were "an array of arrays of belief ids", and only after the run was looked up."""
    message = _refused(agent, "select beliefdb.decide_in_run(gen_random_uuid(), 't', '[1]')")
    assert message.startswith("reason 1 of a decision is a number, not an array"), message
    message = _refused(agent, "select beliefdb.decide_in_run(gen_random_uuid(), 't', '[[]]')")
    assert message.startswith("reason 1 of a decision names no belief"), message
    assert _written(agent) == (0, 0, 0, 0)


def test_the_other_doors_of_claims_and_fragments_refuse_the_same(agent: psycopg.Connection[Any]) -> None:
    agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)", (TEXT, json.dumps([CLAIM])))
    before = _written(agent)
    message = _refused(agent, "select beliefdb.add_claims_to_source('z.md', '{}')")
    assert "claims" in message and "array" in message and "not an object" in message, message
    message = _refused(agent, "select beliefdb.add_claims_to_source('z.md', %s::jsonb)",
                       (json.dumps([{**CLAIM, "kind": "bogus"}]),))
    assert "unknown belief kind bogus" in message, message
    message = _refused(agent, "select beliefdb.append_turn('chat', 'alice: hi', '\"x\"')")
    assert "fragments" in message and "array" in message, message
    message = _refused(agent, "select beliefdb.append_turn('chat', 'alice: hi', '[]', '\"x\"')")
    assert "claims" in message and "array" in message, message
    assert _written(agent) == before


def test_embedding_models_and_vectors_need_a_model_and_a_dimension(agent: psycopg.Connection[Any]) -> None:
    message = _refused(agent, "select beliefdb.record_embedding_model(null, null)")
    assert "model" in message and "name" in message, message
    message = _refused(agent, "select beliefdb.record_embedding_model('m', -3)")
    assert "dimension" in message and "-3" in message, message
    message = _refused(agent, "select beliefdb.embedding_target('m', 0)")
    assert "dimension" in message, message
    message = _refused(agent, "select beliefdb.store_embedding(null, null, null)")
    assert "belief" in message and "model" in message and "<NULL>" not in message, message
    assert _written(agent) == (0, 0, 0, 0)


def test_a_retraction_needs_a_reason_as_the_library_says(agent: psycopg.Connection[Any]) -> None:
    agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)", (TEXT, json.dumps([CLAIM])))
    for reason in (None, "", "  "):
        message = _refused(agent, "select beliefdb.retract('source', 'z.md', %s)", (reason,))
        assert message.startswith("a retraction needs a reason"), message
    assert agent.execute("select count(*) from beliefdb.source where retracted_at is not null").fetchone() == (0,)
    agent.execute("select beliefdb.retract('source', 'z.md', 'wrong')")
    agent.execute("select beliefdb.retract('source', 'z.md', null, p_undo => true)")  # a restore needs none
    assert agent.execute("select count(*) from beliefdb.source where retracted_at is not null").fetchone() == (0,)


def test_a_confidence_is_explained_for_an_id_prefix_as_other_functions_take_one(agent: psycopg.Connection[Any]) -> None:
    """confidence_factors takes a workspace and a whole id (a DBA's, across workspaces); every other
    function of the API, and ``why``, a belief's id or a unique prefix: explain_confidence does."""
    agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)", (TEXT, json.dumps([CLAIM])))
    row = agent.execute("select id, workspace_id from beliefdb.belief").fetchone()
    assert row is not None
    belief, ws = row
    whole = agent.execute("select * from beliefdb.confidence_factors(%s, %s)", (ws, belief)).fetchall()
    assert whole and whole[-1][1] == "result"
    assert agent.execute("select * from beliefdb.explain_confidence(%s)", (belief.hex[:6],)).fetchall() == whole
    assert agent.execute("select * from beliefdb.explain_confidence(%s)", (str(belief),)).fetchall() == whole
    message = _refused(agent, "select * from beliefdb.explain_confidence('ffff0000')", code="BD004")
    assert "unknown belief" in message, message


@pytest.mark.parametrize("as_agent", [True, False])
def test_a_workspace_setting_that_is_no_id_is_refused_in_words(agent: psycopg.Connection[Any], db_url: str,
                                                               as_agent: bool) -> None:
    with psycopg.connect(db_url, autocommit=True) as owner:
        conn = agent if as_agent else owner
        if not as_agent:
            owner.execute("set role beliefdb_app")
        conn.execute("set beliefdb.workspace_id = 'garbage'")
        message = _refused(conn, "select count(*) from beliefdb.current_beliefs", code="BD003")
        assert message == "beliefdb.workspace_id is not a workspace id: 'garbage'", message



@pytest.mark.parametrize(("second", "words"), [
    ({"scope": {"": "EU"}}, ["document 2 (source doc)", "claim 2", "scope names a condition without a name"]),
    ({"kind": "bogus"}, ["document 2 (source doc)", "claim 2", "unknown belief kind bogus"]),
    ({"scope": {"region": 5}}, ["document 2 (source doc)", "claim 2", "region is a number"]),
])
def test_a_bulk_batch_checks_its_staged_claims_as_ingest_does(agent: psycopg.Connection[Any], second: dict[str, Any],
                                                              words: list[str]) -> None:
    """A staged claim with a nameless scope condition was stored by a bulk batch ({"": "EU"}) once the check
    moved out of the claims' insert; each staged claim is checked by _check_claims, named by its document."""
    agent.execute("select beliefdb.ingest_version('doc', %s)", (TEXT,))
    before = _written(agent)
    with agent.transaction(force_rollback=True):
        agent.execute("select beliefdb.bulk_stage()")
        for n, source in ((0, "other"), (1, "doc")):
            agent.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values (%s, %s, %s)",
                          (n, source, TEXT + f" v{n}"))
        for n, ord_, extra in [(0, 0, {}), (1, 0, {}), (1, 1, second)]:
            claim = {**CLAIM, **extra}
            agent.execute("insert into pg_temp.beliefdb_bulk_claim (n, ord, statement, subject, attribute, value,"
                          " quote, start_offset, end_offset, kind, scope)"
                          " values (%s, %s, %s, %s, %s, %s, %s, 0, 12, %s, %s)",
                          (n, ord_, claim["statement"], claim["subject"], claim["attribute"], claim["value"],
                           claim["quote"], claim.get("kind"), json.dumps(claim["scope"]) if "scope" in claim else None))
        message = _refused(agent, "select beliefdb.bulk_ingest_batch()")
    assert all(w in message for w in words), message
    assert _written(agent) == before


@pytest.mark.parametrize("field", ["valid_from", "valid_to"])
@pytest.mark.parametrize("moment", ["next tuesday", "2026-13-45", ""])
def test_a_claims_valid_time_that_is_no_timestamp_is_refused_naming_it(agent: psycopg.Connection[Any], field: str,
                                                                       moment: str) -> None:
    """A JSON string but no timestamp was PostgreSQL's own "invalid input syntax for type timestamp with time
    zone" (22007) or "date/time field value out of range" (22008), from deep inside the ingest."""
    claims = [CLAIM, {**CLAIM, field: moment}]
    message = _refused(agent, "select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                       (TEXT, json.dumps(claims)))
    assert message.startswith(f"claim 2: {field} "), message
    assert f"'{moment}'" in message and "not a timestamp" in message and "ISO 8601" in message, message
    assert _written(agent) == (0, 0, 0, 0)


def test_a_claims_valid_time_in_iso_8601_is_still_taken(agent: psycopg.Connection[Any]) -> None:
    claim = {**CLAIM, "valid_from": "2026-01-01T00:00:00+00:00", "valid_to": "2026-12-31"}
    report = agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                           (TEXT, json.dumps([claim]))).fetchone()
    assert report is not None and len(report[0]["accepted"]) == 1, report


def test_a_bulk_batch_names_a_staged_claims_valid_time_that_is_no_timestamp(agent: psycopg.Connection[Any]) -> None:
    with agent.transaction(force_rollback=True):
        agent.execute("select beliefdb.bulk_stage()")
        agent.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values (0, 'doc', %s)", (TEXT,))
        agent.execute("insert into pg_temp.beliefdb_bulk_claim (n, ord, statement, subject, attribute, value,"
                      " quote, start_offset, end_offset, valid_to) values (0, 0, %s, %s, %s, %s, %s, 0, 12, %s)",
                      (CLAIM["statement"], CLAIM["subject"], CLAIM["attribute"], CLAIM["value"], CLAIM["quote"],
                       "2026-13-45"))
        message = _refused(agent, "select beliefdb.bulk_ingest_batch()")
    assert message.startswith("document 1 (source doc), claim 1: valid_to '2026-13-45' is not a timestamp"), message
    assert _written(agent) == (0, 0, 0, 0)


@pytest.mark.parametrize("moment", ["next tuesday", "2026-13-45"])
def test_a_turns_time_that_is_no_timestamp_is_refused_naming_it(agent: psycopg.Connection[Any], moment: str) -> None:
    turn = "alice: hi"
    message = _refused(agent, "select beliefdb.append_turn('chat', %s, %s::jsonb)",
                       (turn, json.dumps([{"start": 0, "end": len(turn), "speaker": "alice", "time": moment}])))
    assert message.startswith(f"fragment 1: time '{moment}' is not a timestamp"), message
    assert "ISO 8601" in message, message
    assert _written(agent) == (0, 0, 0, 0)
    agent.execute("select beliefdb.append_turn('chat', %s, %s::jsonb)",
                  (turn, json.dumps([{"start": 0, "end": len(turn), "speaker": "alice", "time": "2026-03-01T09:00Z"}])))
    more = turn + "\nbob: hello"
    message = _refused(agent, "select beliefdb.append_turn('chat', %s, %s::jsonb)",
                       (more, json.dumps([{"start": len(turn) + 1, "end": len(more), "time": moment}])))
    assert message.startswith(f"fragment 1: time '{moment}' is not a timestamp"), message


@pytest.mark.parametrize("moment", ["99999-01-01T00:00Z", "0001-01-01T00:00Z", "infinity"])
def test_a_turns_time_no_client_can_read_back_is_refused(agent: psycopg.Connection[Any], moment: str) -> None:
    """A turn's time is stored as a claim's valid time is read back: from 0001-01-02 to 9999-12-30 (Python's
    datetime reads years 1 to 9999 in any time zone); "99999-01-01" was stored, and every read of the turn
    failed in the client."""
    turn = "alice: hi"
    message = _refused(agent, "select beliefdb.append_turn('chat', %s, %s::jsonb)",
                       (turn, json.dumps([{"start": 0, "end": len(turn), "speaker": "alice", "time": moment}])))
    assert message.startswith("fragment 1: time ") and "out of range" in message, message
    assert _written(agent) == (0, 0, 0, 0)


@pytest.mark.parametrize(("scope", "words"), [
    ({"region": 5}, ["scope", "region is a number", "value is text"]),
    ({"region": "EU", "tier": None}, ["scope", "tier is null", "value is text"]),
    ({" ": "EU"}, ["scope", "without a name"]),
    (["EU"], ["scope", "object", "not an array"]),
    ("EU", ["scope", "object", "not a string"]),
])
def test_recall_refuses_a_scope_the_library_refuses_naming_the_condition(agent: psycopg.Connection[Any],
                                                                         scope: Any, words: list[str]) -> None:
    """{"region": 5} matched nothing, silently (a belief's conditions are text), where the library and the CLI
    refuse it first: recall refuses it in the same words as a claim's scope (_check_claims)."""
    agent.execute("select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                  (TEXT, json.dumps([{**CLAIM, "scope": {"region": "5"}}])))
    message = _refused(agent, "select * from beliefdb.recall('hello', p_scope => %s::jsonb)", (json.dumps(scope),))
    assert message.startswith("scope"), message
    for word in words:
        assert word in message, (word, message)
    for fine in ({"region": "5"}, {}, None):
        found = agent.execute("select belief_id from beliefdb.recall('hello', p_scope => %s::jsonb)",
                              (None if fine is None else json.dumps(fine),)).fetchall()
        assert len(found) == 1, (fine, found)


def test_a_claims_unless_given_that_is_no_boolean_is_refused_naming_it(agent: psycopg.Connection[Any]) -> None:
    """unless_given (a past value inferred, stored only when the workspace never gave it: _not_given_before) is
    true, false or null; "yes" would have been taken as false, silently."""
    message = _refused(agent, "select beliefdb.ingest_version('z.md', %s, p_claims => %s::jsonb)",
                       (TEXT, json.dumps([CLAIM, {**CLAIM, "unless_given": "yes"}])))
    assert message.startswith("claim 2: unless_given is true, false or null, not a string"), message
    assert _written(agent) == (0, 0, 0, 0)
