"""Multi-agent ownership (issue 6): a claim cannot call itself a reviewer's correction, on a database
that holds nothing else (the other ownership tests, on alice's belief, are in tests/test_ownership.py)."""

from __future__ import annotations

from psycopg.types.json import Jsonb
from test_ownership import su_all

import beliefdb


def test_a_claim_cannot_call_itself_a_reviewers_correction(db_url: str, bob: beliefdb.BeliefDB) -> None:
    text = "Shipping is free over 50 euros."
    bob.ingest_text(text, source="forum", authority="unverified", extractor="none")
    claim = {"statement": text, "subject": "shipping", "attribute": "free_over", "value": "50 euros",
             "quote": text, "start": 0, "end": len(text), "confidence_kind": "human_correction"}
    with bob.database.transaction() as conn:
        conn.execute("select beliefdb.add_claims_to_source('forum', %s)", (Jsonb([claim]),))
    assert su_all(db_url, "select confidence_kind::text from beliefdb.belief where subject = 'shipping'") == [
        ("extracted",)]
