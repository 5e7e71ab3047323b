"""Truth maintenance, hand-built (docs/rules.md, rules 2, 3, 4, 5 and the review half of 8).

Every test builds a small support graph through the library API, changes one thing, and checks
the exact sets that changed: what stopped holding, which decisions were flagged, which actions
were held, which review items opened -- no more (alarm fatigue) and no less (silent contamination).
Cycles and broken graphs that the API cannot build are made as the superuser, then propagated
with ``beliefdb.propagate`` exactly as a DBA would.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

import psycopg
import pytest

import beliefdb
from beliefdb import errors

# ---------------------------------------------------------------------------------------------
# helpers


def fact(db: beliefdb.BeliefDB, source: str, value: str = "yes", *, subject: str | None = None,
         attribute: str = "value", authority: str | None = None, valid_from: str | None = None) -> UUID:
    """One belief from its own source (a new version of ``source`` holding exactly its quote)."""
    subject = subject or source
    quote = f"{subject} {attribute} is {value}."
    report = db.remember(quote, subject, attribute, value, quote, source=source, text=f"Note. {quote}",
                         authority=authority, valid_from=valid_from)
    assert report.rejected == [], report
    if report.accepted:
        (accepted,) = report.accepted
        return accepted.id
    (corroborated,) = report.corroborated
    return corroborated.id


def also_in_source(db: beliefdb.BeliefDB, source: str, quote: str, subject: str, value: str = "yes") -> UUID:
    """A second belief quoted from the version of ``source`` already in force (no new version)."""
    report = db.remember(quote, subject, "value", value, quote, source=source)
    (accepted,) = report.accepted
    return accepted.id


class Su:
    """The superuser connection of the test database, one committed statement at a time."""

    def __init__(self, conn: psycopg.Connection[Any], workspace_id: str) -> None:
        self.conn = conn
        self.ws = workspace_id
        self.all("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))

    def all(self, query: str, params: Any = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(query, params)
        rows = cur.fetchall() if cur.description else []
        self.conn.commit()
        return rows

    def one(self, query: str, params: Any = None) -> Any:
        rows = self.all(query, params)
        assert len(rows) == 1, rows
        return rows[0][0]

    def holds(self) -> dict[UUID, bool]:
        return {i: h for i, h in self.all("select id, holds from beliefdb.node where workspace_id = %s", (self.ws,))}

    def add_justification(self, consequent: UUID, antecedents: list[UUID], edge: str = "derives") -> UUID:
        jid = self.one("insert into beliefdb.justification (workspace_id, consequent) values (%s, %s) returning id",
                       (self.ws, consequent))
        for a in antecedents:
            self.all("""insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent,
                                                                          edge_kind)
                        values (%s, %s, %s, %s)""", (self.ws, jid, a, edge))
        return UUID(str(jid))

    def propagate(self, seeds: list[UUID]) -> dict[str, Any]:
        result: dict[str, Any] = self.one("select beliefdb.propagate(%s, %s::uuid[])", (self.ws, seeds))
        return result


@pytest.fixture
def su(postgresql: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    return Su(postgresql, bdb.database.workspace_id)


def decision_status(db: beliefdb.BeliefDB) -> dict[UUID, str]:
    return {d.id: d.status for d in db.decisions()}


def decision_holds(db: beliefdb.BeliefDB) -> dict[UUID, bool]:
    return {d.id: d.holds for d in db.decisions()}


def action_status(db: beliefdb.BeliefDB) -> dict[UUID, str]:
    return {a.id: a.status for a in db.actions()}


def belief_status(db: beliefdb.BeliefDB) -> dict[UUID, str]:
    return {b.id: b.status for b in db.beliefs(include_all=True)}


def open_items(db: beliefdb.BeliefDB) -> set[tuple[str, UUID]]:
    return {(i.kind, i.node) for i in db.review_items()}


def item_for(db: beliefdb.BeliefDB, kind: str, node: UUID) -> UUID:
    (item,) = [i.id for i in db.review_items() if i.kind == kind and i.node == node]
    return item


def effects(rows: list[Any]) -> dict[str, set[UUID]]:
    out: dict[str, set[UUID]] = {"stops_holding": set(), "flag": set(), "hold": set(), "survives": set()}
    for r in rows:
        out[r.effect].add(r.node)
    return out


def support_rows(su: Su, decision: UUID) -> set[tuple[tuple[UUID, ...], bool]]:
    """decision_support: each justification of the decision as (antecedents, live)."""
    return {(tuple(a), live) for a, live in su.all(
        "select antecedents, live from beliefdb.decision_support where decision = %s", (decision,))}


# ---------------------------------------------------------------------------------------------
# rule 2 and 4: a new version drops one quote -> exactly its decision flagged


def test_new_version_dropping_a_quote_flags_exactly_its_decision(bdb: beliefdb.BeliefDB) -> None:
    v1 = "Returns are accepted within 7 days of delivery. Shipping is free over 50 euros."
    seven = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days",
                         "Returns are accepted within 7 days of delivery.", source="policy", text=v1,
                         authority="official").accepted[0].id
    shipping = also_in_source(bdb, "policy", "Shipping is free over 50 euros.", "shipping")
    other = fact(bdb, "other-doc")

    refuse = bdb.decide("Refuse the return of order 1042", because=[seven]).id
    email = bdb.act(refuse, "email the customer a refusal").id
    ship = bdb.decide("Ship order 7 for free", because=[shipping]).id
    label = bdb.act(ship, "print a free label").id
    unrelated = bdb.decide("Unrelated", because=[other]).id
    unrelated_action = bdb.act(unrelated, "do the unrelated thing").id
    assert set(decision_status(bdb).values()) == {"active"}
    assert open_items(bdb) == set()

    # v2 drops the 7-day quote and repeats the shipping one
    report = bdb.ingest_text("Returns are under review. Shipping is free over 50 euros.", source="policy",
                             extractor="none")
    assert report.new_version and report.version == 2
    assert report.unsupported == [seven]
    assert report.flagged == [refuse] and report.held == [email]
    assert shipping in report.reverified and seven not in report.reverified

    assert decision_status(bdb) == {refuse: "needs_review", ship: "active", unrelated: "active"}
    assert decision_holds(bdb) == {refuse: False, ship: True, unrelated: True}
    assert action_status(bdb) == {email: "held", label: "scheduled", unrelated_action: "scheduled"}
    assert open_items(bdb) == {("decision_flagged", refuse), ("action_held", email)}
    statuses = belief_status(bdb)
    assert (statuses[seven], statuses[shipping], statuses[other]) == ("unsupported", "current", "current")
    assert bdb.audit_verify().ok


def test_a_decision_on_an_unsupported_belief_is_flagged_at_once(bdb: beliefdb.BeliefDB) -> None:
    a = fact(bdb, "a")
    bdb.retract(belief=a, reason="wrong")
    d = bdb.decide("built on sand", because=[a])
    assert d.status == "needs_review"
    act = bdb.act(d.id, "never run this")
    assert act.status == "held"
    assert open_items(bdb) == {("decision_flagged", d.id), ("action_held", act.id)}
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# rule 4: last remaining support


def test_alternative_supports_flag_only_when_the_last_one_goes(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    d = bdb.decide("either will do", because=[a, b]).id
    act = bdb.act(d, "go").id
    assert support_rows(su, d) == {((a,), True), ((b,), True)}

    first = bdb.retract(belief=a, reason="a was wrong")
    assert set(first.stopped_holding) == {a}
    assert first.flagged == [] and first.held == []
    assert decision_status(bdb)[d] == "active" and decision_holds(bdb)[d]
    assert action_status(bdb)[act] == "scheduled"
    assert open_items(bdb) == set()
    assert support_rows(su, d) == {((a,), False), ((b,), True)}

    last = bdb.retract(belief=b, reason="b was wrong too")
    assert set(last.stopped_holding) == {b, d, act}
    assert last.flagged == [d] and last.held == [act]
    assert decision_status(bdb)[d] == "needs_review"
    assert action_status(bdb)[act] == "held"
    assert open_items(bdb) == {("decision_flagged", d), ("action_held", act)}
    assert support_rows(su, d) == {((a,), False), ((b,), False)}
    assert bdb.audit_verify().ok


@pytest.mark.parametrize("lost", ["first", "second"])
def test_a_joint_justification_is_lost_when_either_antecedent_goes(bdb: beliefdb.BeliefDB, su: Su,
                                                                   lost: str) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    keep = fact(bdb, "c")
    d = bdb.decide("needs both", all_of=[[a, b]]).id
    other = bdb.decide("needs c", because=[keep]).id
    act = bdb.act(d, "go").id
    assert support_rows(su, d) == {(tuple(sorted((a, b), key=str)), True)}

    gone = a if lost == "first" else b
    changes = bdb.retract(belief=gone, reason="wrong")
    assert set(changes.stopped_holding) == {gone, d, act}
    assert changes.flagged == [d] and changes.held == [act]
    assert decision_status(bdb) == {d: "needs_review", other: "active"}
    assert action_status(bdb) == {act: "held"}
    assert support_rows(su, d) == {(tuple(sorted((a, b), key=str)), False)}
    assert bdb.audit_verify().ok


def test_joint_and_alternative_reasons_combine(bdb: beliefdb.BeliefDB) -> None:
    """(a and b) or c: losing a leaves c; losing c then flags."""
    a, b, c = fact(bdb, "a"), fact(bdb, "b"), fact(bdb, "c")
    d = bdb.decide("mixed", because=[c], all_of=[[a, b]]).id
    assert bdb.retract(belief=a, reason="x").flagged == []
    assert decision_status(bdb)[d] == "active"
    assert bdb.retract(belief=c, reason="x").flagged == [d]
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# multi-level chains and cycles (rule 2)


def test_a_multi_level_chain_stops_holding_from_its_root(bdb: beliefdb.BeliefDB, su: Su) -> None:
    root = fact(bdb, "root")
    side = fact(bdb, "side")
    level1 = bdb.derive("level one", "chain", "one", "1", [root])
    level2 = bdb.derive("level two", "chain", "two", "2", [level1.id])
    assert (level1.status, level2.status) == ("current", "current")
    d = bdb.decide("on top of the chain", because=[level2.id]).id
    act = bdb.act(d, "carry it out").id
    bystander = bdb.decide("on the side", because=[side]).id

    before = su.holds()
    assert all(before[n] for n in (root, level1.id, level2.id, d, act))

    preview = effects(bdb.impact(root))
    assert preview["stops_holding"] == {root, level1.id, level2.id, d, act}
    assert preview["flag"] == {d} and preview["hold"] == {act} and preview["survives"] == set()

    changes = bdb.retract(belief=root, reason="poisoned")
    assert set(changes.stopped_holding) == {root, level1.id, level2.id, d, act}
    assert changes.started_holding == []
    assert changes.flagged == [d] and changes.held == [act]

    after = su.holds()
    assert {n for n in before if before[n] != after[n]} == {root, level1.id, level2.id, d, act}
    statuses = belief_status(bdb)
    assert (statuses[root], statuses[level1.id], statuses[level2.id], statuses[side]) == (
        "retracted", "unsupported", "unsupported", "current")
    assert decision_status(bdb) == {d: "needs_review", bystander: "active"}
    assert action_status(bdb) == {act: "held"}
    assert open_items(bdb) == {("decision_flagged", d), ("action_held", act)}
    assert bdb.audit_verify().ok


def test_the_same_derivation_again_is_the_belief_it_made(bdb: beliefdb.BeliefDB, bob: beliefdb.BeliefDB,
                                                         su: Su) -> None:
    a, b = fact(bdb, "first"), fact(bdb, "second")
    made = bdb.derive("both hold", "pair", "both", "yes", [a, b])
    events = su.all("select count(*) from beliefdb.audit_event")
    again = bdb.derive("both hold", "pair", "both", "yes", [b, a, str(a)[:8]])
    assert (again.already_applied, made.already_applied) == (True, False)
    assert replace(again, already_applied=False) == made
    assert su.all("select count(*) from beliefdb.audit_event") == events  # nothing written
    assert [x.id for x in bdb.beliefs(subject="pair")] == [made.id]
    # another derivation of the same statement is another belief, from other beliefs
    other = bdb.derive("both hold", "pair", "both", "yes", [a])
    assert other.id != made.id
    # once the first stopped being current by a retraction, deriving it again from the same beliefs
    # is still that belief (unsupported), not a new current one resting on nothing current
    bdb.retract(belief=b, reason="wrong")
    again = bdb.derive("both hold", "pair", "both", "yes", [a, b])
    assert (again.id, again.status) == (made.id, "unsupported")
    # another principal's derivation of it is theirs
    assert bob.derive("both hold", "pair", "both", "yes", [a]).id not in {made.id, other.id}
    assert bdb.audit_verify().ok


def test_a_new_derived_belief_starts_at_revision_one(bdb: beliefdb.BeliefDB, cli: Any) -> None:
    """A derived belief is new as an ingested one is: revision 1, whether it holds at once or not (it was
    stored unsupported and made current by the propagation of its own derivation: revision 2, though
    nothing had changed it). Its correction's preview shows that revision, and the apply takes it."""
    a = fact(bdb, "fresh")
    assert bdb.why(a).belief.revision == 1
    made = bdb.derive("Fresh der", "fd", "is", "yes", [a])
    assert made.status == "current" and bdb.why(made.id).belief.revision == 1
    assert "[current, revision 1]" in cli("why", str(made.id)).stdout
    gone = fact(bdb, "gone")
    bdb.retract(belief=gone, reason="wrong")
    idle = bdb.derive("Idle der", "fd", "idle", "yes", [gone])
    assert idle.status == "unsupported" and bdb.why(idle.id).belief.revision == 1
    seen = bdb.preview_correction(made.id, "Fresh der, corrected.")
    assert seen.revision == 1
    fixed = bdb.apply_correction(made.id, "Fresh der, corrected.", reviewer="rita", expect_revision=seen.revision)
    assert fixed.superseded == [made.id] and fixed.already_applied is False


