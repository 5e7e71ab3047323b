"""Forgetting over the network (rule 14): ``POST /forget`` of the HTTP API and the MCP tool ``forget``
answer what ``BeliefDB.forget`` does — a preview writes nothing, then the source, or the subject's
beliefs and the turns it said, are gone (the apply sending the preview's fingerprint as ``expect``), the
decisions resting on them flagged — with the API's token rules (a read-only token may only preview) and
one-line errors."""

from __future__ import annotations

import json
from typing import Any

import anyio
import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused
from test_conversations import turns_of
from test_forget_redaction import holding

import beliefdb
from beliefdb.interfaces.http_forget import NEEDS_EXPECT

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
MAYA = [{"speaker": "Maya", "time": "2023-05-01T09:00:00+00:00", "text": "I live in Lisbon."},
        {"speaker": "Ben", "time": "2023-05-01T09:01:00+00:00", "text": "Nice! Is it sunny there?"},
        {"speaker": "Maya", "time": "2023-09-01T09:00:00+00:00", "text": "I moved to Porto last week."}]
COUNTS = ("versions", "fragments", "beliefs", "evidence", "redacted")
FINGERPRINT = "0" * 32  # (no preview's)



#: what a forget of a source no longer stored says (a forget sent again included)
AGAIN = " (hint: a source forgotten already is not found again (a repeated forget has nothing left to do))"

def answered(response: Any) -> Any:
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()



def stored(client: TestClient, headers: dict[str, str]) -> tuple[str, str]:
    """The policy and Maya's conversation, stored by ``headers``' principal, and a decision on the policy's
    window: (the window's belief, the decision)."""
    report = answered(client.post("/sources", json={"source": "return-policy.md", "text": POLICY}, headers=headers))
    window = next(a["id"] for a in report["accepted"] if a["attribute"] == "window")
    answered(client.post("/conversations", json={"source": "maya-chat", "turns": MAYA}, headers=headers))
    decision = answered(client.post("/decisions", json={"title": "Refuse the return of 1042", "because": [window]},
                                    headers=headers))["id"]
    return window, decision


@pytest.mark.slow
def test_forgetting_a_source_over_http_previews_then_forgets(http_client: TestClient, db_url: str, cli: Cli,
                                                              postgresql: psycopg.Connection[Any]) -> None:
    alice = bearer(db_url)
    window, decision = stored(http_client, alice)
    everything = cli.json("beliefs", "--all")

    preview = answered(http_client.post("/forget", json={"source": "return-policy.md", "preview": True},
                                        headers=alice))
    assert preview["preview"] is True and preview["target"] == "source"
    assert (preview["versions"], preview["beliefs"], preview["would_flag"]) == (1, 2, [decision])
    assert cli.json("beliefs", "--all") == everything  # the preview wrote nothing
    assert cli.json("decisions")[0]["status"] == "active"
    postgresql.commit()
    assert "source_version.content" in holding(postgresql, "restocking fee")
    postgresql.commit()

    done = answered(http_client.post("/forget", json={"source": "return-policy.md",
                                                      "expect": preview["fingerprint"]}, headers=alice))
    assert done["preview"] is False and done["flagged"] == [decision]
    assert {k: done[k] for k in COUNTS} == {k: preview[k] for k in COUNTS}  # the preview was exact
    assert {b["subject"] for b in cli.json("beliefs", "--all")} == {"maya"}  # the conversation's stay
    assert cli.json("decisions")[0]["status"] == "needs_review"
    assert refused(http_client.get(f"/beliefs/{window}", headers=alice), 404, "unknown_belief")
    assert holding(postgresql, "restocking fee") == []  # no trace of its text anywhere
    # forgotten: a second time (a client's retry after a lost answer) there is nothing of that name, and the
    # answer says what that means for a forget sent again (trial53)
    assert refused(http_client.post("/forget", json={"source": "return-policy.md", "expect": preview["fingerprint"]},
                                    headers=alice), 404, "not_found") == "unknown source return-policy.md" + AGAIN


