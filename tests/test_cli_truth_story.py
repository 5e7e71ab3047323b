"""The truth-maintenance commands of the beliefdb CLI (impact, correct, retract) on a small graph of
decisions, actions and a derived belief over three beliefs (write_story in tests/test_cli_truth.py). The
graph is written once, into a template database (conftest.seeded_proc), and every test starts from a
fresh clone of it.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from pytest_postgresql import factories
from test_cli_truth import (
    FIX,
    belief_status,
    count,
    current_ids,
    fragment_of,
    ids_of,
    snapshot,
    statuses,
    write_story,
)

import beliefdb

story_graph_proc = seeded_proc(write_story)
postgresql = factories.postgresql("story_graph_proc")


@pytest.fixture
def story(postgresql: psycopg.Connection[Any]) -> dict[str, str]:
    """The small graph of write_story: this test's database holds it."""
    return dict(SEEDS[postgresql.info.dbname])


# --- impact -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_impact_of_a_belief_groups_the_effects(cli: Cli, story: dict[str, str]) -> None:
    g = story
    hit = cli.json("impact", g["refund"])
    assert set(hit) == {"stops_holding", "stops_current", "becomes_current", "flagged", "held", "still_supported"}
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