def test_circular_support_dies_with_its_only_real_support(bdb: beliefdb.BeliefDB, su: Su) -> None:
    real = fact(bdb, "real")
    x = bdb.derive("x", "loop", "x", "1", [real]).id
    y = bdb.derive("y", "loop", "y", "1", [x]).id
    su.add_justification(x, [y])           # the back edge: x <- y as well as y <- x
    su.propagate([x, y])
    d = bdb.decide("on the loop", because=[y]).id
    act = bdb.act(d, "go").id
    assert all(su.holds()[n] for n in (real, x, y, d, act))

    changes = bdb.retract(belief=real, reason="wrong")
    assert set(changes.stopped_holding) == {real, x, y, d, act}
    holds = su.holds()
    assert not any(holds[n] for n in (real, x, y, d, act))
    statuses = belief_status(bdb)
    assert (statuses[x], statuses[y]) == ("unsupported", "unsupported")
    assert decision_status(bdb) == {d: "needs_review"}
    assert action_status(bdb) == {act: "held"}

    # un-retracting the real support brings the whole loop back
    back = bdb.retract(belief=real, reason="", undo=True)
    assert set(back.started_holding) == {real, x, y, d, act}
    assert belief_status(bdb)[x] == belief_status(bdb)[y] == "current"
    assert bdb.audit_verify().ok


