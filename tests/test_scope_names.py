"""A scope is conditions, each a name and a value. The CLI refuses a condition without a name (``--scope
=EU``); over HTTP and MCP, and in the library, ``{"": "EU"}`` was taken and stored, and the belief was
shown to apply "when: =EU", a condition no question can name. It is refused at every door, naming the
argument, and nothing is written."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from serving import bearer, refused

import beliefdb
from beliefdb import errors

POLICY = "Returns are accepted within 30 days in the EU.\n"
REMEMBER = {"statement": "Returns are accepted within 30 days in the EU.", "subject": "return_policy",
            "attribute": "window", "value": "30 days", "quote": "Returns are accepted within 30 days",
            "source": "policy.md", "text": POLICY}


def test_http_refuses_a_scope_condition_without_a_name(http_client: Any, db_url: str) -> None:
    for blank in ("", "  "):
        message = refused(http_client.post("/beliefs", json={**REMEMBER, "scope": {blank: "EU"}},
                                           headers=bearer(db_url)), 400, "invalid_input")
        assert message.startswith("scope") and "name" in message, message
        message = refused(http_client.post("/ask", json={"question": "returns?", "scope": {blank: "EU"}},
                                           headers=bearer(db_url)), 400, "invalid_input")
        assert message.startswith("scope") and "name" in message, message
    with beliefdb.connect(db_url) as db:
        assert db.beliefs(include_all=True) == []


def test_library_refuses_a_scope_condition_without_a_name(db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        with pytest.raises(errors.InvalidInput, match="name"):
            db.remember(REMEMBER["statement"], subject="return_policy", attribute="window", value="30 days",
                        quote=REMEMBER["quote"], source="policy.md", text=POLICY, scope={"": "EU"})
        assert db.beliefs(include_all=True) == []
        kept = db.remember(REMEMBER["statement"], subject="return_policy", attribute="window", value="30 days",
                           quote=REMEMBER["quote"], source="policy.md", text=POLICY, scope={"region": ""})
        assert kept.accepted  # (a condition's value may be empty, as the CLI's --scope region= gives)


def test_a_claims_file_refuses_a_scope_condition_without_a_name(db_url: str, tmp_path: Any) -> None:
    """The claims of ``ingest --claims`` (and ``BeliefDB.ingest(claims=...)``) are a door too: a line with
    ``"scope": {"": "EU"}`` was stored, a belief no question could then name the scope of."""
    doc = tmp_path / "policy.md"
    doc.write_text(POLICY)
    claims = tmp_path / "claims.jsonl"
    line = {k: REMEMBER[k] for k in ("statement", "subject", "attribute", "value", "quote")}
    claims.write_text(json.dumps({**line, "scope": {" ": "EU"}}) + "\n")
    with beliefdb.connect(db_url, principal="alice") as db:
        with pytest.raises(errors.InvalidInput, match=r"line 1: .*scope.*name"):
            db.ingest(doc, claims=claims)
        assert db.beliefs(include_all=True) == []


def test_the_sql_door_refuses_a_scope_condition_without_a_name(db_url: str) -> None:
    """``beliefdb.ingest_version`` called from SQL (a DBA's psql, docs/examples) took a claim whose scope names
    a condition without a name, as the library's doors do not: invalid_input, nothing written."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace"
                     " where name = 'default'), false)")
        conn.execute("select set_config('beliefdb.principal', 'alice', false)")
        conn.execute("set role beliefdb_app")
        claim = {"statement": "Orders ship within 2 days.", "subject": "order", "attribute": "ship",
                 "value": "2 days", "quote": "Orders ship within 2 days.", "start": 0, "end": 26, "scope": {" ": "EU"}}
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select beliefdb.ingest_version('scope.md', 'Orders ship within 2 days.', p_claims => %s)",
                         (Jsonb([claim]),))
        assert refused.value.sqlstate == "BD005" and "without a name" in str(refused.value), refused.value
    with beliefdb.connect(db_url) as db:
        assert db.beliefs(include_all=True) == []
    with psycopg.connect(db_url) as conn:
        assert conn.execute("select count(*) from beliefdb.source").fetchone() == (0,)


def test_the_library_and_the_cli_take_a_scopes_names_and_values_alike(db_url: str, cli: Any) -> None:
    """``ask --scope ' region = EU '`` asked about region EU (the CLI trimmed the name and the value) while
    ``ask(scope={' region ': ' EU '})`` asked about a condition named ' region ', which no belief has: one
    function (beliefdb.inputs.scope_conditions) takes the scope of both, the same way."""
    with beliefdb.connect(db_url, principal="alice") as db:
        db.remember(REMEMBER["statement"], subject="return_policy", attribute="window", value="30 days",
                    quote=REMEMBER["quote"], source="policy.md", text=POLICY, scope={" region ": " EU "})
        (stored,) = db.beliefs()
        assert stored.scope == {"region": "EU"}, stored.scope
        question = "returns accepted within how many days?"
        for asked, found in (({" region ": " EU "}, 1), ({"region": "EU"}, 1), ({" region": "US"}, 0)):
            answer = db.ask(question, scope=asked)
            assert len(answer.beliefs) == found, (asked, answer)
        with pytest.raises(errors.InvalidInput, match=r"^scope= names 'region' twice"):
            db.ask(question, scope={"region": "EU", " region ": "US"})
    for option, found in ((" region = EU ", 1), ("region=EU", 1), (" region=US", 0)):
        out = cli.json("ask", question, "--scope", option)
        assert len(out["beliefs"]) == found, (option, out)
    err = cli.error("ask", question, "--scope", "region=EU", "--scope", " region =US", code="invalid_input", expect=2)
    assert err["message"].startswith("--scope names 'region' twice"), err
    err = cli.error("ask", question, "--scope", " =EU", code="invalid_input", expect=2)
    assert err["message"].startswith("--scope: each condition needs a name"), err


def test_http_takes_a_scopes_names_as_the_library_does(http_client: Any, db_url: str) -> None:
    """Over HTTP a scope is the library's (POST /ask, POST /beliefs): trimmed, and a name given twice once trimmed
    is 400 invalid_input, as a name given twice in the JSON is."""
    said = refused(http_client.post("/ask", json={"question": "returns?", "scope": {"region": "EU", " region": "US"}},
                                    headers=bearer(db_url)), 400, "invalid_input")
    assert said.startswith("scope") and "'region' twice" in said, said
    stored = http_client.post("/beliefs", json={**REMEMBER, "scope": {" region ": "EU"}}, headers=bearer(db_url))
    assert stored.status_code == 200, stored.text
    with beliefdb.connect(db_url) as db:
        assert [b.scope for b in db.beliefs()] == [{"region": "EU"}]
