"""The truth-maintenance commands of the beliefdb CLI, end to end against a real PostgreSQL:
decide, act, derive, decisions, actions, impact, correct, retract, review, demo and their --help."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from psycopg import sql
from typer.testing import CliRunner, Result

import beliefdb
import beliefdb.cli

runner = CliRunner()

Q7 = "Returns are accepted within 7 days of delivery."
Q15 = "Returns are accepted within 15 days of delivery."
QREFUND = "The refund method is store credit."
QPREF = "I prefer store credit, please."
QFEE = "The restocking fee is 10%."
FIX = "Refunds go to the original payment method."
NOBODY = "00000000-0000-4000-8000-000000000000"


# --- helpers ------------------------------------------------------------------------------------


class Cli:
    """Run the CLI on this test's database, with no workspace, principal, home or reviewer leaking in."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url

    def __call__(self, *args: str) -> Result:
        return runner.invoke(beliefdb.cli.app, [*args, "--db", self.db_url],
                             env={"BELIEFDB_URL": None, "BELIEFDB_WORKSPACE": None, "BELIEFDB_HOME": None,
                                  "BELIEFDB_PRINCIPAL": None, "BELIEFDB_REVIEWER": None})

    def ok(self, *args: str) -> Any:
        result = self(*args)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    def error(self, *args: str, code: str | None = None, exit_code: int = 1) -> dict[str, Any]:
        """Run with --json, expect a failure with a JSON error (and ``code`` if given)."""
        result = self(*args, "--json")
        assert result.exit_code == exit_code, result.output
        err: dict[str, Any] = json.loads(result.stdout)
        assert set(err) == {"error", "message"}, err
        if code is not None:
            assert err["error"] == code, err
        return err

    def one_line_error(self, *args: str) -> str:
        """Run in text mode, expect a non-zero exit with exactly one 'error:' line on stderr."""
        result = self(*args)
        assert result.exit_code != 0, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
        assert "Traceback" not in result.output
        return lines[0]


@pytest.fixture
def cli(db_url: str) -> Cli:
    return Cli(db_url)


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
    return {row["id"]: row["status"] for row in cli.ok(kind, "--json")}


def belief_status(cli: Cli, belief_id: str) -> str:
    (found,) = [b for b in cli.ok("beliefs", "--all", "--json") if b["id"] == belief_id]
    return str(found["status"])


def current_ids(cli: Cli) -> set[str]:
    return {b["id"] for b in cli.ok("beliefs", "--json")}


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
    g["refuse"] = cli.ok("decide", "Refuse the return of order 1042", "--because", g["seven"], "--json")["id"]
    g["email"] = cli.ok("act", g["refuse"], "Email the customer a refusal", "--json")["id"]
    g["credit"] = cli.ok("decide", "Refund order 1043 as store credit", "--because", g["refund"],
                         "--because", g["pref"], "--json")["id"]
    g["pay"] = cli.ok("act", g["credit"], "Issue the store credit", "--json")["id"]
    g["joint"] = cli.ok("decide", "Offer store credit within the window", "--all-of",
                        f"{g['refund']},{g['seven']}", "--json")["id"]
    g["notify"] = cli.ok("act", g["joint"], "Tell support about the offer", "--json")["id"]
    g["derived"] = cli.ok("derive", "Returns within 7 days are refunded as store credit", "--subject",
                          "return_refund", "--attribute", "method", "--value", "store credit within 7 days",
                          "--from", f"{g['refund']},{g['seven']}", "--json")["id"]
    g["plan"] = cli.ok("decide", "Print the 7-day store-credit leaflet", "--because", g["derived"], "--json")["id"]
    return g


# --- decide -------------------------------------------------------------------------------------


def test_decide_json_is_id_and_active_status(cli: Cli, three: dict[str, str]) -> None:
    recorded = cli.ok("decide", "Refuse the return of order 1042", "--because", three["seven"], "--json")
    assert set(recorded) == {"id", "status"}
    assert recorded["status"] == "active"
    (listed,) = cli.ok("decisions", "--json")
    assert listed["id"] == recorded["id"]
    assert (listed["title"], listed["status"], listed["holds"]) == ("Refuse the return of order 1042", "active",
                                                                      True)


def test_decide_text_output_names_the_decision_and_its_status(cli: Cli, three: dict[str, str]) -> None:
    result = cli("decide", "Refuse the return", "--because", three["seven"])
    assert result.exit_code == 0, result.output
    (decision,) = cli.ok("decisions", "--json")
    assert result.stdout.strip() == f"decision {decision['id']} [active]"


def test_decide_accepts_a_belief_prefix(cli: Cli, three: dict[str, str],
                                        postgresql: psycopg.Connection[Any]) -> None:
    recorded = cli.ok("decide", "Refuse", "--because", three["seven"][:8].upper(), "--json")
    assert recorded["status"] == "active"
    rows = postgresql.execute("select decision::text, antecedents::text[] from beliefdb.decision_support").fetchall()
    assert rows == [(recorded["id"], [three["seven"]])]