def test_a_loop_left_with_no_real_support_stops_holding(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Remove the real reason behind a three-node loop (a DBA deleting a justification): the loop
    still 'supports' itself, but the least fixpoint holds nothing of it."""
    real = fact(bdb, "real")
    x = bdb.derive("x", "loop", "x", "1", [real]).id
    y = bdb.derive("y", "loop", "y", "1", [x]).id
    z = bdb.derive("z", "loop", "z", "1", [y]).id
    su.add_justification(x, [z])
    su.propagate([x])
    assert all(su.holds()[n] for n in (x, y, z))

    su.all("""delete from beliefdb.justification j using beliefdb.justification_antecedent a
               where a.workspace_id = j.workspace_id and a.justification_id = j.id
                 and j.consequent = %s and a.antecedent = %s""", (x, real))
    out = su.propagate([x])
    assert set(map(UUID, out["stopped_holding"])) == {x, y, z}
    holds = su.holds()
    assert (holds[real], holds[x], holds[y], holds[z]) == (True, False, False, False)
    assert bdb.audit_verify().ok


def test_a_loop_with_a_second_entry_survives_losing_one(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """x <-> y, each also supported from outside (a -> x, b -> y): losing a keeps both through b."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    x = bdb.derive("x", "loop", "x", "1", [a]).id
    y = bdb.derive("y", "loop", "y", "1", [b]).id
    su.add_justification(x, [y])
    su.add_justification(y, [x])
    su.propagate([x, y])
    d = bdb.decide("on x", because=[x]).id
    changes = bdb.retract(belief=a, reason="gone")
    assert set(changes.stopped_holding) == {a}
    assert decision_status(bdb) == {d: "active"}
    changes = bdb.retract(belief=b, reason="gone")
    assert set(changes.stopped_holding) == {b, x, y, d}
    assert changes.flagged == [d]
    assert bdb.audit_verify().ok


def test_only_decisions_that_lose_a_reason_are_listed_as_surviving(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Losing a: x still holds through b, so the decision on x keeps every reason and is not
    listed (no alarm for what is not affected); the decision on a or x loses a and survives by x."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    x = bdb.derive("x", "kept", "x", "1", [a]).id
    su.add_justification(x, [b])
    su.propagate([x])
    on_x = bdb.decide("on x", because=[x]).id
    on_a_or_x = bdb.decide("on a or x", because=[a, x]).id

    rows = bdb.impact(a)
    got = effects(rows)
    assert got == {"stops_holding": {a}, "flag": set(), "hold": set(), "survives": {on_a_or_x}}, rows
    (survivor,) = [r for r in rows if r.effect == "survives"]
    assert survivor.detail["by"] == [[str(x)]]
    assert on_x not in got["survives"]

    changes = bdb.retract(belief=a, reason="gone")
    assert set(changes.stopped_holding) == {a} and changes.flagged == []
    assert decision_status(bdb) == {on_x: "active", on_a_or_x: "active"}


# ---------------------------------------------------------------------------------------------
# rule 5: independent evidence


def test_two_quotes_from_one_retracted_source_are_not_independent(bdb: beliefdb.BeliefDB) -> None:
    text = "Refunds take 5 days. Exchanges take 3 days."
    r1 = bdb.remember("Refunds take 5 days", "refund", "time", "5 days", "Refunds take 5 days.", source="poisoned",
                      text=text).accepted[0].id
    r2 = also_in_source(bdb, "poisoned", "Exchanges take 3 days.", "exchange")
    clean = fact(bdb, "clean-source")

    same_source = bdb.decide("two quotes, one source", because=[r1, r2]).id
    same_action = bdb.act(same_source, "act on the poisoned doc").id
    two_sources = bdb.decide("two sources", because=[r1, clean]).id
    two_action = bdb.act(two_sources, "act on two sources").id

    rows = bdb.impact("poisoned")
    got = effects(rows)
    assert got["flag"] == {same_source}
    assert got["hold"] == {same_action}
    assert got["survives"] == {two_sources}
    (survivor,) = [r for r in rows if r.effect == "survives"]
    assert survivor.detail["by"] == [[str(clean)]]
    assert {r1, r2, same_source, same_action} <= got["stops_holding"]
    assert two_sources not in got["stops_holding"] and clean not in got["stops_holding"]

    changes = bdb.retract(source="poisoned", reason="poisoned document")
    assert changes.flagged == [same_source] and changes.held == [same_action]
    assert decision_status(bdb) == {same_source: "needs_review", two_sources: "active"}
    assert action_status(bdb) == {same_action: "held", two_action: "scheduled"}
    assert open_items(bdb) == {("decision_flagged", same_source), ("action_held", same_action)}
    assert bdb.audit_verify().ok


def test_undoing_a_source_retraction_restores_holding_but_not_the_flags(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a = fact(bdb, "doc")
    derived = bdb.derive("derived", "d", "v", "1", [a]).id
    d = bdb.decide("on doc", because=[derived]).id
    act = bdb.act(d, "go").id
    holds_before = su.holds()
    beliefs_before = belief_status(bdb)

    bdb.retract(source="doc", reason="suspicious")
    assert not any(su.holds()[n] for n in (a, derived, d, act))

    back = bdb.retract(source="doc", reason="", undo=True)
    assert {a, derived, d, act} <= set(back.started_holding)
    assert back.flagged == [] and back.held == []
    assert su.holds() == holds_before
    assert belief_status(bdb) == beliefs_before
    # flags are durable: only a person clears them
    assert decision_status(bdb) == {d: "needs_review"}
    assert decision_holds(bdb) == {d: True}
    assert action_status(bdb) == {act: "held"}
    assert open_items(bdb) == {("decision_flagged", d), ("action_held", act)}
    assert bdb.audit_verify().ok


def test_retracting_the_newest_version_puts_the_previous_back_in_force(bdb: beliefdb.BeliefDB) -> None:
    seven = bdb.remember("7 days", "return_policy", "window", "7 days", "within 7 days", source="policy",
                         text="Returns within 7 days.").accepted[0].id
    d = bdb.decide("refuse", because=[seven]).id
    bdb.ingest_text("Returns are under review.", source="policy", extractor="none")
    assert decision_status(bdb) == {d: "needs_review"} and not decision_holds(bdb)[d]
    changes = bdb.retract(source="policy", version=2, reason="published by mistake")
    assert seven in changes.started_holding and d in changes.started_holding
    assert belief_status(bdb)[seven] == "current"
    assert decision_holds(bdb) == {d: True}
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# rule 3: supersession


@pytest.mark.slow
def test_superseded_belief_is_current_again_when_its_superseder_stops_holding(bdb: beliefdb.BeliefDB,
                                                                             su: Su) -> None:
    old = fact(bdb, "internal-note", "7 days", subject="return_policy", attribute="window", authority="internal")
    d = bdb.decide("refuse on the old rule", because=[old]).id
    act = bdb.act(d, "refuse").id
    new = fact(bdb, "official-doc", "15 days", subject="return_policy", attribute="window", authority="official")
    assert belief_status(bdb) == {old: "superseded", new: "current"}
    # superseded: still holds (its evidence is in force) but is not current
    assert su.all("select holds, current from beliefdb.holding where id = %s", (old,)) == [(True, False)]
    assert decision_status(bdb) == {d: "needs_review"} and decision_holds(bdb) == {d: False}
    assert action_status(bdb) == {act: "held"}
    assert support_rows(su, d) == {((old,), False)}

    changes = bdb.retract(source="official-doc", reason="fake")
    assert new in changes.stopped_holding
    assert {d, act} <= set(changes.started_holding)
    assert belief_status(bdb) == {old: "current", new: "unsupported"}
    assert su.all("select holds, current from beliefdb.holding where id = %s", (old,)) == [(True, True)]
    assert decision_holds(bdb) == {d: True}
    assert support_rows(su, d) == {((old,), True)}
    assert decision_status(bdb) == {d: "needs_review"}  # durable until reviewed
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# impact is a dry run


def snapshot(su: Su) -> dict[str, Any]:
    ws = (su.ws,)
    return {
        "node": sorted(su.all("select id, holds, retracted_at from beliefdb.node where workspace_id = %s", ws)),
        "belief": sorted(su.all("select id, status, revision, confidence from beliefdb.belief"
                                " where workspace_id = %s", ws)),
        "decision": sorted(su.all("select id, status, revision from beliefdb.decision where workspace_id = %s", ws)),
        "action": sorted(su.all("select id, status from beliefdb.action where workspace_id = %s", ws)),
        "review": sorted(su.all("select id, status from beliefdb.review_item where workspace_id = %s", ws)),
        "source": sorted(su.all("select id, retracted_at from beliefdb.source where workspace_id = %s", ws)),
        "audit": su.one("select count(*) from beliefdb.audit_event where workspace_id = %s", ws),
    }


@pytest.mark.slow
def test_impact_is_a_dry_run(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    derived = bdb.derive("derived", "d", "v", "1", [a]).id
    d1 = bdb.decide("on derived", because=[derived]).id
    bdb.act(d1, "go")
    d2 = bdb.decide("on a or b", because=[a, b]).id
    before = snapshot(su)

    rows = bdb.impact(a)
    got = effects(rows)
    assert got["flag"] == {d1} and got["survives"] == {d2}
    assert effects(bdb.impact("b"))["flag"] == set()
    assert effects(bdb.impact(a, "b"))["flag"] == {d1, d2}

    assert snapshot(su) == before
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# the review queue


def flagged_decision_with_actions(bdb: beliefdb.BeliefDB) -> tuple[UUID, list[UUID], UUID]:
    a = fact(bdb, "a")
    d = bdb.decide("to review", because=[a]).id
    acts = [bdb.act(d, f"step {i}").id for i in range(2)]
    other = bdb.decide("bystander", because=[fact(bdb, "b")]).id
    bdb.act(other, "bystander action")
    bdb.retract(belief=a, reason="wrong")
    assert decision_status(bdb)[d] == "needs_review"
    return d, acts, other


def test_approving_a_flagged_decision_releases_its_actions(bdb: beliefdb.BeliefDB) -> None:
    d, acts, other = flagged_decision_with_actions(bdb)
    assert open_items(bdb) == {("decision_flagged", d)} | {("action_held", a) for a in acts}
    bdb.resolve_review(item_for(bdb, "decision_flagged", d), "approved", note="fine as it is")
    assert decision_status(bdb) == {d: "approved", other: "active"}
    statuses = action_status(bdb)
    assert [statuses[a] for a in acts] == ["scheduled", "scheduled"]
    assert open_items(bdb) == set()  # the held actions' items are resolved with their decision
    assert bdb.audit_verify().ok


@pytest.mark.slow
def test_rejecting_a_flagged_decision_cancels_its_actions(bdb: beliefdb.BeliefDB) -> None:
    d, acts, other = flagged_decision_with_actions(bdb)
    bdb.resolve_review(item_for(bdb, "decision_flagged", d), "rejected")
    assert decision_status(bdb) == {d: "rejected", other: "active"}
    statuses = action_status(bdb)
    assert [statuses[a] for a in acts] == ["cancelled", "cancelled"]
    assert sorted(statuses.values()) == ["cancelled", "cancelled", "scheduled"]
    assert open_items(bdb) == set()
    assert bdb.audit_verify().ok


@pytest.mark.parametrize(("verdict", "expected"), [("approved", "scheduled"), ("rejected", "cancelled")])
def test_resolving_a_held_action_alone(bdb: beliefdb.BeliefDB, verdict: str, expected: str) -> None:
    d, acts, _ = flagged_decision_with_actions(bdb)
    bdb.resolve_review(item_for(bdb, "action_held", acts[0]), verdict)
    statuses = action_status(bdb)
    assert (statuses[acts[0]], statuses[acts[1]]) == (expected, "held")
    assert decision_status(bdb)[d] == "needs_review"
    assert open_items(bdb) == {("decision_flagged", d), ("action_held", acts[1])}
    assert bdb.audit_verify().ok


def test_an_approved_action_is_not_held_again_by_an_unrelated_change(bdb: beliefdb.BeliefDB) -> None:
    """A person released this action; a change elsewhere (outside its closure) must not re-hold it
    and re-open its review item. Only the closure of a change can change (issue 3)."""
    d, acts, _ = flagged_decision_with_actions(bdb)
    bdb.resolve_review(item_for(bdb, "action_held", acts[0]), "approved")
    assert action_status(bdb)[acts[0]] == "scheduled" and decision_status(bdb)[d] == "needs_review"
    fact(bdb, "something-else-entirely")  # an unrelated ingest
    assert action_status(bdb)[acts[0]] == "scheduled"
    assert ("action_held", acts[0]) not in open_items(bdb)
    assert bdb.audit_verify().ok


def test_a_resolved_item_cannot_be_resolved_again(bdb: beliefdb.BeliefDB) -> None:
    d, _, _ = flagged_decision_with_actions(bdb)
    item = item_for(bdb, "decision_flagged", d)
    bdb.resolve_review(item, "approved")
    with pytest.raises(errors.InvalidInput, match="is already approved"):
        bdb.resolve_review(item, "rejected")
    assert decision_status(bdb)[d] == "approved"
    assert bdb.audit_verify().ok


def tie(bdb: beliefdb.BeliefDB) -> tuple[UUID, UUID]:
    when = "2024-01-01T00:00:00+00:00"
    x = fact(bdb, "desk-a", "7 days", subject="return_policy", attribute="window", authority="user", valid_from=when)
    y = fact(bdb, "desk-b", "3 days", subject="return_policy", attribute="window", authority="user", valid_from=when)
    return x, y


def test_a_tie_opens_a_conflict_item_resolved_by_a_winner(bdb: beliefdb.BeliefDB, su: Su) -> None:
    x, y = tie(bdb)
    assert belief_status(bdb) == {x: "conflicting", y: "conflicting"}
    assert bdb.audit_verify().ok
    (item,) = [i for i in bdb.review_items() if i.kind == "conflict"]
    assert {item.node, item.other_node} == {x, y}
    on_y = bdb.decide("relies on 3 days", because=[y]).id
    on_x = bdb.decide("relies on 7 days", because=[x]).id
    act_y = bdb.act(on_y, "tell the customer 3 days").id

    with pytest.raises(errors.InvalidInput):
        bdb.resolve_review(item.id, "approved")          # approving needs a winner
    assert ("conflict", item.node) in open_items(bdb)
    assert belief_status(bdb) == {x: "conflicting", y: "conflicting"}
    assert bdb.audit_verify().ok

    bdb.resolve_review(item.id, "approved", winner=x)
    assert belief_status(bdb) == {x: "current", y: "superseded"}
    assert su.one("""select count(*) from beliefdb.relation
                      where from_belief = %s and to_belief = %s and kind = 'supersedes'""", (x, y)) == 1
    assert [h.old_belief for h in bdb.why(x).replaced] == [y]
    assert decision_status(bdb) == {on_y: "needs_review", on_x: "active"}
    assert action_status(bdb) == {act_y: "held"}
    assert open_items(bdb) == {("decision_flagged", on_y), ("action_held", act_y)}
    assert bdb.audit_verify().ok


def test_a_winner_outside_the_conflict_is_refused(bdb: beliefdb.BeliefDB) -> None:
    x, y = tie(bdb)
    stranger = fact(bdb, "stranger")
    (item,) = [i for i in bdb.review_items() if i.kind == "conflict"]
    with pytest.raises(errors.InvalidInput):
        bdb.resolve_review(item.id, "approved", winner=stranger)
    assert belief_status(bdb)[x] == belief_status(bdb)[y] == "conflicting"
    assert bdb.audit_verify().ok


def test_holding_view_matches_the_nodes(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a = fact(bdb, "a")
    d = bdb.decide("d", because=[a]).id
    bdb.retract(belief=a, reason="x")
    rows = {i: (k, h, c, r is not None) for i, k, h, c, r in su.all(
        "select id, kind::text, holds, current, retracted_at from beliefdb.holding where workspace_id = %s",
        (su.ws,))}
    assert rows[a] == ("belief", False, False, True)
    assert rows[d] == ("decision", False, False, False)
    fragments = [v for v in rows.values() if v[0] == "fragment"]
    assert fragments and all(v[1] and v[2] for v in fragments)
    assert bdb.audit_verify().ok



def test_supersession_that_would_make_holding_ambiguous_is_refused(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Rule 3 promises that rules 2 and 3 are stratified and always have one answer. Here x rests
    on a and w rests on c; x supersedes c, then w would supersede a. Neither belief rests on what
    it supersedes, yet the two relations form a loop through negation: x holds -> c superseded ->
    w does not hold -> a current -> x holds, and symmetrically for w. Two answers (the evaluation
    oscillates until 'holding did not settle'). The database must refuse the second relation."""
    a, c = fact(bdb, "p1"), fact(bdb, "p2")
    x = bdb.derive("x", "s2", "attr", "2", [a]).id
    w = bdb.derive("w", "s1", "attr", "2", [c]).id
    insert = ("insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)"
              " values (%s, %s, %s, 'supersedes')")
    su.all(insert, (su.ws, x, c))
    su.propagate([c])
    with pytest.raises(psycopg.Error) as refused:
        try:
            su.all(insert, (su.ws, w, a))
        finally:
            su.conn.rollback()
    assert refused.value.sqlstate == "BD002", refused.value
    su.propagate([a, c])  # the graph that stayed settles
    assert belief_status(bdb) == {a: "current", c: "superseded", x: "current", w: "unsupported"}



def test_retracting_one_side_of_a_tie_leaves_the_other_current(bdb: beliefdb.BeliefDB) -> None:
    """Rule 8: a belief is conflicting only while its tie is with a rival that is still current.
    Retracting the rival must re-evaluate the survivor, though it is outside the rival's reasons."""
    x, y = tie(bdb)
    bdb.retract(belief=x, reason="wrong")
    assert belief_status(bdb) == {x: "retracted", y: "current"}
    assert [b.id for b in bdb.beliefs(subject="return_policy")] == [y]
    bdb.retract(belief=x, reason="", undo=True)
    assert belief_status(bdb) == {x: "conflicting", y: "conflicting"}
    assert bdb.audit_verify().ok


def test_a_belief_never_supersedes_what_it_rests_on_nor_itself(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Supersession stays acyclic (beliefdb.supersession_is_acyclic): a belief derived from a, two
    levels up, may not supersede a, nor a itself; a belief that does not rest on a may."""
    a, b = fact(bdb, "p1"), fact(bdb, "p2")
    x = bdb.derive("x", "s2", "attr", "2", [a]).id
    y = bdb.derive("y", "s3", "attr", "3", [x, b]).id
    insert = ("insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)"
              " values (%s, %s, %s, 'supersedes')")
    for winner, loser in ((y, a), (x, a), (a, a)):
        with pytest.raises(psycopg.Error) as refused:
            try:
                su.all(insert, (su.ws, winner, loser))
            finally:
                su.conn.rollback()
        assert refused.value.sqlstate == "BD002", (winner, loser, refused.value)
    su.all(insert, (su.ws, b, a))
    su.conn.commit()
    assert su.one("select count(*) from beliefdb.relation where workspace_id = %s and kind = 'supersedes'",
                  (su.ws,)) == 1


def test_a_derived_belief_meets_its_rivals_under_rule_8(bdb: beliefdb.BeliefDB) -> None:
    """Rule 8 has no exemption for a derived belief (docs/dba.md said `derive` made one "not settled by
    rule 8"): derived with a value another current belief of the same subject and attribute contradicts,
    it is settled with it as any rival is. A derived belief has no quote, so it counts for no authority
    or recency: the quoted belief beats it and, the acting principal owning it, supersedes it; when the
    quoted one stops holding, the derived one is current again."""
    fact(bdb, "a.md", "30 days", subject="returns", attribute="window")
    sale = fact(bdb, "b.md", "10 days", subject="sale", attribute="window")
    made = bdb.derive("Returns: 40 days", "returns", "window", "40 days", [sale])
    assert made.status == "superseded"
    assert {b.value: b.status for b in bdb.beliefs(subject="returns", include_all=True)} == {
        "30 days": "current", "40 days": "superseded"}
    bdb.retract(source="a.md", reason="withdrawn")
    assert {b.value: b.status for b in bdb.beliefs(subject="returns", include_all=True)} == {
        "30 days": "unsupported", "40 days": "current"}
