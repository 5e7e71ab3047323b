"""Reading beliefs: current, all, as of a moment, and why one is believed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.connector import Database
from beliefdb.models import Belief, BuiltOn, ConfidenceFactor, Evidence, HistoryEntry, Why

# evidence_count counts evidence recorded by %(as_of)s (now when it is null)
_BELIEF_COLUMNS = """
    b.id, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope, b.valid_time, b.confidence,
    b.confidence_kind::text as confidence_kind, b.status::text as status, b.revision, b.owner, b.recorded_at,
    (select count(*) from beliefdb.evidence e
      where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
        and e.created_at <= coalesce(%(as_of)s::timestamptz, beliefdb.clock()))::integer
      as evidence_count,
    b.provenance::text as provenance
"""


def list_beliefs(db: Database, *, subject: str | None = None, attribute: str | None = None,
                 include_all: bool = False, as_of: datetime | None = None, include_fixtures: bool = False,
                 conn: psycopg.Connection[Any] | None = None) -> list[Belief]:
    """Current beliefs; with ``include_all`` every belief with its status; with ``as_of`` those believed then.
    Production history only, unless ``include_fixtures`` (fixture and synthetic worlds too, labelled)."""
    filters = {"subject": subject, "attribute": attribute, "as_of": as_of, "fixtures": include_fixtures}
    if as_of is not None:
        return db.fetch_all(
            Belief,
            "select" + _BELIEF_COLUMNS + """ from beliefdb.beliefs_as_of(%(as_of)s) b
             where (%(subject)s::text is null or b.subject = %(subject)s)
               and (%(attribute)s::text is null or b.attribute = %(attribute)s)
               and (%(fixtures)s or b.provenance = 'production')
             order by b.subject, b.attribute, b.recorded_at""",
            filters, conn)
    if include_all:
        return db.fetch_all(
            Belief,
            "select" + _BELIEF_COLUMNS + """ from beliefdb.belief b
             where (%(subject)s::text is null or b.subject = %(subject)s)
               and (%(attribute)s::text is null or b.attribute = %(attribute)s)
               and (%(fixtures)s or b.provenance = 'production')
             order by b.subject, b.attribute, b.recorded_at""",
            filters, conn)
    return db.fetch_all(
        Belief,
        "select" + _BELIEF_COLUMNS + """ from beliefdb.current_beliefs b
         where (%(subject)s::text is null or b.subject = %(subject)s)
           and (%(attribute)s::text is null or b.attribute = %(attribute)s)
           and (%(fixtures)s or b.provenance = 'production')
         order by b.subject, b.attribute, b.recorded_at""",
        filters, conn)


def resolve(db: Database, ref: str | UUID, conn: psycopg.Connection[Any] | None = None) -> UUID:
    """A belief id from a full id or a unique prefix."""
    try:
        found = db.scalar("select beliefdb.resolve_belief(%s)", (str(ref),), conn)
    except errors.NotFound as exc:
        raise errors.UnknownBelief(exc.message) from exc
    return UUID(str(found))


def resolve_node(db: Database, ref: str | UUID, kinds: Sequence[str] | None = None,
                 conn: psycopg.Connection[Any] | None = None) -> UUID:
    """A node id (of one of ``kinds``, any kind when None) from a full id or a unique prefix
    (``beliefdb.resolve_node``)."""
    found = db.scalar("select beliefdb.resolve_node(%s, %s::beliefdb.node_kind[])",
                      (str(ref), list(kinds) if kinds is not None else None), conn)
    return UUID(str(found))


def get_beliefs(db: Database, ids: list[UUID], as_of: datetime | None = None,
                conn: psycopg.Connection[Any] | None = None) -> list[Belief]:
    """These beliefs as they are now, or as they were believed at ``as_of`` (in the order given)."""
    if as_of is None:
        rows = db.fetch_all(Belief, "select" + _BELIEF_COLUMNS + " from beliefdb.belief b where b.id = any(%(ids)s)",
                            {"ids": ids, "as_of": None}, conn)
    else:
        rows = db.fetch_all(Belief, "select" + _BELIEF_COLUMNS + """ from beliefdb.beliefs_as_of(%(as_of)s) b
                                     where b.id = any(%(ids)s)""", {"ids": ids, "as_of": as_of}, conn)
    by_id = {b.id: b for b in rows}
    return [by_id[i] for i in ids if i in by_id]


def get_belief(db: Database, belief_id: UUID, conn: psycopg.Connection[Any] | None = None) -> Belief:
    belief = db.fetch_one(Belief, "select" + _BELIEF_COLUMNS + " from beliefdb.belief b where b.id = %(id)s",
                          {"id": belief_id, "as_of": None}, conn)
    if belief is None:
        raise errors.UnknownBelief(f"unknown belief {belief_id}")
    return belief  # type: ignore[no-any-return]


def why(db: Database, ref: str | UUID, conn: psycopg.Connection[Any] | None = None, *,
        as_of: datetime | None = None, include_fixtures: bool = False) -> Why:
    """The belief, its evidence, the factors of its confidence, its supersession history and what was
    built on it; with ``as_of``, as it was believed then (evidence and history recorded by then).
    A fixture or synthetic belief is shown only with ``include_fixtures`` (its evidence is not
    production history, rule 15)."""
    with db.transaction(conn) as c:
        belief_id = resolve(db, ref, c)
        if as_of is None:
            belief = get_belief(db, belief_id, c)
        else:
            then = get_beliefs(db, [belief_id], as_of, c)
            if not then:
                raise errors.NotFound(f"belief {ref} was not believed at {as_of.isoformat()}")
            belief = then[0]
        if belief.provenance != "production" and not include_fixtures:
            raise errors.InvalidInput(f"belief {ref} is {belief.provenance} material, not production history:"
                                      " add --include-fixtures to see it and its evidence")
        moment = {"id": belief_id, "as_of": as_of}
        evidence = db.fetch_all(
            Evidence,
            """select belief_id, role, quote, fragment_id, start_offset, end_offset, source,
                      origin_type::text as origin_type, authority::text as authority,
                      provenance::text as provenance, version, version_label, version_sha256, in_force, created_at
                 from beliefdb.belief_evidence
                where belief_id = %(id)s and (%(as_of)s::timestamptz is null or created_at <= %(as_of)s)
                order by in_force desc, version desc, start_offset""",
            moment, c)
        factors = db.fetch_all(
            ConfidenceFactor,
            "select factor, detail, weight from beliefdb.confidence_factors(%s, %s)",
            (db.workspace_id, belief_id), c)
        history = db.fetch_all(
            HistoryEntry,
            """select new_belief, new_statement, new_value, old_belief, old_statement, old_value,
                      kind::text as kind, reason, at
                 from beliefdb.belief_history
                where (new_belief = %(id)s or old_belief = %(id)s)
                  and (%(as_of)s::timestamptz is null or at <= %(as_of)s)
                order by at""",
            moment, c)
        built_on = db.fetch_all(
            BuiltOn,
            """select d.id as decision_id, d.title, d.status as decision_status,
                      beliefdb.latest_outcome(d.workspace_id, d.id) as outcome,
                      coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'description', a.description,
                                                            'status', a.status,
                                                            'outcome', beliefdb.latest_outcome(a.workspace_id, a.id))
                                         order by a.created_at)
                               filter (where a.id is not null), '[]') as actions
                 from beliefdb.justification j
                 join beliefdb.justification_antecedent x
                   on x.workspace_id = j.workspace_id and x.justification_id = j.id
                 join beliefdb.decision d on d.workspace_id = j.workspace_id and d.id = j.consequent
                 left join beliefdb.action a on a.workspace_id = d.workspace_id and a.decision_id = d.id
                where x.antecedent = %(id)s
                group by d.workspace_id, d.id, d.title, d.status, d.created_at
                order by d.created_at""",
            moment, c)
    return Why(
        belief=belief, evidence=evidence, confidence=factors,
        replaced=[h for h in history if h.kind == "supersedes" and h.new_belief == belief_id],
        replaced_by=[h for h in history if h.kind == "supersedes" and h.old_belief == belief_id],
        conflicts=[h for h in history if h.kind == "conflicts_with"],
        built_on=built_on,
    )
