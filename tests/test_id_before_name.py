"""A whole id names what has that id, whatever a source is named.

A reference is resolved in an order (beliefdb.resolve_target): a source named with a belief's whole id came
first, so anyone who could write a source in the workspace took over that belief's ``impact``, its "if
this were wrong" page in the product view (which links ``/impact?ref=<id>``), and a retraction naming it:
``impact <belief>`` showed the impostor source's dry run ("would be flagged: 0") while a decision rested
on the belief. Ids are made by the database, names by anyone: a whole id that is an id in the workspace
names that, and only then a source of that name."""

from __future__ import annotations

import beliefdb


def _setup(bdb: beliefdb.BeliefDB, shadowed: str = "belief") -> tuple[str, str, str]:
    belief = bdb.remember("Returns are accepted within 7 days.", "returns", "window", "7 days",
                          "Returns are accepted within 7 days.", source="policy.md",
                          text="Returns are accepted within 7 days.").accepted[0].id
    fragment = str(bdb.why(belief).evidence[0].fragment_id)
    decision = bdb.decide("Refuse the return of order 1042", because=[belief]).id
    # someone else in the workspace names a source with the belief's (or its fragment's) whole id
    name = str(belief) if shadowed == "belief" else fragment
    bdb.remember("x is x.", "x", "x", "x", "x is x.", source=name, text="x is x.")
    return str(belief), fragment, str(decision)


def test_impact_of_a_whole_id_is_that_nodes_not_a_source_named_so(bdb: beliefdb.BeliefDB) -> None:
    belief, _, decision = _setup(bdb)
    for ref in (belief, belief.upper(), belief.replace("-", "")):
        rows = bdb.impact(ref)
        assert {(str(r.node), r.effect) for r in rows} >= {(belief, "stops_holding"), (decision, "flag")}, ref
    # the source named so is still a source of that name where retract names sources by name
    preview = bdb.retract(source=belief, reason="named like an id")
    assert [b.value for b in bdb.beliefs(subject="x")] == [] and preview.stopped_holding
    assert [b.value for b in bdb.beliefs(subject="returns")] == ["7 days"]


def test_a_retraction_of_a_fragment_by_its_whole_id_retracts_that_fragment(bdb: beliefdb.BeliefDB) -> None:
    _, fragment, decision = _setup(bdb, shadowed="fragment")
    done = bdb.retract(fragment=fragment, reason="wrong")
    assert decision in {str(d) for d in done.flagged}, done
    assert [b.value for b in bdb.beliefs(subject="x")] == ["x"]  # the source named so is untouched
    assert bdb.beliefs(subject="returns") == []
