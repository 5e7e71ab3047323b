"""An agent calling beliefdb over a network retries after a timeout: a decision, an action and an outcome
take an idempotency key, as a correction does (rule 18 of docs/rules.md). The same key with the same
request records nothing (no row, no audit event) and answers the first call's result marked
``already_applied``; the same key with other content is refused (``idempotency_key_reused``, 409 over
HTTP), naming the key; keys are per workspace and per kind. Before, a retried ``POST /decisions``,
``/actions`` or ``/outcomes`` recorded a second decision, action or outcome."""

from __future__ import annotations

import json
from typing import Any

import anyio
import psycopg
import pytest
from conftest import Cli
from serving import bearer, refused

import beliefdb
from beliefdb import errors

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
TABLES = ("decision", "action", "outcome", "justification", "review_item", "audit_event")


def _beliefs(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    return str(bdb.beliefs(attribute="window")[0].id), str(bdb.beliefs(attribute="fee")[0].id)


def _counts(db_url: str) -> dict[str, int]:
    """Rows of the tables a decision, action or outcome writes, the audit chain's events included."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        return {t: conn.execute(f"select count(*) from beliefdb.{t}").fetchone()[0] for t in TABLES}  # type: ignore[index]


def test_a_retried_decision_action_and_outcome_are_recorded_once(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    window, fee = _beliefs(bdb)
    decided = bdb.decide("Refuse the return", because=[window], all_of=[[window, fee]], idempotency_key="d-1")
    acted = bdb.act(decided.id, "Email the customer", idempotency_key="a-1")
    outcome = bdb.record_outcome(acted.id, "succeeded", note="sent", idempotency_key="o-1")
    assert not (decided.already_applied or acted.already_applied or outcome.already_applied)
    before = _counts(db_url)

    again = bdb.decide("Refuse the return", because=[window], all_of=[[window, fee]], idempotency_key="d-1")
    assert (again.id, again.status, again.already_applied) == (decided.id, decided.status, True)
    # the action it recorded, whatever it became since (its outcome made it done)
    redone = bdb.act(str(decided.id)[:8], "Email the customer", idempotency_key="a-1")
    assert (redone.id, redone.status, redone.already_applied) == (acted.id, "done", True)
    reported = bdb.record_outcome(acted.id, "succeeded", note="sent", idempotency_key="o-1")
    assert (reported.id, reported.node, reported.kind, reported.outcome, reported.status, reported.already_applied) \
        == (outcome.id, acted.id, "action", "succeeded", "done", True)
    assert _counts(db_url) == before, "a replay writes nothing, and no audit event"
    assert [a.id for a in bdb.actions()] == [acted.id]
    assert [d.id for d in bdb.decisions()] == [decided.id]

    # without a key, the same request is another decision, as before
    assert bdb.decide("Refuse the return", because=[window]).id != decided.id


def test_the_same_beliefs_cited_otherwise_are_the_same_request(bdb: beliefdb.BeliefDB, http_client: Any,
                                                                db_url: str) -> None:
    """A retry that names its reasons otherwise (a prefix of the id, upper case, twice, in another order) cites
    the same beliefs: the same request, as an action's and a correction's retries are compared by what they
    resolve to. It was idempotency_key_reused: decisions hashed the reasons as sent."""
    window, fee = _beliefs(bdb)
    auth = bearer(db_url)
    first = http_client.post("/decisions", json={"title": "T", "because": [window], "all_of": [[window, fee]],
                                                 "idempotency_key": "k"}, headers=auth)
    assert first.status_code == 200, first.text
    for because, all_of in (([window[:8]], [[fee.upper(), window[:8]]]),
                            ([window.upper(), window], [[fee, window, fee], [window, fee]])):
        again = http_client.post("/decisions", json={"title": "T", "because": because, "all_of": all_of,
                                                     "idempotency_key": "k"}, headers=auth)
        assert again.status_code == 200, again.text
        assert (again.json()["id"], again.json()["already_applied"]) == (first.json()["id"], True)
    # another belief, or the two beliefs as alternatives instead of jointly, is another request
    refused(http_client.post("/decisions", json={"title": "T", "because": [window, fee], "idempotency_key": "k"},
                             headers=auth), 409, "idempotency_key_reused")
    run = bdb.record_step("user_input", {}, task="refund").run
    bdb.ask("how many days for returns?", k=1, run=run)
    cited = bdb.decide_in_run(run, "R", because=[window], idempotency_key="r")
    again = bdb.decide_in_run(str(run), "R", because=[window[:6].upper()], idempotency_key="r")
    assert (again.id, again.already_applied) == (cited.id, True)


def test_a_key_reused_with_other_content_is_refused_naming_it(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    window, fee = _beliefs(bdb)
    decided = bdb.decide("Refuse the return", because=[window], idempotency_key="k-1")
    acted = bdb.act(decided.id, "Email the customer", idempotency_key="k-1")
    bdb.record_outcome(acted.id, "failed", note="bounced", idempotency_key="k-1")
    other = bdb.decide("Refund it", because=[fee])
    before = _counts(db_url)
    for call in (lambda: bdb.decide("Refuse the return!", because=[window], idempotency_key="k-1"),
                 lambda: bdb.decide("Refuse the return", because=[fee], idempotency_key="k-1"),
                 lambda: bdb.decide("Refuse the return", all_of=[[window, fee]], idempotency_key="k-1"),
                 lambda: bdb.act(decided.id, "Phone the customer", idempotency_key="k-1"),
                 lambda: bdb.act(other.id, "Email the customer", idempotency_key="k-1"),
                 lambda: bdb.record_outcome(acted.id, "succeeded", note="bounced", idempotency_key="k-1"),
                 lambda: bdb.record_outcome(acted.id, "failed", idempotency_key="k-1"),
                 lambda: bdb.record_outcome(decided.id, "failed", note="bounced", idempotency_key="k-1")):
        with pytest.raises(errors.IdempotencyKeyReused, match="idempotency key k-1 was used for another request"):
            call()
    assert _counts(db_url) == before
    with pytest.raises(errors.InvalidInput, match="blank"):
        bdb.act(decided.id, "Email the customer", idempotency_key=" ")


def test_keys_are_per_workspace_and_per_kind(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    window, _ = _beliefs(bdb)
    decided = bdb.decide("Refuse the return", because=[window], idempotency_key="same")
    acted = bdb.act(decided.id, "Email the customer", idempotency_key="same")
    assert not acted.already_applied
    assert not bdb.record_outcome(decided.id, "disputed", idempotency_key="same").already_applied
    bdb.create_workspace("other")
    with beliefdb.connect(db_url, "other") as other:
        elsewhere = other.decide("Refuse the return", idempotency_key="same")
    assert not elsewhere.already_applied and elsewhere.id != decided.id


def test_a_retried_decision_in_a_run_says_what_it_refused(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    window, fee = _beliefs(bdb)
    run = bdb.record_step("user_input", {}, task="refund").run
    bdb.ask("how many days for returns?", k=1, run=run)
    first = bdb.decide_in_run(run, "Refuse the return", because=[window, fee], idempotency_key="r-1")
    assert [r.belief for r in first.refused] == [fee] and not first.already_applied
    before = _counts(db_url)
    again = bdb.decide_in_run(run, "Refuse the return", because=[window, fee], idempotency_key="r-1")
    assert (again.id, again.status, again.run, again.refused, again.already_applied) \
        == (first.id, first.status, first.run, first.refused, True)
    assert _counts(db_url) == before
    # the key names a decision of that run: without the run, it is another request
    with pytest.raises(errors.IdempotencyKeyReused, match="r-1"):
        bdb.decide("Refuse the return", because=[window, fee], idempotency_key="r-1")


def test_async_twins_take_the_key(db_url: str) -> None:
    async def main() -> None:
        async with await beliefdb.aconnect(db_url) as adb:
            first = await adb.decide("Ship by ground", idempotency_key="as-1")
            again = await adb.decide("Ship by ground", idempotency_key="as-1")
            assert (again.id, again.already_applied) == (first.id, True)

    anyio.run(main)


def test_on_the_command_line(bdb: beliefdb.BeliefDB, cli: Cli, db_url: str) -> None:
    window, _ = _beliefs(bdb)
    first = cli.json("decide", "Refuse the return", "--because", window, "--idempotency-key", "c-1")
    action = cli.json("act", first["id"], "Email the customer", "--idempotency-key", "c-2")
    outcome = cli.json("outcome", action["id"], "succeeded", "--idempotency-key", "c-3")
    before = _counts(db_url)
    line = cli("decide", "Refuse the return", "--because", window, "--idempotency-key", "c-1").stdout
    assert line.startswith(f"decision {first['id']} [active] (already applied") and "--idempotency-key" in line
    assert cli.json("act", first["id"], "Email the customer", "--idempotency-key", "c-2")["already_applied"] is True
    assert "already applied" in cli("outcome", action["id"], "succeeded", "--idempotency-key", "c-3").stdout
    assert cli.json("outcome", action["id"], "succeeded", "--idempotency-key", "c-3")["id"] == outcome["id"]
    assert _counts(db_url) == before
    err = cli.error("act", first["id"], "Phone the customer", "--idempotency-key", "c-2",
                    code="idempotency_key_reused")
    assert "c-2" in err["message"]
    assert "--idempotency-key" in cli("decide", "--help").stdout


def test_a_retried_post_returns_the_same_id(http_client: Any, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    window, _ = _beliefs(bdb)
    auth = bearer(db_url)
    body = {"title": "Refuse the return", "because": [window], "idempotency_key": "h-1"}
    first = http_client.post("/decisions", json=body, headers=auth)
    assert first.status_code == 200 and first.json()["already_applied"] is False, first.text
    decision = first.json()["id"]
    action = {"decision": decision, "description": "Email the customer", "idempotency_key": "h-2"}
    acted = http_client.post("/actions", json=action, headers=auth).json()
    outcome = {"node": acted["id"], "outcome": "succeeded", "note": "sent", "idempotency_key": "h-3"}
    reported = http_client.post("/outcomes", json=outcome, headers=auth).json()
    before = _counts(db_url)
    for path, sent, answered in (("/decisions", body, first.json()), ("/actions", action, acted),
                                 ("/outcomes", outcome, reported)):
        again = http_client.post(path, json=sent, headers=auth)
        assert again.status_code == 200, again.text
        assert again.json()["id"] == answered["id"] and again.json()["already_applied"] is True, again.text
    assert _counts(db_url) == before
    for path, sent in (("/decisions", body | {"title": "Refund it"}),
                       ("/actions", action | {"description": "Phone the customer"}),
                       ("/outcomes", outcome | {"note": "bounced"})):
        message = refused(http_client.post(path, json=sent, headers=auth), 409, "idempotency_key_reused")
        assert str(sent["idempotency_key"]) in message, message
    assert _counts(db_url) == before


def test_over_mcp(bdb: beliefdb.BeliefDB) -> None:
    from mcp.client import Client

    from beliefdb.interfaces.mcp import build

    window, _ = _beliefs(bdb)

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            arguments = {"title": "Refuse the return", "because": [window], "idempotency_key": "m-1"}
            first = json.loads((await client.call_tool("decide", arguments)).content[0].text)
            again = json.loads((await client.call_tool("decide", arguments)).content[0].text)
            assert (again["id"], again["already_applied"]) == (first["id"], True)
            act = {"decision": first["id"], "description": "Email the customer", "idempotency_key": "m-2"}
            acted = json.loads((await client.call_tool("act", act)).content[0].text)
            outcome = {"node": acted["id"], "outcome": "succeeded", "idempotency_key": "m-3"}
            reported = json.loads((await client.call_tool("record_outcome", outcome)).content[0].text)
            replay = json.loads((await client.call_tool("record_outcome", outcome)).content[0].text)
            assert (replay["id"], replay["already_applied"]) == (reported["id"], True)
            result = await client.call_tool("act", act | {"description": "Phone the customer"})
            assert result.is_error
            assert json.loads(result.content[0].text)["error"] == "idempotency_key_reused"

    anyio.run(session)


def test_another_principals_request_with_the_key_is_refused(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """bob sending alice's key with her very body was answered with her decision as already applied, his
    own (a user trial): agents with natural keys ("refund-1042") believed they had recorded it."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        window, _ = _beliefs(alice)
        decided = alice.decide("Refuse the return", because=[window], idempotency_key="refund-1042")
        acted = alice.act(decided.id, "Email the customer", idempotency_key="email-1042")
        alice.record_outcome(acted.id, "disputed", idempotency_key="outcome-1042")
        before = _counts(db_url)
        for call in (lambda: bob.decide("Refuse the return", because=[window], idempotency_key="refund-1042"),
                     lambda: bob.act(decided.id, "Email the customer", idempotency_key="email-1042"),
                     lambda: bob.record_outcome(acted.id, "disputed", idempotency_key="outcome-1042")):
            with pytest.raises(errors.IdempotencyKeyReused):
                call()
        assert _counts(db_url) == before
        assert alice.decide("Refuse the return", because=[window], idempotency_key="refund-1042").already_applied
