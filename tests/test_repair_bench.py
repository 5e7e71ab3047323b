"""The rollback-repair benchmark (bench/repair/) runs, and measures what it claims to.

Pure-Python checks of the generated cases (a fault always changes the answer; every step's
payload is a function of its recorded inputs, so replaying through the agent is faithful), then a
small run of all six methods against the test database."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "repair"
sys.path.insert(0, str(BENCH))

import agent  # noqa: E402
import cases  # noqa: E402
import methods  # noqa: E402
import run as bench_run  # noqa: E402

KEYS = {"recovery_single", "recovery_compound", "fault_removal", "benign_retention", "replay_ratio",
        "executor_calls", "recurrence"}


@pytest.mark.parametrize("seed", [1, 7])
def test_every_case_has_a_fault_that_changes_the_answer(seed: int) -> None:
    made = cases.make_cases(seed, 12)
    assert {c.domain for c in made} == {"travel", "shopping", "service"}
    assert any(c.compound for c in made) and any(not c.compound for c in made)
    for c in made:
        assert c.faulty.answer != c.clean.answer
        assert 1 <= len(c.faults) <= 4
        assert len(c.faulty.faults) == len(c.faults)


def test_steps_depend_only_on_what_they_record() -> None:
    """Recomputing every non-read step from its recorded inputs gives back its payload: nothing the
    agent used is missing from the trace (else a replay could not be faithful)."""
    for c in cases.make_cases(3, 6):
        trace = c.faulty.trace
        for step in trace.steps.values():
            if step.kind == "memory_read" or step.payload["op"] == "import":
                continue
            inputs = [agent.Input(e, "step", trace.steps[n].payload) for e, n in step.inputs if n in trace.steps]
            out = agent.execute(c.world, step.kind, step.payload, inputs, agent.LocalMemory(agent.Trace()))
            assert out.payload == step.payload, step.payload["slot"]


def test_ground_truth_taint_explains_every_wrong_memory() -> None:
    for c in cases.make_cases(5, 9):
        bad, benign = methods.memory_classes(c)  # raises when a wrong memory is not downstream of a fault
        assert set(c.faulty.faults) <= bad
        assert not bad & benign


@pytest.mark.slow
def test_benchmark_runs_all_methods(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert bench_run.main(["--seed", "2", "--cases", "2", "--offset", "5", "--json", "--db", db_url,
                                  "--jobs", "1"]) == 0
    figures = json.loads(out.getvalue())
    assert set(figures) == set(methods.METHODS)
    for method, f in figures.items():
        assert set(f) == KEYS, method
        for key in KEYS - {"executor_calls"}:
            assert 0.0 <= f[key] <= 1.0, (method, key)
        assert f["executor_calls"] >= 0
    # cases 5 and 6 of seed 2: single-fault (5: stale) and compound (6: wrong_user, stale, stale), as cases 4-7
    # were, in 332 steps against 718 (recording each case's run anew for each of the six methods is most of
    # the time); every case's fault changes the answer: doing nothing recovers nothing and the fault comes back
    assert figures["no_repair"]["recovery_single"] == 0.0
    assert figures["no_repair"]["recurrence"] == 1.0
    assert figures["no_repair"]["executor_calls"] == 0
    assert figures["beliefdb"]["recovery_single"] > figures["no_repair"]["recovery_single"]
    assert figures["beliefdb"]["fault_removal"] == 1.0
    assert figures["beliefdb"]["recurrence"] == 0.0
    # the plan replays only what the final answers need: fewer calls than replaying everything affected
    assert figures["beliefdb"]["executor_calls"] <= figures["full_replay"]["executor_calls"]
    assert figures["beliefdb"]["replay_ratio"] <= figures["full_replay"]["replay_ratio"]
