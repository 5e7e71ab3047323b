"""The truth-maintenance commands of the beliefdb CLI, end to end against a real PostgreSQL:
decide, act, derive, decisions, actions, impact, correct, retract, review, demo and their --help."""

from __future__ import annotations

import json
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


@pytest.fixture
def three(bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """Three independent current beliefs, each from its own source."""
    return {
        "seven": remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days"),
        "refund": remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit"),
        "pref": remember(bdb, "chat-1043", QPREF, "customer_1043", "refund_preference", "store credit",
                         authority="user"),
    }


@pytest.fixture
def story(cli: Cli, three: dict[str, str]) -> dict[str, str]:
    """A small graph:

    refuse  <- seven                      (one support)      ; email carries it out
    credit  <- refund | pref              (two alternatives) ; pay carries it out
    joint   <- refund & seven             (one joint reason) ; notify carries it out
    derived <- refund & seven (a derived belief); plan <- derived
    """
    g = dict(three)
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


def test_decide_json_is_id_and_active_status(cli: Cli, three: dict[str, str]) -> None:
    recorded = cli.json("decide", "Refuse the return of order 1042", "--because", three["seven"])
    assert set(recorded) == {"id", "status"}
    assert recorded["status"] == "active"
    (listed,) = cli.json("decisions")
    assert listed["id"] == recorded["id"]
    assert (listed["title"], listed["status"], listed["holds"]) == ("Refuse the return of order 1042", "active",
                                                                      True)


def test_decide_text_output_names_the_decision_and_its_status(cli: Cli, three: dict[str, str]) -> None:
    result = cli("decide", "Refuse the return", "--because", three["seven"])
    (decision,) = cli.json("decisions")
    assert result.stdout.strip() == f"decision {decision['id']} [active]"


@pytest.mark.slow
def test_decide_accepts_a_belief_prefix(cli: Cli, three: dict[str, str],
                                        postgresql: psycopg.Connection[Any]) -> None:
    recorded = cli.json("decide", "Refuse", "--because", three["seven"][:8].upper())
    assert recorded["status"] == "active"
    rows = postgresql.execute("select decision::text, antecedents::text[] from beliefdb.decision_support").fetchall()
    assert rows == [(recorded["id"], [three["seven"]])]


def test_because_twice_is_two_alternatives_and_all_of_is_one_joint_reason(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    alternatives = cli.json("decide", "Alt", "--because", three["seven"], "--because", three["refund"])
    joint = cli.json("decide", "Joint", "--all-of", f"{three['seven']}, {three['refund']}")
    mixed = cli.json("decide", "Mixed", "--because", three["pref"], "--all-of", f"{three['seven']},{three['refund']}")
    assert {alternatives["status"], joint["status"], mixed["status"]} == {"active"}
    support: dict[str, list[list[str]]] = {}
    for decision, antecedents in postgresql.execute(
            "select decision::text, antecedents::text[] from beliefdb.decision_support").fetchall():
        support.setdefault(decision, []).append(sorted(antecedents))
    pair = sorted([three["seven"], three["refund"]])
    assert sorted(support[alternatives["id"]]) == sorted([[three["seven"]], [three["refund"]]])
    assert support[joint["id"]] == [pair]
    assert sorted(support[mixed["id"]]) == sorted([[three["pref"]], pair])

    # and it matters: losing one of the two flags the joint decision, not the alternative one
    hit = cli.json("impact", three["refund"])
    assert set(hit["flagged"]) == {joint["id"]}
    assert {s["decision"] for s in hit["still_supported"]} == {alternatives["id"], mixed["id"]}


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


def test_an_empty_all_of_is_a_one_line_error_and_writes_nothing(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    line = cli.one_line_error("decide", "Refuse the return", "--all-of", " , ")
    assert "--all-of" in line
    cli.error("decide", "Refuse the return", "--all-of", " , ", code="invalid_input", expect=2)
    assert count(postgresql, "decision") == 0
    assert count(postgresql, "justification") == len(three)  # only the beliefs' evidence


def test_a_decision_without_any_reason_is_recorded_for_review_and_nothing_carries_it_out(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    """An agent that wants to act without evidence is worth knowing about: the decision is kept, as
    needs_review ("No source-backed answer yet"), and no action may be scheduled on it until a
    person approves it."""
    decided = cli.json("decide", "Refund order 77 in full")
    assert decided["status"] == "needs_review"
    (item,) = [i for i in cli.json("review", "list") if i["node"] == decided["id"]]
    assert item["kind"] == "decision_flagged" and item["reason"].startswith("No source-backed answer yet")
    line = cli.one_line_error("act", decided["id"][:8], "Wire the refund")
    assert "no source-backed reason yet" in line and "approve" in line
    assert count(postgresql, "action") == 0
    cli.json("review", "approve", item["id"])
    assert cli.json("act", decided["id"][:8], "Wire the refund")["status"] == "scheduled"


@pytest.mark.slow
def test_decide_on_an_unknown_belief_is_an_error_and_writes_nothing(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    cli.error("decide", "Refuse", "--because", three["seven"], "--because", NOBODY, code="unknown_belief")
    cli.error("decide", "Refuse", "--all-of", f"{three['seven']},zzzz", code="unknown_belief")
    assert count(postgresql, "decision") == 0


def test_decide_with_an_empty_title_is_an_error(cli: Cli, three: dict[str, str],
                                                postgresql: psycopg.Connection[Any]) -> None:
    cli.error("decide", "   ", "--because", three["seven"], code="invalid_input")
    assert count(postgresql, "decision") == 0


# --- act ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_act_json_is_id_and_scheduled_status(cli: Cli, three: dict[str, str]) -> None:
    decision = cli.json("decide", "Refuse", "--because", three["seven"])
    recorded = cli.json("act", decision["id"], "Email the customer a refusal")
    assert set(recorded) == {"id", "status"}
    assert recorded["status"] == "scheduled"
    (listed,) = cli.json("actions")
    assert (listed["id"], listed["decision_id"], listed["description"], listed["status"]) == (
        recorded["id"], decision["id"], "Email the customer a refusal", "scheduled")
    text = cli("act", decision["id"], "Call the customer")
    assert text.stdout.startswith("action ") and text.stdout.strip().endswith("[scheduled]")


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


def test_act_on_an_unknown_decision_is_an_error_and_writes_nothing(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    cli.error("act", NOBODY, "Email", code="not_found")
    cli.error("act", "not-a-uuid", "Email", code="not_found")
    cli.error("act", three["seven"], "Email", code="not_found")  # a belief is not a decision
    line = cli.one_line_error("act", NOBODY, "Email")
    assert "unknown decision" in line
    assert count(postgresql, "action") == 0


# --- derive -------------------------------------------------------------------------------------


def test_derive_records_a_current_belief_that_needs_all_its_sources(cli: Cli, three: dict[str, str]) -> None:
    derived = cli.json("derive", "Returns within 7 days are refunded as store credit", "--subject", "return_refund",
                       "--attribute", "method", "--value", "store credit", "--from",
                       f"{three['seven']},{three['refund'][:8]}")
    assert set(derived) == {"id", "status", "embedding_deferred"}
    assert derived["status"] == "current" and derived["embedding_deferred"] is None
    (listed,) = cli.json("beliefs", "--subject", "return_refund")
    assert listed["id"] == derived["id"]
    assert (listed["attribute"], listed["value"], listed["confidence_kind"]) == ("method", "store credit",
                                                                                 "derived")
    # all of them are needed: losing either one takes it down
    for lost in (three["seven"], three["refund"]):
        assert derived["id"] in ids_of(cli.json("impact", lost)["stops_holding"])
    assert derived["id"] not in ids_of(cli.json("impact", three["pref"])["stops_holding"])


def test_derive_from_a_superseded_belief_does_not_hold(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    derived = cli.json("derive", "A week to return", "--subject", "x", "--attribute", "y", "--value", "z", "--from",
                       seven)
    assert derived["status"] == "unsupported"
    assert derived["id"] not in current_ids(cli)


def test_derive_errors(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    beliefs_before = count(postgresql, "belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", NOBODY,
              code="unknown_belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", " , ",
              code="invalid_input")
    assert count(postgresql, "belief") == beliefs_before
    missing = cli("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", expect=2)  # no --from
    assert "--from" in missing.output


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
    err = cli.error(command, "--status", "bogus", code="invalid_input")
    assert "bogus" in err["message"]
    line = cli.one_line_error(command, "--status", "bogus")
    assert "bogus" in line


# --- impact -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_impact_of_a_belief_groups_the_effects(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.json("impact", g["refund"])
    assert set(hit) == {"stops_holding", "becomes_current", "flagged", "held", "still_supported"}
    assert hit["becomes_current"] == []
    # credit survives on pref; joint and plan (through the derived belief) lose their only support
    assert ids_of(hit["stops_holding"]) == {g["refund"], g["joint"], g["notify"], g["derived"], g["plan"]}
    kinds = {x["id"]: x["kind"] for x in hit["stops_holding"]}
    assert kinds[g["refund"]] == kinds[g["derived"]] == "belief"
    assert kinds[g["joint"]] == kinds[g["plan"]] == "decision" and kinds[g["notify"]] == "action"
    assert sorted(hit["flagged"]) == sorted([g["joint"], g["plan"]])
    assert hit["held"] == [g["notify"]]
    assert hit["still_supported"] == [{"decision": g["credit"], "by": [[g["pref"]]]}]


@pytest.mark.slow
def test_impact_of_the_belief_behind_a_single_support_decision(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.json("impact", g["seven"])
    assert ids_of(hit["stops_holding"]) == {g["seven"], g["refuse"], g["email"], g["joint"], g["notify"],
                                            g["derived"], g["plan"]}
    assert sorted(hit["flagged"]) == sorted([g["refuse"], g["joint"], g["plan"]])
    assert sorted(hit["held"]) == sorted([g["email"], g["notify"]])
    assert hit["still_supported"] == []  # credit does not rest on seven at all
    assert g["credit"] not in ids_of(hit["stops_holding"]) and g["pay"] not in hit["held"]


@pytest.mark.slow
def test_impact_of_both_alternatives_flags_the_decision(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.json("impact", g["refund"], g["pref"])
    assert g["credit"] in hit["flagged"] and g["pay"] in hit["held"]
    assert hit["still_supported"] == []


@pytest.mark.slow
def test_impact_accepts_prefix_fragment_decision_and_source_name(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                  story: dict[str, str]) -> None:
    g = story
    full = cli.json("impact", g["refund"])
    by_prefix = cli.json("impact", g["refund"][:8])
    assert by_prefix == full

    fragment = fragment_of(bdb, g["refund"])
    by_fragment = cli.json("impact", fragment)
    assert ids_of(by_fragment["stops_holding"]) == ids_of(full["stops_holding"]) | {fragment}
    assert {x["id"]: x["kind"] for x in by_fragment["stops_holding"]}[fragment] == "fragment"
    assert (by_fragment["flagged"], by_fragment["held"], by_fragment["still_supported"]) == (
        full["flagged"], full["held"], full["still_supported"])

    by_source = cli.json("impact", "faq.md")
    assert ids_of(by_source["stops_holding"]) == ids_of(by_fragment["stops_holding"])
    assert (by_source["flagged"], by_source["held"], by_source["still_supported"]) == (
        full["flagged"], full["held"], full["still_supported"])

    by_decision = cli.json("impact", g["refuse"])
    assert ids_of(by_decision["stops_holding"]) == {g["refuse"], g["email"]}
    assert (by_decision["flagged"], by_decision["held"], by_decision["still_supported"]) == (
        [g["refuse"]], [g["email"]], [])


@pytest.mark.slow
def test_impact_text_output(cli: Cli, story: dict[str, str]) -> None:
    g = story
    result = cli("impact", g["refund"])
    out = result.stdout
    # statements and titles with their short ids (the pictures' text: beliefdb.graph.to_text)
    assert "would stop holding: 5 · would be flagged: 2 · would be held: 1 · survives on other support: 1" in out
    assert f"decision [{g['joint'][:8]}] Offer store credit within the window  [active] — would be flagged" in out
    assert f"action [{g['notify'][:8]}] Tell support about the offer  [scheduled] — would be held" in out
    credit = out[out.index(f"decision [{g['credit'][:8]}] Refund order 1043 as store credit  [active]"):].splitlines()
    assert credit[0].endswith("— survives on other support")
    assert credit[1] == '      survives on "customer_1043 refund_preference is store credit"'


@pytest.mark.slow
def test_impact_writes_nothing(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str],
                               postgresql: psycopg.Connection[Any]) -> None:
    g = story
    before = snapshot(postgresql)
    fragment = fragment_of(bdb, g["seven"])
    for refs in ([g["seven"]], [g["refund"], g["pref"]], ["faq.md"], [fragment], [g["refuse"]]):
        hit = cli.json("impact", *refs)
        assert hit["flagged"], refs  # it did find something to flag
        cli("impact", *refs)
    assert snapshot(postgresql) == before


def test_impact_of_unknown_ids_is_an_error(cli: Cli, three: dict[str, str]) -> None:
    cli.error("impact", NOBODY, code="not_found")
    err = cli.error("impact", "no-such-source.md")
    assert err["error"] in {"not_found", "unknown_belief"}, err
    cli.error("impact", three["seven"], NOBODY, code="not_found")
    assert "no-such-source.md" in cli.one_line_error("impact", "no-such-source.md")
    cli("impact", expect=2)  # needs at least one id


# --- correct ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_correct_preview_shows_what_would_change_and_writes_nothing(
        cli: Cli, story: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    g = story
    before = snapshot(postgresql)
    seen = cli.json("correct", g["refund"][:8], FIX, "--reviewer", "rita", "--preview")
    assert set(seen) == {"belief", "revision", "would_flag", "would_hold", "still_supported", "owner", "proposed",
                         "changes", "if_approved"}
    assert seen["belief"] == g["refund"] and seen["proposed"] is False and seen["if_approved"] == []
    assert isinstance(seen["revision"], int) and seen["revision"] >= 1
    assert sorted(seen["would_flag"]) == sorted([g["joint"], g["plan"]])
    assert seen["would_hold"] == [g["notify"]]
    assert seen["still_supported"] == [{"decision": g["credit"], "by": [[g["pref"]]]}]
    text = cli("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    assert f"--apply --expect-revision {seen['revision']}" in text.stdout
    assert f"leave decision {g['credit'][:8]} standing, supported by {g['pref'][:8]}" in text.stdout
    assert snapshot(postgresql) == before


@pytest.mark.slow
def test_correct_apply_flags_what_lost_support_and_keeps_what_has_other(cli: Cli, story: dict[str, str]) -> None:
    g = story
    seen = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    done = cli.json("correct", g["refund"], FIX, "--value", "original payment method", "--reviewer", "rita",
                    "--reason", "policy FAQ was wrong", "--apply", "--expect-revision", str(seen["revision"]))
    assert set(done) == {"correction", "replacement", "superseded", "flagged", "held", "already_applied",
                         "proposed", "review_item", "owner", "changes", "embedding_deferred"}
    assert done["already_applied"] is False
    assert done["superseded"] == [g["refund"]]
    assert sorted(done["flagged"]) == sorted(seen["would_flag"])
    assert done["held"] == seen["would_hold"]

    decisions = statuses(cli, "decisions")
    assert decisions == {g["refuse"]: "active", g["credit"]: "active", g["joint"]: "needs_review",
                         g["plan"]: "needs_review"}
    actions = statuses(cli, "actions")
    assert actions == {g["email"]: "scheduled", g["pay"]: "scheduled", g["notify"]: "held"}
    assert belief_status(cli, g["refund"]) == "superseded"
    assert belief_status(cli, done["replacement"]) == "current"


@pytest.mark.slow
def test_correction_replacement_is_backed_only_by_the_reviewers_text(cli: Cli, three: dict[str, str]) -> None:
    seen = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--preview")
    done = cli.json("correct", three["refund"], FIX, "--value", "original payment method", "--reviewer", "rita",
                    "--apply", "--expect-revision", str(seen["revision"]))
    why = cli.json("why", done["replacement"])
    assert why["belief"]["statement"] == FIX
    assert why["belief"]["value"] == "original payment method"
    assert (why["belief"]["subject"], why["belief"]["attribute"]) == ("refund", "method")
    assert why["belief"]["confidence_kind"] == "human_correction"
    assert [e["quote"] for e in why["evidence"]] == [FIX]
    assert QREFUND not in json.dumps(why["evidence"])  # the old evidence is never copied
    assert why["evidence"][0]["origin_type"] == "human_reviewer"
    assert [h["old_belief"] for h in why["replaced"]] == [three["refund"]]
    text = cli("correct", three["refund"], FIX, "--value", "original payment method", "--reviewer", "rita",
               "--apply", "--expect-revision", str(seen["revision"]))
    assert "already applied" in text.stdout and done["replacement"] in text.stdout


def test_the_reviewer_defaults_to_who_is_acting(cli: Cli, three: dict[str, str]) -> None:
    seen = cli.json("correct", three["refund"], FIX, "--preview")
    argv = ("correct", three["refund"], FIX, "--apply", "--expect-revision", str(seen["revision"]))
    refused = cli.json(*argv, expect=2)
    assert "--reviewer" in refused["message"] and "--as" in refused["message"], refused
    proposed = cli.json(*argv, "--as", "rita")  # rita does not own the belief: a proposal to its owner
    assert proposed["proposed"] is True
    [item] = [i for i in cli.json("review", "list") if i["id"] == proposed["review_item"]]
    assert (item["proposed_by"], item["proposal"]["reviewer"]) == ("rita", "rita")
    other = cli.json("correct", three["pref"], "Customers prefer email.", "--preview")
    again = cli.json("correct", three["pref"], "Customers prefer email.", "--apply", "--expect-revision",
                     str(other["revision"]), "--as", "rita", "--reviewer", "rosa")
    [item] = [i for i in cli.json("review", "list") if i["id"] == again["review_item"]]
    assert (item["proposed_by"], item["proposal"]["reviewer"]) == ("rita", "rosa")


def test_correction_without_value_keeps_the_old_value(cli: Cli, three: dict[str, str]) -> None:
    seen = cli.json("correct", three["refund"], "Refunds are store credit, per the FAQ.", "--reviewer", "rita",
                    "--preview")
    done = cli.json("correct", three["refund"], "Refunds are store credit, per the FAQ.", "--reviewer", "rita",
                    "--apply", "--expect-revision", str(seen["revision"]))
    assert cli.json("why", done["replacement"])["belief"]["value"] == "store credit"


@pytest.mark.slow
def test_the_same_correction_twice_is_already_applied(cli: Cli, story: dict[str, str],
                                                       postgresql: psycopg.Connection[Any]) -> None:
    g = story
    seen = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    args = ("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision", str(seen["revision"]))
    first = cli.json(*args)
    corrections, beliefs = count(postgresql, "correction"), count(postgresql, "belief")
    again = cli.json(*args)
    assert again["already_applied"] is True
    assert (again["correction"], again["replacement"], again["superseded"]) == (
        first["correction"], first["replacement"], first["superseded"])
    assert (count(postgresql, "correction"), count(postgresql, "belief")) == (corrections, beliefs)
    assert statuses(cli, "decisions")[g["joint"]] == "needs_review"


@pytest.mark.slow
def test_the_same_idempotency_key_is_already_applied(cli: Cli, three: dict[str, str],
                                                      postgresql: psycopg.Connection[Any]) -> None:
    seen = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--preview")
    first = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                     str(seen["revision"]), "--idempotency-key", "k-1")
    # a retry with the same key returns the first correction; the key with a reworded text is refused
    again = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--apply",
                     "--expect-revision", str(seen["revision"]), "--idempotency-key", "k-1")
    assert again["already_applied"] is True
    assert (again["correction"], again["replacement"]) == (first["correction"], first["replacement"])
    cli.error("correct", three["refund"], FIX + " Always.", "--reviewer", "rita", "--apply",
              "--expect-revision", str(seen["revision"]), "--idempotency-key", "k-1", code="idempotency_key_reused")
    assert count(postgresql, "correction") == 1


@pytest.mark.slow
def test_stale_correction_preview_is_exit_1_and_writes_nothing(cli: Cli, story: dict[str, str],
                                                                postgresql: psycopg.Connection[Any]) -> None:
    g = story
    seen = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    # the belief changes after the preview: its source is retracted and restored
    cli.json("retract", "--source", "faq.md", "--reason", "checking")
    cli.json("retract", "--source", "faq.md", "--undo")
    assert belief_status(cli, g["refund"]) == "current"
    before = snapshot(postgresql)

    err = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                   str(seen["revision"]), expect=1)
    assert err["error"] == "stale_correction_preview"
    line = cli.one_line_error("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                              str(seen["revision"]))
    # the message says what happened and what to do, once (it began with its own code,
    # "stale_correction_preview: belief ...", which --json then said twice)
    assert line == (f"error: belief {err['message'].split()[1]} changed since the preview: it is at revision"
                    f" {seen['revision'] + 2}, the preview saw {seen['revision']}; nothing was changed: preview the"
                    " correction again")
    assert not err["message"].startswith("stale_correction_preview")
    assert snapshot(postgresql) == before

    # preview again, then it applies
    fresh = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    assert fresh["revision"] > seen["revision"]
    done = cli.json("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                    str(fresh["revision"]))
    assert done["already_applied"] is False


def test_a_second_different_correction_on_the_old_revision_is_stale(cli: Cli, three: dict[str, str],
                                                                     postgresql: psycopg.Connection[Any]) -> None:
    seen = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--preview")
    cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
             str(seen["revision"]))
    cli.error("correct", three["refund"], "Refunds are cash.", "--reviewer", "bob", "--apply", "--expect-revision",
              str(seen["revision"]), code="stale_correction_preview")
    assert count(postgresql, "correction") == 1


@pytest.mark.parametrize("mode", [["--preview", "--apply", "--expect-revision", "1"], [],
                                  ["--apply"]], ids=["both", "neither", "apply-without-revision"])
def test_correct_mode_errors_exit_2(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any],
                                    mode: list[str]) -> None:
    before = snapshot(postgresql)
    err = cli.error("correct", three["refund"], FIX, "--reviewer", "rita", *mode, code="invalid_input", expect=2)
    assert ("--preview" in err["message"]) or ("--expect-revision" in err["message"])
    text = cli("correct", three["refund"], FIX, "--reviewer", "rita", *mode, expect=2)
    assert text.stderr.startswith("error:"), text.output
    assert snapshot(postgresql) == before


@pytest.mark.slow
def test_correct_needs_a_reviewer_and_a_known_belief(cli: Cli, three: dict[str, str],
                                                     postgresql: psycopg.Connection[Any]) -> None:
    # a preview writes nothing and needs no reviewer; the apply does
    assert cli.json("correct", three["refund"], FIX, "--preview")["belief"] == three["refund"]
    no_reviewer = cli.one_line_error("correct", three["refund"], FIX, "--apply", "--expect-revision", "1")
    assert "--reviewer" in no_reviewer
    assert cli.error("correct", three["refund"], FIX, "--apply", "--expect-revision", "1", expect=2)["error"] \
        == "invalid_input"
    cli.error("correct", NOBODY, FIX, "--reviewer", "rita", "--preview", code="unknown_belief")
    cli.error("correct", NOBODY, FIX, "--reviewer", "rita", "--apply", "--expect-revision", "1",
              code="unknown_belief")
    cli.error("correct", three["refund"], FIX, "--reviewer", "  ", "--apply", "--expect-revision", "1",
              code="invalid_input")
    assert count(postgresql, "correction") == 0


# --- retract ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_retract_source_preview_then_retract_then_undo(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str],
                                                        postgresql: psycopg.Connection[Any]) -> None:
    g = story
    fragment = fragment_of(bdb, g["refund"])
    before = snapshot(postgresql)
    preview = cli.json("retract", "--source", "faq.md", "--reason", "poisoned", "--preview")
    assert set(preview["stopped_current"]) == {fragment, g["refund"], g["joint"], g["notify"], g["derived"],
                                               g["plan"]}
    assert sorted(preview["flagged"]) == sorted([g["joint"], g["plan"]]) and preview["held"] == [g["notify"]]
    assert preview["survives"] == [{"decision": g["credit"], "by": [[g["pref"]]]}]
    cli("retract", "--source", "faq.md", "--reason", "poisoned", "--preview")
    assert snapshot(postgresql) == before

    changes = cli.json("retract", "--source", "faq.md", "--reason", "poisoned")
    assert set(changes) == {"stopped_holding", "started_holding", "stopped_current", "became_current", "flagged",
                            "held", "survives", "proposed", "review_item", "owner", "fingerprint"}
    assert changes == preview  # the preview is exactly what the apply did (the same fingerprint too)
    assert set(changes["stopped_holding"]) == set(preview["stopped_current"])
    assert changes["started_holding"] == [] and changes["became_current"] == []
    assert g["refund"] not in current_ids(cli) and g["derived"] not in current_ids(cli)
    assert statuses(cli, "decisions")[g["credit"]] == "active"  # independently supported
    assert statuses(cli, "actions") == {g["email"]: "scheduled", g["pay"]: "scheduled", g["notify"]: "held"}
    assert count(postgresql, "audit_event") > before["audit_event"]

    restored = cli.json("retract", "--source", "faq.md", "--undo")
    assert set(restored["started_holding"]) == set(changes["stopped_holding"])
    assert restored["stopped_holding"] == [] and restored["flagged"] == []
    assert {g["refund"], g["derived"]} <= current_ids(cli)
    holds = {d["id"]: d["holds"] for d in cli.json("decisions")}
    assert holds[g["joint"]] is True and holds[g["plan"]] is True


@pytest.mark.slow
def test_retract_text_output(cli: Cli, story: dict[str, str]) -> None:
    result = cli("retract", "--source", "faq.md", "--reason", "poisoned")
    # each count of nodes says what it counts: faq.md's quote, the refund and the belief derived from
    # it, the two decisions on them and the action of one
    assert "stopped holding: 6 (2 beliefs, 2 decisions, 1 action, 1 quote)  " in result.stdout
    assert "stopped being current: 6 (2 beliefs, 2 decisions, 1 action, 1 quote)  " in result.stdout
    assert "actions held: 1  " in result.stdout
    assert "decisions flagged: 2" in result.stdout and "actions held: 1" in result.stdout
    # a count of nothing ends the line (it ended in two spaces); a count of something lists the ids
    assert "current again: 0\n" in result.stdout
    assert [line for line in result.stdout.splitlines() if line != line.rstrip()] == []


@pytest.mark.slow
def test_retract_a_belief_by_prefix(cli: Cli, story: dict[str, str]) -> None:
    g = story
    changes = cli.json("retract", "--belief", g["seven"][:8], "--reason", "wrong")
    assert g["seven"] in changes["stopped_holding"]
    assert sorted(changes["flagged"]) == sorted([g["refuse"], g["joint"], g["plan"]])
    assert sorted(changes["held"]) == sorted([g["email"], g["notify"]])
    assert belief_status(cli, g["seven"]) == "retracted"
    assert statuses(cli, "decisions")[g["credit"]] == "active"
    # undo brings the belief back
    restored = cli.json("retract", "--belief", g["seven"], "--undo")
    assert g["seven"] in restored["started_holding"]
    assert belief_status(cli, g["seven"]) == "current"


@pytest.mark.slow
def test_retract_a_fragment(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str]) -> None:
    g = story
    fragment = fragment_of(bdb, g["pref"])
    changes = cli.json("retract", "--fragment", fragment, "--reason", "misheard")
    assert set(changes["stopped_holding"]) == {fragment, g["pref"]}
    assert changes["flagged"] == []  # credit still has refund
    assert belief_status(cli, g["pref"]) == "unsupported"


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


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    [],
    ["--belief", "x", "--source", "faq.md"],
    ["--belief", "x", "--fragment", NOBODY],
    ["--fragment", NOBODY, "--source", "faq.md"],
], ids=["none", "belief+source", "belief+fragment", "fragment+source"])
@pytest.mark.parametrize("preview", [False, True], ids=["retract", "preview"])
def test_retract_needs_exactly_one_target(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any],
                                          args: list[str], preview: bool) -> None:
    args = [three["refund"] if a == "x" else a for a in args]
    before = snapshot(postgresql)
    err = cli.error("retract", *args, "--reason", "r", *(["--preview"] if preview else []), code="invalid_input",
                    expect=2)
    assert err["message"] == "retract exactly one of --belief, --fragment or --source"
    assert snapshot(postgresql) == before


def test_retract_of_an_unknown_source_is_an_error(cli: Cli, three: dict[str, str],
                                                  postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("retract", "--source", "no-such.md", "--reason", "r", code="not_found")
    assert "no-such.md" in err["message"]
    assert "no-such.md" in cli.one_line_error("retract", "--source", "no-such.md", "--reason", "r")
    assert snapshot(postgresql) == before


def test_retract_preview_of_an_unknown_source_says_unknown_source(cli: Cli, three: dict[str, str]) -> None:
    err = cli.error("retract", "--source", "no-such.md", "--reason", "r", "--preview", code="not_found")
    assert "source" in err["message"] and "no-such.md" in err["message"]


def test_retract_of_an_unknown_version_is_an_error(cli: Cli, three: dict[str, str], bdb: beliefdb.BeliefDB,
                                                   postgresql: psycopg.Connection[Any]) -> None:
    """The error names the source by its name, and the versions it has (not its id)."""
    before = snapshot(postgresql)
    said = "unknown version 9 of source 'faq.md': it has version 1 only"
    assert cli.error("retract", "--source", "faq.md", "--version", "9", "--reason", "r", "--preview",
                     code="not_found")["message"] == said
    assert cli.error("retract", "--source", "faq.md", "--version", "9", "--reason", "r",
                     code="not_found")["message"] == said
    assert cli.one_line_error("retract", "--source", "faq.md", "--version", "9", "--reason", "r") == f"error: {said}"
    assert snapshot(postgresql) == before
    assert bdb.ingest_text(f"FAQ, edited.\n{QREFUND}\n", source="faq.md").version == 2
    assert cli.error("retract", "--source", "faq.md", "--version", "5", "--reason", "r",
                     code="not_found")["message"] == "unknown version 5 of source 'faq.md': it has versions 1 to 2"


@pytest.mark.slow
def test_retract_input_errors(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("retract", "--belief", three["refund"], "--version", "1", "--reason", "r", code="invalid_input",
                    expect=2)
    assert "--version" in err["message"]
    err = cli.error("retract", "--source", "faq.md", code="invalid_input")  # no reason
    assert "--reason" in err["message"]
    assert "--reason" in cli.one_line_error("retract", "--source", "faq.md", "--reason", "  ")
    cli.error("retract", "--belief", NOBODY, "--reason", "r", code="unknown_belief")
    cli.error("retract", "--fragment", NOBODY, "--reason", "r", code="not_found")
    assert snapshot(postgresql) == before


@pytest.mark.slow
def test_retract_twice_or_undo_of_what_is_in_force_is_an_error(cli: Cli, three: dict[str, str],
                                                                postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("retract", "--source", "faq.md", "--undo", code="not_found")  # nothing to restore
    assert "restore" in err["message"]
    cli.error("retract", "--belief", three["refund"], "--undo", code="not_found")
    assert snapshot(postgresql) == before
    cli.json("retract", "--source", "faq.md", "--reason", "r")
    err = cli.error("retract", "--source", "faq.md", "--reason", "r", code="not_found")
    assert "already retracted" in err["message"]


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
    assert text.stdout.strip() == f"decision_flagged {flagged['refuse']}: rejected"
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
    said = cli.error("review", "approve", flagged["item"], code="invalid_input")["message"]
    assert said.startswith(f"review item {flagged['item']} is already approved (by "), said
    cli.error("review", "reject", flagged["item"][:8], code="invalid_input")
    assert "error:" in cli.one_line_error("review", "reject", flagged["item"])
    assert statuses(cli, "decisions") == {flagged["refuse"]: "approved"}  # the second verdict changed nothing
    assert set(statuses(cli, "actions").values()) == {"scheduled"}


@pytest.mark.slow
def test_review_unknown_item_is_an_error(cli: Cli, flagged: dict[str, str]) -> None:
    cli.error("review", "approve", NOBODY, code="not_found")
    cli.error("review", "approve", "zzzz", code="not_found")
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
    assert result["applied"] == {"winner": conflict["b"], "loser": conflict["a"]}
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


def test_a_version_or_revision_too_large_for_the_database_is_bad_input(cli: Cli, three: dict[str, str]) -> None:
    """retract --version 99999999999 and correct --expect-revision 99999999999 failed with "function
    beliefdb.retract(unknown, ..., bigint, boolean) does not exist" (error code "error")."""
    huge = "99999999999"
    err = cli.error("retract", "--source", "policy.md", "--version", huge, "--reason", "x", code="invalid_input")
    assert err["message"] == f"--version {huge} is out of range"
    err = cli.error("correct", three["seven"], "Returns are accepted within 9 days.", "--apply",
                    "--expect-revision", huge, "--reviewer", "ops", code="invalid_input")
    assert err["message"] == f"--expect-revision {huge} is out of range"
    assert cli.json("beliefs", "--subject", "return_policy")[0]["value"] == "7 days"  # nothing changed


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
