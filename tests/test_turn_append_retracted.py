"""A turn appended to a retracted conversation (rules 17/18 of docs/rules.md): it is appended to the
conversation's latest text, which grows in place and stays history while the source is retracted, so
restoring the source brings back the whole conversation with the new turn; a retracted latest version
is not grown: the turn follows the text in force, and the retracted turns stay out of it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer

import beliefdb
from beliefdb.interfaces.http import create_app
from beliefdb.models import Turn
from beliefdb.text.turns import lay_out

LISBON = Turn("maya", "I live in Lisbon.", datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
ACME = datetime(2026, 1, 6, 9, 0, tzinfo=UTC)
PORTO = Turn("maya", "I live in Porto.", LISBON.time)  # (the same turn said otherwise: a new version)
BOTH = lay_out([LISBON, Turn("maya", "I work at Acme.", ACME)])[0]


def versions(db_url: str, source: str) -> list[tuple[int, str, bool, bool]]:
    """(version, text, retracted, in force) of each version of ``source``."""
    with psycopg.connect(db_url) as conn:
        return [tuple(r) for r in conn.execute(
            """select v.version, v.content, v.retracted_at is not null, beliefdb.in_force(v.workspace_id, v.id)
                 from beliefdb.source_version v
                 join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                where s.name = %s order by v.version""", (source,)).fetchall()]


def statuses(bdb: beliefdb.BeliefDB) -> dict[tuple[str, str], tuple[str, bool]]:
    """(subject/attribute, value) -> (status, supported) of every belief."""
    with psycopg.connect(bdb.database.url) as conn:
        return {(f"{s}/{a}", v): (st, holds) for s, a, v, st, holds in conn.execute(
            """select b.subject, b.attribute, b.value, b.status::text, n.holds
                 from beliefdb.belief b join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id"""
        ).fetchall()}


def test_a_turn_appended_to_a_retracted_conversation_comes_back_with_it(bdb: beliefdb.BeliefDB,
                                                                         db_url: str) -> None:
    bdb.ingest_conversation([LISBON], source="chat")
    bdb.retract(source="chat", reason="trial")
    said = bdb.remember_turn("chat", "maya", "I work at Acme.", time=ACME)
    # the conversation's latest text grew in place, kept as history: no version of the new turn alone
    assert (said.version, said.new_version) == (1, False)
    assert said.note is not None and "retracted" in said.note and "undo the source's retraction" in said.note
    assert versions(db_url, "chat") == [(1, BOTH, False, False)]
    held = statuses(bdb)
    assert not held[("maya/lives_in", "Lisbon")][1] and not held[("maya/works_at", "Acme")][1]
    bdb.retract(source="chat", undo=True)
    assert versions(db_url, "chat") == [(1, BOTH, False, True)]
    assert statuses(bdb) == {("maya/lives_in", "Lisbon"): ("current", True),
                             ("maya/works_at", "Acme"): ("current", True)}
    # the whole conversation again is that text: a no-op
    again = bdb.ingest_conversation([LISBON, Turn("maya", "I work at Acme.", ACME)], source="chat")
    assert (again.version, again.new_version, again.accepted) == (1, False, [])


def test_a_turn_appended_after_a_retracted_latest_version_follows_the_text_in_force(
        bdb: beliefdb.BeliefDB, db_url: str) -> None:
    bdb.ingest_conversation([LISBON], source="chat")
    bdb.ingest_conversation([PORTO], source="chat")
    bdb.retract(source="chat", version=2, reason="not what she said")
    said = bdb.remember_turn("chat", "maya", "I work at Acme.", time=ACME)
    # version 1 is in force and has a later (retracted) version: the turn makes a new version of its
    # text and the turn, in force, whose earlier turn keeps its offsets and re-verifies its belief
    assert (said.version, said.new_version) == (3, True)
    assert versions(db_url, "chat") == [(1, lay_out([LISBON])[0], False, False),
                                        (2, lay_out([PORTO])[0], True, False), (3, BOTH, False, True)]
    held = statuses(bdb)
    assert held[("maya/lives_in", "Lisbon")] == ("current", True)
    assert held[("maya/works_at", "Acme")] == ("current", True)
    assert not held[("maya/lives_in", "Porto")][1]
    # restoring the retracted version does not put its turns back over the newer text
    bdb.retract(source="chat", version=2, undo=True)
    assert versions(db_url, "chat")[2][3] is True
    assert statuses(bdb)[("maya/works_at", "Acme")] == ("current", True)


@pytest.mark.slow
def test_a_turn_posted_to_a_retracted_conversation_comes_back_with_it(db_url: str, cli: Cli) -> None:
    alice = bearer(db_url, "alice")
    with TestClient(create_app(db_url)) as client:
        first = {"speaker": "maya", "time": "2026-01-05T09:00:00+00:00", "text": "I live in Lisbon."}
        assert client.post("/conversations/chat/turns", json=first, headers=alice).status_code == 200
        preview = client.post("/retractions", json={"source": "chat", "reason": "trial", "preview": True},
                              headers=alice)
        assert preview.status_code == 200, preview.text
        applied = client.post("/retractions", json={"source": "chat", "reason": "trial",
                                                    "expect": preview.json()["fingerprint"]}, headers=alice)
        assert applied.status_code == 200, applied.text
        said = client.post("/conversations/chat/turns", headers=alice,
                           json={"speaker": "maya", "time": "2026-01-06T09:00:00+00:00", "text": "I work at Acme."})
        assert said.status_code == 200, said.text
        body: dict[str, Any] = said.json()
        assert (body["version"], body["new_version"]) == (1, False) and "retracted" in body["note"]
        restored = client.post("/retractions", json={"source": "chat", "undo": True}, headers=alice)
        assert restored.status_code == 200, restored.text
    assert versions(db_url, "chat") == [(1, BOTH, False, True)]
    assert sorted((b["attribute"], b["value"], b["status"]) for b in cli.json("beliefs", "--all")) == [
        ("lives_in", "Lisbon", "current"), ("works_at", "Acme", "current")]


def test_a_turn_appended_when_every_version_is_retracted_starts_the_text_again(bdb: beliefdb.BeliefDB,
                                                                              db_url: str) -> None:
    bdb.ingest_conversation([LISBON], source="chat")
    bdb.retract(source="chat", version=1, reason="not what she said")
    said = bdb.remember_turn("chat", "maya", "I work at Acme.", time=ACME)
    # the retracted text is not repeated (its quotes would re-verify what the retraction took down)
    assert (said.version, said.new_version) == (2, True)
    alone = lay_out([Turn("maya", "I work at Acme.", ACME)])[0]
    assert versions(db_url, "chat") == [(1, lay_out([LISBON])[0], True, False), (2, alone, False, True)]
    held = statuses(bdb)
    assert not held[("maya/lives_in", "Lisbon")][1] and held[("maya/works_at", "Acme")] == ("current", True)


def test_a_proposed_turn_approved_while_the_conversation_is_retracted_keeps_the_turns_added_since(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, db_url: str) -> None:
    """Approving bob's proposed turn after alice appended one to her retracted conversation stored the proposal
    as it was (the rebase read only a source in force): alice's turn was gone from the text, and her first
    turn had no fragment, once the conversation was restored."""
    alice.ingest_conversation([LISBON], source="chat")
    alice.retract(source="chat", reason="trial")
    proposed = bob.remember_turn("chat", "bob", "She moved last week.", time=ACME)
    assert proposed.proposed
    alice.remember_turn("chat", "maya", "I work at Acme.", time=ACME)
    (item,) = [i for i in alice.review_items() if i.kind == "version_proposed"]
    alice.resolve_review(item.id, "approved")
    alice.retract(source="chat", reason="back", undo=True)
    in_force = [text for _, text, _, now in versions(db_url, "chat") if now]
    assert len(in_force) == 1
    assert all(said in in_force[0] for said in ("I live in Lisbon.", "I work at Acme.", "She moved last week."))
    held = statuses(alice)
    assert held[("maya/lives_in", "Lisbon")] == ("current", True)
    assert held[("maya/works_at", "Acme")] == ("current", True)
