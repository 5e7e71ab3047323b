"""A flagged decision whose support came back (rule 4): its flag stays until a person clears it, and the
review queue and ``why`` say that it holds again, so the reviewer knows. A trial undid the retraction
that had flagged a decision and still read "the decision lost its last remaining support", nothing more,
in ``review list``, ``review list --json`` and ``why``."""

from __future__ import annotations

from typing import Any

import psycopg
import web_pages
from conftest import Cli
from fastapi.testclient import TestClient
from web_pages import HTML, sign_in, text_of

import beliefdb
from beliefdb import api

client = web_pages.client

HOLDS_AGAIN = "holds again: its support came back; approve to release its actions, or reject"


def _flagged(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    """A decision on a belief, flagged by the belief's retraction: the belief and the decision."""
    report = bdb.remember("returns window is 30 days", "returns", "window", "30 days", "Returns within 30 days.",
                          source="policy", text="Returns within 30 days.\n", authority="official")
    (belief,) = report.accepted
    decision = bdb.decide("Refuse Carla's return", because=[belief.id])
    bdb.act(decision.id, "Email Carla the refusal")
    bdb.retract(belief=belief.id, reason="wrong policy")
    return str(belief.id), str(decision.id)


def test_review_list_and_why_say_a_flagged_decision_holds_again(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                  postgresql: psycopg.Connection[Any]) -> None:
    belief, decision = _flagged(bdb)
    # lost its support: flagged, and nothing says it holds
    listed = cli("review", "list").stdout
    assert "the decision lost its last remaining support" in listed and HOLDS_AGAIN not in listed
    (flag,) = [r for r in cli.json("review", "list") if r["kind"] == "decision_flagged"]
    assert flag["node_holds"] is False
    assert HOLDS_AGAIN not in cli("why", decision).stdout

    bdb.retract(belief=belief, undo=True)
    # the flag stays (rule 4), and says the decision holds again
    listed = cli("review", "list").stdout
    (line,) = [x for x in listed.splitlines() if "decision_flagged" in x]
    assert line.endswith(f"the decision lost its last remaining support; {HOLDS_AGAIN}  [owner: postgres]"), line
    (held,) = [x for x in listed.splitlines() if "action_held" in x]
    assert HOLDS_AGAIN not in held  # (said of the decision, whose approval releases the action)
    items = {r["kind"]: r for r in cli.json("review", "list")}
    assert items["decision_flagged"]["node"] == decision and items["decision_flagged"]["node_holds"] is True
    why = cli("why", decision).stdout
    assert "[needs_review] — flagged: needs review" in why and HOLDS_AGAIN in why
    assert [r.node_holds for r in bdb.review_items() if r.kind == "decision_flagged"] == [True]
    # the view says it too, for a DBA
    with postgresql.cursor() as cur:
        cur.execute("select node_holds from beliefdb.review_queue where kind = 'decision_flagged'")
        assert cur.fetchall() == [(True,)]
    postgresql.rollback()

    # approved, the item is closed: nothing left to say
    (flag_item,) = [r for r in bdb.review_items() if r.kind == "decision_flagged"]
    cli("review", "approve", str(flag_item.id))
    assert HOLDS_AGAIN not in cli("why", decision).stdout


def test_the_review_page_says_a_flagged_decision_holds_again(client: TestClient, bdb: beliefdb.BeliefDB,
                                                              db_url: str) -> None:
    belief, _ = _flagged(bdb)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    assert HOLDS_AGAIN not in text_of(client.get("/review", headers=HTML).text)
    bdb.retract(belief=belief, undo=True)
    assert f"It {HOLDS_AGAIN}." in text_of(client.get("/review", headers=HTML).text)