def test_because_twice_is_two_alternatives_and_all_of_is_one_joint_reason(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    alternatives = cli.ok("decide", "Alt", "--because", three["seven"], "--because", three["refund"], "--json")
    joint = cli.ok("decide", "Joint", "--all-of", f"{three['seven']}, {three['refund']}", "--json")
    mixed = cli.ok("decide", "Mixed", "--because", three["pref"], "--all-of", f"{three['seven']},{three['refund']}",
                   "--json")
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
    hit = cli.ok("impact", three["refund"], "--json")
    assert set(hit["flagged"]) == {joint["id"]}
    assert {s["decision"] for s in hit["still_supported"]} == {alternatives["id"], mixed["id"]}


def test_decision_citing_a_superseded_belief_needs_review_at_once(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    assert belief_status(cli, seven) == "superseded"
    recorded = cli.ok("decide", "Refuse the return (day 10)", "--because", seven, "--json")
    assert recorded["status"] == "needs_review"
    (listed,) = cli.ok("decisions", "--json")
    assert (listed["status"], listed["holds"]) == ("needs_review", False)
    # a durable review item says so
    items = cli.ok("review", "list", "--json")
    assert [(i["kind"], i["node"]) for i in items] == [("decision_flagged", recorded["id"])]
    # the same title on the current belief is active
    assert cli.ok("decide", "Accept the return (day 10)", "--because", fifteen, "--json")["status"] == "active"


def test_an_empty_all_of_is_a_one_line_error_and_writes_nothing(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    line = cli.one_line_error("decide", "Refuse the return", "--all-of", " , ")
    assert "--all-of" in line
    cli.error("decide", "Refuse the return", "--all-of", " , ", code="invalid_input")
    assert count(postgresql, "decision") == 0
    assert count(postgresql, "justification") == len(three)  # only the beliefs' evidence


def test_a_decision_without_any_reason_is_recorded_for_review_and_nothing_carries_it_out(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    """An agent that wants to act without evidence is worth knowing about: the decision is kept, as
    needs_review ("No source-backed answer yet"), and no action may be scheduled on it until a
    person approves it."""
    decided = cli.ok("decide", "Refund order 77 in full", "--json")
    assert decided["status"] == "needs_review"
    (item,) = [i for i in cli.ok("review", "list", "--json") if i["node"] == decided["id"]]
    assert item["kind"] == "decision_flagged" and item["reason"].startswith("No source-backed answer yet")
    line = cli.one_line_error("act", decided["id"][:8], "Wire the refund")
    assert "no source-backed reason yet" in line and "approve" in line
    assert count(postgresql, "action") == 0
    cli.ok("review", "approve", item["id"], "--json")
    assert cli.ok("act", decided["id"][:8], "Wire the refund", "--json")["status"] == "scheduled"


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


def test_act_json_is_id_and_scheduled_status(cli: Cli, three: dict[str, str]) -> None:
    decision = cli.ok("decide", "Refuse", "--because", three["seven"], "--json")
    recorded = cli.ok("act", decision["id"], "Email the customer a refusal", "--json")
    assert set(recorded) == {"id", "status"}
    assert recorded["status"] == "scheduled"
    (listed,) = cli.ok("actions", "--json")
    assert (listed["id"], listed["decision_id"], listed["description"], listed["status"]) == (
        recorded["id"], decision["id"], "Email the customer a refusal", "scheduled")
    text = cli("act", decision["id"], "Call the customer")
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("action ") and text.stdout.strip().endswith("[scheduled]")


def test_act_on_a_decision_that_needs_review_is_held(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    decision = cli.ok("decide", "Refuse", "--because", seven, "--json")
    assert decision["status"] == "needs_review"
    recorded = cli.ok("act", decision["id"], "Email the customer a refusal", "--json")
    assert recorded["status"] == "held"
    assert statuses(cli, "actions") == {recorded["id"]: "held"}
    kinds = {(i["kind"], i["node"]) for i in cli.ok("review", "list", "--json")}
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
    derived = cli.ok("derive", "Returns within 7 days are refunded as store credit", "--subject", "return_refund",
                     "--attribute", "method", "--value", "store credit", "--from",
                     f"{three['seven']},{three['refund'][:8]}", "--json")
    assert set(derived) == {"id", "status"}
    assert derived["status"] == "current"
    (listed,) = cli.ok("beliefs", "--subject", "return_refund", "--json")
    assert listed["id"] == derived["id"]
    assert (listed["attribute"], listed["value"], listed["confidence_kind"]) == ("method", "store credit",
                                                                                 "derived")
    # all of them are needed: losing either one takes it down
    for lost in (three["seven"], three["refund"]):
        assert derived["id"] in ids_of(cli.ok("impact", lost, "--json")["stops_holding"])
    assert derived["id"] not in ids_of(cli.ok("impact", three["pref"], "--json")["stops_holding"])


def test_derive_from_a_superseded_belief_does_not_hold(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    derived = cli.ok("derive", "A week to return", "--subject", "x", "--attribute", "y", "--value", "z", "--from",
                     seven, "--json")
    assert derived["status"] == "unsupported"
    assert derived["id"] not in current_ids(cli)


def test_derive_errors(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    beliefs_before = count(postgresql, "belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", NOBODY,
              code="unknown_belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", " , ",
              code="invalid_input")
    assert count(postgresql, "belief") == beliefs_before
    missing = cli("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z")  # no --from
    assert missing.exit_code == 2
    assert "--from" in missing.output


# --- decisions / actions ------------------------------------------------------------------------


def test_decisions_and_actions_filter_by_status(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    refund = remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit")
    refuse = cli.ok("decide", "Refuse", "--because", seven, "--json")["id"]
    credit = cli.ok("decide", "Credit", "--because", refund, "--json")["id"]
    email = cli.ok("act", refuse, "Email", "--json")["id"]
    pay = cli.ok("act", credit, "Pay", "--json")["id"]
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")  # refuse loses its support

    assert [d["id"] for d in cli.ok("decisions", "--status", "needs_review", "--json")] == [refuse]
    assert [d["id"] for d in cli.ok("decisions", "--status", "active", "--json")] == [credit]
    assert cli.ok("decisions", "--status", "approved", "--json") == []
    assert [d["id"] for d in cli.ok("decisions", "--json")] == [refuse, credit]  # in creation order
    assert [a["id"] for a in cli.ok("actions", "--status", "held", "--json")] == [email]
    assert [a["id"] for a in cli.ok("actions", "--status", "scheduled", "--json")] == [pay]
    assert cli.ok("actions", "--status", "cancelled", "--json") == []
    holds = {d["id"]: d["holds"] for d in cli.ok("decisions", "--json")}
    assert holds == {refuse: False, credit: True}

    text = cli("decisions")
    assert text.exit_code == 0, text.output
    assert f"{refuse[:8]}  [needs_review, no support]  Refuse" in text.stdout
    assert f"{credit[:8]}  [active]  Credit" in text.stdout
    text = cli("actions", "--status", "held")
    assert text.exit_code == 0, text.output
    assert f"{email[:8]}  [held]  Email" in text.stdout and "Pay" not in text.stdout


def test_decisions_and_actions_when_there_are_none(cli: Cli) -> None:
    assert cli.ok("decisions", "--json") == [] and cli.ok("actions", "--json") == []
    assert cli("decisions").stdout.strip() == "(no decisions)"
    assert cli("actions").stdout.strip() == "(no actions)"


@pytest.mark.parametrize("command", ["decisions", "actions"])
def test_bad_status_is_an_error(cli: Cli, command: str) -> None:
    err = cli.error(command, "--status", "bogus", code="invalid_input")
    assert "bogus" in err["message"]
    line = cli.one_line_error(command, "--status", "bogus")
    assert "bogus" in line


# --- impact -------------------------------------------------------------------------------------


def test_impact_of_a_belief_groups_the_effects(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.ok("impact", g["refund"], "--json")
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


def test_impact_of_the_belief_behind_a_single_support_decision(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.ok("impact", g["seven"], "--json")
    assert ids_of(hit["stops_holding"]) == {g["seven"], g["refuse"], g["email"], g["joint"], g["notify"],
                                            g["derived"], g["plan"]}
    assert sorted(hit["flagged"]) == sorted([g["refuse"], g["joint"], g["plan"]])
    assert sorted(hit["held"]) == sorted([g["email"], g["notify"]])
    assert hit["still_supported"] == []  # credit does not rest on seven at all
    assert g["credit"] not in ids_of(hit["stops_holding"]) and g["pay"] not in hit["held"]


def test_impact_of_both_alternatives_flags_the_decision(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.ok("impact", g["refund"], g["pref"], "--json")
    assert g["credit"] in hit["flagged"] and g["pay"] in hit["held"]
    assert hit["still_supported"] == []


def test_impact_accepts_prefix_fragment_decision_and_source_name(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                  story: dict[str, str]) -> None:
    g = story
    full = cli.ok("impact", g["refund"], "--json")
    by_prefix = cli.ok("impact", g["refund"][:8], "--json")
    assert by_prefix == full

    fragment = fragment_of(bdb, g["refund"])
    by_fragment = cli.ok("impact", fragment, "--json")
    assert ids_of(by_fragment["stops_holding"]) == ids_of(full["stops_holding"]) | {fragment}
    assert {x["id"]: x["kind"] for x in by_fragment["stops_holding"]}[fragment] == "fragment"
    assert (by_fragment["flagged"], by_fragment["held"], by_fragment["still_supported"]) == (
        full["flagged"], full["held"], full["still_supported"])

    by_source = cli.ok("impact", "faq.md", "--json")
    assert ids_of(by_source["stops_holding"]) == ids_of(by_fragment["stops_holding"])
    assert (by_source["flagged"], by_source["held"], by_source["still_supported"]) == (
        full["flagged"], full["held"], full["still_supported"])

    by_decision = cli.ok("impact", g["refuse"], "--json")
    assert ids_of(by_decision["stops_holding"]) == {g["refuse"], g["email"]}
    assert (by_decision["flagged"], by_decision["held"], by_decision["still_supported"]) == (
        [g["refuse"]], [g["email"]], [])


def test_impact_text_output(cli: Cli, story: dict[str, str]) -> None:
    g = story
    result = cli("impact", g["refund"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "would stop holding: 5" in out
    assert "decisions flagged (lost their last support): 2" in out
    assert f"! {g['joint'][:8]} Offer store credit within the window" in out
    assert f"‖ {g['notify'][:8]} Tell support about the offer" in out
    assert f"✓ {g['credit'][:8]} Refund order 1043 as store credit — still supported by {g['pref'][:8]}" in out


def test_impact_writes_nothing(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str],
                               postgresql: psycopg.Connection[Any]) -> None:
    g = story
    before = snapshot(postgresql)
    fragment = fragment_of(bdb, g["seven"])
    for refs in ([g["seven"]], [g["refund"], g["pref"]], ["faq.md"], [fragment], [g["refuse"]]):
        hit = cli.ok("impact", *refs, "--json")
        assert hit["flagged"], refs  # it did find something to flag
        assert cli("impact", *refs).exit_code == 0
    assert snapshot(postgresql) == before


def test_impact_of_unknown_ids_is_an_error(cli: Cli, three: dict[str, str]) -> None:
    cli.error("impact", NOBODY, code="not_found")
    err = cli.error("impact", "no-such-source.md")
    assert err["error"] in {"not_found", "unknown_belief"}, err
    cli.error("impact", three["seven"], NOBODY, code="not_found")
    assert "no-such-source.md" in cli.one_line_error("impact", "no-such-source.md")
    assert cli("impact").exit_code == 2  # needs at least one id


# --- correct ------------------------------------------------------------------------------------


def test_correct_preview_shows_what_would_change_and_writes_nothing(
        cli: Cli, story: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    g = story
    before = snapshot(postgresql)
    seen = cli.ok("correct", g["refund"][:8], FIX, "--reviewer", "rita", "--preview", "--json")
    assert set(seen) == {"belief", "revision", "would_flag", "would_hold", "still_supported", "owner", "proposed",
                         "changes", "if_approved"}
    assert seen["belief"] == g["refund"] and seen["proposed"] is False and seen["if_approved"] == []
    assert isinstance(seen["revision"], int) and seen["revision"] >= 1
    assert sorted(seen["would_flag"]) == sorted([g["joint"], g["plan"]])
    assert seen["would_hold"] == [g["notify"]]
    assert seen["still_supported"] == [{"decision": g["credit"], "by": [[g["pref"]]]}]
    text = cli("correct", g["refund"], FIX, "--reviewer", "rita", "--preview")
    assert text.exit_code == 0, text.output
    assert f"--apply --expect-revision {seen['revision']}" in text.stdout
    assert f"leave decision {g['credit'][:8]} standing, supported by {g['pref'][:8]}" in text.stdout
    assert snapshot(postgresql) == before


def test_correct_apply_flags_what_lost_support_and_keeps_what_has_other(cli: Cli, story: dict[str, str]) -> None:
    g = story
    seen = cli.ok("correct", g["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    done = cli.ok("correct", g["refund"], FIX, "--value", "original payment method", "--reviewer", "rita",
                  "--reason", "policy FAQ was wrong", "--apply", "--expect-revision", str(seen["revision"]), "--json")
    assert set(done) == {"correction", "replacement", "superseded", "flagged", "held", "already_applied",
                         "proposed", "review_item", "owner", "changes"}
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


def test_correction_replacement_is_backed_only_by_the_reviewers_text(cli: Cli, three: dict[str, str]) -> None:
    seen = cli.ok("correct", three["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    done = cli.ok("correct", three["refund"], FIX, "--value", "original payment method", "--reviewer", "rita",
                  "--apply", "--expect-revision", str(seen["revision"]), "--json")
    why = cli.ok("why", done["replacement"], "--json")
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
    assert text.exit_code == 0, text.output
    assert "already applied" in text.stdout and done["replacement"] in text.stdout


def test_correction_without_value_keeps_the_old_value(cli: Cli, three: dict[str, str]) -> None:
    seen = cli.ok("correct", three["refund"], "Refunds are store credit, per the FAQ.", "--reviewer", "rita",
                  "--preview", "--json")
    done = cli.ok("correct", three["refund"], "Refunds are store credit, per the FAQ.", "--reviewer", "rita",
                  "--apply", "--expect-revision", str(seen["revision"]), "--json")
    assert cli.ok("why", done["replacement"], "--json")["belief"]["value"] == "store credit"


def test_the_same_correction_twice_is_already_applied(cli: Cli, story: dict[str, str],
                                                       postgresql: psycopg.Connection[Any]) -> None:
    g = story
    seen = cli.ok("correct", g["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    args = ("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision", str(seen["revision"]),
            "--json")
    first = cli.ok(*args)
    corrections, beliefs = count(postgresql, "correction"), count(postgresql, "belief")
    again = cli.ok(*args)
    assert again["already_applied"] is True
    assert (again["correction"], again["replacement"], again["superseded"]) == (
        first["correction"], first["replacement"], first["superseded"])
    assert (count(postgresql, "correction"), count(postgresql, "belief")) == (corrections, beliefs)
    assert statuses(cli, "decisions")[g["joint"]] == "needs_review"


def test_the_same_idempotency_key_is_already_applied(cli: Cli, three: dict[str, str],
                                                      postgresql: psycopg.Connection[Any]) -> None:
    seen = cli.ok("correct", three["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    first = cli.ok("correct", three["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                   str(seen["revision"]), "--idempotency-key", "k-1", "--json")
    # a retry with the same key (even with a reworded text) returns the first correction
    again = cli.ok("correct", three["refund"], FIX + " Always.", "--reviewer", "rita", "--apply",
                   "--expect-revision", str(seen["revision"]), "--idempotency-key", "k-1", "--json")
    assert again["already_applied"] is True
    assert (again["correction"], again["replacement"]) == (first["correction"], first["replacement"])
    assert count(postgresql, "correction") == 1


def test_stale_correction_preview_is_exit_1_and_writes_nothing(cli: Cli, story: dict[str, str],
                                                                postgresql: psycopg.Connection[Any]) -> None:
    g = story
    seen = cli.ok("correct", g["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    # the belief changes after the preview: its source is retracted and restored
    cli.ok("retract", "--source", "faq.md", "--reason", "checking", "--json")
    cli.ok("retract", "--source", "faq.md", "--undo", "--json")
    assert belief_status(cli, g["refund"]) == "current"
    before = snapshot(postgresql)

    result = cli("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                 str(seen["revision"]), "--json")
    assert result.exit_code == 1, result.output
    err = json.loads(result.stdout)
    assert err["error"] == "stale_correction_preview"
    line = cli.one_line_error("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                              str(seen["revision"]))
    assert "stale_correction_preview" in line
    assert snapshot(postgresql) == before

    # preview again, then it applies
    fresh = cli.ok("correct", g["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    assert fresh["revision"] > seen["revision"]
    done = cli.ok("correct", g["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                  str(fresh["revision"]), "--json")
    assert done["already_applied"] is False


def test_a_second_different_correction_on_the_old_revision_is_stale(cli: Cli, three: dict[str, str],
                                                                     postgresql: psycopg.Connection[Any]) -> None:
    seen = cli.ok("correct", three["refund"], FIX, "--reviewer", "rita", "--preview", "--json")
    cli.ok("correct", three["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
           str(seen["revision"]), "--json")
    cli.error("correct", three["refund"], "Refunds are cash.", "--reviewer", "bob", "--apply", "--expect-revision",
              str(seen["revision"]), code="stale_correction_preview")
    assert count(postgresql, "correction") == 1


@pytest.mark.parametrize("mode", [["--preview", "--apply", "--expect-revision", "1"], [],
                                  ["--apply"]], ids=["both", "neither", "apply-without-revision"])
def test_correct_mode_errors_exit_2(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any],
                                    mode: list[str]) -> None:
    before = snapshot(postgresql)
    err = cli.error("correct", three["refund"], FIX, "--reviewer", "rita", *mode, code="invalid_input", exit_code=2)
    assert ("--preview" in err["message"]) or ("--expect-revision" in err["message"])
    text = cli("correct", three["refund"], FIX, "--reviewer", "rita", *mode)
    assert text.exit_code == 2 and text.stderr.startswith("error:"), text.output
    assert snapshot(postgresql) == before


def test_correct_needs_a_reviewer_and_a_known_belief(cli: Cli, three: dict[str, str],
                                                     postgresql: psycopg.Connection[Any]) -> None:
    no_reviewer = cli("correct", three["refund"], FIX, "--preview")
    assert no_reviewer.exit_code == 2 and "--reviewer" in no_reviewer.output
    cli.error("correct", NOBODY, FIX, "--reviewer", "rita", "--preview", code="unknown_belief")
    cli.error("correct", NOBODY, FIX, "--reviewer", "rita", "--apply", "--expect-revision", "1",
              code="unknown_belief")
    cli.error("correct", three["refund"], FIX, "--reviewer", "  ", "--apply", "--expect-revision", "1",
              code="invalid_input")
    assert count(postgresql, "correction") == 0


# --- retract ------------------------------------------------------------------------------------


def test_retract_source_preview_then_retract_then_undo(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str],
                                                        postgresql: psycopg.Connection[Any]) -> None:
    g = story
    fragment = fragment_of(bdb, g["refund"])
    before = snapshot(postgresql)
    preview = cli.ok("retract", "--source", "faq.md", "--reason", "poisoned", "--preview", "--json")
    assert set(preview["stopped_current"]) == {fragment, g["refund"], g["joint"], g["notify"], g["derived"],
                                               g["plan"]}
    assert sorted(preview["flagged"]) == sorted([g["joint"], g["plan"]]) and preview["held"] == [g["notify"]]
    assert preview["survives"] == [{"decision": g["credit"], "by": [[g["pref"]]]}]
    assert cli("retract", "--source", "faq.md", "--reason", "poisoned", "--preview").exit_code == 0
    assert snapshot(postgresql) == before

    changes = cli.ok("retract", "--source", "faq.md", "--reason", "poisoned", "--json")
    assert set(changes) == {"stopped_holding", "started_holding", "stopped_current", "became_current", "flagged",
                            "held", "survives", "proposed", "review_item", "owner"}
    assert changes == preview  # the preview is exactly what the apply did
    assert set(changes["stopped_holding"]) == set(preview["stopped_current"])
    assert changes["started_holding"] == [] and changes["became_current"] == []
    assert g["refund"] not in current_ids(cli) and g["derived"] not in current_ids(cli)
    assert statuses(cli, "decisions")[g["credit"]] == "active"  # independently supported
    assert statuses(cli, "actions") == {g["email"]: "scheduled", g["pay"]: "scheduled", g["notify"]: "held"}
    assert count(postgresql, "audit_event") > before["audit_event"]

    restored = cli.ok("retract", "--source", "faq.md", "--undo", "--json")
    assert set(restored["started_holding"]) == set(changes["stopped_holding"])
    assert restored["stopped_holding"] == [] and restored["flagged"] == []
    assert {g["refund"], g["derived"]} <= current_ids(cli)
    holds = {d["id"]: d["holds"] for d in cli.ok("decisions", "--json")}
    assert holds[g["joint"]] is True and holds[g["plan"]] is True


def test_retract_text_output(cli: Cli, story: dict[str, str]) -> None:
    result = cli("retract", "--source", "faq.md", "--reason", "poisoned")
    assert result.exit_code == 0, result.output
    assert "stopped holding: 6" in result.stdout
    assert "decisions flagged: 2" in result.stdout and "actions held: 1" in result.stdout


def test_retract_a_belief_by_prefix(cli: Cli, story: dict[str, str]) -> None:
    g = story
    changes = cli.ok("retract", "--belief", g["seven"][:8], "--reason", "wrong", "--json")
    assert g["seven"] in changes["stopped_holding"]
    assert sorted(changes["flagged"]) == sorted([g["refuse"], g["joint"], g["plan"]])
    assert sorted(changes["held"]) == sorted([g["email"], g["notify"]])
    assert belief_status(cli, g["seven"]) == "retracted"
    assert statuses(cli, "decisions")[g["credit"]] == "active"
    # undo brings the belief back
    restored = cli.ok("retract", "--belief", g["seven"], "--undo", "--json")
    assert g["seven"] in restored["started_holding"]
    assert belief_status(cli, g["seven"]) == "current"


def test_retract_a_fragment(cli: Cli, bdb: beliefdb.BeliefDB, story: dict[str, str]) -> None:
    g = story
    fragment = fragment_of(bdb, g["pref"])
    changes = cli.ok("retract", "--fragment", fragment, "--reason", "misheard", "--json")
    assert set(changes["stopped_holding"]) == {fragment, g["pref"]}
    assert changes["flagged"] == []  # credit still has refund
    assert belief_status(cli, g["pref"]) == "unsupported"


def test_retracting_the_latest_version_brings_the_previous_one_back(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    accept = cli.ok("decide", "Accept the return (day 10)", "--because", fifteen, "--json")["id"]
    assert belief_status(cli, seven) == "superseded"

    preview = cli.ok("retract", "--source", "policy.md", "--version", "2", "--reason", "published too early",
                     "--preview", "--json")
    assert fifteen in preview["stopped_current"] and preview["flagged"] == [accept]
    assert seven in preview["became_current"]  # the older version comes back into force, and with it 7 days

    changes = cli.ok("retract", "--source", "policy.md", "--version", "2", "--reason", "published too early",
                     "--json")
    assert changes == preview
    assert fifteen in changes["stopped_holding"]
    assert seven in changes["started_holding"]
    assert changes["flagged"] == [accept]
    window = cli.ok("beliefs", "--subject", "return_policy", "--attribute", "window", "--json")
    assert [(b["id"], b["value"]) for b in window] == [(seven, "7 days")]
    assert belief_status(cli, seven) == "current"
    assert cli.ok("decide", "Refuse (day 10)", "--because", seven, "--json")["status"] == "active"

    restored = cli.ok("retract", "--source", "policy.md", "--version", "2", "--undo", "--json")
    assert fifteen in restored["started_holding"]
    window = cli.ok("beliefs", "--subject", "return_policy", "--attribute", "window", "--json")
    assert [(b["id"], b["value"]) for b in window] == [(fifteen, "15 days")]
    assert belief_status(cli, seven) == "superseded"


def test_retracting_an_older_version_leaves_the_version_in_force(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    fifteen = remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    changes = cli.ok("retract", "--source", "policy.md", "--version", "1", "--reason", "old", "--json")
    assert fifteen not in changes["stopped_holding"] and fifteen in current_ids(cli)
    assert seven not in current_ids(cli)


def test_retracted_source_takes_both_of_its_quotes_down(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    # two quotes from one document are not independent support
    text = f"{QFEE}\nReturn shipping is now free.\n"
    first = bdb.remember("fee", "restocking_policy", "fee", "10%", QFEE, source="forum.txt", text=text,
                         authority="unverified").accepted[0].id
    second = bdb.remember("shipping", "return", "shipping", "free", "Return shipping is now free.",
                          source="forum.txt").accepted[0].id
    waive = cli.ok("decide", "Waive shipping", "--because", str(first), "--because", str(second), "--json")["id"]
    changes = cli.ok("retract", "--source", "forum.txt", "--reason", "poisoned", "--json")
    assert changes["flagged"] == [waive]
    assert {str(first), str(second)} <= set(changes["stopped_holding"])


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
    err = cli.error("retract", *args, "--reason", "r", *(["--preview"] if preview else []), code="invalid_input")
    assert "exactly one" in err["message"]
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


def test_retract_of_an_unknown_version_is_an_error(cli: Cli, three: dict[str, str],
                                                   postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    cli.error("retract", "--source", "faq.md", "--version", "9", "--reason", "r", "--preview", code="not_found")
    cli.error("retract", "--source", "faq.md", "--version", "9", "--reason", "r", code="not_found")
    assert snapshot(postgresql) == before


def test_retract_input_errors(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("retract", "--belief", three["refund"], "--version", "1", "--reason", "r", code="invalid_input")
    assert "--version" in err["message"]
    err = cli.error("retract", "--source", "faq.md", code="invalid_input")  # no reason
    assert "--reason" in err["message"]
    assert "--reason" in cli.one_line_error("retract", "--source", "faq.md", "--reason", "  ")
    cli.error("retract", "--belief", NOBODY, "--reason", "r", code="unknown_belief")
    cli.error("retract", "--fragment", NOBODY, "--reason", "r", code="not_found")
    assert snapshot(postgresql) == before


def test_retract_twice_or_undo_of_what_is_in_force_is_an_error(cli: Cli, three: dict[str, str],
                                                                postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("retract", "--source", "faq.md", "--undo", code="not_found")  # nothing to restore
    assert "restore" in err["message"]
    cli.error("retract", "--belief", three["refund"], "--undo", code="not_found")
    assert snapshot(postgresql) == before
    cli.ok("retract", "--source", "faq.md", "--reason", "r", "--json")
    err = cli.error("retract", "--source", "faq.md", "--reason", "r", code="not_found")
    assert "already retracted" in err["message"]


# --- review -------------------------------------------------------------------------------------


@pytest.fixture
def flagged(cli: Cli, bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """A decision that lost its only support (v3.3 superseded the 7-day rule) and its held action."""
    seven = remember(bdb, "policy.md", Q7, "return_policy", "window", "7 days")
    refuse = cli.ok("decide", "Refuse the return", "--because", seven, "--json")["id"]
    email = cli.ok("act", refuse, "Email the customer a refusal", "--json")["id"]
    other = cli.ok("act", refuse, "Close the ticket", "--json")["id"]
    remember(bdb, "policy.md", Q15, "return_policy", "window", "15 days")
    assert statuses(cli, "decisions") == {refuse: "needs_review"}
    assert statuses(cli, "actions") == {email: "held", other: "held"}
    items = {i["node"]: i for i in cli.ok("review", "list", "--json")}
    assert {k: i["kind"] for k, i in items.items()} == {refuse: "decision_flagged", email: "action_held",
                                                         other: "action_held"}
    return {"refuse": refuse, "email": email, "other": other, "item": items[refuse]["id"],
            "email_item": items[email]["id"]}


def test_review_list_json_and_text(cli: Cli, flagged: dict[str, str]) -> None:
    items = cli.ok("review", "list", "--json")
    assert all(set(i) >= {"id", "kind", "node", "other_node", "subject", "reason", "created_at"} for i in items)
    by_node = {i["node"]: i for i in items}
    assert by_node[flagged["refuse"]]["subject"] == "Refuse the return"
    assert "support" in by_node[flagged["refuse"]]["reason"]
    assert by_node[flagged["email"]]["subject"] == "Email the customer a refusal"
    text = cli("review", "list")
    assert text.exit_code == 0, text.output
    assert f"{flagged['item'][:8]}  decision_flagged" in text.stdout and "Refuse the return" in text.stdout


def test_review_list_when_empty(cli: Cli) -> None:
    assert cli.ok("review", "list", "--json") == []
    assert cli("review", "list").stdout.strip() == "(review queue is empty)"


def test_review_approve_by_prefix_releases_the_held_actions(cli: Cli, flagged: dict[str, str],
                                                            postgresql: psycopg.Connection[Any]) -> None:
    audit_before = count(postgresql, "audit_event")
    result = cli.ok("review", "approve", flagged["item"][:8], "--note", "customer is a VIP", "--json")
    assert (result["kind"], result["node"], result["status"]) == ("decision_flagged", flagged["refuse"], "approved")
    assert statuses(cli, "decisions") == {flagged["refuse"]: "approved"}
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "scheduled"}
    assert cli.ok("review", "list", "--json") == []  # the action items went with the decision
    note = postgresql.execute("select note from beliefdb.review_item where id = %s", (flagged["item"],)).fetchone()
    assert note == ("customer is a VIP",)
    # every transition is audited
    assert count(postgresql, "audit_event") > audit_before


def test_review_reject_cancels_the_held_actions(cli: Cli, flagged: dict[str, str]) -> None:
    text = cli("review", "reject", flagged["item"])
    assert text.exit_code == 0, text.output
    assert text.stdout.strip() == f"decision_flagged {flagged['refuse']}: rejected"
    assert statuses(cli, "decisions") == {flagged["refuse"]: "rejected"}
    assert statuses(cli, "actions") == {flagged["email"]: "cancelled", flagged["other"]: "cancelled"}
    assert [a["id"] for a in cli.ok("actions", "--status", "cancelled", "--json")] == [flagged["email"],
                                                                                       flagged["other"]]
    assert cli.ok("review", "list", "--json") == []


def test_review_of_a_single_held_action(cli: Cli, flagged: dict[str, str]) -> None:
    cli.ok("review", "approve", flagged["email_item"], "--json")
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "held"}
    assert statuses(cli, "decisions") == {flagged["refuse"]: "needs_review"}
    other_item = next(i["id"] for i in cli.ok("review", "list", "--json") if i["node"] == flagged["other"])
    cli.ok("review", "reject", other_item, "--json")
    assert statuses(cli, "actions") == {flagged["email"]: "scheduled", flagged["other"]: "cancelled"}
    assert [i["node"] for i in cli.ok("review", "list", "--json")] == [flagged["refuse"]]


def test_resolving_twice_is_an_error(cli: Cli, flagged: dict[str, str]) -> None:
    cli.ok("review", "approve", flagged["item"], "--json")
    cli.error("review", "approve", flagged["item"], code="not_found")
    cli.error("review", "reject", flagged["item"][:8], code="not_found")
    assert "error:" in cli.one_line_error("review", "reject", flagged["item"])
    assert statuses(cli, "decisions") == {flagged["refuse"]: "approved"}  # the second verdict changed nothing
    assert set(statuses(cli, "actions").values()) == {"scheduled"}


def test_review_unknown_item_is_an_error(cli: Cli, flagged: dict[str, str]) -> None:
    cli.error("review", "approve", NOBODY, code="not_found")
    cli.error("review", "approve", "zzzz", code="not_found")
    assert len(cli.ok("review", "list", "--json")) == 3


@pytest.fixture
def conflict(cli: Cli, bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """Two equal-authority sources, same valid time, different values: a rule-8 tie."""
    since = "2025-03-01T00:00:00+00:00"
    a = remember(bdb, "a.md", Q7, "return_policy", "window", "7 days", authority="user", valid_from=since)
    b = remember(bdb, "b.md", Q15, "return_policy", "window", "15 days", authority="user", valid_from=since)
    assert belief_status(cli, a) == belief_status(cli, b) == "conflicting"
    (item,) = cli.ok("review", "list", "--json")
    assert item["kind"] == "conflict" and {item["node"], item["other_node"]} == {a, b}
    return {"a": a, "b": b, "item": item["id"]}


def test_approving_a_conflict_needs_a_winner(cli: Cli, conflict: dict[str, str],
                                             postgresql: psycopg.Connection[Any]) -> None:
    before = snapshot(postgresql)
    err = cli.error("review", "approve", conflict["item"], code="invalid_input")
    assert "--winner" in err["message"]
    assert "--winner" in cli.one_line_error("review", "approve", conflict["item"])
    assert snapshot(postgresql) == before
    assert len(cli.ok("review", "list", "--json")) == 1  # still open


def test_approving_a_conflict_with_a_winner_supersedes_the_loser(cli: Cli, conflict: dict[str, str]) -> None:
    result = cli.ok("review", "approve", conflict["item"][:8], "--winner", conflict["b"][:8], "--json")
    assert (result["kind"], result["status"]) == ("conflict", "approved")
    assert belief_status(cli, conflict["b"]) == "current"
    assert belief_status(cli, conflict["a"]) == "superseded"
    assert cli.ok("review", "list", "--json") == []
    why = cli.ok("why", conflict["b"], "--json")
    assert [h["old_belief"] for h in why["replaced"]] == [conflict["a"]]


def test_a_winner_outside_the_conflict_is_an_error(cli: Cli, bdb: beliefdb.BeliefDB,
                                                   conflict: dict[str, str]) -> None:
    outsider = remember(bdb, "faq.md", QREFUND, "refund", "method", "store credit")
    cli.error("review", "approve", conflict["item"], "--winner", outsider, code="invalid_input")
    assert belief_status(cli, conflict["a"]) == belief_status(cli, conflict["b"]) == "conflicting"
    assert len(cli.ok("review", "list", "--json")) == 1


# --- demo ---------------------------------------------------------------------------------------


def test_demo_tells_the_truth_maintenance_story(cli: Cli, db_url: str) -> None:
    result = runner.invoke(beliefdb.cli.app, ["demo", "--keep", "--db", db_url])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "needs_review" in out
    assert "[held]" in out
    assert FIX in out
    assert "poisoned" in out
    assert "human_correction" in out
    assert "audit chain ok" in out
    # only the refusal and the waiver were flagged; the two-reason refund survived the correction
    demo_ws = next(w["name"] for w in cli.ok("workspace", "list", "--json") if w["name"] != "default")
    decisions = {d["title"]: d["status"] for d in cli.ok("decisions", "-w", demo_ws, "--json")}
    assert decisions == {"Refuse the return of order 1042 (day 10)": "needs_review",
                         "Refund order 1043 as store credit": "active",
                         "Waive return shipping for order 1044": "needs_review"}
    actions = {a["description"]: a["status"] for a in cli.ok("actions", "-w", demo_ws, "--json")}
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
def test_help_mentions_every_option(path: tuple[str, ...]) -> None:
    result = runner.invoke(beliefdb.cli.app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    text = _flat(result.stdout)
    assert "Usage:" in text
    missing = [w for w in HELP[path] if w not in text]
    assert not missing, (path, missing)


def test_top_level_help_lists_the_new_commands() -> None:
    result = runner.invoke(beliefdb.cli.app, ["--help"])
    assert result.exit_code == 0, result.output
    text = _flat(result.stdout)
    for command in ("decide", "act", "derive", "decisions", "actions", "impact", "correct", "retract", "review"):
        assert command in text, command
