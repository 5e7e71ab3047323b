"""Words the user trial of the network doors found wrong: a body cut inside a string said "Unterminated
string starting at at line 1 column 2"; a step refused "a observation takes the verdict of its inputs"; and
a read-only token previewing a retraction or a forget of another principal's belief was told to "propose a
correction instead", which that token cannot do."""

from __future__ import annotations

from fastapi.testclient import TestClient
from serving import bearer, refused

import beliefdb
from beliefdb import errors


def test_a_body_cut_inside_a_string_says_at_once(http_client: TestClient, db_url: str) -> None:
    said = refused(http_client.post("/ask", content=b'{"question', headers={**bearer(db_url),
                                                                          "Content-Type": "application/json"}),
                   400, "invalid_input")
    assert " at at " not in said and said.endswith("at line 1 column 2"), said


def test_an_observation_is_an_observation(bdb: beliefdb.BeliefDB) -> None:
    belief = bdb.remember("The fee is 10%", "plan", "fee", "10%", "The fee is 10%.", source="fees.md",
                          text="The fee is 10%.").accepted[0].id
    for kind, article in (("observation", "an"), ("tool_call", "a")):
        try:
            bdb.record_step(kind, {}, supports=[str(belief)])
        except errors.InvalidInput as exc:
            assert exc.message.startswith(f"{article} {kind} takes the verdict of its inputs"), exc.message
        else:
            raise AssertionError("refused")


def test_a_read_only_token_is_not_told_to_propose_a_correction(alice: beliefdb.BeliefDB, http_client: TestClient,
                                                               db_url: str) -> None:
    belief = str(alice.remember("The fee is 10%", "plan", "fee", "10%", "The fee is 10%.", source="fees.md",
                                text="The fee is 10%.").accepted[0].id)
    rita = bearer(db_url, "rita", read_only=True)
    for path, body in (("/retractions", {"belief": belief, "preview": True}),
                       ("/forget", {"belief": belief, "preview": True})):
        said = refused(http_client.post(path, json=body, headers=rita), 403, "not_owner")
        assert "propose a correction" not in said and "read-only" in said, (path, said)
    # a token that may write is still told what it can do
    bob = bearer(db_url, "bob")
    said = refused(http_client.post("/retractions", json={"belief": belief, "preview": True}, headers=bob), 403,
                   "not_owner")
    assert "propose a correction" in said, said
