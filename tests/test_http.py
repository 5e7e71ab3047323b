"""The HTTP API (``beliefdb serve``) against the real database: every resource, the JSON the CLI
prints with ``--json``, the principal and workspace taken from the bearer token and never from the
request, and each error status (400, 401, 403, 404, 409, 503) in the ``{"error", "message"}`` shape."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from httpx import Response

from beliefdb import api, errors
from beliefdb.interfaces.http import create_app

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
POLICY_V2 = "# Return policy\n\nReturns are accepted within 15 days of delivery.\nThe restocking fee is 10%.\n"


class Api:
    """A test client with a bearer token."""

    def __init__(self, client: TestClient, token: str) -> None:
        self.client, self.token = client, token

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def get(self, path: str, expect: int = 200, **params: Any) -> Any:
        return _expect(self.client.get(path, params=params, headers=self._headers()), expect)

    def post(self, path: str, body: Any, expect: int = 200) -> Any:
        return _expect(self.client.post(path, json=body, headers=self._headers()), expect)


def _expect(response: Response, status: int) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    if status >= 400:
        assert set(body) == {"error", "message"} and body["message"], body
    return body


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url)) as c:
        yield c


@pytest.fixture
def alice(client: TestClient, db_url: str) -> Api:
    return Api(client, api.create_token("default", "alice", url=db_url).token)


@pytest.fixture
def reader(client: TestClient, db_url: str) -> Api:
    return Api(client, api.create_token("default", "rita", read_only=True, url=db_url).token)


def _ingest(who: Api, text: str = POLICY, source: str = "return-policy.md") -> Any:
    return who.post("/sources", {"source": source, "text": text, "authority": "official"})


def _window(report: Any) -> str:
    return next(a["id"] for a in report["accepted"] if a["attribute"] == "window")


def test_no_valid_token_is_401(client: TestClient, db_url: str) -> None:
    made = api.create_token("default", "alice", url=db_url)
    for headers in ({}, {"Authorization": "Basic YWxpY2U6eA=="}, {"Authorization": "Bearer bdb_nope"},
                    {"Authorization": "Bearer " + made.token[4:]}, {"Authorization": made.token}):
        response = client.get("/beliefs", headers=headers)
        assert response.status_code == 401, headers
        assert response.json()["error"] == "unauthenticated" and response.headers["www-authenticate"] == "Bearer"
    assert client.get("/beliefs", headers={"Authorization": f"Bearer {made.token}"}).status_code == 200
    api.revoke_token(str(made.id), url=db_url)
    assert client.get("/beliefs", headers={"Authorization": f"Bearer {made.token}"}).status_code == 401
    assert client.get("/health").json() == {"status": "ok"}  # the one route without a token


def test_the_token_names_the_principal_and_the_workspace(client: TestClient, alice: Api, db_url: str) -> None:
    assert {k: v for k, v in alice.get("/whoami").items() if k != "workspace_id"} | {"token_id": None} == {
        "token_id": None, "workspace": "default", "principal": "alice", "read_only": False}
    assert [w["name"] for w in alice.get("/workspaces")] == ["default"]  # it sees no other workspace
    # a request cannot name another principal: no field for it, and headers are not read
    bad = alice.post("/decisions", {"title": "x", "principal": "mallory"}, expect=400)
    assert bad["error"] == "invalid_input" and "principal" in bad["message"]
    report = client.post("/sources", json={"source": "p.md", "text": POLICY},
                         headers={"Authorization": f"Bearer {alice.token}", "X-Beliefdb-Principal": "mallory",
                                  "X-Beliefdb-Workspace": "other"}).json()
    assert alice.get(f"/beliefs/{_window(report)}")["belief"]["owner"] == "alice"
    # a token of another workspace sees only that workspace
    api.create_workspace("other", url=db_url)
    bob = Api(client, api.create_token("other", "bob", url=db_url).token)
    assert bob.get("/beliefs") == [] and [w["name"] for w in bob.get("/workspaces")] == ["other"]
    assert bob.get(f"/beliefs/{_window(report)}", expect=404)["error"] == "unknown_belief"
    assert len(alice.get("/beliefs")) == 2


def test_a_read_only_token_reads_and_previews_but_changes_nothing(alice: Api, reader: Api) -> None:
    window = _window(_ingest(alice))
    decision = alice.post("/decisions", {"title": "Refuse the return of 1042", "because": [window]})["id"]
    for path, body in [
        ("/sources", {"source": "n.md", "text": POLICY}),
        ("/beliefs", {"statement": "s", "subject": "a", "attribute": "b", "value": "c", "quote": "Returns",
                      "source": "return-policy.md"}),
        ("/decisions", {"title": "t"}),
        ("/actions", {"decision": decision, "description": "d"}),
        ("/corrections", {"belief": window, "statement": "s", "expected_revision": 1}),
        ("/retractions", {"belief": window, "reason": "r"}),
        ("/steps", {"kind": "user_input"}),
        ("/review-items/00000000", {"verdict": "approved"}),
    ]:
        assert reader.post(path, body, expect=403)["error"] == "read_only_token", path
    assert reader.post("/sources", {"source": "n.md", "text": POLICY, "preview": True})["preview"] is True
    assert reader.post("/corrections/preview", {"belief": window})["revision"] == 1
    # a preview is exact: alice's belief is hers to retract, so its preview is refused as the apply would be
    assert reader.post("/retractions", {"belief": window, "preview": True}, expect=403)["error"] == "not_owner"
    whole = reader.post("/retractions", {"source": "return-policy.md", "preview": True})
    assert whole["proposed"] is True and whole["flagged"] == [decision]  # a source: what her approval would do
    assert reader.post("/ask", {"question": "how many days for returns?"})["status"] == "ok"
    assert reader.post("/impact", {"refs": [window]})["flagged"] == [decision]
    assert [b["id"] for b in reader.get("/beliefs")] == [b["id"] for b in alice.get("/beliefs")]
    assert alice.get("/decisions", status="active")[0]["id"] == decision


def test_answers_are_the_cli_json(alice: Api, cli: Cli) -> None:
    """Every read answers exactly what the same command prints with --json."""
    window = _window(_ingest(alice))
    decision = alice.post("/decisions", {"title": "Refuse the return of 1042", "because": [window]})["id"]
    alice.post("/actions", {"decision": decision, "description": "Email a refusal"})
    _ingest(alice, POLICY_V2)
    step = alice.post("/steps", {"kind": "user_input", "task": "answer", "payload": {"text": "hi"}})
    assert alice.get("/beliefs") == cli.json("beliefs")
    assert alice.get("/beliefs", all="true") == cli.json("beliefs", "--all")
    assert alice.get(f"/beliefs/{window}") == cli.json("why", window)
    assert alice.get("/decisions") == cli.json("decisions")
    assert alice.get("/actions", status="held") == cli.json("actions", "--status", "held")
    assert alice.get("/review-items") == cli.json("review", "list")
    assert alice.get("/runs") == cli.json("runs")
    assert alice.get(f"/runs/{step['run']}") == cli.json("run", step["run"])
    assert alice.post("/impact", {"refs": [window]}) == cli.json("impact", window)
    assert alice.get("/audit/verify") == cli.json("audit", "verify")
    asked = alice.post("/ask", {"question": "how many days for returns?", "k": 3})
    assert asked == cli.json("ask", "how many days for returns?", "--k", "3")
    assert asked["beliefs"][0]["value"] == "15 days"


def test_ingest_remember_and_what_a_new_version_flags(alice: Api) -> None:
    report = _ingest(alice)
    assert report["version"] == 1 and {a["value"] for a in report["accepted"]} == {"7 days", "10%"}
    window = _window(report)
    decision = alice.post("/decisions", {"title": "Refuse the return of 1042", "because": [window]})
    assert decision["status"] == "active"
    action = alice.post("/actions", {"decision": decision["id"], "description": "Email a refusal"})
    assert action["status"] == "scheduled"
    again = _ingest(alice, POLICY_V2)
    assert again["version"] == 2 and again["flagged"] == [decision["id"]] and again["held"] == [action["id"]]
    remembered = alice.post("/beliefs", {"statement": "The customer prefers email.", "subject": "customer_1042",
                                         "attribute": "contact_channel", "value": "email", "quote": "please email me",
                                         "source": "chat-1042", "text": "Hi, please email me about it."})
    assert remembered["accepted"][0]["quote"] == "please email me"
    assert alice.get("/beliefs", subject="customer_1042")[0]["owner"] == "alice"
    bad = alice.post("/beliefs", {"statement": "s", "subject": "a", "attribute": "b", "value": "c",
                                  "quote": "please  email me", "source": "chat-1043", "text": "please email me"})
    assert bad["accepted"] == [] and "whitespace" in bad["rejected"][0]["reason"]


def test_correction_preview_apply_stale_and_repeated(alice: Api) -> None:
    window = _window(_ingest(alice))
    decision = alice.post("/decisions", {"title": "Refuse the return of 1042", "because": [window]})["id"]
    seen = alice.post("/corrections/preview", {"belief": window, "statement": "Returns within 14 days.",
                                               "value": "14 days"})
    assert seen["would_flag"] == [decision] and seen["revision"] == 1
    body = {"belief": window, "statement": "Returns are accepted within 14 days.", "value": "14 days",
            "expected_revision": seen["revision"] + 1, "idempotency_key": "fix-1"}
    stale = alice.post("/corrections", body, expect=409)
    assert stale["error"] == "stale_correction_preview"
    applied = alice.post("/corrections", body | {"expected_revision": seen["revision"]})
    assert applied["already_applied"] is False and applied["flagged"] == [decision]
    assert alice.get(f"/beliefs/{applied['replacement']}")["evidence"][0]["quote"] == body["statement"]
    repeated = alice.post("/corrections", body | {"expected_revision": seen["revision"]})
    assert repeated["already_applied"] is True and repeated["correction"] == applied["correction"]
    # another correction after the same preview: the belief was superseded meanwhile, which a new preview
    # would not change: 409 not_correctable naming what replaced it, not stale_correction_preview
    other = {"belief": window, "statement": "Returns are accepted within 30 days.", "value": "30 days"}
    refused = alice.post("/corrections", other | {"expected_revision": seen["revision"]}, expect=409)
    assert refused["error"] == "not_correctable" and applied["replacement"] in refused["message"]
    assert alice.post("/corrections/preview", other, expect=409) == refused


def test_retraction_review_and_runs(alice: Api) -> None:
    window = _window(_ingest(alice))
    decision = alice.post("/decisions", {"title": "Refuse", "because": [window]})["id"]
    would = alice.post("/retractions", {"source": "return-policy.md", "preview": True})
    done = alice.post("/retractions", {"source": "return-policy.md", "reason": "poisoned"})
    assert done == would and done["flagged"] == [decision]
    item = next(i for i in alice.get("/review-items") if i["kind"] == "decision_flagged")
    resolved = alice.post(f"/review-items/{item['id'][:8]}", {"verdict": "rejected", "note": "no"})
    assert resolved["status"] == "rejected" and alice.get("/decisions")[0]["status"] == "rejected"
    restored = alice.post("/retractions", {"source": "return-policy.md", "undo": True})
    assert window in restored["started_holding"]
    # a run recorded one step at a time: a new run, then steps appended to it with inputs and a memory
    first = alice.post("/steps", {"kind": "user_input", "task": "book", "payload": {"text": "Book JFK"}})
    obs = alice.post("/steps", {"run": first["run"], "kind": "observation", "payload": {"tier": "Gold"},
                                "memory": {"subject": "traveller:42", "attribute": "tier", "value": "Gold"}})
    plan = alice.post("/steps", {"run": first["run"][:8], "kind": "plan", "payload": {"cabin": "business"},
                                 "inputs": [{"edge": "initiates", "node": first["step"]},
                                            {"edge": "cites", "node": obs["step"]}]})
    assert (first["seq"], obs["seq"], plan["seq"]) == (0, 1, 2) and obs["memory"] is not None
    trace = alice.get(f"/runs/{first['run']}")
    assert [s["kind"] for s in trace["steps"]] == ["user_input", "observation", "plan"]
    assert {(i["edge"], i["node"]) for i in trace["inputs"]} == {("initiates", first["step"]), ("cites", obs["step"])}
    assert alice.get("/runs")[0]["task"] == "book"


def test_runs_are_listed_a_page_at_a_time(client: TestClient, alice: Api) -> None:
    """GET /runs returned every run the workspace recorded, however many: it pages like GET /beliefs
    (oldest first, at most limit, a Link header to the next page while more follow)."""
    tasks = [f"task {i}" for i in range(5)]
    for task in tasks:
        alice.post("/steps", {"kind": "user_input", "task": task, "payload": {"text": task}})
    first = client.get("/runs", params={"limit": 2}, headers=alice._headers())
    assert first.status_code == 200, first.text
    assert [r["task"] for r in first.json()] == tasks[:2]
    seen = [r["task"] for r in first.json()]
    link = first.headers["Link"]
    while link:
        url = link[link.index("<") + 1:link.index(">")]
        page = client.get(url, headers=alice._headers())
        seen += [r["task"] for r in page.json()]
        link = page.headers.get("Link", "")
    assert seen == tasks
    assert "Link" not in client.get("/runs", headers=alice._headers()).headers
    assert client.get("/runs", params={"limit": 0}, headers=alice._headers()).status_code == 400


def test_bad_input_of_ten_kilobytes_is_not_echoed_whole(alice: Api) -> None:
    """A moment or a name of 10 kB came back whole in the 400 (as an unknown id did in a 404): a message
    over 1,000 characters keeps its start and its end and says how much it left out."""
    for path, params in (("/beliefs", {"as_of": "2026-" + "9" * 10_000}),
                         ("/beliefs", {"subject": "x " * 5_000, "limit": 0})):
        said = alice.get(path, expect=400, **params)["message"]
        assert len(said) < 1_100, (path, len(said), said[:200])
    said = alice.post("/ask", {"question": "why " * 3_000}, expect=400)["message"]
    assert len(said) < 1_100, (len(said), said[:200])
    assert said == "the question is 12,000 characters long; ask takes at most 2,000 (ask about one thing at a time)"


def test_each_error_status(client: TestClient, alice: Api, db_url: str) -> None:
    window = _window(_ingest(alice))
    # 400: a body that is not the resource's, an unknown field, NUL, a bad value
    assert alice.post("/decisions", {"because": [window]}, expect=400)["error"] == "invalid_input"
    assert alice.post("/ask", {"question": "q", "k": 0}, expect=400)["error"] == "invalid_input"
    assert alice.post("/ask", {"question": "a\u0000b"}, expect=400)["error"] == "invalid_input"
    assert alice.get("/beliefs", expect=400, subject="a\u0000")["error"] == "invalid_input"
    assert alice.get("/beliefs", expect=400, as_of="yesterday")["error"] == "invalid_input"
    assert alice.post("/steps", {"kind": "plan", "inputs": [{"edge": "cites", "node": "nope"}]},
                      expect=400)["error"] == "invalid_input"
    assert _expect(client.post("/decisions", content=b"{", headers={"Authorization": f"Bearer {alice.token}",
                                                                     "Content-Type": "application/json"}),
                   400)["error"] == "invalid_input"
    # 403: another principal may not retract alice's belief
    bob = Api(client, api.create_token("default", "bob", url=db_url).token)
    assert bob.post("/retractions", {"belief": window, "reason": "r"}, expect=403)["error"] == "not_owner"
    # 404: unknown ids and routes
    assert alice.get("/beliefs/0123abcd", expect=404)["error"] == "unknown_belief"
    assert alice.post("/actions", {"decision": "0123abcd", "description": "d"}, expect=404)["error"] == "not_found"
    assert alice.get("/runs/0123abcd", expect=404)["error"] == "not_found"
    assert alice.get("/nowhere", expect=404)["error"] == "not_found"
    # 409 is the stale preview (above); 503: memory that cannot be reached
    with TestClient(create_app("postgresql://beliefdb@127.0.0.1:1/beliefdb?connect_timeout=1")) as down:
        gone = _expect(down.get("/beliefs", headers={"Authorization": f"Bearer {alice.token}"}), 503)
        assert gone["error"] == "database_unavailable"


def test_the_openapi_document(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["info"]["title"] == "beliefdb"
    assert {"/sources", "/beliefs", "/beliefs/{belief}", "/decisions", "/actions", "/corrections/preview",
            "/corrections", "/retractions", "/review-items", "/review-items/{item}", "/runs", "/runs/{run}", "/steps",
            "/ask", "/impact", "/audit/verify", "/workspaces", "/whoami"} <= set(doc["paths"])
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], (method, path)
            assert {"400", "401", "403", "404", "409", "503"} <= set(operation["responses"]), (method, path)
            success = {"200", "202"} & set(operation["responses"])  # (202 where the work is only queued)
            assert success == ({"202"} if path in ("/jobs", "/jobs/retry") and method == "post" else {"200"}), (
                method, path)
    why = doc["paths"]["/beliefs/{belief}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert why["title"] == "Why" and "evidence" in why["required"]


def test_the_memories_of_many_principals_keep_few_connections_open(db_url: str) -> None:
    """A server for many principals keeps at most max_open pools (each holds a connection): the least
    recently used is closed once idle, and opens again on its principal's next call."""
    from beliefdb.interfaces.access import Memories

    def backends() -> set[int]:
        with psycopg.connect(db_url, autocommit=True) as conn:
            # client backends only: an autovacuum worker of the database is no pool's
            rows = conn.execute("select pid from pg_stat_activity where datname = current_database()"
                                " and backend_type = 'client backend' and pid <> pg_backend_pid()").fetchall()
            return {int(pid) for (pid,) in rows}

    def opened_when(expected: int) -> int:
        """How many backends the server opened, once that is `expected` (a closed connection's backend
        leaves pg_stat_activity a moment after the client hung up), or after 10 s whatever it is."""
        deadline = time.monotonic() + 10
        while True:
            opened = len(backends() - before)
            if opened == expected or time.monotonic() > deadline:
                return opened
            time.sleep(0.02)

    tokens = [api.create_token("default", f"agent-{i}", url=db_url).token for i in range(6)]
    before = backends()  # the test's own, and any still leaving
    memories = Memories(db_url, max_open=2)
    try:
        memories.identify(tokens[0])
        assert opened_when(1) == 1  # the token gate's own connection
        for i, token in enumerate(tokens):
            with memories.lease(memories.identify(token)) as db:
                db.ingest_text(f"Agent {i} drink: tea\n", source=f"chat-{i}.md")
        assert memories.open_count == 2
        assert opened_when(3) == 3
        with memories.lease(memories.identify(tokens[0])) as first:
            assert [b.value for b in first.beliefs()] == ["tea"] * 6  # opened again, and reads the workspace
        assert memories.open_count == 2 and opened_when(3) == 3
    finally:
        memories.close()
    assert opened_when(0) == 0


