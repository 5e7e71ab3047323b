"""An id prefix too short to name one node (``beliefdb.resolve_node``, which every id a command takes goes
through): it was "unknown" even when it began several ids; it is ambiguous when it begins several, too
short otherwise (both ask for at least 4 characters); only a well-formed prefix is unknown."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from serving import bearer, refused

import beliefdb
from beliefdb import errors

IDS = ["a1000000-0000-4000-8000-000000000001", "a2000000-0000-4000-8000-000000000002",
       "b3000000-0000-4000-8000-000000000003"]


@pytest.fixture
def three_beliefs(postgresql: psycopg.Connection[Any]) -> list[str]:
    """Beliefs whose ids begin a1, a2 and b3 (inserted as the superuser, ids chosen)."""
    for i, belief_id in enumerate(IDS):
        postgresql.execute(
            """insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value)
               select w.id, %s, %s, 'plan', 'fee', %s from beliefdb.workspace w where w.name = 'default'""",
            (belief_id, f"The fee of plan {i} is {i}%.", f"{i}%"))
    postgresql.commit()
    return IDS


def test_a_short_prefix_that_begins_several_ids_is_ambiguous(bdb: beliefdb.BeliefDB, three_beliefs: list[str],
                                                             http_client: TestClient, db_url: str) -> None:
    """A prefix of 1 to 3 characters was "unknown" even when it began several ids; it is ambiguous (and
    asks for 4 characters), too short otherwise (whether or not it begins one)."""
    for ref in ("a", "A"):
        with pytest.raises(errors.AmbiguousId, match=rf"^belief id prefix {ref} is ambiguous \(2 matches: a1000000,"
                                                     r" a2000000\): give at least 4 characters of the id$"):
            bdb.why(ref)
    for ref in ("b", "b3", "a1"):
        with pytest.raises(errors.InvalidInput, match=rf"^belief id prefix {ref} is too short: give at least 4"):
            bdb.why(ref)
    with pytest.raises(errors.InvalidInput, match=r"^belief id prefix c is too short: give at least 4"):
        bdb.why("c")  # (too short whether or not it begins an id: one rule, at every door)
    with pytest.raises(errors.UnknownBelief, match=r"^unknown belief c000$"):
        bdb.why("c000")
    assert bdb.why("a100").belief.id == bdb.why(IDS[0]).belief.id and str(bdb.why("b300").belief.id) == IDS[2]
    with pytest.raises(errors.AmbiguousId,
                       match=r"is ambiguous \(2 matches: a1000000, a2000000\): give at least 4 characters"):
        bdb.retract(belief="a", reason="x")  # (every command that takes an id resolves it the same way)

    alice = bearer(db_url)
    assert "is ambiguous (2 matches: a" in refused(http_client.get("/beliefs/a", headers=alice), 400, "ambiguous_id")
    assert "too short" in refused(http_client.get("/beliefs/b", headers=alice), 400, "invalid_input")
    assert "too short" in refused(http_client.get("/beliefs/c", headers=alice), 400, "invalid_input")
    assert refused(http_client.get("/beliefs/c000", headers=alice), 404, "unknown_belief") == "unknown belief c000"


def test_a_longer_ambiguous_prefix_asks_for_more_characters(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]
                                                            ) -> None:
    ids = ["abcd0000-0000-4000-8000-000000000001", "abcd0000-0000-4000-8000-000000000002"]
    for belief_id in ids:
        postgresql.execute(
            """insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value)
               select w.id, %s, 'The fee is 1%%.', 'plan', 'fee', '1%%' from beliefdb.workspace w
                where w.name = 'default'""", (belief_id,))
    postgresql.commit()
    with pytest.raises(errors.AmbiguousId, match=r"^belief id prefix abcd0000 is ambiguous \(2 matches:"
                                                 r" abcd0000-0000-4000-8000-000000000001,"
                                                 r" abcd0000-0000-4000-8000-000000000002\): give more"
                                                 r" characters of the id$"):
        bdb.why("abcd0000")


@pytest.mark.parametrize("ref", ["", "   "])
def test_an_empty_id_says_none_was_given(cli: Any, three_beliefs: list[str], ref: str) -> None:
    """An empty reference (a shell variable that was not set) was 'unknown belief or decision or action '
    with nothing after it."""
    refused = cli.error("why", ref, code="invalid_input")
    assert refused["message"] == "no belief or decision or action id given: give an id or at least 4 characters of one"
    with psycopg.connect(cli.env["BELIEFDB_URL"], autocommit=True) as conn, pytest.raises(psycopg.Error) as raised:
        conn.execute("select beliefdb.use_workspace('default')")
        conn.execute("select beliefdb.resolve_belief(%s)", (ref,))
    assert (raised.value.sqlstate, raised.value.diag.message_primary) == (
        "BD005", "no belief id given: give an id or at least 4 characters of one")


def test_a_run_prefix_shorter_than_4_characters_is_refused_as_a_belief_one_is(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A run is named by its id or a unique prefix of at least 4 characters, as every other id: a
    1-character prefix wrote steps, reads and decisions into whichever run it began (the code before),
    where a slip of the finger names another run once there are several."""
    run = str(bdb.record_step("user_input", {"text": "refund order 1042"}, task="refund 1042").run)
    count = "select count(*) from beliefdb.step"
    before = postgresql.execute(count).fetchone()
    for ref in (run[:1], run[:3]):
        for call in (lambda r=ref: bdb.record_step("plan", {"refund": True}, run=r),
                     lambda r=ref: bdb.ask("refund", run=r),
                     lambda r=ref: bdb.decide_in_run(r, "Refund order 1042"),
                     lambda r=ref: bdb.steps(r)):
            with pytest.raises(errors.InvalidInput, match=rf"^run id prefix {ref} is too short: give at least 4"):
                call()
    assert postgresql.execute(count).fetchone() == before
    assert len(bdb.steps(run[:4])) == 1 and bdb.record_step("plan", {}, run=run[:4]).seq == 1
