"""A reviewer's user trial of the review queue. Approving a conflict answered only its winner and loser,
while the loss flagged a decision, held its action and closed a correction proposed of the loser; a verdict
sent again was invalid_input, as bad input is; ``review list`` could not keep one kind of item, nor say
whom an item waits for; ``decide --json`` left out the notes its text prints; and a reason in a conflict a
reviewer rejected was said to be "in an open conflict (beliefdb review list)", which listed none. Then (a
reviewer scripting the queue): ``why`` of a decision or action said ``[approved]`` with no who, when or note;
``review list`` showed who may resolve an item in its JSON only; an ambiguous review item prefix named no
candidate; and ``why`` of a review item's id was "not found"."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb
from beliefdb import errors

SINCE = "2026-01-01T00:00:00Z"


def _tool(bdb: beliefdb.BeliefDB, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """A tool call's (is_error, parsed answer), over the MCP server of ``bdb``."""
    from beliefdb.interfaces.mcp import build

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool(tool, arguments)
            return bool(result.is_error), json.loads(result.content[0].text)  # type: ignore[union-attr]

    return anyio.run(run)


def _warranty(db: beliefdb.BeliefDB, years: int) -> str:
    """A belief of the warranty's length, of the same authority and valid time as any other: a tie."""
    quote = f"Warranty: {years} years"
    report = db.remember(f"The warranty lasts {years} years", "warranty", "length", f"{years} years", quote,
                         source=f"w{years}.md", text=quote + "\n", authority="user", valid_from=SINCE)
    return str(report.accepted[0].id)


@pytest.fixture
def tie(alice: beliefdb.BeliefDB, db_url: str) -> dict[str, str]:
    """Alice's two tied beliefs, a decision of hers resting on the first alone and its action, and a
    correction of the first that crm-agent proposed to her."""
    loser, winner = _warranty(alice, 2), _warranty(alice, 3)
    decision = str(alice.decide("Quote a 2-year warranty", because=[loser]).id)
    action = str(alice.act(decision, "Email the customer the quote").id)
    with beliefdb.connect(db_url, principal="crm-agent") as crm:
        statement = "Warranty: 2 years and 6 months"
        revision = crm.preview_correction(loser, statement, "30 months").revision
        proposal = crm.apply_correction(loser, statement, reviewer="crm-agent", expect_revision=revision,
                                        value="30 months").review_item
    (conflict,) = [i for i in alice.review_items() if i.kind == "conflict"]
    return {"loser": loser, "winner": winner, "decision": decision, "action": action, "proposal": str(proposal),
            "item": str(conflict.id)}


def test_approving_a_conflict_says_what_it_flagged_held_and_closed(cli: Cli, tie: dict[str, str]) -> None:
    done = cli.json("review", "approve", tie["item"][:8], "--winner", tie["winner"][:8], "--as", "alice")
    applied = done["applied"]
    assert (applied["winner"], applied["loser"]) == (tie["winner"], tie["loser"])
    assert (applied["flagged"], applied["held"]) == ([tie["decision"]], [tie["action"]])
    assert tie["loser"] in applied["stopped_current"]
    (closed,) = done["closed"]
    assert (closed["id"], closed["kind"], closed["node"], closed["status"]) == (
        tie["proposal"], "correction_proposed", tie["loser"], "closed")
    assert closed["note"] == "settled: the belief is no longer current (it is superseded)"
    # what it flagged and held waits in the queue; the proposal it closed does not
    waiting = {i["node"]: i["kind"] for i in cli.json("review", "list")}
    assert waiting == {tie["decision"]: "decision_flagged", tie["action"]: "action_held"}


def test_approving_a_conflict_says_it_in_words_too(cli: Cli, tie: dict[str, str]) -> None:
    lines = cli("review", "approve", tie["item"], "--winner", tie["winner"], "--as", "alice").stdout.splitlines()
    assert lines[0].startswith("conflict ") and lines[0].endswith(": approved"), lines
    assert lines[1] == f"  {tie['winner']} won: it supersedes {tie['loser']}", lines
    assert f"  flagged 1 decision(s): {tie['decision'][:8]}" in lines, lines
    assert f"  held 1 action(s): {tie['action'][:8]}" in lines, lines
    assert "  closed 1 other review item(s):" in lines, lines
    assert (f"    {tie['proposal'][:8]} correction_proposed {tie['loser'][:8]}: settled: the belief is no longer"
            " current (it is superseded)") in lines, lines