def test_a_memory_set_aside_stays_open_until_its_last_call_ends(db_url: str) -> None:
    """With room for one memory, another principal's call sets aside the memory of a call still running:
    it is closed when that call ends, not under it between two of its transactions (it was, once a
    second had passed since it was handed out: the call's next transaction failed, "the pool is
    already closed")."""
    from beliefdb.interfaces.access import Memories

    alice, bob, carol = (api.create_token("default", who, url=db_url).token for who in ("alice", "bob", "carol"))
    memories = Memories(db_url, max_open=1)
    try:
        with memories.lease(memories.identify(alice)) as mine:
            mine.ingest_text("The restocking fee is 10%.\n", source="policy.md")  # one transaction ...
            with memories.lease(memories.identify(bob)) as theirs:  # ... alice's is set aside, in use
                assert theirs.beliefs()[0].value == "10%"
            time.sleep(1.2)  # (what the old rule waited before closing a memory no transaction held)
            with memories.lease(memories.identify(carol)) as third:
                assert third.beliefs()[0].value == "10%"
            assert memories.open_count == 2  # carol's, and alice's: set aside, still in use
            assert [b.value for b in mine.beliefs()] == ["10%"]  # ... and the call's next one works
            with memories.lease(memories.identify(alice)) as again:  # alice's next call: a memory of its own
                assert again is not mine and again.beliefs()[0].value == "10%"
            assert memories.open_count == 2
        assert memories.open_count == 1  # closed as its last call ended
        with pytest.raises(errors.DatabaseUnavailable, match="closed"):
            mine.beliefs()
    finally:
        memories.close()


