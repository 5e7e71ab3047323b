"""The truth-maintenance commands of the beliefdb CLI, end to end against a real PostgreSQL:
decide, act, derive, decisions, actions, impact, correct, retract, review, demo and their --help.
The tests that start from three beliefs are in tests/test_cli_truth_three_beliefs.py, those that start
from a small graph of decisions on them in tests/test_cli_truth_story.py: each clones a template that
holds its data (write_three, write_story below)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql

import beliefdb

Q7 = "Returns are accepted within 7 days of delivery."
Q15 = "Returns are accepted within 15 days of delivery."
QREFUND = "The refund method is store credit."
QPREF = "I prefer store credit, please."
QFEE = "The restocking fee is 10%."
FIX = "Refunds go to the original payment method."
NOBODY = "00000000-0000-4000-8000-000000000000"


# --- helpers ------------------------------------------------------------------------------------


def remember(bdb: beliefdb.BeliefDB, source: str, quote: str, subject: str, attribute: str, value: str, *,
             authority: str = "official", **extra: Any) -> str:
    """A belief quoted from ``quote``, the text of the next version of ``source``; returns its id."""
    report = bdb.remember(f"{subject} {attribute} is {value}", subject, attribute, value, quote, source=source,
                          text=quote + "\n", authority=authority, **extra)
    (accepted,) = report.accepted
    return str(accepted.id)


def count(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
    conn.rollback()
    assert row is not None
    return int(row[0])


def snapshot(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """Everything impact/preview must leave alone, seen as the superuser (no row-level security)."""
    state: dict[str, Any] = {t: count(conn, t) for t in (
        "decision", "action", "node", "audit_event", "review_item", "justification", "relation", "correction",
        "source", "source_version", "belief")}
    state["holding"] = sorted(conn.execute(
        "select id::text, holds, coalesce(retracted_at::text, '') from beliefdb.node").fetchall())
    state["beliefs"] = sorted(conn.execute("select id::text, status::text, revision from beliefdb.belief").fetchall())
    state["decisions"] = sorted(conn.execute("select id::text, status, revision from beliefdb.decision").fetchall())
    state["actions"] = sorted(conn.execute("select id::text, status from beliefdb.action").fetchall())
    state["sources"] = sorted(conn.execute(
        "select id::text, coalesce(retracted_at::text, '') from beliefdb.source").fetchall())
    state["versions"] = sorted(conn.execute(
        "select id::text, coalesce(retracted_at::text, '') from beliefdb.source_version").fetchall())
    conn.rollback()
    return state


def statuses(cli: Cli, kind: str) -> dict[str, str]:
    """id -> status of every decision or action."""
    return {row["id"]: row["status"] for row in cli.json(kind)}


def belief_status(cli: Cli, belief_id: str) -> str:
    (found,) = [b for b in cli.json("beliefs", "--all") if b["id"] == belief_id]
    return str(found["status"])


def current_ids(cli: Cli) -> set[str]:
    return {b["id"] for b in cli.json("beliefs")}


def ids_of(stops_holding: list[dict[str, str]]) -> set[str]:
    return {x["id"] for x in stops_holding}


def fragment_of(bdb: beliefdb.BeliefDB, belief_id: str) -> str:
    (evidence,) = bdb.why(belief_id).evidence
    return str(evidence.fragment_id)


def write_three(url: str) -> dict[str, str]:
    """Three independent current beliefs, each from its own source, written into the database at ``url``;
    returns their ids by name (the template of tests/test_cli_truth_three_beliefs.py)."""
    with beliefdb.connect(url) as bdb:
        return {
            "seven": remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days"),
            "refund": remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit"),
            "pref": remember(bdb, "chat-1043", QPREF, "customer_1043", "refund_preference", "store credit",
                             authority="user"),
        }


def write_story(url: str) -> dict[str, str]:
    """The three beliefs of write_three and a small graph on them, written into the database at ``url``
    through the command line; returns the ids by name (the template of tests/test_cli_truth_story.py):

    refuse  <- seven                      (one support)      ; email carries it out
    credit  <- refund | pref              (two alternatives) ; pay carries it out
    joint   <- refund & seven             (one joint reason) ; notify carries it out
    derived <- refund & seven (a derived belief); plan <- derived
    """
    cli = Cli({"BELIEFDB_URL": url})
    g = write_three(url)
    g["refuse"] = cli.json("decide", "Refuse the return of order 1042", "--because", g["seven"])["id"]
    g["email"] = cli.json("act", g["refuse"], "Email the customer a refusal")["id"]
    g["credit"] = cli.json("decide", "Refund order 1043 as store credit", "--because", g["refund"],
                           "--because", g["pref"])["id"]
    g["pay"] = cli.json("act", g["credit"], "Issue the store credit")["id"]
    g["joint"] = cli.json("decide", "Offer store credit within the window", "--all-of",
                          f"{g['refund']},{g['seven']}")["id"]
    g["notify"] = cli.json("act", g["joint"], "Tell support about the offer")["id"]
    g["derived"] = cli.json("derive", "Returns within 7 days are refunded as store credit", "--subject",
                            "return_refund", "--attribute", "method", "--value", "store credit within 7 days",
                            "--from", f"{g['refund']},{g['seven']}")["id"]
    g["plan"] = cli.json("decide", "Print the 7-day store-credit leaflet", "--because", g["derived"])["id"]
    return g


# --- decide -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_decision_citing_a_superseded_belief_needs_review_at_once(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    assert belief_status(cli, seven) == "superseded"
    recorded = cli.json("decide", "Refuse the return (day 10)", "--because", seven)
    assert recorded["status"] == "needs_review"
    (listed,) = cli.json("decisions")
    assert (listed["status"], listed["holds"]) == ("needs_review", False)
    # a durable review item says so
    items = cli.json("review", "list")
    assert [(i["kind"], i["node"]) for i in items] == [("decision_flagged", recorded["id"])]
    # the same title on the current belief is active
    assert cli.json("decide", "Accept the return (day 10)", "--because", fifteen)["status"] == "active"


# --- act ----------------------------------------------------------------------------------------


def test_act_on_a_decision_that_needs_review_is_held(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    decision = cli.json("decide", "Refuse", "--because", seven)
    assert decision["status"] == "needs_review"
    recorded = cli.json("act", decision["id"], "Email the customer a refusal")
    assert recorded["status"] == "held"
    assert statuses(cli, "actions") == {recorded["id"]: "held"}
    kinds = {(i["kind"], i["node"]) for i in cli.json("review", "list")}
    assert ("action_held", recorded["id"]) in kinds


# --- derive -------------------------------------------------------------------------------------


def test_derive_from_a_superseded_belief_does_not_hold(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    derived = cli.json("derive", "A week to return", "--subject", "x", "--attribute", "y", "--value", "z", "--from",
                       seven)
    assert derived["status"] == "unsupported"
    assert derived["id"] not in current_ids(cli)


# --- decisions / actions ------------------------------------------------------------------------


@pytest.mark.slow
def test_decisions_and_actions_filter_by_status(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    refund = remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit")
    refuse = cli.json("decide", "Refuse", "--because", seven)["id"]
    credit = cli.json("decide", "Credit", "--because", refund)["id"]
    email = cli.json("act", refuse, "Email")["id"]
    pay = cli.json("act", credit, "Pay")["id"]
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")  # refuse loses its support

    assert [d["id"] for d in cli.json("decisions", "--status", "needs_review")] == [refuse]
    assert [d["id"] for d in cli.json("decisions", "--status", "active")] == [credit]
    assert cli.json("decisions", "--status", "approved") == []
    assert [d["id"] for d in cli.json("decisions")] == [refuse, credit]  # in creation order
    assert [a["id"] for a in cli.json("actions", "--status", "held")] == [email]
    assert [a["id"] for a in cli.json("actions", "--status", "scheduled")] == [pay]
    assert cli.json("actions", "--status", "cancelled") == []
    holds = {d["id"]: d["holds"] for d in cli.json("decisions")}
    assert holds == {refuse: False, credit: True}

    text = cli("decisions")
    assert f"{refuse[:8]}  [needs_review, no support]  Refuse" in text.stdout
    assert f"{credit[:8]}  [active]  Credit" in text.stdout
    text = cli("actions", "--status", "held")
    assert f"{email[:8]}  [held]  Email" in text.stdout and "Pay" not in text.stdout


def test_decisions_and_actions_when_there_are_none(cli: Cli) -> None:
    assert cli.json("decisions") == [] and cli.json("actions") == []
    assert cli("decisions").stdout.strip() == "(no decisions)"
    assert cli("actions").stdout.strip() == "(no actions)"


@pytest.mark.parametrize("command", ["decisions", "actions"])
def test_bad_status_is_an_error(cli: Cli, command: str) -> None:
    # a value its option refuses: a usage error, exit 2 (README), as jobs --status bogus
    err = cli.error(command, "--status", "bogus", code="invalid_input", expect=2)
    assert "bogus" in err["message"]
    line = cli.one_line_error(command, "--status", "bogus")
    assert "bogus" in line


# --- retract ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_retracting_the_latest_version_brings_the_previous_one_back(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    accept = cli.json("decide", "Accept the return (day 10)", "--because", fifteen)["id"]
    assert belief_status(cli, seven) == "superseded"

    preview = cli.json("retract", "--source", "policy.md", "--version", "2", "--reason", "published too early",
                       "--preview")
    assert fifteen in preview["stopped_current"] and preview["flagged"] == [accept]
    assert seven in preview["became_current"]  # the older version comes back into force, and with it 7 days

    changes = cli.json("retract", "--source", "policy.md", "--version", "2", "--reason", "published too early")
    assert changes == preview
    assert fifteen in changes["stopped_holding"]
    assert seven in changes["started_holding"]
    assert changes["flagged"] == [accept]
    window = cli.json("beliefs", "--subject", "return_policy", "--attribute", "window")
    assert [(b["id"], b["value"]) for b in window] == [(seven, "7 days")]
    assert belief_status(cli, seven) == "current"
    assert cli.json("decide", "Refuse (day 10)", "--because", seven)["status"] == "active"

    restored = cli.json("retract", "--source", "policy.md", "--version", "2", "--undo")
    assert fifteen in restored["started_holding"]
    window = cli.json("beliefs", "--subject", "return_policy", "--attribute", "window")
    assert [(b["id"], b["value"]) for b in window] == [(fifteen, "15 days")]
    assert belief_status(cli, seven) == "superseded"


def test_retracting_an_older_version_leaves_the_version_in_force(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    changes = cli.json("retract", "--source", "policy.md", "--version", "1", "--reason", "old")
    assert fifteen not in changes["stopped_holding"] and fifteen in current_ids(cli)
    assert seven not in current_ids(cli)


def test_retracted_source_takes_both_of_its_quotes_down(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    # two quotes from one document are not independent support
    text = f"{QFEE}\nReturn shipping is now free.\n"
    first = bdb.remember("fee", "restocking_policy", "fee", "10%", QFEE, source="forum.txt", text=text,
                         authority="unverified").accepted[0].id
    second = bdb.remember("shipping", "return", "shipping", "free", "Return shipping is now free.",
                          source="forum.txt").accepted[0].id
    waive = cli.json("decide", "Waive shipping", "--because", str(first), "--because", str(second))["id"]
    changes = cli.json("retract", "--source", "forum.txt", "--reason", "poisoned")
    assert changes["flagged"] == [waive]
    assert {str(first), str(second)} <= set(changes["stopped_holding"])


# --- review -------------------------------------------------------------------------------------


@pytest.fixture
def flagged(cli: Cli, bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """A decision that lost its only support (v3.3 superseded the 7-day rule) and its held action."""
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    refuse = cli.json("decide", "Refuse the return", "--because", seven)["id"]
    email = cli.json("act", refuse, "Email the customer a refusal")["id"]
    other = cli.json("act", refuse, "Close the ticket")["id"]
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    assert statuses(cli, "decisions") == {refuse: "needs_review"}
    assert statuses(cli, "actions") == {email: "held", other: "held"}
    items = {i["node"]: i for i in cli.json("review", "list")}
    assert {k: i["kind"] for k, i in items.items()} == {refuse: "decision_flagged", email: "action_held",
                                                         other: "action_held"}
    return {"refuse": refuse, "email": email, "other": other, "item": items[refuse]["id"],
            "email_item": items[email]["id"]}


@pytest.mark.slow
def test_review_list_json_and_text(cli: Cli, flagged: dict[str, str]) -> None:
    items = cli.json("review", "list")
    assert all(set(i) >= {"id", "kind", "node", "other_node", "subject", "reason", "created_at"} for i in items)
    by_node = {i["node"]: i for i in items}
    assert by_node[flagged["refuse"]]["subject"] == "Refuse the return"
    assert "support" in by_node[flagged["refuse"]]["reason"]
    assert by_node[flagged["email"]]["subject"] == "Email the customer a refusal"
    text = cli("review", "list")
    assert f"{flagged['item'][:8]}  decision_flagged" in text.stdout and "Refuse the return" in text.stdout


def test_review_list_when_empty(cli: Cli) -> None:
    assert cli.json("review", "list") == []
    assert cli("review", "list").stdout.strip() == "(review queue is empty)"


@pytest.mark.slow
def test_review_approve_by_prefix_releases_the_held_actions(cli: Cli, flagged: dict[str, str],
                                                            postgresql: psycopg.Connection[Any]) -> None:
    audit_before = count(postgresql, "audit_event")
    result = cli.json("review", "approve", flagged["item"][:8], "--note", "customer is a VIP")
    assert (result["kind"], result["node"], result["status"]) == ("decision_flagged", flagged["refuse"], "approved")
    assert statuses(cli, "decisions") == {flagged["refuse"]: "approved"}
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "scheduled"}
    assert cli.json("review", "list") == []  # the action items went with the decision
    note = postgresql.execute("select note from beliefdb.review_item where id = %s", (flagged["item"],)).fetchone()
    assert note == ("customer is a VIP",)
    # every transition is audited
    assert count(postgresql, "audit_event") > audit_before


@pytest.mark.slow
def test_review_reject_cancels_the_held_actions(cli: Cli, flagged: dict[str, str]) -> None:
    text = cli("review", "reject", flagged["item"])
    # (the held actions' items go with the decision's verdict, each said beside it)
    closed = {line.split()[0]: line for line in text.stdout.splitlines()[2:]}
    assert text.stdout.splitlines()[:2] == [f"decision_flagged {flagged['refuse']}: rejected",
                                            "  closed 2 other review item(s):"], text.stdout
    assert closed[flagged["email_item"][:8]] == (f"    {flagged['email_item'][:8]} action_held {flagged['email'][:8]}:"
                                                 f" rejected (resolved with decision {flagged['refuse']})")
    assert len(closed) == 2
    assert statuses(cli, "decisions") == {flagged["refuse"]: "rejected"}
    assert statuses(cli, "actions") == {flagged["email"]: "cancelled", flagged["other"]: "cancelled"}
    assert [a["id"] for a in cli.json("actions", "--status", "cancelled")] == [flagged["email"],
                                                                                       flagged["other"]]
    assert cli.json("review", "list") == []


@pytest.mark.slow
def test_review_of_a_single_held_action(cli: Cli, flagged: dict[str, str]) -> None:
    cli.json("review", "approve", flagged["email_item"])
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "held"}
    assert statuses(cli, "decisions") == {flagged["refuse"]: "needs_review"}
    other_item = next(i["id"] for i in cli.json("review", "list") if i["node"] == flagged["other"])
    cli.json("review", "reject", other_item)
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "cancelled"}
    assert [i["node"] for i in cli.json("review", "list")] == [flagged["refuse"]]


@pytest.mark.slow
def test_resolving_twice_is_an_error(cli: Cli, flagged: dict[str, str]) -> None:
    cli.json("review", "approve", flagged["item"])
    said = cli.error("review", "approve", flagged["item"], code="already_resolved")["message"]
    assert said.startswith(f"review item {flagged['item']} is already approved (by "), said
    cli.error("review", "reject", flagged["item"][:8], code="already_resolved")
    assert "error:" in cli.one_line_error("review", "reject", flagged["item"])
    assert statuses(cli, "decisions") == {flagged["refuse"]: "approved"}  # the second verdict changed nothing
    assert set(statuses(cli, "actions").values()) == {"scheduled"}


@pytest.mark.slow
def test_review_unknown_item_is_an_error(cli: Cli, flagged: dict[str, str]) -> None:
    cli.error("review", "approve", NOBODY, code="not_found")
    cli.error("review", "approve", "zzzz", code="invalid_input")  # no id at all
    assert len(cli.json("review", "list")) == 3


@pytest.fixture
def conflict(cli: Cli, bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """Two equal-authority sources, same valid time, different values: a rule-8 tie."""
    since = "2025-03-01T00:00:00+00:00"
    a = remember(bdb, "a.md", Q7, "return_policy", "window", "7 days", authority="user", valid_from=since)
    b = remember(bdb, "b.md", Q15, "return_policy", "window", "15 days", authority="user", valid_from=since)
    assert belief_status(cli, a) == belief_status(cli, b) == "conflicting"
    (item,) = cli.json("review", "list")
    assert item["kind"] == "conflict" and {item["node"], item["other_node"]} == {a, b}
    return {"a": a, "b": b, "item": item["id"]}


def test_approving_a_conflict_needs_a_winner(cli: Cli, conflict: dict[str, str], bdb: beliefdb.BeliefDB,
                                             postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("review", "approve", conflict["item"], code="invalid_input")
    one, other = err["message"].removeprefix("approving a conflict needs --winner ").split(" or --winner ")
    assert {one, other} == {conflict["a"], conflict["b"]}, err
    assert "--winner" in cli.one_line_error("review", "approve", conflict["item"])
    # the library names its argument (the SQL, for psql, says "needs its winner: A or B")
    with pytest.raises(beliefdb.errors.InvalidInput) as refused:
        bdb.resolve_review(conflict["item"], "approved")
    assert refused.value.message == f"approving a conflict needs winner='{one}' or winner='{other}'"
    assert snapshot(postgresql) == before
    assert len(cli.json("review", "list")) == 1  # still open


@pytest.mark.slow
def test_approving_a_conflict_with_a_winner_supersedes_the_loser(cli: Cli, conflict: dict[str, str]) -> None:
    result = cli.json("review", "approve", conflict["item"][:8], "--winner", conflict["b"][:8])
    assert (result["kind"], result["status"]) == ("conflict", "approved")
    applied = result["applied"]
    assert (applied["winner"], applied["loser"]) == (conflict["b"], conflict["a"])
    assert (applied["flagged"], applied["held"], applied["stopped_current"]) == ([], [], [conflict["a"]])
    assert result["closed"] == []
    assert belief_status(cli, conflict["b"]) == "current"
    assert belief_status(cli, conflict["a"]) == "superseded"
    assert cli.json("review", "list") == []
    why = cli.json("why", conflict["b"])
    assert [h["old_belief"] for h in why["replaced"]] == [conflict["a"]]


def test_approving_a_conflict_says_who_won(cli: Cli, conflict: dict[str, str]) -> None:
    text = cli("review", "approve", conflict["item"], "--winner", conflict["a"]).stdout
    assert f"{conflict['a']} won: it supersedes {conflict['b']}" in text
    assert belief_status(cli, conflict["b"]) == "superseded"


def test_a_winner_outside_the_conflict_is_an_error(cli: Cli, bdb: beliefdb.BeliefDB,
                                                   conflict: dict[str, str]) -> None:
    outsider = remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit")
    cli.error("review", "approve", conflict["item"], "--winner", outsider, code="invalid_input")
    assert belief_status(cli, conflict["a"]) == belief_status(cli, conflict["b"]) == "conflicting"
    assert len(cli.json("review", "list")) == 1


# --- demo ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_tells_the_truth_maintenance_story(cli: Cli) -> None:
    result = cli("demo", "--keep")
    out = result.stdout
    assert "needs_review" in out
    assert "[held]" in out
    assert FIX in out
    assert "poisoned" in out
    assert "human_correction" in out
    assert "audit chain ok" in out
    # only the refusal and the waiver were flagged; the two-reason refund survived the correction
    demo_ws = next(w["name"] for w in cli.json("workspace", "list") if w["name"] != "default")
    decisions = {d["title"]: d["status"] for d in cli.json("decisions", "-w", demo_ws)}
    assert decisions == {"Refuse the return of order 1042 (day 10)": "needs_review",
                         "Refund order 1043 as store credit": "active",
                         "Waive return shipping for order 1044": "needs_review"}
    actions = {a["description"]: a["status"] for a in cli.json("actions", "-w", demo_ws)}
    assert actions == {"Email the customer a refusal": "held"}


# --- help ---------------------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.replace("│", " ").replace("╭", " ").replace("╰", " ").split())


COMMON = ["--db", "BELIEFDB_URL", "--workspace", "--json"]
HELP = {
    ("decide",): ["--because", "--all-of", "--as", *COMMON],
    ("act",): ["decision", "description", "--as", *COMMON],
    ("derive",): ["--subject", "--attribute", "--value", "--from", *COMMON],
    ("decisions",): ["--status", "needs_review", *COMMON],
    ("actions",): ["--status", "held", *COMMON],
    ("impact",): ["ids", *COMMON],
    ("correct",): ["--reviewer", "--value", "--reason", "--preview", "--apply", "--expect-revision",
                   "--idempotency-key", *COMMON],
    ("retract",): ["--belief", "--fragment", "--source", "--version", "--reason", "--preview", "--undo", *COMMON],
    ("review",): ["list", "approve", "reject"],
    ("review", "list"): COMMON,
    ("review", "approve"): ["item", "--note", "--winner", *COMMON],
    ("review", "reject"): ["item", "--note", *COMMON],
}


@pytest.mark.parametrize("path", list(HELP), ids=[" ".join(p) for p in HELP])
def test_help_mentions_every_option(cli_without_db: Cli, path: tuple[str, ...]) -> None:
    result = cli_without_db(*path, "--help")
    text = _flat(result.stdout)
    assert "Usage:" in text
    missing = [w for w in HELP[path] if w not in text]
    assert not missing, (path, missing)


def test_top_level_help_lists_the_new_commands(cli_without_db: Cli) -> None:
    result = cli_without_db("--help")
    text = _flat(result.stdout)
    for command in ("decide", "act", "derive", "decisions", "actions", "impact", "correct", "retract", "review"):
        assert command in text, command


def test_a_change_report_counts_its_nodes_by_kind_from_one_lookup(db_url: str) -> None:
    """``render.change_kinds``: the one helper the CLI's ``retract`` and the demo count a report's
    beliefs, decisions and actions with (its other nodes are quotes), asking only when it names any."""
    from product_story import before_v33, forum_post, publish_v33

    from beliefdb import render

    with beliefdb.connect(db_url, principal="alice") as db:
        before_v33(db)
        publish_v33(db)
        waive = forum_post(db)
        would = db.preview_retract(source="forum-post.txt")
        asked: list[list[Any]] = []

        def labels(ids: Any) -> Any:
            asked.append(list(ids))
            return db.labels(ids)

        kinds = render.change_kinds(would, labels)
        (shipping,) = db.beliefs(subject="return", attribute="shipping")
        assert kinds == {shipping.id: "belief", waive: "decision"} and len(asked) == 1
        said = render.changes(would, preview=True, kinds=kinds)
        assert f"would stop holding: {len(would.stopped_holding)} (1 belief, 1 decision, " in said
        assert render.change_kinds(type(would)([], [], [], []), labels) == {} and len(asked) == 1


def test_a_correction_preview_lists_no_ids_where_there_are_none() -> None:
    """'hold 0 action(s): ' ended on a colon and a space, with nothing after them."""
    from uuid import uuid4

    from beliefdb import render
    from beliefdb.models.changes import CorrectionPreview

    flagged = uuid4()
    text = render.correction_preview(CorrectionPreview(belief=uuid4(), revision=1, would_flag=[flagged],
                                                       would_hold=[], still_supported=[]))
    assert f"  flag 1 decision(s): {str(flagged)[:8]}" in text.splitlines()
    assert "  hold 0 action(s)" in text.splitlines()
    assert all(not line.endswith((":", ": ")) or line.endswith("would:") for line in text.splitlines()), text


def test_a_correction_apply_says_what_its_preview_showed(cli: Cli, write_doc: Any) -> None:
    """The apply's text said only 'superseded <id>' and 'flagged 0 decision(s), held 0 action(s)': not
    that the current official 30 days stopped being current, as its preview had said (only --json had
    it). Rule 7: the apply gives the preview's change report, each line said as done."""
    doc = write_doc("p.md", "")
    ids = {}
    for n in (7, 15, 30):
        doc.write_text(f"The return window is {n} days.\n", encoding="utf-8")
        (accepted,) = cli.json("ingest", str(doc), "--source", "policy", "--authority", "official")["accepted"]
        ids[n] = accepted["id"]
    correct = ("correct", ids[7], "The return window is 20 days.", "--value", "20 days")
    preview = cli(*correct, "--preview").stdout.splitlines()
    revision = cli.json(*correct, "--preview")["revision"]
    applied = cli(*correct, "--apply", "--expect-revision", str(revision), "--reviewer", "rita").stdout.splitlines()
    assert f"  make 1 node(s) no longer current: {ids[30][:8]}" in preview
    assert f"  made 1 node(s) no longer current: {ids[30][:8]}" in applied
    # every line of the preview's report (between its head and 'apply with'), said as done, in order
    done = {"flag": "flagged", "hold": "held", "leave": "left", "make": "made"}
    said = [f"  {done[line.split()[0]]} {line.split(maxsplit=1)[1]}" for line in preview[1:-1]]
    assert applied[0].startswith("correction ") and applied[1].startswith("  replacement ")
    assert applied[2] == f"  superseded {ids[7][:8]}" and applied[3:] == said