def test_a_flagged_decision_approved_names_the_held_actions_it_resolved(alice: beliefdb.BeliefDB,
                                                                        tie: dict[str, str]) -> None:
    alice.resolve_review(tie["item"], "approved", winner=tie["winner"])
    (flagged,) = alice.review_items(kind="decision_flagged")
    done = alice.resolve_review(flagged.id, "approved")
    (action,) = done.closed
    assert (action["node"], action["kind"], action["status"]) == (tie["action"], "action_held", "approved")
    assert action["note"] == f"resolved with decision {tie['decision']}"
    # a verdict that resolves nothing else says so
    unsupported = alice.decide("Quote nothing")
    (item,) = [i for i in alice.review_items(kind="decision_flagged") if i.node == unsupported.id]
    assert alice.resolve_review(item.id, "rejected").closed == []


def test_a_verdict_sent_again_is_already_resolved_at_every_door(http_client: TestClient, db_url: str, cli: Cli,
                                                                alice: beliefdb.BeliefDB,
                                                                tie: dict[str, str]) -> None:
    alice.resolve_review(tie["item"], "approved", winner=tie["winner"])
    said = f"review item {tie['item']} is already approved (by alice)"
    with pytest.raises(errors.AlreadyResolved) as again:
        alice.resolve_review(tie["item"], "approved", winner=tie["winner"])
    assert again.value.message == said and isinstance(again.value, errors.InvalidInput)  # (as it was before)
    assert cli.error("review", "reject", tie["item"][:8], "--as", "alice", code="already_resolved")["message"] == said
    answer = http_client.post(f"/review-items/{tie['item']}", headers=bearer(db_url, "alice"),
                              json={"verdict": "approved", "winner": tie["winner"]})
    assert refused(answer, 409, "already_resolved") == said
    assert _tool(alice, "review_resolve", {"item": tie["item"], "verdict": "rejected"}) == (
        True, {"error": "already_resolved", "message": said})
    # an item that settled by itself (the proposal the approval closed) is resolved already too
    closed = cli.error("review", "approve", tie["proposal"], "--as", "alice", code="already_resolved")["message"]
    assert closed == (f"review item {tie['proposal']} is already closed (settled: the belief is no longer current"
                      " (it is superseded))")
    # bad input is still bad input
    cli.error("review", "approve", "zzzz", "--as", "alice", code="invalid_input")


def test_review_list_keeps_the_kinds_asked_for(http_client: TestClient, db_url: str, cli: Cli,
                                               alice: beliefdb.BeliefDB, tie: dict[str, str]) -> None:
    alice.decide("Quote without a reason")  # a decision_flagged item, the newest
    every = [(i.kind, str(i.id)) for i in alice.review_items()]
    assert [kind for kind, _ in every] == ["conflict", "correction_proposed", "decision_flagged"]
    ids = dict(every)
    assert [str(i.id) for i in alice.review_items(kind="decision_flagged")] == [ids["decision_flagged"]]
    # a page of one kind is the first items of that kind, not the first page filtered
    assert [str(i.id) for i in alice.review_items(kind="correction_proposed", limit=1)] == [ids["correction_proposed"]]
    assert [str(i.id) for i in alice.review_items(kind=["decision_flagged", "conflict"], limit=1,
                                                  after=ids["conflict"])] == [ids["decision_flagged"]]
    two = [ids["conflict"], ids["decision_flagged"]]
    assert [i["id"] for i in cli.json("review", "list", "--kind", "conflict", "--kind", "decision_flagged")] == two
    assert [i["id"] for i in cli.json("review", "list", "--kind", "decision_flagged,conflict")] == two
    listed = http_client.get("/review-items", params={"kind": "conflict,decision_flagged", "limit": 1},
                             headers=bearer(db_url, "alice"))
    assert [i["id"] for i in listed.json()] == two[:1] and "kind=conflict%2Cdecision_flagged" in listed.headers["Link"]
    assert [i["id"] for i in _tool(alice, "review_list", {"kind": ["conflict", "decision_flagged"]})[1]] == two
    # a kind that is none is refused at every door, in the same words
    said = ("unknown review item kind 'conflicts' (choose from: decision_flagged, action_held, conflict,"
            " correction_proposed, version_proposed, retraction_proposed)")
    assert cli.error("review", "list", "--kind", "conflicts", code="invalid_input")["message"] == said
    assert refused(http_client.get("/review-items", params={"kind": "conflicts"}, headers=bearer(db_url, "alice")),
                   400, "invalid_input") == said
    with pytest.raises(errors.InvalidInput, match="unknown review item kind 'conflicts'"):
        alice.review_items(kind="conflicts")
    assert _tool(alice, "review_list", {"kind": ["conflicts"]})[0]


