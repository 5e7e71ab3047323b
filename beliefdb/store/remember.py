"""Remember one belief through the evidence gate: against the version of its source in force, or with
a text that becomes the source's next version (stored only with the belief it supports)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.db.reports import ingest_report
from beliefdb.inputs import check_utf8
from beliefdb.models import IngestReport, Rejected
from beliefdb.store.files import without_bom
from beliefdb.store.ingest import (
    SourceOptions,
    check_choice,
    claim_json,
    embed_accepted,
    ingest_text,
    rejected_json,
)
from beliefdb.text.extractor import Candidate
from beliefdb.text.gate import gate
from beliefdb.vocabulary import BELIEF_KINDS

__all__ = ["remember_in_source", "remember_with_text"]


def _check_candidate(candidate: Candidate) -> None:
    """The candidate's kind, and its statement, subject and attribute not blank (its value may be empty),
    as a claims file's line is checked (``ingest.parse_claim``): else InvalidInput naming the field."""
    for field in ("statement", "subject", "attribute", "value", "quote"):
        _check_text(field, getattr(candidate, field))
    # text that is not UTF-8 (a lone surrogate: a JSON escape "\ud800"), named here: the claim travels as
    # JSON, which PostgreSQL refused in its own words ("invalid input syntax for type json"). The
    # statement last: a caller (the LangGraph store) may have made it of the others
    for field in ("subject", "attribute", "value", "quote", "statement"):
        check_utf8(getattr(candidate, field), f"'{field}'")
    check_utf8(candidate.scope, "'scope'")
    check_choice("kind", candidate.kind, BELIEF_KINDS)
    for field in ("statement", "subject", "attribute"):
        if not getattr(candidate, field).strip():
            raise errors.InvalidInput(f"'{field}' must be a non-empty string")


def _check_text(field: str, value: Any) -> None:
    """A field of the belief or its evidence that is not text (a number, None: an agent's JSON) is
    InvalidInput naming it, not an AttributeError deep inside."""
    if not isinstance(value, str):
        raise errors.InvalidInput(f"'{field}' must be a string, not {type(value).__name__}")


def remember_with_text(db: Database, text: str, options: SourceOptions, candidate: Candidate, *,
                       new_source: SourceOptions | None = None) -> IngestReport:
    """Store ``text`` as the next version of ``options.name`` with the belief ``candidate`` quotes in it,
    in one transaction; a quote the gate rejects writes nothing (the text is remembered for the belief
    it supports: stored alone, as a new version in force, it would take the support of every belief
    the version before held), and the report says why. ``new_source``: the authority and origin a
    source of that name gets when it does not exist yet, where ``options`` gives none (defaults do not
    change an existing source: an authority or origin given does, as for any ingest)."""
    _check_candidate(candidate)
    _check_text("source", options.name)
    _check_text("text", text)
    text = without_bom(text)
    check_utf8(options.name, "'source'")
    check_utf8(text, "'text'")
    if options.name is None or not options.name.strip():  # blanks only: no name to see or give again
        raise errors.InvalidInput("a source name is required")
    _, rejected = gate(text, [candidate]) if text.strip() else ([], [])
    if rejected:
        return IngestReport(source=options.name, version=None, new_version=False, fragments=0,
                            rejected=[Rejected(statement=c.statement, quote=c.quote, reason=reason)
                                      for c, reason in rejected],
                            note="nothing stored: the text is stored with the belief it supports, and the quote"
                                 " is not in it")
    with db.transaction() as c:
        c.execute(Q.lock_workspace)
        row = c.execute(Q.source_exists, (options.name,)).fetchone()
        if new_source is not None and row is not None and not row[0]:
            options = replace(options, authority=options.authority or new_source.authority,
                              origin=options.origin or new_source.origin)
        return ingest_text(db, text, options, candidates=[candidate], extractor="none", conn=c)


def remember_in_source(db: Database, source: str, candidate: Candidate, *, embed: bool = True,
                       conn: psycopg.Connection[Any] | None = None) -> IngestReport:
    """Add one candidate against the version of ``source`` in force, through the same gate."""
    _check_candidate(candidate)
    _check_text("source", source)
    check_utf8(source, "'source'")
    with db.transaction(conn) as c:
        row = c.execute(
            Q.source_in_force, (source,)).fetchone()
        if row is None:
            raise errors.NotFound(f"unknown source '{source}' (ingest it first, or give its text with the belief)")
        text, version = row
        if text is None:  # no version in force: the database says why (source or every version retracted)
            c.execute(Q.add_claims_to_source, (source, Jsonb([]), Jsonb([])))
            raise errors.InvalidInput(f"source '{source}' has no version in force")  # restored meanwhile
        located, rejected = gate(text, [candidate])
        claims = [claim_json(loc.candidate, loc.start, loc.end) for loc in located]
        out = c.execute(Q.add_claims_to_source, (source, Jsonb(claims), Jsonb(rejected_json(rejected)))).fetchone()
        assert out is not None
        raw = {**out[0], "source": source, "version": version, "new_version": False, "fragments": 0,
               "reverified": []}
        report = ingest_report(raw, None)
    deferred = embed_accepted(db, report, embed, conn)
    return replace(report, embedding_deferred=deferred) if deferred else report