@pytest.mark.slow
def test_forgetting_a_subject_over_http_forgets_its_beliefs_and_the_turns_it_said(
        http_client: TestClient, db_url: str, cli: Cli) -> None:
    alice = bearer(db_url)
    stored(http_client, alice)
    policy = sorted(b["id"] for b in cli.json("beliefs", "--all") if b["subject"] != "maya")
    said = [(text, speaker) for text, speaker, *_ in turns_of(db_url, "maya-chat")]
    assert said == [(t["text"], t["speaker"]) for t in MAYA]

    preview = answered(http_client.post("/forget", json={"subject": "maya", "preview": True}, headers=alice))
    assert (preview["preview"], preview["target"], preview["beliefs"], preview["fragments"]) == (True, "subject", 2, 2)
    assert len(cli.json("beliefs", "--all", "--subject", "maya")) == 2  # the preview wrote nothing
    assert [(text, speaker) for text, speaker, *_ in turns_of(db_url, "maya-chat")] == said

    done = answered(http_client.post("/forget", json={"subject": "maya", "expect": preview["fingerprint"]},
                                     headers=alice))
    assert {k: done[k] for k in COUNTS} == {k: preview[k] for k in COUNTS}
    assert cli.json("beliefs", "--all", "--subject", "maya") == []
    assert sorted(b["id"] for b in cli.json("beliefs", "--all")) == policy  # the policy's beliefs stay
    assert [(text, speaker) for text, speaker, *_ in turns_of(db_url, "maya-chat")] == [(MAYA[1]["text"], "Ben")]


@pytest.mark.slow
def test_a_read_only_token_may_only_preview_a_forget(http_client: TestClient, db_url: str, cli: Cli) -> None:
    stored(http_client, bearer(db_url))
    before = cli.json("beliefs", "--all")
    hers = bearer(db_url, "alice", read_only=True)  # the owner's own read-only token
    assert answered(http_client.post("/forget", json={"source": "return-policy.md", "preview": True},
                                     headers=hers))["beliefs"] == 2
    for body in ({"source": "return-policy.md"}, {"subject": "maya"}, {"source": "return-policy.md", "preview": False}):
        assert refused(http_client.post("/forget", json=body, headers=hers), 403, "read_only_token")
    # a preview is exact: another principal's source is theirs to forget, so its preview is refused as the forget
    rita = bearer(db_url, "rita", read_only=True)
    assert "alice" in refused(http_client.post("/forget", json={"source": "return-policy.md", "preview": True},
                                               headers=rita), 403, "not_owner")
    assert cli.json("beliefs", "--all") == before


@pytest.mark.parametrize(("body", "status", "code", "said"), [
    ({"expect": FINGERPRINT}, 400, "invalid_input", "forget exactly one of source, subject or belief"),
    ({"preview": True}, 400, "invalid_input", "forget exactly one of source, subject or belief"),
    ({"source": "return-policy.md", "subject": "maya", "expect": FINGERPRINT}, 400, "invalid_input",
     "forget exactly one of source, subject or belief"),
    ({"source": "return-policy.md"}, 400, "invalid_input", NEEDS_EXPECT),
    ({}, 400, "invalid_input", NEEDS_EXPECT),
    ({"source": "return-policy.md", "expect": ""}, 400, "invalid_input",
     "expect: String should have at least 1 character"),
    ({"source": "return-policy.md", "expect": FINGERPRINT}, 409, "stale_preview",
     "what forgetting it would take away is no longer what the preview showed: nothing was forgotten;"
     " preview again"),
    ({"source": ""}, 400, "invalid_input", "source: String should have at least 1 character"),
    ({"source": "return-policy.md", "everything": True}, 400, "invalid_input",
     "everything: not one of the fields this request takes (source, subject, belief, preview, expect,"
     " mask_mentions)"),
    ({"source": "nowhere.md", "expect": FINGERPRINT}, 404, "not_found", "unknown source nowhere.md" + AGAIN),
    ({"subject": "nobody", "preview": True}, 404, "not_found",
     "no belief has subject nobody (hint: nothing of it is stored: a subject forgotten already is not found again"
     " (a repeated forget has nothing left to do); check the name with beliefdb beliefs --subject)"),
])
def test_bad_forgets_over_http_are_one_line_and_forget_nothing(http_client: TestClient, db_url: str, cli: Cli,
                                                               body: dict[str, Any], status: int, code: str,
                                                               said: str) -> None:
    alice = bearer(db_url)
    answered(http_client.post("/sources", json={"source": "return-policy.md", "text": POLICY}, headers=alice))
    before = cli.json("beliefs", "--all")
    assert refused(http_client.post("/forget", json=body, headers=alice), status, code) == said
    assert cli.json("beliefs", "--all") == before


def test_the_openapi_document_names_forget(http_client: TestClient) -> None:
    doc = http_client.get("/openapi.json").json()
    responses = doc["paths"]["/forget"]["post"]["responses"]
    assert {"200", "400", "401", "403", "404", "409", "503"} <= set(responses)
    assert responses["200"]["content"]["application/json"]["schema"]["title"] == "Forgotten"


# --- MCP ------------------------------------------------------------------------------------------

def _text(result: Any) -> Any:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return json.loads(result.content[0].text)


