"""The truth-maintenance commands of the beliefdb CLI (decide, act, derive, impact, correct, retract)
on three independent current beliefs, each from its own source. The beliefs are written once, into a
template database (conftest.seeded_proc), and every test starts from a fresh clone of it.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from pytest_postgresql import factories
from test_cli_truth import (
    FIX,
    NOBODY,
    QREFUND,
    count,
    ids_of,
    snapshot,
    write_three,
)

import beliefdb

three_beliefs_proc = seeded_proc(write_three)
postgresql = factories.postgresql("three_beliefs_proc")


@pytest.fixture
def three(postgresql: psycopg.Connection[Any]) -> dict[str, str]:
    """Three independent current beliefs, each from its own source: this test's database holds them."""
    return dict(SEEDS[postgresql.info.dbname])


# --- decide -------------------------------------------------------------------------------------


def test_decide_json_is_id_and_active_status(cli: Cli, three: dict[str, str]) -> None:
    recorded = cli.json("decide", "Refuse the return of order 1042", "--because", three["seven"])
    assert set(recorded) == {"id", "status", "already_applied", "notes"} and recorded["already_applied"] is False
    assert recorded["notes"] == []  # (its one reason is current and in no conflict)
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
    cli.error("decide", "Refuse", "--all-of", f"{three['seven']},0000dead", code="unknown_belief")
    cli.error("decide", "Refuse", "--all-of", f"{three['seven']},zzzz", code="invalid_input")  # (no id at all)
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
    assert set(recorded) == {"id", "status", "already_applied"} and recorded["already_applied"] is False
    assert recorded["status"] == "scheduled"
    (listed,) = cli.json("actions")
    assert (listed["id"], listed["decision_id"], listed["description"], listed["status"]) == (
        recorded["id"], decision["id"], "Email the customer a refusal", "scheduled")
    text = cli("act", decision["id"], "Call the customer")
    assert text.stdout.startswith("action ") and text.stdout.strip().endswith("[scheduled]")


def test_act_on_an_unknown_decision_is_an_error_and_writes_nothing(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    cli.error("act", NOBODY, "Email", code="not_found")
    cli.error("act", "not-a-uuid", "Email", code="invalid_input")  # (no id at all: bad input)
    cli.error("act", three["seven"], "Email", code="not_found")  # a belief is not a decision
    line = cli.one_line_error("act", NOBODY, "Email")
    assert "unknown decision" in line
    assert count(postgresql, "action") == 0


# --- derive -------------------------------------------------------------------------------------


def test_derive_records_a_current_belief_that_needs_all_its_sources(cli: Cli, three: dict[str, str]) -> None:
    derived = cli.json("derive", "Returns within 7 days are refunded as store credit", "--subject", "return_refund",
                       "--attribute", "method", "--value", "store credit", "--from",
                       f"{three['seven']},{three['refund'][:8]}")
    assert set(derived) == {"id", "status", "already_applied", "embedding_deferred", "provenance"}
    assert derived["status"] == "current" and derived["embedding_deferred"] is None
    assert derived["provenance"] == "production"
    (listed,) = cli.json("beliefs", "--subject", "return_refund")
    assert listed["id"] == derived["id"]
    assert (listed["attribute"], listed["value"], listed["confidence_kind"]) == ("method", "store credit",
                                                                                 "derived")
    # all of them are needed: losing either one takes it down
    for lost in (three["seven"], three["refund"]):
        assert derived["id"] in ids_of(cli.json("impact", lost)["stops_holding"])
    assert derived["id"] not in ids_of(cli.json("impact", three["pref"])["stops_holding"])


def test_derive_errors(cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    beliefs_before = count(postgresql, "belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", NOBODY,
              code="unknown_belief")
    cli.error("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", "--from", " , ",
              code="invalid_input", expect=2)  # (a usage error: names no belief)
    assert count(postgresql, "belief") == beliefs_before
    missing = cli("derive", "S", "--subject", "x", "--attribute", "y", "--value", "z", expect=2)  # no --from
    assert "--from" in missing.output


# --- impact -------------------------------------------------------------------------------------


def test_impact_of_unknown_ids_is_an_error(cli: Cli, three: dict[str, str]) -> None:
    cli.error("impact", NOBODY, code="not_found")
    err = cli.error("impact", "no-such-source.md")
    assert err["error"] in {"not_found", "unknown_belief"}, err
    cli.error("impact", three["seven"], NOBODY, code="not_found")
    assert "no-such-source.md" in cli.one_line_error("impact", "no-such-source.md")
    cli("impact", expect=2)  # needs at least one id


# --- correct ------------------------------------------------------------------------------------


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


def test_a_second_different_correction_on_the_old_revision_is_not_correctable(
        cli: Cli, three: dict[str, str], postgresql: psycopg.Connection[Any]) -> None:
    """The first correction superseded the belief: the second is refused as a new preview would refuse
    it (not_correctable, naming the replacement), not as a stale preview."""
    seen = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--preview")
    first = cli.json("correct", three["refund"], FIX, "--reviewer", "rita", "--apply", "--expect-revision",
                     str(seen["revision"]))
    err = cli.error("correct", three["refund"], "Refunds are cash.", "--reviewer", "bob", "--apply",
                    "--expect-revision", str(seen["revision"]), code="not_correctable")
    assert first["replacement"] in err["message"]
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
              code="invalid_input", expect=2)
    assert count(postgresql, "correction") == 0


# --- retract ------------------------------------------------------------------------------------


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
    err = cli.error("retract", "--source", "faq.md", code="invalid_input", expect=2)  # no reason: a usage error
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
    err = cli.error("retract", "--source", "faq.md", "--reason", "r", code="already_retracted")
    assert "already retracted" in err["message"]


# --- numbers too large ----------------------------------------------------------------------


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
