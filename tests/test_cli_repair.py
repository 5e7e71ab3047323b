"""The run and repair commands of the CLI, end to end against a real PostgreSQL, and ``demo repair``."""

from __future__ import annotations

import re

from conftest import Cli

import beliefdb
from tests.test_repair import record_story


def test_runs_and_run_show(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    runs = cli.json("runs")
    assert [r["id"] for r in runs] == [str(s.run1), str(s.run2)]
    assert [r["steps"] for r in runs] == [4, 15]
    shown = cli.json("run", str(s.run2)[:8])
    assert [st["kind"] for st in shown["steps"]][:3] == ["user_input", "memory_read", "memory_read"]
    crm = [i for i in shown["inputs"] if i["step_id"] == str(s.c_crm)]
    assert {(i["edge"], i["alternative"]) for i in crm} == {("cites", False), ("supports", True)}
    text = cli("run", str(s.run2))
    assert "supports (alone)" in text.stdout and "[holds]" in text.stdout


def test_repair_plan_and_apply(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    plan = cli.json("repair", "plan", "--faulty", str(s.m_bad))
    assert plan["faulty"] == [str(s.m_bad)]
    replay = [i["node"] for i in plan["items"] if i["action"] == "replay"]
    assert replay == [str(x) for x in (s.r_bad, s.c_tier, s.plan, s.t_book, s.o_book, s.answer)]
    text = cli("repair", "plan", "--faulty", str(s.m_bad)[:8])
    assert "saved by " + str(s.o_crm)[:8] in text.stdout
    assert "--all lists them" in text.stdout
    every = cli.json("repair", "plan", "--faulty", str(s.m_bad), "--all")
    assert len(every["items"]) > len(plan["items"])  # the untouched steps of the run, listed
    assert str(s.note) in {i["node"] for i in every["items"]} - {i["node"] for i in plan["items"]}
    ablation = cli.json("repair", "plan", "--faulty", str(s.m_bad), "--no-independent-evidence")
    assert len([i for i in ablation["items"] if i["action"] == "replay"]) == 7
    applied = cli.json("repair", "apply", "--faulty", str(s.m_bad))
    assert [i["node"] for i in applied["plan"]["items"] if i["action"] == "replay"] == replay
    assert str(s.m_bad) in applied["changes"]["stopped_holding"]
    assert {b.id: b.status for b in bdb.beliefs(subject="user:42", include_all=True)}[s.m_fare] == "quarantined"


def test_repair_errors_are_one_line(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    record_story(bdb)
    result = cli("repair", "plan", "--faulty", "00000000-0000-4000-8000-000000000000", expect=1)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert cli.json("repair", "apply", "--faulty", "deadbeef", expect=1)["error"] == "unknown_belief"
    assert cli.json("repair", "apply", "--faulty", "nope", expect=1)["error"] == "invalid_input"  # no id at all
    cli("repair", "plan", expect=2)  # --faulty is required
    cli("run", "ffffffff", "--json", expect=1)


def test_demo_repair_tells_the_story(cli: Cli) -> None:
    result = cli("demo", "repair")
    out = result.stdout
    assert "answer: Booked SFO-JFK in business for $1450." in out
    assert "replayed 6 step(s) with 6 executor call(s)" in out
    assert '{"text": "Booked SFO-JFK in economy for $320."}' in out
    assert "supports it on its own" in out
    assert "loyalty_tier     Gold       [retracted]" in out
    assert "preferred_cabin  business   [quarantined]" in out
    assert "home_airport     SFO        [current]" in out
    assert "Audit chain: verified" in out


def test_repair_plan_answers_for_who_would_apply_it(cli: Cli, alice: beliefdb.BeliefDB,
                                                     bob: beliefdb.BeliefDB) -> None:
    """A repair changes by hand only what the acting principal owns (rule 17): the plan, asked --as that
    principal, says beside each item another principal's call; apply --as it is refused in one line."""
    from tests.test_repair_ownership import share

    s = share(bob, alice)
    suffix = "(or a login granted beliefdb_eraser) may apply this repair"
    as_bob = {i["node"]: i["reason"] for i in
              cli.json("repair", "plan", "--faulty", str(s.faulty), "--as", "bob")["items"]}
    assert as_bob[str(s.faulty)] == "named as faulty"
    assert as_bob[str(s.mine)].endswith(f"; owned by alice: only alice {suffix}")
    as_alice = {i["node"]: i["reason"] for i in
                cli.json("repair", "plan", "--faulty", str(s.faulty), "--as", "alice")["items"]}
    assert as_alice[str(s.faulty)].endswith(f"; owned by bob: only bob {suffix}")
    assert not as_alice[str(s.mine)].endswith(suffix)
    refused = cli("repair", "apply", "--faulty", str(s.faulty), "--as", "bob", expect=1)
    assert refused.stderr.startswith(f"error: this repair would quarantine belief {s.mine}, owned by alice")


def _figure(pattern: str, text: str) -> int:
    found = re.search(pattern, text, re.M)
    assert found, text
    return int(found.group(1))


def test_plan_and_apply_count_preserve_alike(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """The plan and the apply name one figure for what is preserved, untouched steps included (the plan
    lists them with --all only, and says how many it leaves out)."""
    s = record_story(bdb)
    text = cli("repair", "plan", "--faulty", str(s.m_bad)).stdout
    every = cli("repair", "plan", "--faulty", str(s.m_bad), "--all").stdout
    planned = _figure(r"^preserve: (\d+)", text)
    untouched = _figure(r"^preserve: \d+ \((\d+) of them", text)
    assert _figure(r"^preserve: (\d+)", every) == planned
    listed = [line for line in text.splitlines() if line.startswith("  ✓ ")]
    assert len(listed) == planned - untouched and untouched > 0
    assert "not reachable from the faulty memories" not in text and "not reachable" in every
    applied = cli("repair", "apply", "--faulty", str(s.m_bad)).stdout
    assert f", {planned} preserve" in applied


def test_a_repair_takes_faulty_memories_only(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """Rule 10: a repair starts from faulty memories, beliefs a step of a recorded run wrote. An id of a
    decision (or a step) is said to be one, not "unknown belief"; a belief that rests on a quote, not on
    a step, is no memory to roll back: it is refused, pointing at retract (which keeps its history)."""
    s = record_story(bdb)
    decision = bdb.decide("Book business", because=[s.m_home]).id
    (quoted,) = bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="policy.md").accepted
    for command in ("plan", "apply"):
        said = cli("repair", command, "--faulty", str(decision)[:8], expect=1).stderr.strip()
        assert said == (f"error: {decision} is a decision, not a memory: a repair takes faulty memories, beliefs"
                        " a step of a recorded run wrote (rule 10)"), said
        said = cli("repair", command, "--faulty", str(s.plan), expect=1).stderr.strip()
        assert said.startswith(f"error: {s.plan} is a step, not a memory"), said
        said = cli("repair", command, "--faulty", str(quoted.id), expect=1).stderr.strip()
        assert said == (f"error: belief {quoted.id} is no memory: no step of a recorded run wrote it, and a"
                        " repair takes faulty memories (rule 10); retract it instead (beliefdb retract)"), said
        # (with a memory beside it, too: nothing is planned or applied)
        assert cli.json("repair", command, "--faulty", str(s.m_bad), "--faulty", str(quoted.id),
                        expect=1)["error"] == "invalid_input"
    assert cli.json("repair", "apply", "--faulty", "deadbeef", expect=1)["error"] == "unknown_belief"
    assert {b.id: b.status for b in bdb.beliefs(include_all=True)}[s.m_bad] == "current"
