"""What ``impact`` says of a decision or an action that would be current again (rule 4): it would hold
again, and what a person decided stays so. A trial read ``action [...] Email Carla the refusal
[cancelled] — would be current again`` and ``decision [...] [rejected] — would be current again``, as if
they would be carried out again; an action done read as if it would run again. --json keeps its ids."""

from __future__ import annotations

from conftest import Cli

import beliefdb


def remember(bdb: beliefdb.BeliefDB, source: str, quote: str, value: str) -> str:
    """An official belief of the return window, quoted from ``quote`` (the text of ``source``): its id."""
    report = bdb.remember(f"returns window is {value}", "returns", "window", value, quote, source=source,
                          text=quote + "\n", authority="official")
    (accepted,) = report.accepted
    return str(accepted.id)


def _rejected_story(bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """A decision on a 30-day window, superseded by a stronger 60-day one: the decision is flagged and
    then rejected (its scheduled action cancelled, the one done stays done)."""
    old = remember(bdb, "policy-a", "Returns within 30 days.", "30 days")
    decision = bdb.decide("Refuse Carla's return", because=[old])
    email = bdb.act(decision.id, "Email Carla the refusal")
    logged = bdb.act(decision.id, "Log the refusal")
    bdb.record_outcome(logged.id, "succeeded")
    new = remember(bdb, "policy-b", "Returns within 60 days.", "60 days")
    (item,) = [r for r in bdb.review_items() if r.kind == "decision_flagged"]
    bdb.resolve_review(item.id, "rejected")
    return {"old": old, "new": new, "decision": str(decision.id), "email": str(email.id), "logged": str(logged.id)}


def test_impact_says_a_rejected_decision_and_a_cancelled_action_stay_so(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    ids = _rejected_story(bdb)
    text = cli("impact", ids["new"]).stdout
    assert "[rejected] — would hold again (rejected: stays rejected)" in text
    assert "Email Carla the refusal  [cancelled] — would hold again (cancelled: stays cancelled)" in text
    assert "Log the refusal  [done] — would hold again (done)" in text
    # the belief that comes back is current again, as before
    assert "returns window is 30 days  [superseded] — would be current again" in text
    for line in text.splitlines():
        assert not ("would be current again" in line and ("[rejected]" in line or "[cancelled]" in line
                                                          or "[done]" in line)), line
    # a drawn node says it as the text does
    drawn = cli("impact", ids["new"], "--format", "mermaid").stdout
    assert "rejected, would hold again #40;rejected: stays rejected#41;" in drawn
    assert "cancelled, would hold again #40;cancelled: stays cancelled#41;" in drawn
    # only the words changed: --json lists the same ids as current again
    seen = cli.json("impact", ids["new"])
    assert {x["id"] for x in seen["becomes_current"]} == {ids["old"], ids["decision"], ids["email"], ids["logged"]}


def test_a_flagged_decision_and_its_held_action_would_hold_again_and_stay_flagged_and_held(
        cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    old = remember(bdb, "policy-a", "Returns within 30 days.", "30 days")
    decision = bdb.decide("Refuse Carla's return", because=[old])
    bdb.act(decision.id, "Email Carla the refusal")
    new = remember(bdb, "policy-b", "Returns within 60 days.", "60 days")
    text = cli("impact", new).stdout
    assert "[needs_review] — flagged: needs review, would hold again (stays flagged until a person reviews it)" \
           in text
    assert "[held] — would hold again (held: stays held until a person releases it)" in text
