"""Reading beliefs: current, all, as of a moment, and why one is believed.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_cursor, check_moment, check_text, ids_of
from beliefdb.models import (
    Belief,
    BuiltOn,
    ConfidenceFactor,
    Derived,
    Evidence,
    HistoryEntry,
    Retraction,
    SourceExcerpt,
    Why,
)
from beliefdb.text.naming import speaker_subject

#: the most beliefs one page may ask for (a caller that wants every belief pages with ``after``)
MAX_PAGE = 100_000


def subjects(db: Database, *, under: str | None = None, include_fixtures: bool = False,
             conn: psycopg.Connection[Any] | None = None) -> list[str]:
    """The subjects of current beliefs, sorted; ``under``: that subject and those below it (``under.``)."""
    if under is not None and not under.strip():
        raise errors.InvalidInput(f"{errors.argument('under')} is blank: give a subject, or leave it out for all")
    rows = db.fetch_all(lambda subject: str(subject), Q.current_subjects,
                        {"under": under, "fixtures": include_fixtures}, conn)
    return list(rows)


def list_beliefs(db: Database, *, subject: str | None = None, attribute: str | None = None,
                 include_all: bool = False, as_of: datetime | None = None, include_fixtures: bool = False,
                 ids: Sequence[UUID] | None = None, limit: int | None = None, after: str | UUID | None = None,
                 exact_subject: bool = False, conn: psycopg.Connection[Any] | None = None) -> list[Belief]:
    """Current beliefs; with ``include_all`` every belief with its status; with ``as_of`` those believed then;
    of ``subject`` when given (a person's name names their subject: :func:`subject_named`; with
    ``exact_subject``, ``subject`` only, as given).
    Production history only, unless ``include_fixtures`` (fixture and synthetic worlds too, labelled);
    only those among ``ids`` when given. In subject, attribute, recorded order: at most ``limit`` (all when
    None), those after the belief ``after`` (the last one of the page before; a full id or unique prefix)."""
    if as_of is not None:
        as_of = check_moment(as_of, "as_of")
        if include_all:  # (what was believed then is a listing of its own: every belief's status then is not)
            every = errors.spelled("include_all=True", "--all", http="all=true", mcp="include_all: true")
            one = errors.spelled("why(id, as_of=...)", "why ID --as-of ...", http="GET /beliefs/{id}?as_of=...",
                                 mcp="why with as_of")
            raise errors.InvalidInput(f"{every} and {errors.argument('as_of')} do not go together: as of a moment,"
                                      f" the beliefs believed then are listed; {one} gives one belief's status then")
    check_page_limit(limit)
    check_cursor(after)
    if subject is not None and not exact_subject:
        subject = subject_named(db, subject, conn)
    filters = {"subject": subject, "attribute": attribute, "as_of": as_of, "fixtures": include_fixtures,
               "ids": list(ids) if ids is not None else None, "limit": limit,
               "after": resolve(db, after, conn) if after is not None else None}
    query = Q.beliefs_as_of if as_of is not None else Q.beliefs_all if include_all else Q.beliefs_current
    if limit is None:
        return still_bound(db, db.fetch_all(Belief, query, filters, conn), conn)
    with a_page(db, conn) as c:
        return still_bound(db, db.fetch_all(Belief, query, filters, c), c)


def still_bound(db: Database, found: list[Any], conn: psycopg.Connection[Any] | None = None) -> list[Any]:
    """``found``, unless it is empty because the memory's workspace was deleted since it was opened:
    :class:`~beliefdb.errors.UnknownWorkspace` then, not an empty answer as if it held nothing on it."""
    if not found and db.scalar(Q.bound_workspace_name, None, conn) is None:
        raise errors.UnknownWorkspace(
            f"this memory's workspace {db.workspace_name!r} no longer exists (it was deleted; one made"
            " since under its name is another): open a memory on it again, or on another (beliefdb"
            " workspace list); an agent's login: ask for a new one")
    return found


def newest(db: Database, *, subjects: Sequence[str] | None = None, limit: int = 20, offset: int = 0,
           after: str | UUID | None = None, include_fixtures: bool = False,
           conn: psycopg.Connection[Any] | None = None) -> list[Belief]:
    """Current beliefs newest first (by recording; those recorded together by id), of ``subjects`` when given
    (each exactly as given): at most ``limit`` after the belief ``after`` (the last of the page before: pages
    that neither repeat nor skip one while others are written) or from ``offset``; the page read from the
    listing's index, not every belief sorted."""
    check_page_limit(limit)
    check_cursor(after)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise errors.InvalidInput(f"{errors.argument('offset')} must be a whole number, 0 or more, not {offset!r}")
    subjects = subjects_of(subjects)
    if subjects is not None and not subjects:
        return []
    params = {"subjects": subjects, "fixtures": include_fixtures, "offset": offset, "limit": limit}
    with a_page(db, conn) as c:
        if after is None:
            return still_bound(db, db.fetch_all(Belief, Q.newest_current_beliefs, params, c), c)
        if offset:
            raise errors.InvalidInput(f"{errors.argument('after')} and {errors.argument('offset')} do not go"
                                      " together: a page follows the last of the one before, or starts at an offset")
        return db.fetch_all(Belief, Q.newest_current_beliefs_after, {**params, "after": resolve(db, after, c)}, c)


