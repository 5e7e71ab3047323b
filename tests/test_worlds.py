"""Provenance labels are separate worlds (rule 15): fixture and synthetic material never supersedes,
conflicts with, corroborates or raises the confidence of production history, never flags a
production decision, and is never quoted in a production answer; inside its own world it settles
like production does."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import Cli
from hypothesis import HealthCheck, given, settings

import beliefdb
from beliefdb import errors

SEVEN = "Returns are accepted within 7 days of delivery.\n"
FIFTEEN = "Returns are accepted within 15 days of delivery.\n"
FEE = "The restocking fee is 10%.\n"


def window(db: beliefdb.BeliefDB, **kwargs: Any) -> dict[str, tuple[str, str]]:
    return {b.value: (b.status, b.provenance) for b in db.beliefs(subject="return_policy", include_all=True,
                                                                   **kwargs)}


@pytest.mark.slow
def test_a_fixture_never_supersedes_production_nor_flags_what_rests_on_it(bdb: beliefdb.BeliefDB) -> None:
    (seven,) = bdb.ingest_text(SEVEN, source="policy.md", authority="internal").accepted
    refuse = bdb.decide("Refuse the return of order 1042", because=[seven.id])
    email = bdb.act(refuse.id, "Email the customer a refusal")
    # a test fixture with a rival value, from an official (stronger) source and later
    report = bdb.ingest_text(FIFTEEN, source="fixtures/policy.md", authority="official", label="fixture")
    assert report.superseded == [] and report.conflicts == [] and report.flagged == [] and report.held == []
    assert window(bdb, include_fixtures=True) == {"7 days": ("current", "production"),
                                                  "15 days": ("current", "fixture")}
    assert {d.id: d.status for d in bdb.decisions()} == {refuse.id: "active"}
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "scheduled"}
    # production answers are production's: the official fixture does not make ask answer no_match
    answer = bdb.ask("how many days for returns?")
    assert answer.status == "ok" and [a.belief.value for a in answer.beliefs] == ["7 days"]


@pytest.mark.slow
def test_a_fixture_repeating_a_production_quote_neither_corroborates_nor_is_quoted(bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md", authority="internal").accepted
    before = bdb.why(fee.id).belief.confidence
    report = bdb.ingest_text(FEE, source="fixtures/fees.md", authority="internal", label="fixture")
    assert report.corroborated == [] and [a.value for a in report.accepted] == ["10%"]
    assert bdb.why(fee.id).belief.confidence == pytest.approx(before)  # 0.80, not 0.96
    assert {e.source for e in bdb.why(fee.id).evidence} == {"handbook.md"}
    (answer,) = bdb.ask("what is the restocking fee?").beliefs
    assert answer.belief.id == fee.id and {e.source for e in answer.evidence} == {"handbook.md"}
    assert all(e.provenance == "production" for e in answer.evidence)


def test_fixtures_settle_among_themselves_and_show_labelled_on_request(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (old,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", authority="internal", label="fixture").accepted
    second = bdb.ingest_text(FIFTEEN, source="fixtures/b.md", authority="official", label="fixture")
    assert [(s.old, s.new) for s in second.superseded] == [(old.id, second.accepted[0].id)]
    third = bdb.ingest_text(FIFTEEN, source="fixtures/c.md", authority="internal", label="fixture")
    assert [c.id for c in third.corroborated] == [second.accepted[0].id]  # same world, same claim
    assert bdb.beliefs() == []
    assert window(bdb, include_fixtures=True) == {"7 days": ("superseded", "fixture"),
                                                  "15 days": ("current", "fixture")}
    listed = cli("beliefs", "--include-fixtures").stdout
    assert "15 days (fixture, not production history)" in listed
    assert bdb.ask("how many days for returns?").status == "no_match"
    assert [a.belief.value for a in bdb.ask("how many days for returns?", include_fixtures=True).beliefs] == [
        "15 days"]


def test_synthetic_is_a_world_of_its_own(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture")
    report = bdb.ingest_text(FIFTEEN, source="generated/a.md", authority="official", label="synthetic")
    assert report.superseded == [] and report.conflicts == []
    assert window(bdb, include_fixtures=True) == {"7 days": ("current", "fixture"),
                                                  "15 days": ("current", "synthetic")}


def test_why_does_not_quote_fixture_evidence_without_asking(bdb: beliefdb.BeliefDB) -> None:
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    with pytest.raises(errors.InvalidInput, match="include_fixtures=True"):
        bdb.why(seven.id)
    assert [e.source for e in bdb.why(seven.id, include_fixtures=True).evidence] == ["fixtures/a.md"]


def test_a_derived_belief_belongs_to_the_world_of_what_it_rests_on(bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    mixed = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [fee.id, seven.id])
    pure = bdb.derive("Returns cost 10%", "return", "fee", "10%", [fee.id])
    worlds = {b.id: b.provenance for b in bdb.beliefs(include_all=True, include_fixtures=True)}
    assert worlds[mixed.id] == "fixture" and worlds[pure.id] == "production"


@pytest.mark.slow
def test_the_database_refuses_evidence_from_another_world(bdb: beliefdb.BeliefDB,
                                                          postgresql: psycopg.Connection[Any]) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    bdb.ingest_text(FEE, source="fixtures/fees.md", label="fixture")
    fragment = postgresql.execute("""
        select f.id from beliefdb.fragment f
          join beliefdb.source_version v on v.id = f.source_version_id
          join beliefdb.source s on s.id = v.source_id
         where s.name = 'fixtures/fees.md' and f.text = 'The restocking fee is 10%.'""").fetchone()
    assert fragment is not None
    with pytest.raises(psycopg.Error, match="labels are separate worlds"):
        # (a mention needs no justification: the row passes its own checks and meets the world's)
        postgresql.execute("insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role) "
                           "select workspace_id, id, %s, 'The restocking fee is 10%%.', 'mentions'"
                           " from beliefdb.belief where id = %s", (fragment[0], fee.id))
    postgresql.rollback()


def test_a_source_label_is_fixed_once_beliefs_rest_on_it(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(FEE, source="handbook.md")
    with pytest.raises(errors.InvalidInput, match="its label cannot change"):
        bdb.ingest_text(FEE + "More text.\n", source="handbook.md", label="fixture")
    assert [b.provenance for b in bdb.beliefs(include_fixtures=True)] == ["production"]
    # a source nothing rests on yet may still be relabelled
    bdb.ingest_text("Nothing to extract here\n", source="notes.md", extractor="none")
    bdb.ingest_text("Nothing to extract here either\n", source="notes.md", label="fixture", extractor="none")


def test_a_decision_may_not_rest_on_fixture_material(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    (fifteen,) = bdb.ingest_text(FIFTEEN, source="generated/a.md", label="synthetic").accepted
    mixed = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [fee.id, seven.id])
    for reasons in ([seven.id], [fifteen.id], [mixed.id]):
        with pytest.raises(errors.IntegrityViolation, match="not production history") as refused:
            bdb.decide("Give the test discount", because=reasons)
        assert str(reasons[0]) in str(refused.value)
    # an alternative reason of fixture material would keep the decision alive when production's is lost,
    # and a joint one would make test data part of a production reason
    with pytest.raises(errors.IntegrityViolation, match=str(seven.id)):
        bdb.decide("Mixed", because=[fee.id, seven.id])
    with pytest.raises(errors.IntegrityViolation, match=str(seven.id)):
        bdb.decide("Mixed", all_of=[[fee.id, seven.id]])
    assert bdb.decisions() == []
    line = cli.one_line_error("decide", "Give the test discount", "--because", str(seven.id)[:8])
    assert str(seven.id) in line and "fixture" in line
    assert cli.error("decide", "Mixed", "--because", str(fee.id), "--because", str(seven.id),
                     code="integrity_violation")
    assert bdb.decisions() == []
    # production reasons still make a decision
    assert bdb.decide("Charge the fee", because=[fee.id]).status == "active"


def test_nothing_carries_out_a_stored_decision_resting_on_fixture_material(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    decision = bdb.decide("Charge the fee", because=[fee.id])
    # (as a decision recorded before decide refused fixture reasons: another reason added underneath)
    postgresql.execute("select beliefdb._add_justification(workspace_id, %s, array[%s::uuid], 'cites')"
                       " from beliefdb.decision where id = %s", (decision.id, seven.id, decision.id))
    postgresql.commit()
    with pytest.raises(errors.IntegrityViolation, match=str(seven.id)):
        bdb.act(decision.id, "Charge order 1042")
    assert bdb.actions() == []


def test_why_a_production_belief_lists_what_a_fixture_built_on_it_only_on_request(
        cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    mixed = bdb.derive("Fixture-derived fee rule", "fx_rule", "fee", "x", [fee.id, seven.id])
    pure = bdb.derive("Returns cost 10%", "return", "fee", "10%", [fee.id])
    assert [d.belief_id for d in bdb.why(fee.id).derived] == [pure.id]
    assert {d.belief_id: d.provenance for d in bdb.why(fee.id, include_fixtures=True).derived} == {
        mixed.id: "fixture", pure.id: "production"}
    text = cli("why", str(fee.id)).stdout
    assert "Returns cost 10%" in text and "Fixture-derived" not in text
    shown = cli("why", str(fee.id), "--include-fixtures").stdout
    assert '"Fixture-derived fee rule" [current] derived from it (fixture, not production history)' in shown
    assert [d["provenance"] for d in cli.json("why", str(fee.id), "--include-fixtures")["derived"]] == [
        "fixture", "production"]


LABEL = "fixture, not production history"


def _legacy_decision(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> tuple[Any, Any, Any, Any]:
    """A production belief, a fixture one, a fixture derived from both, and a decision on the production
    belief with the fixture as another reason (as recorded before decide refused fixture reasons)."""
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    mixed = bdb.derive("Fixture-derived fee rule", "fx_rule", "fee", "x", [fee.id, seven.id])
    decision = bdb.decide("Charge the fee", because=[fee.id])
    postgresql.execute("select beliefdb._add_justification(workspace_id, %s, array[%s::uuid], 'cites')"
                       " from beliefdb.decision where id = %s", (decision.id, seven.id, decision.id))
    postgresql.commit()
    return fee, seven, mixed, decision


def test_why_pictures_show_fixture_material_only_on_request_and_labelled(
        cli: Cli, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    fee, seven, mixed, decision = _legacy_decision(bdb, postgresql)
    assert {n.id for n in bdb.why_graph(fee.id).nodes} & {seven.id, mixed.id} == set()
    shown = {n.id: n for n in bdb.why_graph(fee.id, include_fixtures=True).nodes}
    assert LABEL in shown[mixed.id].detail and LABEL not in shown[fee.id].detail
    # a decision's reasons: no fixture quote nor source in a production answer
    text = cli("why", str(decision.id)).stdout
    assert "handbook.md" in text and "fixtures/a.md" not in text and "7 days" not in text
    assert "cites 1 fixture belief, not shown: not production history" in text
    text = cli("why", str(decision.id), "--include-fixtures").stdout
    assert "fixtures/a.md" in text and f"7 days, confidence 0.80 ({LABEL})" in text
    assert "Fixture-derived" not in cli("why", str(fee.id), "--format", "mermaid").stdout
    assert "Fixture-derived" in cli("why", str(fee.id), "--format", "mermaid", "--include-fixtures").stdout
    # a fixture belief itself: refused without asking, as why refuses it
    with pytest.raises(errors.InvalidInput, match="include_fixtures=True"):
        bdb.why_graph(seven.id)
    assert "--include-fixtures" in cli.one_line_error("why", str(seven.id), "--format", "mermaid")


def test_impact_shows_fixture_material_only_on_request_and_labelled(
        cli: Cli, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    fee, seven, mixed, decision = _legacy_decision(bdb, postgresql)
    picture = bdb.impact_graph("handbook.md")
    assert {n.id for n in picture.nodes} & {seven.id, mixed.id} == set()
    assert dict(picture.totals)["stops_holding"] == 2  # the source and the fee, not the fixture derived
    text = cli("impact", "handbook.md").stdout
    assert "Fixture-derived" not in text and "7 days" not in text and "fixtures/a.md" not in text
    assert "stop holding: 2" in text
    # a decision recorded on a fixture reason before decide refused them: what it survives on is not quoted
    (survives,) = [n for n in picture.nodes if n.id == decision.id]
    assert "survives" in survives.marks and survives.note == 'survives on "fixture material, not shown"'
    shown = {n.id: n for n in bdb.impact_graph("handbook.md", include_fixtures=True).nodes}
    assert LABEL in shown[mixed.id].detail and "stops_holding" in shown[mixed.id].marks
    text = cli("impact", str(fee.id), "--include-fixtures").stdout
    assert f"fx_rule / fee = x, confidence 0.64 ({LABEL})" in text
    with pytest.raises(errors.InvalidInput, match="include_fixtures=True"):
        bdb.impact_graph("fixtures/a.md")
    assert "--include-fixtures" in cli.one_line_error("impact", str(seven.id))


def test_derive_says_when_what_it_made_is_fixture_material(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    assert bdb.derive("Returns cost 10%", "return", "fee", "10%", [fee.id]).provenance == "production"
    mixed = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [fee.id, seven.id])
    assert mixed.provenance == "fixture"
    said = cli("derive", "Fixture-derived fee rule", "--subject", "fx_rule", "--attribute", "fee", "--value", "x",
               "--from", f"{fee.id},{seven.id}").stdout
    assert f"[current] ({LABEL})" in said
    assert cli.json("derive", "Fixture-derived fee rule", "--subject", "fx_rule", "--attribute", "fee",
                    "--value", "x", "--from", f"{fee.id},{seven.id}")["provenance"] == "fixture"


def test_a_memory_a_step_writes_belongs_to_the_world_of_what_the_step_rests_on(bdb: beliefdb.BeliefDB) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (fifteen,) = bdb.ingest_text(FIFTEEN, source="generated/a.md", label="synthetic").accepted
    with pytest.raises(errors.IntegrityViolation, match="not production history"):
        bdb.decide("x", because=[refund.id])
    window = {"subject": "refund_policy", "attribute": "window_days", "value": "30"}
    first = bdb.record_step("tool_call", inputs=[("derives", refund.id)], memory=window, task="refund 1042")
    assert first.memory is not None
    # a memory resting on fixture material is a fixture itself: decide refuses it as it refuses the fixture
    with pytest.raises(errors.IntegrityViolation, match=str(first.memory)) as refused:
        bdb.decide("Refund order 1042", because=[first.memory])
    assert "fixture material, not production history" in str(refused.value)
    # transitively: through an earlier step of the run, and through a memory written by an earlier step
    later = bdb.record_step("plan", inputs=[("cites", first.step)], run=first.run,
                            memory={"subject": "refund_policy", "attribute": "plan", "value": "refund"})
    built = bdb.record_step("claim", inputs=[("cites", fee.id), ("derives", first.memory)], run=first.run,
                            memory={"subject": "refund_policy", "attribute": "fee", "value": "10%"})
    # in one batch: a step resting on a new step that rests on a synthetic belief; the highest world wins
    with bdb.record_run(task="one batch") as run:
        read = run.step("claim", inputs=[("derives", fifteen.id), ("cites", refund.id)])
        answer = run.step("answer", inputs=[("cites", read)])
        batch_memory = run.memory(answer, "return_policy", "answer", "15 days")
    production = bdb.record_step("claim", inputs=[("cites", fee.id)], run=first.run,
                                 memory={"subject": "restocking", "attribute": "fee", "value": "10%"})
    worlds = {b.id: b.provenance for b in bdb.beliefs(include_all=True, include_fixtures=True)}
    assert [worlds[m] for m in (first.memory, later.memory, built.memory, batch_memory, production.memory)] == [
        "fixture", "fixture", "fixture", "synthetic", "production"]
    for memory in (later.memory, built.memory, batch_memory):
        with pytest.raises(errors.IntegrityViolation, match="not production history"):
            bdb.decide("Refund order 1042", because=[memory])
    # production's memory makes a decision, and retracting the fixture touches nothing of production's
    decision = bdb.decide("Charge the restocking fee", because=[production.memory])
    action = bdb.act(decision.id, "Charge order 1042")
    assert (decision.status, action.status) == ("active", "scheduled")
    changes = bdb.retract(belief=refund.id, reason="test data")
    assert changes.flagged == [] and changes.held == []
    assert {d.id: d.status for d in bdb.decisions()} == {decision.id: "active"}
    assert {a.id: a.status for a in bdb.actions()} == {action.id: "scheduled"}


def test_a_memory_never_supersedes_one_of_another_world(bdb: beliefdb.BeliefDB) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    kept = bdb.record_step("claim", inputs=[("cites", fee.id)], task="refund 1042",
                           memory={"subject": "refund_policy", "attribute": "window_days", "value": "14"})
    assert kept.memory is not None
    decision = bdb.decide("Refund within 14 days", because=[kept.memory])
    # (a fixture memory superseding a production one would flag the decision resting on it)
    run = bdb.record_run(task="fixture run")
    step = run.step("tool_call", inputs=[("derives", refund.id)])
    run.memory(step, "refund_policy", "window_days", "30", supersedes=kept.memory)
    with pytest.raises(errors.IntegrityViolation, match="separate worlds"):
        run.flush()
    assert [r.task for r in bdb.runs()] == ["refund 1042"]
    assert {d.id: d.status for d in bdb.decisions()} == {decision.id: "active"}


def test_a_step_resting_on_fixture_material_never_deletes_a_production_memory(bdb: beliefdb.BeliefDB) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    kept = bdb.record_step("claim", inputs=[("cites", fee.id)], task="refund 1042",
                           memory={"subject": "refund_policy", "attribute": "window_days", "value": "14"})
    assert kept.memory is not None
    decision = bdb.decide("Refund within 14 days", because=[kept.memory])
    action = bdb.act(decision.id, "Refund order 1042")
    # (deleting it would flag the production decision and hold its action)
    run = bdb.record_run(task="fixture run")
    read = run.step("tool_call", inputs=[("derives", refund.id)])
    cleanup = run.step("observation", inputs=[("cites", read)])
    run.delete_memory(cleanup, kept.memory)
    with pytest.raises(errors.IntegrityViolation, match="separate worlds"):
        run.flush()
    assert [r.task for r in bdb.runs()] == ["refund 1042"]
    assert ({d.id: d.status for d in bdb.decisions()}, {a.id: a.status for a in bdb.actions()}) == (
        {decision.id: "active"}, {action.id: "scheduled"})
    # a step of production's own may still delete it
    production = bdb.record_run(task="production run")
    production.delete_memory(production.step("claim", inputs=[("cites", fee.id)]), kept.memory)
    production.flush()
    assert {d.id: d.status for d in bdb.decisions()} == {decision.id: "needs_review"}


def test_a_source_label_is_fixed_once_an_agents_step_rests_on_it(bdb: beliefdb.BeliefDB,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    """A step citing a quote of a source with no belief stores the source's world (revision 0049): were the
    source relabelled fixture after it, what later steps wrote through that step would stay production."""
    bdb.ingest_text("Hello there, nothing to extract here\n", source="s.md", extractor="none")
    row = postgresql.execute("select f.id from beliefdb.fragment f join beliefdb.source_version v"
                             " on v.workspace_id = f.workspace_id and v.id = f.source_version_id"
                             " join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id"
                             " where s.name = 's.md'").fetchone()
    assert row is not None
    bdb.record_step("claim", inputs=[("cites", str(row[0]))])
    with pytest.raises(errors.InvalidInput, match="its label cannot change"):
        bdb.ingest_text("Hello there, nothing to extract here\nMore words\n", source="s.md", label="fixture",
                        extractor="none")


def test_a_memory_resting_on_a_fixture_quote_is_a_fixture(bdb: beliefdb.BeliefDB) -> None:
    """A step may cite a fragment (a quote) as well as a belief: one of a fixture source made a production
    memory, which a production decision then rested on."""
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (quote,) = bdb.why(refund.id, include_fixtures=True).evidence
    step = bdb.record_step("claim", inputs=[("cites", str(quote.fragment_id))],
                           memory={"subject": "refund_policy", "attribute": "window_days", "value": "30"})
    assert step.memory is not None
    worlds = {b.id: b.provenance for b in bdb.beliefs(include_all=True, include_fixtures=True)}
    assert worlds[step.memory] == "fixture"
    with pytest.raises(errors.IntegrityViolation, match="not production history"):
        bdb.decide("Refund order 1042", because=[step.memory])


def stored_worlds(conn: psycopg.Connection[Any], ids: list[UUID]) -> dict[UUID, str | None]:
    """The world each of these nodes stores: a step's step.world, a memory's provenance."""
    rows = conn.execute("select s.id, s.world::text from beliefdb.step s where s.id = any(%(ids)s)"
                        " union all select b.id, b.provenance::text from beliefdb.belief b where b.id = any(%(ids)s)",
                        {"ids": ids}).fetchall()
    conn.commit()
    return {row[0]: row[1] for row in rows}


def forget_step_worlds(conn: psycopg.Connection[Any], steps: list[UUID]) -> None:
    """Steps as recorded before revision 0049, which stored no world."""
    conn.execute("update beliefdb.step set world = null where id = any(%s)", (steps,))
    conn.commit()


def test_a_long_chain_resting_on_a_fixture_stores_a_fixture_world_at_every_step(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    run = bdb.record_run(task="a long chain")
    steps: list[UUID] = []
    memories: list[UUID] = []
    for k in range(500):
        step = run.step("claim", inputs=[("derives", steps[-1] if steps else refund.id)])
        memories.append(run.memory(step, f"subject_{k}", "chain", str(k)))
        steps.append(step)
        if k % 50 == 49 or k < 3:  # (batches of 50, and the first steps a batch each)
            run.flush()
    worlds = stored_worlds(postgresql, steps + memories)
    assert worlds[memories[-1]] == "fixture"  # step 500's memory is fixture material, as step 1's
    assert {worlds[s] for s in steps} == {"fixture"}
    assert {worlds[m] for m in memories} == {"fixture"}


def test_a_step_stores_the_highest_world_of_what_it_rests_on(bdb: beliefdb.BeliefDB,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    (fifteen,) = bdb.ingest_text(FIFTEEN, source="generated/a.md", label="synthetic").accepted
    (quote,) = bdb.why(refund.id, include_fixtures=True).evidence
    with bdb.record_run(task="worlds") as run:
        start = run.step("user_input")                                         # rests on nothing
        production = run.step("claim", inputs=[("cites", fee.id)])
        fixture = run.step("claim", inputs=[("cites", fee.id), ("derives", refund.id)])
        quoted = run.step("claim", inputs=[("cites", quote.fragment_id)])       # a fixture source's quote
        synthetic = run.step("claim", inputs=[("derives", fifteen.id)], supports=[fixture])
        # in the same batch as what they rest on: a step, and a memory a step of the batch wrote
        same_batch = run.step("plan", inputs=[("cites", synthetic), ("cites", production)])
        memory = run.memory(fixture, "refund_policy", "window_days", "30")
        on_memory = run.step("plan", inputs=[("derives", memory), ("cites", start)])
        timed = run.step("answer", inputs=[("cites", production)], follows=[synthetic])  # time order only
    # a later batch resting on the steps of the first, and on its memory
    later = bdb.record_run(task="worlds, later")
    on_step = later.step("claim", inputs=[("cites", production), ("cites", start)])
    on_old_memory = later.step("claim", inputs=[("derives", memory)])
    on_both = later.step("answer", inputs=[("cites", on_step)], supports=[same_batch])
    later.flush()
    assert stored_worlds(postgresql, [start, production, fixture, quoted, synthetic, same_batch, memory, on_memory,
                                      timed, on_step, on_old_memory, on_both]) == {
        start: "production", production: "production", fixture: "fixture", quoted: "fixture",
        synthetic: "synthetic", same_batch: "synthetic", memory: "fixture", on_memory: "fixture",
        timed: "production", on_step: "production", on_old_memory: "fixture", on_both: "synthetic"}


def test_a_step_recorded_before_steps_stored_a_world_is_walked_through(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    (refund,) = bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture").accepted
    (fee,) = bdb.ingest_text(FEE, source="handbook.md").accepted
    run = bdb.record_run(task="recorded before revision 0049")
    read = run.step("tool_call", inputs=[("derives", refund.id)])
    plan = run.step("plan", inputs=[("cites", read)])
    plain = run.step("claim", inputs=[("cites", fee.id)])
    run.flush()
    forget_step_worlds(postgresql, [read, plan, plain])
    answer = run.step("answer", inputs=[("cites", plan)])
    memory = run.memory(answer, "refund_policy", "window_days", "30")
    production = run.step("answer", inputs=[("cites", plain)])
    written = run.memory(production, "restocking", "fee", "10%")
    run.flush()
    assert stored_worlds(postgresql, [read, plan, plain, answer, memory, production, written]) == {
        read: None, plan: None, plain: None,  # (what was recorded stays as it was)
        answer: "fixture", memory: "fixture", production: "production", written: "production"}



# A run for the property below: batches of steps, each step with inputs among what came before it (a
# stored belief of each world, a fixture quote, earlier steps and memories), some writing a memory;
# before a batch, some recorded steps lose their stored world (as recorded before revision 0049).
WORLDS = ("production", "fixture", "synthetic")
INPUT_KINDS = ("cites", "derives", "initiates", "reads", "updates", "consolidates", "supports", "follows")
planned_step = st.tuples(st.lists(st.tuples(st.sampled_from(INPUT_KINDS), st.integers(0, 1_000)), max_size=3),
                         st.booleans())
planned_batch = st.tuples(st.lists(planned_step, min_size=1, max_size=4), st.lists(st.integers(0, 1_000), max_size=3))


def stored_bases(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> dict[UUID, str]:
    """A stored belief of each world and a fixture quote, with their worlds; ingested once a database
    (hypothesis runs a test's examples on one)."""
    found = postgresql.execute("select b.id, b.provenance::text from beliefdb.belief b"
                               " where b.confidence_kind <> 'agent_asserted'").fetchall()  # (not a memory)
    postgresql.commit()
    if not found:
        bdb.ingest_text(FEE, source="handbook.md")
        bdb.ingest_text("The refund window is 30 days.\n", source="fixture.md", label="fixture")
        bdb.ingest_text(FIFTEEN, source="generated/a.md", label="synthetic")
        return stored_bases(bdb, postgresql)
    bases = {row[0]: row[1] for row in found}
    fixture = next(node for node, label in bases.items() if label == "fixture")
    (quote,) = bdb.why(fixture, include_fixtures=True).evidence
    assert quote.fragment_id is not None and sorted(bases.values()) == sorted(WORLDS)
    return {**bases, quote.fragment_id: "fixture"}  # (a quote is its source's world)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(planned_batch, min_size=1, max_size=4))
def test_every_step_and_memory_takes_the_world_a_walk_over_its_recorded_inputs_finds(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any],
        batches: list[tuple[list[tuple[list[tuple[str, int]], bool]], list[int]]]) -> None:
    world = stored_bases(bdb, postgresql)
    bases = list(world)
    inputs: dict[UUID, list[UUID]] = {}   # what each step and memory rests on (a memory: its step)
    steps: list[UUID] = []
    forgotten: set[UUID] = set()
    run = bdb.record_run(task="property")
    for planned, forget in batches:
        if steps:
            forgotten |= {steps[k % len(steps)] for k in forget}
            forget_step_worlds(postgresql, list(forgotten))
        for picks, writes in planned:
            known = bases + list(inputs)
            edges = [(kind, known[k % len(known)]) for kind, k in picks]
            joint = [(kind, node) for kind, node in edges if kind not in ("supports", "follows")]
            step = run.step("claim", inputs=joint,
                            supports=[node for kind, node in edges if kind == "supports"],
                            follows=[node for kind, node in edges if kind == "follows" and node in steps])
            inputs[step] = [node for kind, node in edges if kind != "follows"]
            steps.append(step)
            if writes:
                inputs[run.memory(step, "subject", "attribute", str(step))] = [step]
        run.flush()

    def walked(node: UUID) -> str:
        if node not in world:
            world[node] = max((walked(a) for a in inputs[node]), key=WORLDS.index, default="production")
        return world[node]

    stored = stored_worlds(postgresql, list(inputs))
    assert {node for node, label in stored.items() if label is None} == forgotten
    assert {node: label for node, label in stored.items() if node not in forgotten} == {
        node: walked(node) for node in inputs if node not in forgotten}