def test_the_mcp_forget_tool_previews_then_forgets(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    from beliefdb.interfaces.mcp import build

    report = bdb.ingest_text(POLICY, source="return-policy.md")
    decision = bdb.decide("Refuse the return of 1042", because=[report.accepted[0].id])
    before = cli.json("beliefs", "--all")

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            assert "forget" in {t.name for t in (await client.list_tools()).tools}
            would = await client.call_tool("forget", {"source": "return-policy.md", "preview": True})
            preview = _text(would)
            assert not would.is_error and preview["preview"] is True and preview["would_flag"] == [str(decision.id)]
            assert cli.json("beliefs", "--all") == before  # nothing written
            done = await client.call_tool("forget", {"source": "return-policy.md", "expect": preview["fingerprint"]})
            forgot = _text(done)
            assert not done.is_error and forgot["flagged"] == [str(decision.id)]
            assert {k: forgot[k] for k in COUNTS} == {k: preview[k] for k in COUNTS}

    anyio.run(session)
    assert cli.json("beliefs", "--all") == []
    assert [d.status for d in bdb.decisions()] == ["needs_review"]


@pytest.mark.parametrize(("arguments", "said"), [
    ({"preview": True}, {"error": "invalid_input", "message": "forget exactly one of source, subject or belief"}),
    ({"source": "return-policy.md"}, {"error": "invalid_input", "message": NEEDS_EXPECT}),
    ({"source": "return-policy.md", "belief": "3f2a9c1e", "expect": FINGERPRINT},
     {"error": "invalid_input", "message": "forget exactly one of source, subject or belief"}),
    ({"source": 7}, {"error": "invalid_input", "message": "source: Input should be a valid string"}),
    ({"subject": "maya", "preview": "perhaps"},
     {"error": "invalid_input", "message": "preview: Input should be a valid boolean, unable to interpret input"}),
    ({"source": "nowhere.md", "expect": FINGERPRINT}, {"error": "not_found",
                                                  "message": "unknown source nowhere.md" + AGAIN}),
    ({"belief": "0123abcd", "preview": True}, {"error": "unknown_belief", "message": "unknown belief 0123abcd"}),
])
def test_the_mcp_forget_tools_bad_arguments_are_one_line(bdb: beliefdb.BeliefDB, cli: Cli, arguments: dict[str, Any],
                                                         said: dict[str, str]) -> None:
    from beliefdb.interfaces.mcp import build

    bdb.ingest_text(POLICY, source="return-policy.md")
    before = cli.json("beliefs", "--all")

    async def call() -> None:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("forget", arguments)
            assert result.is_error and _text(result) == said, result

    anyio.run(call)
    assert cli.json("beliefs", "--all") == before


def test_over_http_and_mcp_the_name_others_wrote_is_listed_and_masked_on_request(
        http_client: TestClient, db_url: str) -> None:
    """Ben's "Nice to meet you, Maya!" is his words: the preview lists it (``text_mentions``), and
    ``mask_mentions`` masks the name in it too, over HTTP as over MCP."""
    alice = bearer(db_url)
    greeted = [*MAYA, {"speaker": "Ben", "time": "2023-09-01T09:01:00+00:00", "text": "Nice to meet you, Maya!"}]
    answered(http_client.post("/conversations", json={"source": "maya-chat", "turns": greeted}, headers=alice))
    plain = answered(http_client.post("/forget", json={"subject": "maya", "preview": True}, headers=alice))
    assert [(t["source"], t["count"], t["masked"]) for t in plain["text_mentions"]] == [("maya-chat", 1, False)]
    preview = answered(http_client.post("/forget", json={"subject": "maya", "preview": True, "mask_mentions": True},
                                        headers=alice))
    assert [t["masked"] for t in preview["text_mentions"]] == [True] and preview["redacted"] == plain["redacted"] + 1

    async def session() -> None:
        from beliefdb.interfaces.mcp import build

        async with Client(build(local=mine)) as client:
            would = _text(await client.call_tool("forget", {"subject": "maya", "preview": True, "mask_mentions": True}))
            assert would["fingerprint"] == preview["fingerprint"] and would["text_mentions"] == preview["text_mentions"]

    with beliefdb.connect(db_url, principal="alice") as mine:
        anyio.run(session)
    done = answered(http_client.post("/forget", json={"subject": "maya", "expect": preview["fingerprint"],
                                                      "mask_mentions": True}, headers=alice))
    assert done["redacted"] == preview["redacted"]
    assert [(text, speaker) for text, speaker, *_ in turns_of(db_url, "maya-chat")] == [
        (MAYA[1]["text"], "Ben"), ("Nice to meet you, \u2588\u2588\u2588\u2588!", "Ben")]
