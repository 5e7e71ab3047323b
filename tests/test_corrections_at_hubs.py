"""Corrections at hubs (issue 21): what a change costs follows what it moved, and nothing else changes.

``beliefdb.propagate`` computes confidence (rule 9 of docs/rules.md) only for the beliefs whose
factors a change can have moved: its seeds, the beliefs a seed fragment is evidence for, and those
entering or leaving an open conflict; derived beliefs follow level by level. The property here: after
any sequence of corrections, source retractions and restores and rival claims on a graph with a hub,
every stored confidence equals what ``beliefdb.confidence_factors`` computes from scratch (the clock
fixed, so recency, which decay stores, does not move).

``beliefdb.supersession_is_acyclic`` walks back from the new winner instead of forward from the
loser; the property: a supersession is refused exactly when the loser already leads to the winner
through reasons or supersessions (the reference of tests/test_holding_properties.py), and a cycle
through a hub, deep under it or through an earlier supersession, is refused.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import url_at
from hypothesis import HealthCheck, assume, example, given, settings

import beliefdb
from beliefdb.store.workspaces import create_workspace
from tests.test_holding_properties import Graph, graphs, leads_to, store

MOMENT = "2026-03-01T12:00:00Z"
TIERS = ("unverified", "agent", "user", "internal", "official")


def drift(conn: psycopg.Connection[Any], ws: uuid.UUID | str) -> dict[uuid.UUID, tuple[float, float]]:
    """Beliefs whose stored confidence differs from the full recompute: {id: (stored, computed)}."""
    conn.execute("select set_config('beliefdb.now', %s, false)", (MOMENT,))
    rows = conn.execute("""
        select b.id, b.confidence, c.weight
          from beliefdb.belief b
          cross join lateral (select least(1, greatest(0, f.weight))::real as weight
                                from beliefdb.confidence_factors(b.workspace_id, b.id) f
                               where f.factor = 'confidence') c
         where b.workspace_id = %s and b.confidence is distinct from c.weight""", (ws,)).fetchall()
    conn.commit()
    return {r[0]: (r[1], r[2]) for r in rows}


# ---------------------------------------------------------------------------------------------
# a correction's confidence equals the full recompute


@dataclass(frozen=True)
class Step:
    op: str          # correct | retract | restore | rival
    target: int      # a belief (correct, rival) or a source (retract, restore), modulo how many there are
    authority: str   # of a rival claim


@dataclass(frozen=True)
class Scenario:
    authorities: tuple[str, ...]                 # one fact per source; fact 0 is the hub
    derived: tuple[tuple[int, ...], ...]         # each derived belief's antecedents (indexes of earlier beliefs)
    steps: tuple[Step, ...]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    authorities = tuple(draw(st.lists(st.sampled_from(TIERS), min_size=2, max_size=4)))
    derived: list[tuple[int, ...]] = []
    for k in range(draw(st.integers(4, 8))):
        earlier = len(authorities) + k
        # mostly the hub, sometimes a chain or a joint derivation with another belief
        parents = draw(st.lists(st.one_of(st.just(0), st.just(0), st.integers(0, earlier - 1)),
                                min_size=1, max_size=2, unique=True))
        derived.append(tuple(parents))
    steps = tuple(draw(st.lists(st.builds(Step, st.sampled_from(("correct", "retract", "restore", "rival")),
                                          st.integers(0, 50), st.sampled_from(TIERS)),
                                min_size=1, max_size=3)))
    return Scenario(authorities, tuple(derived), steps)


def play(db_url: str, conn: psycopg.Connection[Any], s: Scenario) -> None:
    name = "hubs-" + uuid.uuid4().hex[:12]
    ws = create_workspace(db_url, name).id
    with beliefdb.connect(url_at(db_url, MOMENT), workspace=name) as db:
        beliefs: list[uuid.UUID] = []
        sources: list[str] = []
        for i, authority in enumerate(s.authorities):
            quote = f"fact{i} value is yes."
            report = db.remember(quote, f"fact{i}", "value", "yes", quote, source=f"s{i}.md", text=f"Note. {quote}",
                                 authority=authority)
            (accepted,) = report.accepted
            beliefs.append(accepted.id)
            sources.append(f"s{i}.md")
        for k, parents in enumerate(s.derived):
            beliefs.append(db.derive(f"derived {k}", f"derived{k}", "value", "yes", [beliefs[p] for p in parents]).id)
        assert drift(conn, ws) == {}
        retracted: set[str] = set()
        for n, step in enumerate(s.steps):
            if step.op == "correct":
                live = {b.id: b for b in db.beliefs(include_all=True) if b.status in ("current", "conflicting")}
                candidates = [b for b in beliefs if b in live]
                if not candidates:
                    continue
                target = live[candidates[step.target % len(candidates)]]
                result = db.apply_correction(target.id, f"corrected {n}", reviewer="reviewer",
                                             expect_revision=target.revision, value=f"corrected{n}")
                assert not result.proposed and result.replacement is not None
                beliefs.append(result.replacement)
            elif step.op in ("retract", "restore"):
                source = sources[step.target % len(sources)]
                if (source in retracted) != (step.op == "restore"):
                    continue
                db.retract(source=source, reason="test", undo=step.op == "restore")
                retracted.symmetric_difference_update({source})
            else:
                # a rival claim from a new source: it wins, loses or ties (an open conflict) by rule 8
                i = step.target % len(s.authorities)
                quote = f"fact{i} value is no {n}."
                db.remember(quote, f"fact{i}", "value", f"no {n}", quote, source=f"rival{n}.md",
                            text=f"Note. {quote}", authority=step.authority)
                sources.append(f"rival{n}.md")
            assert drift(conn, ws) == {}, (n, step)


HUB_CORRECTED = Scenario(("official", "user"), ((0,), (0,), (0,), (2,), (3,), (0, 1), (7,)),
                         (Step("correct", 0, "user"),))
HUB_SOURCE_RETRACTED_AND_RESTORED = Scenario(("internal", "internal"), ((0,), (0,), (0, 1), (2,)),
                                             (Step("retract", 0, "user"), Step("restore", 0, "user")))
# a tie opens a conflict on the hub (its confidence and all that is derived from it move), then a
# correction of the hub closes it: the rival is current again, its confidence back
HUB_TIED_THEN_CORRECTED = Scenario(("user", "official"), ((0,), (0,), (2,), (0, 1)),
                                   (Step("rival", 0, "user"), Step("correct", 0, "user")))

# the hub tied with a rival (an open conflict: its confidence and what is derived from it lowered),
# then the rival's source retracted: the hub leaves the conflict though it is neither a seed nor
# evidenced by one
HUB_TIE_ENDS_WITH_THE_RIVALS_SOURCE = Scenario(("user", "official"), ((0,), (0,), (2,), (0, 1)),
                                               (Step("rival", 0, "user"), Step("retract", 2, "user")))

# an official rival supersedes the hub; a second rival, at the hub's authority, loses to it; the
# official rival's source retracted: the hub and the second rival are current again and tie (rule 8
# settles the revived beliefs inside propagate), both now in an open conflict
REVIVED_INTO_A_TIE = Scenario(("user", "internal"), ((0,), (0,), (2,)),
                              (Step("rival", 0, "official"), Step("rival", 0, "user"), Step("retract", 2, "user")))


@pytest.mark.slow
@settings(max_examples=8, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(s=scenarios())
@example(s=HUB_CORRECTED)
@example(s=HUB_SOURCE_RETRACTED_AND_RESTORED)
@example(s=HUB_TIED_THEN_CORRECTED)
@example(s=HUB_TIE_ENDS_WITH_THE_RIVALS_SOURCE)
@example(s=REVIVED_INTO_A_TIE)
def test_stored_confidence_equals_the_full_recompute_after_every_change(
        postgresql: psycopg.Connection[Any], db_url: str, s: Scenario) -> None:
    play(db_url, postgresql, s)


# ---------------------------------------------------------------------------------------------
# supersession that would close a cycle is refused, walking back from the winner


def try_supersede(conn: psycopg.Connection[Any], ws: uuid.UUID | str, winner: uuid.UUID, loser: uuid.UUID) -> bool:
    """Insert "winner supersedes loser" and roll it back; whether the database accepted it."""
    try:
        conn.execute("insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)"
                     " values (%s, %s, %s, 'supersedes')", (ws, winner, loser))
    except psycopg.Error as refused:
        assert refused.sqlstate == "BD002", refused
        return False
    finally:
        conn.rollback()
    return True


# a hub (1) that eight beliefs rest on, one of them (9) under a chain (10, 11); 12 rests on premise 0
# alone and is superseded by 5, which rests on the hub; 13 rests on 12
HUB = Graph(premises=1, beliefs=13,
            justifications=((1, (0,)), *((b, (1,)) for b in range(2, 10)), (10, (9,)), (11, (10,)), (12, (0,)),
                            (13, (12,))),
            supersedes=((5, 12),))


@pytest.mark.slow
@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs(), data=st.data())
@example(g=HUB, data=None)
def test_supersession_is_refused_exactly_when_the_loser_leads_to_the_winner(
        postgresql: psycopg.Connection[Any], db_url: str, g: Graph, data: st.DataObject | None) -> None:
    beliefs = [n for n in range(g.size) if g.is_belief(n)]
    assume(len(beliefs) >= 2)  # a graph of decisions alone has no supersession to try
    stored = store(postgresql, db_url, g)
    if data is None:  # the hand-picked example: every pair
        pairs = [(w, lo) for w in beliefs for lo in beliefs]
    else:
        pairs = data.draw(st.lists(st.tuples(st.sampled_from(beliefs), st.sampled_from(beliefs)), max_size=8))
    for winner, loser in pairs:
        if winner == loser or (winner, loser) in g.supersedes:
            continue
        expected = not leads_to(list(g.justifications), list(g.supersedes), loser, winner)
        assert try_supersede(postgresql, stored.ws, stored.ids[winner], stored.ids[loser]) == expected, (
            g, winner, loser)


@pytest.mark.slow
def test_supersession_closing_a_cycle_through_a_hub_is_refused(
        postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """Through the API: a hub with thirty beliefs derived from it, one under a chain of three, and an
    unrelated belief that a belief derived from the hub superseded. Whatever rests on the hub, however
    deep, and whatever rests on what the hub's dependents superseded, cannot supersede the hub; a
    correction of the hub (a new winner resting on a fragment only) and a supersession between two
    of its dependents are accepted."""
    name = "hubcycle-" + uuid.uuid4().hex[:12]
    ws = create_workspace(db_url, name).id
    with beliefdb.connect(url_at(db_url, MOMENT), workspace=name) as db:
        (hub,) = db.remember("hub value is yes.", "hub", "value", "yes", "hub value is yes.", source="hub.md",
                             text="Note. hub value is yes.").accepted
        (other,) = db.remember("other value is yes.", "other", "value", "yes", "other value is yes.",
                               source="other.md", text="Note. other value is yes.").accepted
        fan = [db.derive(f"d{k}", f"d{k}", "value", "yes", [hub.id]).id for k in range(30)]
        deep = fan[-1]
        for k in range(3):
            deep = db.derive(f"deep{k}", f"deep{k}", "value", "yes", [deep]).id
        on_other = db.derive("on other", "on_other", "value", "yes", [other.id]).id
        postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(ws),))
        postgresql.execute("select set_config('beliefdb.now', %s, false)", (MOMENT,))
        postgresql.commit()
        assert try_supersede(postgresql, ws, fan[0], other.id)
        postgresql.execute("insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)"
                           " values (%s, %s, %s, 'supersedes')", (ws, fan[0], other.id))
        postgresql.execute("select beliefdb.propagate(%s, %s::uuid[])", (ws, [other.id]))
        postgresql.commit()

        assert not try_supersede(postgresql, ws, fan[7], hub.id)       # rests on it
        assert not try_supersede(postgresql, ws, deep, hub.id)         # rests on it, four levels down
        assert not try_supersede(postgresql, ws, other.id, fan[0])     # a supersession cycle
        assert not try_supersede(postgresql, ws, on_other, hub.id)     # hub -> fan[0] -supersedes-> other -> on_other
        assert try_supersede(postgresql, ws, fan[1], fan[2])           # two dependents: no cycle
        assert try_supersede(postgresql, ws, hub.id, on_other)         # on_other does not lead to the hub

        revision = next(b.revision for b in db.beliefs(include_all=True) if b.id == hub.id)
        result = db.apply_correction(hub.id, "hub value is no.", reviewer="reviewer", expect_revision=revision,
                                     value="no")
        assert not result.proposed
        status = {b.id: b.status for b in db.beliefs(include_all=True)}
        assert status[hub.id] == "superseded" and status[result.replacement] == "current"
        assert {status[d] for d in fan[1:]} == {"unsupported"}
        assert drift(postgresql, ws) == {}
