"""``ask``: retrieval that similarity cannot outvote (truth rule 11 of docs/rules.md).

The question is embedded in Python (the only part Postgres cannot do); ``beliefdb.recall`` in SQL
nominates candidates by vector, full text and subject name and applies the truth filter inside
each search; this module fetches each belief's evidence and warnings and writes the prompt-ready
context. Three outcomes are never confused: ``ok``, ``no_match`` (memory answered: nothing
applies) and ``memory_unavailable`` (memory could not answer). When only the embedder fails the
answer comes from text search and says so in ``degraded``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, LiteralString
from uuid import UUID

import psycopg
from pgvector import Vector
from psycopg.rows import kwargs_row

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.embedders import Embedder, get_embedder
from beliefdb.errors import EmbedderUnavailable, ModelMismatch
from beliefdb.inputs import check_moment, utc_day
from beliefdb.models import Answer, AskResult, Belief, Evidence, FragmentHit, Replaced
from beliefdb.models.retrieval import BELIEFS_AFTER_TEXT, ask_parts
from beliefdb.render.pictures.labels import version_label
from beliefdb.store.beliefs import list_beliefs, still_bound, subjects_of
from beliefdb.store.vectors import WorkspaceModel
from beliefdb.text.excerpts import excerpt


@dataclass(frozen=True)
class Recalled:
    """One row of ``beliefdb.recall``."""

    belief_id: UUID
    score: float
    similarity: float | None
    vector_rank: int | None
    text_rank: int | None
    name_rank: int | None
    low_confidence: bool


#: one read of :func:`_reads`: the row class (None: plain tuples), the statement, its parameters
Read = tuple[Callable[..., Any] | None, LiteralString, Any]


def _reads(conn: psycopg.Connection[Any], *reads: Read) -> list[list[Any]]:
    """The rows of several reads in one round trip (psycopg's pipeline mode), inside ask's one
    transaction and without a savepoint each: these are reads, and any error ends the transaction
    anyway. At 1M beliefs at load 15, ask's time outside its statements (a savepoint and a round trip
    each, ~20 round trips) was 16-32 ms, as much as the statements themselves (docs/benchmarks.md,
    "Recall of the vector path")."""
    cursors = []
    # a libpq older than 14 (psycopg built against the system's) has no pipeline mode: one by one
    with conn.pipeline() if psycopg.Pipeline.is_supported() else contextlib.nullcontext():
        for cls, query, params in reads:
            cur = conn.cursor(row_factory=kwargs_row(cls)) if cls is not None else conn.cursor()
            cur.execute(query, params)
            cursors.append(cur)
    out = [cur.fetchall() for cur in cursors]
    for cur in cursors:
        cur.close()
    return out


def _beliefs_read(ids: list[UUID], as_of: datetime | None) -> Read:
    """The read of these beliefs as they are now, or as believed at ``as_of`` (store.beliefs.get_beliefs's)."""
    if as_of is not None:
        as_of = check_moment(as_of, "as_of")
    return (Belief, Q.beliefs_by_ids if as_of is None else Q.beliefs_by_ids_as_of, {"ids": ids, "as_of": as_of})


def _matched_by(r: Recalled) -> list[str]:
    return [name for name, rank in (("vector", r.vector_rank), ("text", r.text_rank), ("name", r.name_rank))
            if rank is not None]


#: the longest question ask takes, in characters: the whole question is embedded, which takes time
#: linear in its length (about a second a thousand characters on a busy 2-core machine)
MAX_QUESTION = 2000
#: the most beliefs one answer may hold (the recall's limit: a page of beliefs at most)
MAX_K = 100_000

#: at most this many conflict warnings (and replaced ones) per belief, then "and M more": a belief
#: many turns disagree with would otherwise bury the answer (issue 20: ~38 warning lines in a top 5)
MAX_WARNINGS = 3
#: a rival's statement or an old value is cut to this many characters in a warning
CLIP = 80
#: at most this many replaced values shown as history under a belief (its predecessors, the latest first)
MAX_HISTORY = 3


def _clip(text: str, n: int = CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def _warnings(belief: Belief, raw: Mapping[str, Any], low: bool) -> list[str]:
    out = []
    conflicts = raw["conflicts"]
    for c in conflicts[:MAX_WARNINGS]:
        out.append(f"open conflict with [{str(c['belief'])[:8]}] \"{_clip(c['statement'])}\"")
    if len(conflicts) > MAX_WARNINGS:
        out.append(f"and {len(conflicts) - MAX_WARNINGS} more open conflicts (see `beliefdb why {str(belief.id)[:8]}`)")
    # one line a value, the latest first: a value said in several turns is several beliefs, each replaced
    # (a trial's answer said "replaced 'Porto'" once for each of them)
    replaced: dict[str, list[Mapping[str, Any]]] = {}
    for r in raw["replaced"][::-1]:
        replaced.setdefault(r["value"], []).append(r)
    for value, same in list(replaced.items())[:MAX_WARNINGS]:  # (on: as beliefdb.replaced_on dates it)
        ids = ", ".join(str(r["belief"])[:8] for r in same[:MAX_WARNINGS])
        ids += ", ..." if len(same) > MAX_WARNINGS else ""
        out.append(f"replaced {_clip(value, 40)!r} ({ids}) on {utc_day(same[0]['on'])}")
    if len(replaced) > MAX_WARNINGS:
        out.append(f"and {len(replaced) - MAX_WARNINGS} earlier values replaced")
    if low:
        out.append(f"low confidence ({belief.confidence:.2f})")
    if raw["provenance"] != "production":
        out.append(f"provenance: {raw['provenance']} — not production history")
    return out


def _valid(belief: Belief) -> str:
    """A belief's valid time in a context line: when it became true (a turn's date), else when recorded."""
    v = belief.valid_time
    if v.lower is None and v.upper is None:
        return f"valid time not stated, recorded {utc_day(belief.recorded_at)}"
    return ("valid " + (f"from {utc_day(v.lower)}" if v.lower else "until")
            + (f" to {utc_day(v.upper)}" if v.upper else ""))


def _fragment_line(n: int, f: FragmentHit) -> list[str]:
    said = f"{f.speaker}, " if f.speaker else ""
    when = f"said {utc_day(f.spoken_at)}" if f.spoken_at else f"recorded {utc_day(f.recorded_at)}"
    label = f" ({more})" if (more := version_label(f.version, f.version_label)) else ""
    return [f"{n}. \"{_clip(f.text, 300)}\"",
            f"   {said}{when}; source {f.source} v{f.version}{label}, chars {f.start_offset}-{f.end_offset}"]


def _where(evidence: Sequence[Evidence]) -> str:
    src = evidence[0] if evidence else None
    more = version_label(src.version, src.version_label) if src else None  # (a label "v2" of version 2: once)
    return (f"source {src.source} v{src.version}" + (f" ({more})" if more else "")
            + f", chars {src.start_offset}-{src.end_offset}, {src.authority}") if src else "no quoted source"


def _history_lines(n: int, current: int, h: Replaced, as_of: datetime | None) -> list[str]:
    """A value the belief numbered ``current`` replaced: an item of its own, labelled as history and
    saying what replaced it and when (never a claim that it holds now); the belief ``current`` holds now,
    or held then when the answer is as of a moment."""
    b = h.belief
    since = b.valid_time.lower
    lines = [f"{n}. history, not current (item {current} {'held then' if as_of else 'holds now'}): {b.statement} "
             f"[{b.subject}.{b.attribute} = {b.value}]",
             "   " + (f"valid from {utc_day(since)} " if since else "") + f"until {utc_day(h.replaced_on)}, replaced "
             f"by {_clip(h.replaced_by_value, 40)!r}" + (" (itself replaced since)" if h.steps > 1 else "")
             + f"; {_where(h.evidence)}"]
    if h.evidence:
        lines.append(f"   quote: \"{excerpt(h.evidence[0].quote, b.statement)}\"")
    return lines


def _context(question: str, as_of: datetime | None, answers: list[Answer], degraded: str | None,
             fragments: Sequence[FragmentHit] = (), fragments_after: int = 0) -> str:
    """The prompt-ready context: one numbering across the beliefs the question's words match, then
    the unextracted text that matches, then the beliefs found by vector or by name alone (issue 20: a
    vector neighbour is no better evidence than text that shares the question's words)."""
    when = f"as of {as_of.isoformat()}" if as_of else "now"
    lines = [f"Memory (beliefdb) for {question!r}, {when}. Only beliefs current {when} are listed as current; "
             "a value one replaced is shown under it as history, never as current; retracted ones never are."
             " Days are UTC days."]
    if degraded:
        lines.append(f"(weaker search: {degraded}; text search only)")
    if not answers:
        lines.append("No belief answers this.")
    n = 0
    for a in ask_parts(answers, bool(fragments), fragments_after):
        if isinstance(a, str):
            if a == "fragments":
                n = _fragment_lines(lines, n, fragments)
            else:
                lines.append(BELIEFS_AFTER_TEXT)
            continue
        n += 1
        b = a.belief
        lines.append(f"{n}. {b.statement} [{b.subject}.{b.attribute} = {b.value}]")
        lines.append(f"   {_valid(b)}; confidence {b.confidence:.2f} ({b.confidence_kind}); {_where(a.evidence)}")
        if a.evidence:
            lines.append(f"   quote: \"{excerpt(a.evidence[0].quote, b.statement)}\"")
        if b.scope:
            lines.append("   applies when: " + ", ".join(f"{k}={v}" for k, v in sorted(b.scope.items())))
        lines += [f"   warning: {w}" for w in a.warnings]
        current = n
        for h in a.history:
            n += 1
            lines += _history_lines(n, current, h, as_of)
    return "\n".join(lines)


def _fragment_lines(lines: list[str], n: int, fragments: Sequence[FragmentHit]) -> int:
    """Append the fragments numbered on from ``n``; the last number used."""
    if fragments:
        lines.append("Unextracted text that matches (not beliefs: no belief was extracted from it, nothing "
                     "checked it; it may be out of date):")
    for f in fragments:
        n += 1
        lines += _fragment_line(n, f)
    return n


def _embed_question(db: Database, question: str, embedder: Embedder | str | None,
                    conn: psycopg.Connection[Any]) -> tuple[list[float] | None, str | None, str | None, float]:
    """(vector, model, degraded reason, min similarity) for the question."""
    found = _reads(conn, (WorkspaceModel, Q.workspace_model, None))[0]
    recorded = found[0] if found else None
    if recorded is None:
        return None, None, None, 0.0  # nothing embedded yet: text search is the whole search
    try:
        chosen = embedder if isinstance(embedder, Embedder) else get_embedder(embedder)
        if chosen.model != recorded.model:
            raise ModelMismatch(f"the workspace's embeddings are {recorded.model}, the embedder is {chosen.model}")
        vector = chosen.query(question)
        if len(vector) != recorded.dim:  # (an endpoint serving another model under the same name)
            raise ModelMismatch(f"the workspace's vectors of {recorded.model} have {recorded.dim} dimensions, the"
                                f" embedder's {len(vector)}")
        return vector, recorded.model, None, chosen.min_similarity
    except (EmbedderUnavailable, ModelMismatch, errors.InvalidInput) as exc:
        # the openai embedder's own message already begins so: said once
        return None, None, f"embedder unavailable: {exc.message.removeprefix('embedder unavailable: ')}", 0.0


def ask(db: Database, question: str, *, k: int = 5, as_of: datetime | None = None,
        scope: Mapping[str, str] | None = None, min_confidence: float = 0.0, include_fixtures: bool = False,
        embedder: Embedder | str | None = None, subjects: Sequence[str] | None = None) -> AskResult:
    """Answer from memory: the current beliefs that match, with evidence and warnings; of ``subjects``
    only when given (each as given: recall filters each search by them), and then no unextracted text,
    which is about no subject."""
    if not question.strip():
        raise errors.InvalidInput("ask needs a question")
    if len(question) > MAX_QUESTION:
        raise errors.InvalidInput(f"the question is {len(question):,} characters long; ask takes at most"
                                  f" {MAX_QUESTION:,} (ask about one thing at a time)")
    if isinstance(k, bool) or not isinstance(k, int):
        raise errors.InvalidInput(f"k must be a whole number between 1 and {MAX_K:,}, not {k!r}")
    if not 1 <= k <= MAX_K:
        raise errors.InvalidInput(f"k must be between 1 and {MAX_K:,}")
    if not 0 <= min_confidence <= 1:
        raise errors.InvalidInput(f"{errors.argument('min_confidence')} must be between 0 and 1, not {min_confidence}")
    if as_of is not None:  # (the answer and its context say it in UTC, as every moment an answer gives back)
        as_of = check_moment(as_of, "as_of").astimezone(UTC)
    subjects = subjects_of(subjects)
    try:
        with db.transaction(snapshot=True) as c:
            vector, model, degraded, min_similarity = _embed_question(db, question, embedder, c)
            rows: list[Recalled] = _reads(c, (Recalled, Q.recall,
                {"q": question, "v": Vector(vector) if vector is not None else None, "model": model, "k": k,
                 "as_of": as_of, "scope": psycopg.types.json.Jsonb(dict(scope or {})), "min_conf": min_confidence,
                 "fixtures": include_fixtures, "min_sim": min_similarity,
                 "subjects": None if subjects is None else list(subjects)}))[0]
            # too few beliefs the question's words match (a vector neighbour, or the name of the
            # person a belief is about, alone, is no match: word_matches): the text no belief was
            # extracted from fills the places left, labelled as such, before the beliefs that do
            # not share the question's words
            ids = [r.belief_id for r in rows]
            answers, (worded_rows,) = _answers(db, rows, as_of, c, (None, Q.word_matches, {"q": question, "ids": ids}))
            worded = {UUID(str(w[0])) for w in worded_rows}
            matched = len(worded)
            # what a belief the question's words match replaced is shown under it, as history (a
            # vector neighbour's old values would only push the matches down); read in the same
            # round trip as the fragments
            shown = [a.belief.id for a in answers if a.belief.id in worded]
            reads: dict[str, Read] = {}
            if shown:
                reads["history"] = (None, Q.recall_history, {"ids": shown, "as_of": as_of, "depth": MAX_HISTORY})
            # (text no belief was extracted from is about no subject: none when the question is of some)
            if matched < k and subjects is None:
                reads["fragments"] = (FragmentHit, Q.recall_fragments,
                                      {"q": question, "k": k - matched, "as_of": as_of, "fixtures": include_fixtures})
            got = dict(zip(reads, _reads(c, *reads.values()), strict=True)) if reads else {}
            fragments = got.get("fragments", [])
            answers = _with_history(answers, got.get("history", []), as_of, c)
            hint = _before_recording(c, as_of) if as_of is not None and not answers else None
            if not answers and not fragments:
                # (no match would say the workspace holds nothing on it; it holds nothing at all)
                still_bound(db, [], c)
    except errors.SchemaMismatch:
        raise  # (not memory out of reach for a while: a schema to migrate, which no retry mends)
    except errors.DatabaseUnavailable as exc:
        return AskResult(status="memory_unavailable", question=question, as_of=as_of, reason=exc.message,
                         error=exc.code)
    status = "ok" if answers else "no_match"
    # the beliefs the question's words match before those found by vector or by name alone, and
    # text the words match between the two
    answers = [a for a in answers if a.belief.id in worded] + [a for a in answers if a.belief.id not in worded]
    after = len(worded)
    if answers and not after and hint is None:
        hint = ("no belief shares a word with the question: these were found by meaning or by a subject's name"
                " alone and may not answer it")
    context = _context(question, as_of, answers, degraded, fragments, after) if answers or fragments else ""
    return AskResult(status=status, question=question, as_of=as_of, beliefs=answers, context=context,
                     degraded=degraded, fragments=fragments, fragments_after=after, hint=hint)


def _before_recording(conn: psycopg.Connection[Any], as_of: datetime) -> str | None:
    """Why an as-of question found nothing, when it asked about a moment before the workspace recorded
    anything: --as-of reads what was recorded by then, so a conversation imported today says nothing as
    of last year, even about last year."""
    first, before = _reads(conn, (None, Q.first_recorded, (as_of,)))[0][0]
    if first is None:
        return "nothing has been recorded in this workspace yet"
    if not before:
        return None
    return (f"nothing had been recorded by then: this workspace recorded its first source on {first.isoformat()}."
            " A question as of a moment is answered with what was recorded by that moment; asked without one, each"
            " answer says since when it is valid and which values it replaced")


def _with_history(answers: list[Answer], rows: list[tuple[Any, ...]], as_of: datetime | None,
                  conn: psycopg.Connection[Any]) -> list[Answer]:
    """The answers with the values they replaced (``rows`` of recall_history) as history items
    (issue 20: "where did she live before Ghent?" is answered by the old value's own turn, which a
    current-only context never shows), each as it is now, or as it stood at ``as_of``: with the status it
    had then (beliefdb.belief_status_at: superseded then, whatever became of it since)."""
    if not rows:
        return answers
    rows.sort(key=lambda r: (r[5], -r[4].timestamp()))  # fewest steps back, then the latest replaced first
    under: dict[UUID, list[tuple[Any, ...]]] = {}
    for r in rows:
        if len(under.setdefault(r[0], [])) < MAX_HISTORY:
            under[r[0]].append(r)
    ids = list(dict.fromkeys(r[1] for kept in under.values() for r in kept))
    then: Read = (_beliefs_read(ids, None) if as_of is None
                  else (Belief, Q.beliefs_recorded_as_of, {"ids": ids, "as_of": as_of}))
    beliefs, evidence_rows = _reads(conn, then, (Evidence, Q.supporting_evidence, {"ids": ids, "as_of": as_of}))
    found = {b.id: b for b in beliefs}
    evidence: dict[UUID, list[Evidence]] = {}
    for e in evidence_rows:
        evidence.setdefault(e.belief_id, []).append(e)
    return [replace(a, history=[Replaced(belief=found[r[1]], evidence=evidence.get(r[1], []), replaced_by=r[2],
                                         replaced_by_value=r[3], replaced_on=r[4], steps=r[5])
                                for r in under.get(a.belief.id, []) if r[1] in found])
            for a in answers]


def answers(db: Database, *, subject: str | None = None, attribute: str | None = None,
            ids: Sequence[UUID] | None = None, as_of: datetime | None = None,
            include_fixtures: bool = False, exact_subject: bool = False) -> list[Answer]:
    """The beliefs ``list_beliefs`` gives for these arguments (the same truth filter), each as ask
    presents it: with its evidence and warnings, low confidence by the same policy. Nothing searched:
    score 1, no similarity, matched by nothing."""
    if as_of is not None:
        as_of = check_moment(as_of, "as_of")
    with db.transaction(snapshot=True) as c:
        found = list_beliefs(db, subject=subject, attribute=attribute, ids=ids, as_of=as_of,
                             include_fixtures=include_fixtures, exact_subject=exact_subject, conn=c)
        low = float(db.scalar(Q.low_confidence_threshold, None, c))
        rows = [Recalled(belief_id=b.id, score=1.0, similarity=None, vector_rank=None, text_rank=None,
                         name_rank=None, low_confidence=b.confidence < low) for b in found]
        return _answers(db, rows, as_of, c)[0]


def _answers(db: Database, rows: list[Recalled], as_of: datetime | None,
             conn: psycopg.Connection[Any], *more: Read) -> tuple[list[Answer], list[list[Any]]]:
    """The recalled beliefs with their evidence and warnings, and the rows of the ``more`` reads:
    all of them in one round trip, whatever k is."""
    ids = [r.belief_id for r in rows]
    if not rows:
        return [], _reads(conn, *more) if more else []
    beliefs, evidence_rows, warning_rows, *rest = _reads(
        conn, _beliefs_read(ids, as_of), (Evidence, Q.supporting_evidence, {"ids": ids, "as_of": as_of}),
        (None, Q.recall_warnings, (as_of, ids)), *more)
    found = {b.id: b for b in beliefs}
    missing = [i for i in ids if i not in found]
    if missing:  # believed then, and since changed: shown as they are now
        found.update({b.id: b for b in _reads(conn, _beliefs_read(missing, None))[0]})
    evidence: dict[UUID, list[Evidence]] = {}
    for e in evidence_rows:
        evidence.setdefault(e.belief_id, []).append(e)
    warnings = {UUID(str(r[0])): r[1] for r in warning_rows}
    out = []
    for r in rows:
        belief, raw = found[r.belief_id], warnings[r.belief_id]
        out.append(Answer(belief=belief, evidence=evidence.get(r.belief_id, []),
                          warnings=_warnings(belief, raw, r.low_confidence), conflicts=raw["conflicts"],
                          replaced=raw["replaced"], provenance=raw["provenance"], low_confidence=r.low_confidence,
                          score=r.score, similarity=r.similarity, matched_by=_matched_by(r)))
    return out, rest
