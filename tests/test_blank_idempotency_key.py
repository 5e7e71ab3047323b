"""An idempotency key names one correction: the same key again is that correction (already_applied),
another request with it is refused (409 idempotency_key_reused). A blank key was stored as a key like any
other: a client sending ``"idempotency_key": ""`` for "none" had its first correction applied and every
later one, of any belief, refused as a reuse of the key "". A blank key is refused at every door as bad
input, and nothing is written."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Cli
from serving import bearer, refused

import beliefdb
from beliefdb import errors

POLICY = "The packing fee is 10%.\nThe gift fee is 3%.\n"


def test_a_blank_idempotency_key_is_refused(http_client: Any, db_url: str, cli: Cli) -> None:
    auth = bearer(db_url)
    report = http_client.post("/sources", json={"source": "fees.md", "text": POLICY}, headers=auth).json()
    packing, gift = (a["id"] for a in report["accepted"])
    for blank in ("", "  "):
        for belief, statement in ((packing, "The packing fee is 5%."), (gift, "The gift fee is 2%.")):
            answer = http_client.post("/corrections", headers=auth, json={
                "belief": belief, "expected_revision": 1, "statement": statement, "idempotency_key": blank})
            message = refused(answer, 400, "invalid_input")
            assert "idempotency_key" in message and "blank" in message, message
    line = cli.one_line_error("correct", packing, "The packing fee is 5%.", "--apply", "--expect-revision", "1",
                              "--idempotency-key", "", "--reviewer", "alice")
    assert "--idempotency-key" in line and "blank" in line, line
    with beliefdb.connect(db_url, principal="alice") as db:
        with pytest.raises(errors.InvalidInput, match="blank"):
            db.apply_correction(gift, "The gift fee is 2%.", reviewer="alice", expect_revision=1,
                                idempotency_key=" ")
        assert {b.status for b in db.beliefs(include_all=True)} == {"current"}
        assert len(db.beliefs(include_all=True)) == 2
    # a key that names something is taken, as before
    done = http_client.post("/corrections", headers=auth, json={
        "belief": gift, "expected_revision": 1, "statement": "The gift fee is 2%.", "idempotency_key": "k-1"})
    assert done.status_code == 200 and done.json()["already_applied"] is False, done.text