def subjects_of(subjects: Any) -> list[str] | None:
    """The subjects a list the argument ``subjects`` takes names (None: no such condition), else InvalidInput: a
    text alone is a sequence of its characters, one subject each."""
    if subjects is None:
        return None
    listed = list(subjects) if not isinstance(subjects, str) and isinstance(subjects, Sequence) else None
    if listed is None or not all(isinstance(s, str) for s in listed):
        raise errors.InvalidInput(f"{errors.argument('subjects')} takes a list of subjects, each a str")
    check_text(listed, errors.argument("subjects"))
    return listed


def subject_named(db: Database, subject: str, conn: psycopg.Connection[Any] | None = None) -> str:
    """``subject``, or the subject a person's name names when no belief has the name itself as its
    subject ("Maya López": ``maya_lopez``, as the extractors name a speaker's subject and as forget
    reads it)."""
    folded = speaker_subject(subject)
    if not folded or folded == subject or db.scalar(Q.subject_exists, (subject,), conn):
        return subject
    return folded


def check_page_limit(limit: int | None) -> None:
    """A listing's page size: None (all) or a whole number from 1 to MAX_PAGE, checked before anything runs."""
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise errors.InvalidInput(f"limit must be a whole number between 1 and {MAX_PAGE:,}, not {limit!r}")
    if not 1 <= limit <= MAX_PAGE:
        raise errors.InvalidInput(f"limit must be between 1 and {MAX_PAGE:,}")


@contextmanager
def a_page(db: Database, conn: psycopg.Connection[Any] | None = None) -> Iterator[psycopg.Connection[Any]]:
    """A transaction whose reads take a page of a listing from the listing's index, in order
    (``page_walks_the_index``), the planner's setting put back after them."""
    with db.transaction(conn) as c:
        row = c.execute(Q.page_walks_the_index).fetchone()
        assert row is not None
        try:
            yield c
        finally:
            c.execute(Q.page_done, (row[0],))


def resolve(db: Database, ref: str | UUID, conn: psycopg.Connection[Any] | None = None) -> UUID:
    """A belief id from a full id or a unique prefix (``beliefdb.resolve_belief``; unknown: UnknownBelief).
    The functions that change beliefs take the reference itself; this is for the reads that need
    the id (``why``, a repair plan's faulty memories)."""
    return UUID(str(db.scalar(Q.resolve_belief, (str(ref),), conn)))


def get_beliefs(db: Database, ids: list[UUID], as_of: datetime | None = None,
                conn: psycopg.Connection[Any] | None = None) -> list[Belief]:
    """These beliefs as they are now, or as they were believed at ``as_of`` (in the order given)."""
    if as_of is None:
        rows = db.fetch_all(Belief, Q.beliefs_by_ids, {"ids": ids, "as_of": None}, conn)
    else:
        as_of = check_moment(as_of, "as_of")
        rows = db.fetch_all(Belief, Q.beliefs_by_ids_as_of, {"ids": ids, "as_of": as_of}, conn)
    by_id = {b.id: b for b in rows}
    return [by_id[i] for i in ids if i in by_id]