def test_an_approved_proposed_correction_says_what_its_preview_showed(cli: Cli, write_doc: Any) -> None:
    """review approve of a correction proposed to the belief's owner printed one line, 'correction …
    applied: replacement …, flagged 1 decision(s), held 0 action(s)': not that the belief and the
    decision built on it stopped being current, nor which decision was flagged, as the owner's preview
    had said. Now the lines correct --apply prints, said as done (rule 7)."""
    doc = write_doc("p.md", "The return window is 30 days.\n")
    (accepted,) = cli.json("ingest", str(doc), "--source", "policy", "--as", "alice")["accepted"]
    belief = accepted["id"]
    decision = cli.json("decide", "Print the 30-day leaflet", "--because", belief, "--as", "alice")["id"]
    correct = ("correct", belief, "The return window is 20 days.", "--value", "20 days")
    preview = cli(*correct, "--preview", "--as", "alice").stdout.splitlines()
    item = cli.json(*correct, "--apply", "--expect-revision", "1", "--reviewer", "bob", "--as", "bob")["review_item"]
    approved = cli("review", "approve", item[:8], "--as", "alice").stdout.splitlines()
    gone = ", ".join(sorted((belief[:8], decision[:8])))
    assert f"  make 2 node(s) no longer current: {gone}" in preview, preview
    assert f"    made 2 node(s) no longer current: {gone}" in approved, approved
    assert f"    flagged 1 decision(s): {decision[:8]}" in approved, approved
    # every line of the preview's report (between its head and 'apply with'), said as done, in order
    done = {"flag": "flagged", "hold": "held", "leave": "left", "make": "made"}
    said = [f"    {done[line.split()[0]]} {line.split(maxsplit=1)[1]}" for line in preview[1:-1]]
    assert approved[1].startswith("  correction ") and " applied: replacement " in approved[1], approved
    assert approved[2:] == [f"    superseded {belief[:8]}", *said], approved


