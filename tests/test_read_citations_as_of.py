"""Rule 19 for a read as of a past moment: the memory_read step records the moment it read memory as
of, and a decision of the run citing a belief that is not current now is refused (it is not current)
with a reason that says what happened: superseded since the run read it only when it was current when
the run read it; superseded already then (read as of a moment before it was), it says so."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import beliefdb

V1 = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
V2 = V1.replace("7 days", "15 days")
QUESTION = "how many days for returns?"


def _past_and_superseded(bdb: beliefdb.BeliefDB) -> tuple[str, datetime, str]:
    """A run, a moment when the 7-day belief was current, and that belief (superseded since)."""
    bdb.ingest_text(V1, source="return-policy.md", authority="official")
    seven = str(bdb.beliefs(attribute="window")[0].id)
    time.sleep(0.05)
    before = datetime.now(UTC)
    time.sleep(0.05)
    bdb.ingest_text(V2, source="return-policy.md", authority="official")
    run = str(bdb.record_step("user_input", {"text": "Can I return it on day 10?"}, task="refund 1042").run)
    return run, before, seven


def test_a_read_as_of_a_past_moment_records_the_moment(bdb: beliefdb.BeliefDB) -> None:
    run, before, seven = _past_and_superseded(bdb)
    shown = bdb.ask(QUESTION, k=1, as_of=before, run=run)
    assert [str(a.belief.id) for a in shown.beliefs] == [seven]
    bdb.why(seven, as_of=before, run=run)
    reads = [s for s in bdb.steps(run) if s.kind == "memory_read"]
    assert [s.payload for s in reads] == [{"question": QUESTION, "as_of": before.isoformat()},
                                          {"why": seven, "as_of": before.isoformat()}]
    bdb.ask(QUESTION, k=1, run=run)  # a read of now records no moment
    assert bdb.steps(run)[-1].payload == {"question": QUESTION}


def test_superseded_before_the_run_read_it_is_refused_without_saying_since(bdb: beliefdb.BeliefDB) -> None:
    run, before, seven = _past_and_superseded(bdb)
    bdb.ask(QUESTION, k=1, as_of=before, run=run)
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[seven])
    assert [r.belief for r in made.refused] == [seven]  # not current: refused all the same
    reason = made.refused[0].reason
    assert "since this run read it" not in reason
    assert reason == (f"not current (superseded), nor when this run read it (as of {before.isoformat()}):"
                      " a decision cites only what is current")
    assert made.status == "needs_review"


def test_current_when_read_as_of_a_past_moment_and_superseded_since_says_since(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(V1, source="return-policy.md", authority="official")
    seven = str(bdb.beliefs(attribute="window")[0].id)
    time.sleep(0.05)
    before = datetime.now(UTC)
    run = str(bdb.record_step("user_input", {}, task="refund 1042").run)
    bdb.ask(QUESTION, k=1, as_of=before, run=run)  # current then, and when the run read it
    bdb.ingest_text(V2, source="return-policy.md", authority="official")
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[seven])
    assert [(r.belief, r.reason) for r in made.refused] == [
        (seven, "no longer current (superseded) since this run read it")]
