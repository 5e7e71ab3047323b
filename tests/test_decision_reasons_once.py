"""A reason cited twice is one reason: the same belief by id and by a prefix of it (``decide --because X
--because <prefix of X>``), or the same beliefs of a joint reason in another order, record one reason
(beliefdb.decide, and so decide_in_run and the CLI); different reasons all stay."""

from __future__ import annotations

from uuid import UUID

from conftest import Cli

import beliefdb

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"


def _beliefs(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    window = str(bdb.beliefs(attribute="window")[0].id)
    fee = str(bdb.beliefs(attribute="fee")[0].id)
    return window, fee


def _reasons(bdb: beliefdb.BeliefDB, decision: UUID) -> list[list[str]]:
    (found,) = bdb.decisions(of=decision)
    return sorted(sorted(b["id"] for b in r["beliefs"]) for r in found.reasons)


def test_the_same_belief_by_id_and_by_prefix_is_one_reason(bdb: beliefdb.BeliefDB) -> None:
    window, fee = _beliefs(bdb)
    made = bdb.decide("Refuse the return", because=[window, window[:8], window.upper()])
    assert _reasons(bdb, made.id) == [[window]]
    joint = bdb.decide("Refuse, and charge the fee", all_of=[[window, fee], [fee[:6], window], [window, window[:5]]])
    assert _reasons(bdb, joint.id) == sorted([sorted([window, fee]), [window]])
    both = bdb.decide("Refuse", because=[window, fee, fee[:7]], all_of=[[fee]])
    assert _reasons(bdb, both.id) == sorted([[window], [fee]])


def test_in_a_run_too(bdb: beliefdb.BeliefDB) -> None:
    window, _ = _beliefs(bdb)
    run = bdb.record_step("user_input", {}, task="refund").run
    bdb.ask("how many days for returns?", k=1, run=run)
    made = bdb.decide_in_run(run, "Refuse the return", because=[window, window[:8]])
    assert (made.status, made.refused) == ("active", [])
    assert _reasons(bdb, made.id) == [[window]]


def test_on_the_command_line(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    window, _ = _beliefs(bdb)
    cli("decide", "Refuse the return", "--because", window, "--because", window[:8])
    (made,) = bdb.decisions()
    assert _reasons(bdb, made.id) == [[window]]