def test_decide_says_which_reason_given_does_not_hold_now(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """A superseded belief given beside a current one was recorded as a reason without a word (a user
    trial): the decision stood on the other, and nothing said the first counted for nothing now."""
    old = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    new = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    out = cli("decide", "Accept the return of order 1042", "--because", old, "--because", new).stdout
    line, note = out.splitlines()
    assert line.startswith("decision ") and line.endswith("[active]"), out
    assert note.startswith(f"note: reason {old[:8]} (superseded) does not hold now"), out
    assert cli("decide", "Accept order 1043", "--because", new).stdout.count("\n") == 1


def test_a_rejected_conflict_says_how_to_settle_it_later(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """Rejecting a conflict leaves both conflicting; nothing said what settles them then, and approving
    the item afterwards answered only "already rejected" (a user trial)."""
    remember(bdb, "a.md", "Warranty: 2 years", "warranty", "length", "2 years", valid_from="2026-01-01T00:00:00Z")
    remember(bdb, "b.md", "Warranty: 3 years", "warranty", "length", "3 years", valid_from="2026-01-01T00:00:00Z")
    (item,) = [i for i in cli.json("review", "list") if i["kind"] == "conflict"]
    said = cli("review", "reject", item["id"]).stdout
    assert "both stay conflicting" in said and "beliefdb correct ID --preview" in said, said
    again = cli.error("review", "approve", item["id"], "--winner", item["node"])["message"]
    assert "already rejected" in again and "correct one (beliefdb correct ID --preview)" in again, again


def test_decide_says_a_reason_is_in_an_open_conflict(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    a = remember(bdb, "a.md", "Warranty: 2 years", "warranty", "length", "2 years", valid_from="2026-01-01T00:00:00Z")
    remember(bdb, "b.md", "Warranty: 3 years", "warranty", "length", "3 years", valid_from="2026-01-01T00:00:00Z")
    out = cli("decide", "Quote a 2-year warranty", "--because", a).stdout
    assert f"note: reason {a[:8]} (conflicting) is in an open conflict" in out, out


def test_why_a_decision_shows_its_outcomes_note(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """`why` of a decision said "outcome: failed" and left out the note recorded with it (a user trial)."""
    reason = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    decision = bdb.decide("Refuse the return of order 1042", because=[reason])
    bdb.record_outcome(decision.id, "disputed", note="customer refused")
    assert "outcome: disputed (customer refused)" in cli("why", str(decision.id)).stdout
    assert "outcome disputed (customer refused)" in cli("why", reason).stdout


def test_a_revision_the_belief_never_had_is_said_so(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """expected_revision 6 on a belief at revision 1 answered "changed since the preview: it is at
    revision 1, the preview saw 6": nothing had changed, the caller sent another number (a user trial)."""
    belief = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    err = cli.json("correct", belief, FIX, "--reviewer", "rita", "--apply", "--expect-revision", "6", expect=1)
    assert err["error"] == "stale_correction_preview"
    assert err["message"] == (f"belief {belief} is at revision 1: it never had revision 6; nothing was changed: give"
                              " the revision its preview says"), err