def get_belief(db: Database, belief_id: UUID, conn: psycopg.Connection[Any] | None = None) -> Belief:
    belief = db.fetch_one(Belief, Q.belief_by_id, {"id": belief_id, "as_of": None}, conn)
    if belief is None:
        raise errors.UnknownBelief(f"unknown belief {belief_id}")
    return belief  # type: ignore[no-any-return]


def belief_as_of(db: Database, belief_id: UUID, as_of: datetime,
                 conn: psycopg.Connection[Any] | None = None) -> Belief:
    """One belief as it stood at ``as_of``, believed then or not (superseded, expired, retracted or
    unsupported then: the status it had then, ``beliefdb.belief_status_at``), with its confidence then;
    NotFound when it was not recorded yet then."""
    belief = db.fetch_one(Belief, Q.beliefs_recorded_as_of, {"ids": [belief_id], "as_of": as_of}, conn)
    if belief is None:
        raise errors.NotFound(f"belief {belief_id} was not recorded yet at {as_of.isoformat()}")
    return belief  # type: ignore[no-any-return]


def why(db: Database, ref: str | UUID, conn: psycopg.Connection[Any] | None = None, *,
        as_of: datetime | None = None, include_fixtures: bool = False) -> Why:
    """The belief, its evidence, the factors of its confidence, its supersession history and what was
    built on it; with ``as_of``, as it stood then, with the status it had then, believed then or not
    (evidence and history recorded by then; NotFound for a belief not recorded yet then).
    A fixture or synthetic belief is shown only with ``include_fixtures`` (its evidence is not
    production history, rule 15), and so is one derived from it (labelled by its ``provenance``).
    The moment is checked before the belief is looked up."""
    if as_of is not None:
        as_of = check_moment(as_of, "as_of")
    # (its reads, one snapshot: a forget committed between them left a belief without its evidence)
    with db.transaction(conn, snapshot=conn is None) as c:
        belief_id = resolve(db, ref, c)
        belief = get_belief(db, belief_id, c) if as_of is None else belief_as_of(db, belief_id, as_of, c)
        if belief.provenance != "production" and not include_fixtures:
            raise errors.InvalidInput(f"belief {ref} is {belief.provenance} material, not production history:"
                                      f" add {errors.argument('include_fixtures', True)} to see it and its evidence")
        moment = {"id": belief_id, "as_of": as_of}
        evidence = db.fetch_all(
            Evidence, Q.belief_evidence, moment, c)
        factors = (db.fetch_all(ConfidenceFactor, Q.confidence_factors, (db.workspace_id, belief_id), c)
                   if as_of is None else
                   db.fetch_all(ConfidenceFactor, Q.confidence_factors_at, (db.workspace_id, belief_id, as_of), c))
        history = db.fetch_all(
            HistoryEntry, Q.belief_history, moment, c)
        built_on = db.fetch_all(
            BuiltOn, Q.built_on_belief, moment, c)
        # what a fixture derived from it is fixture material too (rule 15)
        derived = db.fetch_all(Derived, Q.derived_from_belief, {**moment, "fixtures": include_fixtures}, c)
        retractions = db.fetch_all(Retraction, Q.belief_retractions, moment, c)
    return Why(
        belief=belief, evidence=evidence, confidence=factors,
        replaced=[h for h in history if h.kind == "supersedes" and h.new_belief == belief_id],
        replaced_by=[h for h in history if h.kind == "supersedes" and h.old_belief == belief_id],
        conflicts=[h for h in history if h.kind == "conflicts_with"],
        built_on=built_on, derived=derived, retractions=retractions,
    )


def excerpts(db: Database, fragments: Sequence[UUID], *, context: int = 1000,
             conn: psycopg.Connection[Any] | None = None) -> list[SourceExcerpt]:
    """The text of each fragment's source version around it, ``context`` characters either side (a
    large document is never read whole), by source, version and offset."""
    ids = ids_of(fragments, "fragments")
    if context < 0:
        raise errors.InvalidInput("context: give a number of characters, 0 or more")
    return db.fetch_all(SourceExcerpt, Q.source_excerpts, {"ids": ids, "context": context}, conn)