def test_each_item_names_who_may_resolve_it(db_url: str, cli: Cli, alice: beliefdb.BeliefDB) -> None:
    with beliefdb.connect(db_url, principal="bob") as bob:
        mine, theirs = _warranty(alice, 2), _warranty(bob, 3)  # a tie of two owners' beliefs
        decision = alice.decide("Quote a warranty", because=[mine])
        bob.act(decision.id, "Email the quote")  # held with alice's decision, when it is flagged
        alice.ingest_text("Returns are accepted within 7 days.\n", source="policy.md")
        bob.ingest_text("Returns are accepted within 30 days.\n", source="policy.md")  # proposed to alice
        alice.resolve_review(alice.review_items(kind="conflict")[0].id, "approved", winner=theirs)
    owners = {i["kind"]: i["owners"] for i in cli.json("review", "list")}
    assert owners == {"decision_flagged": ["alice"], "action_held": ["alice"], "version_proposed": ["alice"]}
    with beliefdb.connect(db_url, principal="carol") as carol:
        _warranty(carol, 4)  # ties with bob's (alice's lost), another pair of owners
        assert [i.owners for i in carol.review_items(kind="conflict")] == [["bob", "carol"]]
    # the text says it too, at the end of each line
    listed = cli("review", "list").stdout.splitlines()
    assert [line.rsplit("  ", 1)[1] for line in listed] == ["[owner: alice]"] * 3 + ["[owners: bob, carol]"], listed


def test_decide_json_carries_the_notes_its_text_prints(cli: Cli, alice: beliefdb.BeliefDB) -> None:
    conflicting = _warranty(alice, 2)
    _warranty(alice, 3)
    (item,) = alice.review_items(kind="conflict")
    text = cli("decide", "Quote a 2-year warranty", "--because", conflicting, "--as", "alice").stdout.splitlines()
    recorded = cli.json("decide", "Quote a 2-year warranty again", "--because", conflicting, "--as", "alice")
    assert recorded["notes"] == [line.removeprefix("note: ") for line in text[1:]]
    (note,) = recorded["notes"]
    assert note.startswith(f"reason {conflicting[:8]} (conflicting) is in an open conflict (review item"
                           f" {str(item.id)[:8]}"), note
    assert cli.json("decide", "Quote nothing", "--as", "alice")["notes"] == []


def test_a_reason_in_a_rejected_conflict_is_not_said_to_be_open(cli: Cli, alice: beliefdb.BeliefDB) -> None:
    conflicting = _warranty(alice, 2)
    _warranty(alice, 3)
    (item,) = alice.review_items(kind="conflict")
    alice.resolve_review(item.id, "rejected")
    assert alice.review_items(kind="conflict") == []
    (note,) = cli.json("decide", "Quote a 2-year warranty", "--because", conflicting, "--as", "alice")["notes"]
    assert "open conflict" not in note, note
    assert note.startswith(f"reason {conflicting[:8]} (conflicting) is in a conflict a reviewer rejected"), note
    assert "correct one side (beliefdb correct ID --preview) or retract the source of one" in note, note


def test_a_conflicts_winner_says_who_chose_and_their_note(cli: Cli, tie: dict[str, str],
                                                           alice: beliefdb.BeliefDB) -> None:
    # (a reviewer works as the loser's owner, rule 17: the note is where their own name and reason go, and
    # it was kept on the review item only, which no command shows once resolved)
    cli("review", "approve", tie["item"][:8], "--winner", tie["winner"][:8], "--as", "alice",
        "--note", "reviewer rita:\n the official sheet says 3 years")
    why = alice.why(tie["loser"])
    reasons = [r.reason for r in why.replaced_by]
    assert reasons == ["conflict resolved by alice: reviewer rita: the official sheet says 3 years"], reasons
    assert "reviewer rita: the official sheet says 3 years" in cli("why", tie["loser"]).stdout


