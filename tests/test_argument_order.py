"""One order for every method: what is wrong with the call itself (an argument missing, malformed, or
not going with another) is said before anything is looked up (an unknown source, belief or run), as
click reports a missing option before the command runs. ``record_step`` and ``why`` looked the run
or the belief up first."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

import beliefdb
from beliefdb import errors

OUT_OF_RANGE = datetime(1, 1, 1)


def refusal(call: Callable[[], Any]) -> errors.BeliefDBError:
    with pytest.raises(errors.BeliefDBError) as caught:
        call()
    return caught.value


def test_the_call_is_checked_before_what_it_names_is_looked_up(bdb: beliefdb.BeliefDB) -> None:
    said = [
        (lambda: bdb.retract(source="nope.md"), "a retraction needs reason="),
        (lambda: bdb.retract(source="nope.md", version=2 ** 40, reason="x"), "is out of range"),
        (lambda: bdb.apply_correction("0000dead", "x", reviewer="", expect_revision=1), "a correction needs reviewer="),
        (lambda: bdb.act("0000dead", ""), "an action needs a description"),
        (lambda: bdb.record_outcome("0000dead", "bogus"), "invalid outcome 'bogus'"),
        (lambda: bdb.resolve_review("0000dead", "bogus"), "verdict must be approved or rejected"),
        (lambda: bdb.why("0000dead", as_of=OUT_OF_RANGE), "as_of: 0001-01-01T00:00:00 is out of range"),
        (lambda: bdb.why_graph("0000dead", as_of=OUT_OF_RANGE), "as_of: 0001-01-01T00:00:00 is out of range"),
        (lambda: bdb.record_step("bogus", run="0000dead"), "unknown step kind 'bogus'"),
        (lambda: bdb.record_step("plan", run="0000dead", inputs=[("bogus", "x")]), "unknown input edge 'bogus'"),
        (lambda: bdb.record_step("plan", run="0000dead", supports=["x"]), "not a node id: 'x'"),
        (lambda: bdb.record_step("tool_call", run="0000dead", supports=["7c0c2a7e-2f6d-4a0e-9a8b-0c1d2e3f4a5b"]),
         "a tool_call takes the verdict of its inputs"),
        (lambda: bdb.record_step("plan", run="0000dead", memory={"subject": "x"}),
         "a memory needs a subject and an attribute"),
    ]
    for call, message in said:
        refused = refusal(call)
        assert isinstance(refused, errors.InvalidInput) and message in refused.message, refused


def test_a_well_formed_call_then_names_what_is_unknown(bdb: beliefdb.BeliefDB) -> None:
    assert isinstance(refusal(lambda: bdb.retract(source="nope.md", reason="x")), errors.NotFound)
    assert isinstance(refusal(lambda: bdb.record_step("plan", run="0000dead")), errors.NotFound)
    assert isinstance(refusal(lambda: bdb.why("0000dead", as_of=datetime(2026, 1, 1))), errors.UnknownBelief)
    assert bdb.runs() == []  # nothing of the refused steps was written
