"""Claims alone on their subject and attribute are stored set-based (rules 1, 2 and 8): a document that
restates another's facts corroborates each in its own order, a new version carries every quote through one
justification each, and what is neither (a value believed only as superseded, a claim recorded from its
fragment before) still goes the one-claim way with the same outcome."""

from __future__ import annotations

from typing import Any

import psycopg

import beliefdb

FACTS = [f"Item {n} weight: {n} kg." for n in range(1, 7)]


def evidence_of(conn: psycopg.Connection[Any], belief: object) -> tuple[int, int]:
    """The belief's supporting evidence rows and the justifications they rest on."""
    row = conn.execute("select count(*), count(distinct e.justification_id) from beliefdb.evidence e"
                       " where e.belief_id = %s and e.role = 'supports'", (belief,)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def test_a_document_restating_another_corroborates_each_fact_in_its_order(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    first = bdb.ingest_text("\n".join(FACTS) + "\n", source="catalogue.md", authority="internal")
    by_statement = {a.quote: a.id for a in first.accepted}
    assert len(by_statement) == 6
    alone = {b.id: b.confidence for b in bdb.beliefs()}
    restated = [FACTS[3], "Item 9 weight: 9 kg.", FACTS[1], FACTS[0]]
    second = bdb.ingest_text("\n".join(restated) + "\n", source="supplier.md", authority="internal")
    assert [a.quote for a in second.accepted] == ["Item 9 weight: 9 kg."]
    assert [c.id for c in second.corroborated] == [by_statement[FACTS[3]], by_statement[FACTS[1]],
                                                   by_statement[FACTS[0]]]
    assert second.unchanged == [] and second.superseded == [] and second.conflicts == []
    now = {b.id: b for b in bdb.beliefs()}
    for quote in (FACTS[0], FACTS[1], FACTS[3]):
        belief = now[by_statement[quote]]
        assert evidence_of(postgresql, belief.id) == (2, 2)
        # two independent sources: the stored confidence is recomputed upwards (rule 9)
        assert belief.confidence > alone[belief.id] and belief.evidence_count == 2
    assert evidence_of(postgresql, by_statement[FACTS[2]]) == (1, 1)
    assert now[by_statement[FACTS[2]]].confidence == alone[by_statement[FACTS[2]]]

    # a new version of the second document: each quote it repeats is carried, one justification each
    third = bdb.ingest_text("Edition 2.\n" + "\n".join(restated) + "\n", source="supplier.md",
                            authority="internal")
    assert third.new_version and third.accepted == [] and third.corroborated == []
    for quote in (FACTS[0], FACTS[1], FACTS[3]):
        assert evidence_of(postgresql, by_statement[quote]) == (3, 3)
        assert now[by_statement[quote]].status == "current"
    assert {b.id for b in bdb.beliefs()} == set(now)


def test_a_value_believed_only_as_superseded_is_believed_again_not_corroborated(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    (old,) = bdb.ingest_text("Item 1 weight: 1 kg.\n", source="a.md", authority="internal").accepted
    (new,) = bdb.ingest_text("Item 1 weight: 2 kg.\n", source="b.md", authority="official").accepted
    statuses = {b.id: b.status for b in bdb.beliefs(include_all=True)}
    assert statuses == {old.id: "superseded", new.id: "current"}
    again = bdb.ingest_text("Item 1 weight: 1 kg.\n", source="c.md", authority="internal")
    assert again.corroborated == [] and len(again.accepted) == 1
    (made,) = again.accepted
    assert made.id not in (old.id, new.id)
    assert evidence_of(postgresql, old.id) == (1, 1)
    # the official value still wins over an internal source's (rule 8: authority first)
    statuses = {b.id: b.status for b in bdb.beliefs(include_all=True)}
    assert statuses[new.id] == "current" and statuses[made.id] == "superseded"