def test_why_says_who_resolved_a_decision_or_action_when_and_their_note(cli: Cli, alice: beliefdb.BeliefDB,
                                                                       tie: dict[str, str]) -> None:
    alice.resolve_review(tie["item"], "approved", winner=tie["winner"])
    (flag,) = alice.review_items(kind="decision_flagged")
    done = alice.resolve_review(flag.id, "approved", note="reviewer rita:\n quoted before the change")
    (hold,) = done.closed  # (the held action, released with it)
    picture = cli.json("why", tie["decision"][:8])
    nodes = {n["id"]: n for n in picture["nodes"]}
    verdict = nodes[tie["decision"]]["verdict"]
    assert (verdict["id"], verdict["status"], verdict["by"]) == (str(flag.id), "approved", "alice")
    assert verdict["note"] == "reviewer rita:\n quoted before the change" and verdict["at"] is not None
    released = nodes[tie["action"]]["verdict"]
    assert (released["id"], released["status"], released["note"]) == (
        hold["id"], "approved", f"resolved with decision {tie['decision']}")
    lines = cli("why", tie["action"]).stdout.splitlines()
    said = [line.strip() for line in lines if line.strip().startswith("approved by alice at ")]
    assert said[0].endswith(f": resolved with decision {tie['decision']} (review item {hold['id'][:8]})"), lines
    assert said[1].endswith(f": reviewer rita: quoted before the change (review item {str(flag.id)[:8]})"), lines
    # as of before the verdict: flagged then, no verdict yet
    before = datetime.fromisoformat(verdict["at"]) - timedelta(microseconds=1)
    then = cli.json("why", tie["decision"], "--as-of", before.isoformat())
    focus = next(n for n in then["nodes"] if n["id"] == tie["decision"])
    assert (focus["status"], focus["verdict"]) == ("needs_review", None), focus
    # a rejection, and a decision no one reviewed
    unsupported = alice.decide("Quote nothing")
    (item,) = [i for i in alice.review_items(kind="decision_flagged") if i.node == unsupported.id]
    alice.resolve_review(item.id, "rejected", note="no receipt")
    (rejected,) = [n for n in alice.why_graph(unsupported.id).nodes if n.id == unsupported.id]
    assert rejected.verdict is not None
    assert (rejected.verdict.status, rejected.verdict.note) == ("rejected", "no receipt")
    assert [n.verdict for n in alice.why_graph(alice.decide("Quote", because=[tie["winner"]]).id).nodes
            if n.kind == "decision"] == [None]


def test_why_of_a_review_item_explains_its_subject(cli: Cli, alice: beliefdb.BeliefDB, db_url: str,
                                                   tie: dict[str, str]) -> None:
    # an open conflict: which item, then the belief it is about, as why of the belief says it
    lines = cli("why", tie["item"][:8]).stdout.splitlines()
    assert lines[0].startswith(f"review item {tie['item']} (conflict, about the belief ") and lines[0].endswith(
        "): open"), lines
    assert lines[1] == "  opened: equal authority and recency: a person must choose (rule 8)", lines
    assert lines[2].startswith("belief "), lines
    alice.resolve_review(tie["item"], "approved", winner=tie["winner"], note="the sheet says 3")
    item = cli.json("why", tie["item"])["review_item"]
    assert (item["id"], item["kind"], item["status"], item["by"], item["note"], item["node_kind"]) == (
        tie["item"], "conflict", "approved", "alice", "the sheet says 3", "belief")
    # a flagged decision's: the decision
    (flag,) = alice.review_items(kind="decision_flagged")
    picture = cli.json("why", str(flag.id))
    assert picture["focus"] == [tie["decision"]] and picture["review_item"]["status"] == "open"
    # a proposed version's: its source
    with beliefdb.connect(db_url, principal="bob") as bob:
        proposal = bob.ingest_text("Warranty: 5 years\n", source="w2.md").review_item
    lines = cli("why", str(proposal)[:8]).stdout.splitlines()
    assert lines[0] == "A new version proposed of: w2.md", lines
    assert lines[1].startswith(f"  review item {proposal} (version_proposed, about the source "), lines
    # a node's id wins; an id that names neither is the node's unknown, as before
    assert cli.json("why", tie["decision"])["review_item"] is None
    unknown = cli.error("why", "ffffffff", code="unknown_belief")["message"]
    assert unknown == "unknown belief or decision or action ffffffff"


def test_an_ambiguous_review_item_prefix_names_the_items_it_begins(postgresql: Any, cli: Cli,
                                                                  alice: beliefdb.BeliefDB,
                                                                  tie: dict[str, str]) -> None:
    twins = [f"abcd0000-0000-4000-8000-00000000000{last}" for last in "12"]
    for twin in twins:
        postgresql.execute("insert into beliefdb.review_item (workspace_id, id, kind, node, reason)"
                           " values (%s, %s, 'correction_proposed', %s, 'twin')",
                           (alice.database.workspace_id, twin, tie["loser"]))
    postgresql.commit()
    said = (f"review item id prefix abcd0000 is ambiguous (2 matches: {twins[0]}, {twins[1]}): give more characters"
            " of the id")
    assert cli.error("review", "approve", "abcd0000", "--as", "alice", code="ambiguous_id")["message"] == said
    assert cli.error("review", "list", "--after", "abcd0000", code="ambiguous_id")["message"] == said
    assert cli.error("why", "abcd0000", code="ambiguous_id")["message"] == said
    with pytest.raises(errors.AmbiguousId, match=r"\(2 matches: abcd0000, abcd0000\)"):
        alice.review_items(after="abcd")