def test_a_body_over_the_limit_is_refused_before_it_is_read_whole(db_url: str, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """A 300 MB body (with a token or none) was read whole and parsed before anything looked at it: the
    server's memory grew by five times the body, and a caller without a token got "not valid JSON". A
    body over 4 × BELIEFDB_INGEST_MAX_BYTES + 1 MiB (the largest JSON a text of the limit takes) is
    refused with 413 as it arrives; one with no credentials at all is refused with 401 before any of it
    is read (tests/test_http_anonymous_body.py), over the limit or not."""
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "1000")
    limit = 4 * 1000 + 2 ** 20
    token = api.create_token("default", "alice", url=db_url).token
    with TestClient(create_app(db_url, mcp=False)) as client:
        big = b'{"source": "big.md", "text": "' + b"a" * limit + b'"}'
        for headers in ({}, {"Authorization": f"Bearer {token}"}, {"Authorization": "Bearer bdb_unknown"}):
            for body in (big, iter([big[:1000], big[1000:]])):  # with a Content-Length, and chunked
                response = client.post("/sources", content=body, headers={"Content-Type": "application/json",
                                                                            **headers})
                if not headers:
                    assert (response.status_code, response.json()["error"]) == (401, "unauthenticated")
                    continue
                assert response.status_code == 413, response.text
                said = response.json()
                assert said["error"] == "payload_too_large"  # (its own code: the body was not read, nor wrong)
                assert said["message"] == (f"the request body is over the limit of {limit:,} bytes (4 ×"
                                           " BELIEFDB_INGEST_MAX_BYTES + 1 MiB)")
        # under the limit: read (the text itself is then over the ingest limit, a 413 too, saying so)
        response = client.post("/sources", json={"source": "a.md", "text": "a" * 2000},
                               headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 413 and "over the ingest limit" in response.json()["message"]


def test_a_request_that_takes_no_text_is_limited_to_a_mebibyte(db_url: str) -> None:
    """/ask, /impact, /decisions ... take a question, references or a verdict, never a document's text, and
    read a body of the text routes' limit (129 MB by default) before their own checks: over 1 MiB they
    are refused with 413 as the body arrives; the text routes keep theirs."""
    token = api.create_token("default", "alice", url=db_url).token
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    big = b'{"question": "' + b"a" * (2 ** 20) + b'"}'
    with TestClient(create_app(db_url, mcp=False)) as client:
        for path in ("/ask", "/impact", "/decisions", "/retractions"):
            for body in (big, iter([big[:1000], big[1000:]])):
                response = client.post(path, content=body, headers=auth)
                assert response.status_code == 413, (path, response.text)
                assert response.json()["error"] == "payload_too_large"
                assert response.json()["message"] == (f"the request body is over the limit of {2 ** 20:,} bytes"
                                                      f" of {path} (1 MiB: it takes no document's text)")
        # a text route takes a body of that size, and answers for what it holds
        text = "word " * 220_000  # (no sentence to extract: stored, not a minute of ingest)
        response = client.post("/sources", json={"source": "big.md", "text": text}, headers=auth)
        assert response.status_code == 200 and response.json()["accepted"] == [], response.text
        # a question under the limit is answered as before
        assert client.post("/ask", json={"question": "return window?"}, headers=auth).status_code == 200


def test_a_bad_request_without_a_valid_token_is_401_not_a_parse_error(client: TestClient, alice: Api) -> None:
    """A body (or query) that is not what the route takes was answered 400 "not valid JSON" / "text: missing"
    to a caller with no valid token, before the token was looked at: 401, as any call without one."""
    for headers in ({}, {"Authorization": "Bearer bdb_nope"}):
        for response in (client.post("/sources", content=b"{bad json", headers={**headers,
                                                                                "Content-Type": "application/json"}),
                         client.post("/sources", json={"source": "x"}, headers=headers),
                         client.get("/beliefs", params={"limit": "abc"}, headers=headers)):
            assert response.status_code == 401, response.text
            assert response.json()["error"] == "unauthenticated"
    # with a valid token, the same requests are bad input, as before
    said = _expect(client.post("/sources", content=b"{bad json", headers={**alice._headers(),
                                                                           "Content-Type": "application/json"}), 400)
    assert said["message"].startswith("the request body is not valid JSON")
    assert _expect(client.get("/beliefs", params={"limit": "abc"}, headers=alice._headers()), 400)["message"] == \
        "limit: Input should be a valid integer, unable to parse string as an integer"


def test_a_busy_workspace_is_503_with_retry_after(client: TestClient, alice: Api, db_url: str,
                                                   postgresql: psycopg.Connection[Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer holds the workspace past BELIEFDB_LOCK_TIMEOUT: the write is 503 workspace_busy,
    with Retry-After, which an agent's HTTP client honours before it tries again (nothing was written)."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    busy_client = TestClient(create_app(db_url, mcp=False))
    with busy_client:
        postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                           " where w.name = 'default' for update of h")
        try:
            answer = busy_client.post("/sources", json={"source": "p.md", "text": POLICY},
                                      headers={"Authorization": f"Bearer {alice.token}"})
        finally:
            postgresql.rollback()
        assert answer.status_code == 503 and answer.json()["error"] == "workspace_busy", answer.text
        assert answer.headers["Retry-After"] == "1"
        assert _expect(busy_client.post("/sources", json={"source": "p.md", "text": POLICY},
                                        headers={"Authorization": f"Bearer {alice.token}"}), 200)["new_version"]


def test_an_unavailable_extractor_is_503_with_retry_after(alice: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The llm endpoint fails (here it refuses connections): 503 extractor_unavailable says when to try
    again, as the other 503s do: the wait its llm client would have taken next (BELIEFDB_LLM_BACKOFF
    doubled for each of its BELIEFDB_LLM_HTTP_RETRIES), in whole seconds; nothing was stored."""
    monkeypatch.setenv("BELIEFDB_LLM_URL", "http://127.0.0.1:9/v1")  # (the discard port: nobody listens)
    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "0")
    monkeypatch.setenv("BELIEFDB_LLM_BACKOFF", "2.5")
    answer = alice.client.post("/sources", json={"source": "p.md", "text": POLICY, "extractor": "llm"},
                               headers=alice._headers())
    assert _expect(answer, 503)["error"] == "extractor_unavailable"
    assert answer.headers.get("Retry-After") == "3", answer.headers
    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "1")
    monkeypatch.setenv("BELIEFDB_LLM_BACKOFF", "0.1")
    answer = alice.client.post("/sources", json={"source": "p.md", "text": POLICY, "extractor": "llm"},
                               headers=alice._headers())
    assert _expect(answer, 503)["error"] == "extractor_unavailable"
    assert answer.headers.get("Retry-After") == "1", answer.headers  # (at least a second)
    assert alice.get("/beliefs") == []


def test_the_docs_give_the_shape_post_steps_takes(alice: Api) -> None:
    """README's HTTP table gives the shape of ``POST /steps`` inputs (objects ``{"edge", "node"}``), and
    that shape is what the API takes; the API reference's "(edge, node) pairs" are the library's, and it
    says so: sent over HTTP as arrays they are refused, as objects they are taken."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    row = next(line for line in (root / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("|") and "`POST /steps`" in line)
    shown = re.search(r'`inputs`: `(\[\{"edge": "\w+", "node": "[^"]+"\}[^`]*\])`', row)
    assert shown, row
    reference = (root / "docs" / "api-reference.md").read_text(encoding="utf-8")
    record_step = next(line for line in reference.splitlines() if "Record one step at once" in line)
    assert '{"edge": ..., "node": ...}' in record_step, record_step
    first = alice.post("/steps", {"kind": "user_input", "task": "book"})
    inputs = json.loads(shown.group(1).replace("STEP", first["step"]))
    assert alice.post("/steps", {"run": first["run"], "kind": "plan", "inputs": inputs})["seq"] == 1
    alice.post("/steps", {"run": first["run"], "kind": "plan", "inputs": [["initiates", first["step"]]]}, 400)
