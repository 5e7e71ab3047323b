"""Ingest: read documents and claims, gate candidates, and hand one version to the database.

Python reads, splits and extracts; ``beliefdb.ingest_version`` in SQL stores the version and
decides corroboration, supersession and conflicts, in one transaction per text. The splitting,
extraction and gating run before that transaction (they need no lock), and the new beliefs are
embedded after it commits, so other writers of the workspace wait only for the database's writes.
A text over ``BELIEFDB_INGEST_MAX_BYTES`` (bytes of UTF-8) is refused before any of it.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors, settings
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.db.reports import ingest_report
from beliefdb.inputs import check_text, moment_text, scope_conditions, shown
from beliefdb.models import (
    ExtractionWarning,
    IngestFailure,
    IngestReport,
    Skipped,
)
from beliefdb.store import files, interrupted
from beliefdb.store.documents import SUPPORTED_SUFFIXES, named_documents
from beliefdb.store.each_file import each_file
from beliefdb.store.vectors import embed_written
from beliefdb.text.extractor import Candidate
from beliefdb.text.fragments import Fragment, split_fragments
from beliefdb.text.gate import gate
from beliefdb.text.registry import get_extractor
from beliefdb.text.skips import extraction_report, forgotten_out, hint
from beliefdb.text.transcripts import SPOKEN, spoken_by, spoken_hint, transcript_hint, transcript_speakers, turns_hint
from beliefdb.text.turns import TurnSpan
from beliefdb.vocabulary import AUTHORITIES, BELIEF_KINDS, LABELS, ORIGINS


@dataclass(frozen=True)
class SourceOptions:
    """How the source of an ingested text is described; None keeps what the source has."""

    name: str | None = None
    authority: str | None = None
    provenance: str | None = None
    origin: str | None = None
    version_label: str | None = None


def read_document(path: Path) -> str:
    """The UTF-8 text of a regular .txt or .md file, or InvalidInput/NotFound saying what is wrong."""
    name = shown(path)
    files.check_regular(path)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise errors.InvalidInput(f"{name}: unsupported file type '{shown(path.suffix) or '(none)'}'"
                                  f" (supported: {', '.join(SUPPORTED_SUFFIXES)})")
    text = files.decode_utf8(files.read_regular(path), name)
    if not text.strip():
        raise errors.InvalidInput(f"{name}: empty file")
    return text


def _iso(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):  # (a JSON claim's moment is text)
        raise errors.InvalidInput(f"{where}: must be an ISO 8601 timestamp string")
    return moment_text(value, where)


def parse_claim(obj: Any, where: str) -> Candidate:
    """One claim object ({"statement", "subject", "attribute", "value", "quote"} + optional fields)."""
    if not isinstance(obj, dict):
        raise errors.InvalidInput(f"{where}: expected a JSON object")
    for key in ("statement", "subject", "attribute", "value", "quote"):
        if not isinstance(obj.get(key), str) or (key != "value" and not obj[key].strip()):
            raise errors.InvalidInput(f"{where}: '{key}' must be a non-empty string")
    for key, value in obj.items():
        check_text(value, f"{where}: '{shown(key)}'")
    kind = obj.get("kind", "fact")
    if kind not in BELIEF_KINDS:
        raise errors.InvalidInput(f"{where}: 'kind' must be one of {', '.join(BELIEF_KINDS)}")
    scope = obj.get("scope", {})
    if not isinstance(scope, dict) or not all(isinstance(v, str) for v in scope.values()):
        raise errors.InvalidInput(f"{where}: 'scope' must be an object of strings")
    scope = scope_conditions(scope.items(), f"{where}: 'scope'")  # (as every door takes a scope)
    offsets = [obj.get("start"), obj.get("end")]
    if any(o is not None and (not isinstance(o, int) or isinstance(o, bool) or o < 0) for o in offsets):
        raise errors.InvalidInput(f"{where}: 'start' and 'end' must be non-negative integers")
    if offsets[0] is not None and offsets[1] is not None and offsets[1] <= offsets[0]:
        raise errors.InvalidInput(f"{where}: 'end' must be greater than 'start' (a quote is not empty)")
    valid_from = _iso(obj.get("valid_from"), f"{where}: 'valid_from'")
    valid_to = _iso(obj.get("valid_to"), f"{where}: 'valid_to'")
    if valid_from is not None and valid_to is not None and (
            datetime.fromisoformat(valid_to) <= datetime.fromisoformat(valid_from)):
        # (the database refuses it too, in its own words and without the line: said here, where the line is)
        raise errors.InvalidInput(f"{where}: 'valid_to' ({valid_to}) must be after 'valid_from' ({valid_from}):"
                                  " a valid time is [valid_from, valid_to)")
    return Candidate(
        statement=obj["statement"], subject=obj["subject"], attribute=obj["attribute"], value=obj["value"],
        quote=obj["quote"], kind=kind, scope=dict(scope), valid_from=valid_from, valid_to=valid_to,
        start=offsets[0], end=offsets[1],
    )


def load_claims(path: Path) -> list[Candidate]:
    """Claims from a regular JSONL file; anything wrong is an error naming the file and the line."""
    return parse_claims(files.read_regular(path, "no such claims file"), shown(path))


def parse_claims(data: bytes, name: str) -> list[Candidate]:
    """Claims from JSON Lines (UTF-8, lines split on newlines only, blank lines skipped); anything
    wrong is InvalidInput naming ``name`` and the line."""
    claims = []
    for number, line in files.lines(files.decode_utf8(data, name)):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise errors.InvalidInput(f"{where}: invalid JSON ({exc.msg})") from exc
        except ValueError as exc:  # an integer of more digits than Python converts
            raise errors.InvalidInput(f"{where}: invalid JSON ({str(exc).split(':')[0].lower()})") from None
        except RecursionError:
            raise errors.InvalidInput(f"{where}: invalid JSON (nested too deeply)") from None
        claims.append(parse_claim(obj, where))
    return claims


def claim_json(candidate: Candidate, start: int, end: int) -> dict[str, Any]:
    return {
        "statement": candidate.statement, "subject": candidate.subject, "attribute": candidate.attribute,
        "value": candidate.value, "quote": candidate.quote, "start": start, "end": end,
        "kind": candidate.kind, "scope": dict(candidate.scope),
        "valid_from": candidate.valid_from, "valid_to": candidate.valid_to,
    } | ({"unless_given": True} if candidate.unless_given else {})


def rejected_json(rejected: list[tuple[Candidate, str]]) -> list[dict[str, str]]:
    return [{"statement": c.statement, "quote": c.quote, "reason": reason} for c, reason in rejected]


@dataclass(frozen=True)
class Prepared:
    """A text split, extracted and gated, ready for the database (no lock needed for any of it)."""

    fragments: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    rejected: list[dict[str, str]]
    skipped: list[Skipped]
    warnings: list[ExtractionWarning]
    hint: str | None

    def told(self, report: IngestReport, forgotten: Sequence[Sequence[int]] | None = None) -> IngestReport:
        """``report`` with what extraction skipped and warned of, but for the words of ``forgotten``, the
        spans of the text the database masked as forgotten before in its source (:func:`forgotten_out`):
        no hint for sentences that are all forgotten."""
        spans = [(int(a), int(b)) for a, b in forgotten or []]
        skipped, warnings = forgotten_out(self.skipped, self.warnings, spans)
        told = self.hint if any(s.reason != "forgotten" for s in skipped) else None
        return replace(report, skipped=skipped, warnings=warnings, hint=told)


def prepare(text: str, name: str, candidates: Iterable[Candidate] = (), extractor: str = "rules", *,
            turns: Sequence[TurnSpan] | None = None, read: Sequence[TurnSpan] | None = None,
            llm_configured: bool | None = None, bulk: bool = False) -> Prepared:
    """Split ``text`` into fragments, extract candidates and gate them: what ingest and bulk ingest send.
    ``turns``/``read``: as :func:`ingest_text`. ``llm_configured``: whether an LLM endpoint is set, for
    the hint (None: read from the settings; a bulk ingest reads them once, not per document); ``bulk``:
    the hint is for a document of a bulk ingest (its claims are given by ingesting it alone)."""
    if llm_configured is None:
        llm_configured = settings.load().llm_url is not None
    chosen = get_extractor(extractor)
    read = turns if read is None else read
    speakers = transcript_speakers(text) if read is None else frozenset()
    extracted = (chosen.extract(text, source_name=name) if read is None
                 else chosen.extract_turns(text, turns or read, source_name=name, read=read))
    # (a transcript read as a document: its "Name: text" lines are turns, never Key: value facts)
    proposed = list(candidates) + [c for c in extracted if not (speakers and spoken_by(c.quote, speakers))]
    located, rejected = gate(text, proposed)
    skipped, warnings = extraction_report(
        text, located, rejected, None if read is None else [Fragment(t.start, t.end, "sentence") for t in read],
        speakers, extractor)
    told = hint(skipped, extractor=extractor, llm_configured=llm_configured, bulk=bulk)
    if read is not None and told is not None:
        told = turns_hint(extractor=extractor, llm_configured=llm_configured)
    if speakers:
        told = transcript_hint() if told is None else f"{transcript_hint()}; or {told}"
    elif told is not None and read is None and any(s.detail == SPOKEN for s in skipped):
        told = f"{spoken_hint()}; or {told}"
    fragments: list[dict[str, Any]] = (
        [{"start": s, "end": e} for s, e in split_fragments(text)] if turns is None else
        [t.to_json() for t in turns])
    return Prepared(fragments=fragments, claims=[claim_json(loc.candidate, loc.start, loc.end) for loc in located],
                    rejected=rejected_json(rejected), skipped=skipped, warnings=warnings, hint=told)


def ingest_text(db: Database, text: str, options: SourceOptions, *, candidates: Iterable[Candidate] = (),
                extractor: str = "rules", path: str | None = None, embed: bool = True, preview: bool = False,
                conn: psycopg.Connection[Any] | None = None, max_bytes: int | None = None,
                turns: Sequence[TurnSpan] | None = None, read: Sequence[TurnSpan] | None = None,
                append: bool = False, turn_key: tuple[str, bool] | None = None) -> IngestReport:
    """Store ``text`` as the next version of a source (a no-op if unchanged), in one transaction.
    With ``preview``, exactly what that would change, and nothing written. A text over ``max_bytes``
    (default ``BELIEFDB_INGEST_MAX_BYTES``) is refused with InvalidInput before anything is done.
    ``turns``: ``text`` is a conversation; its fragments are exactly these turns (with speaker and
    time) and the extractor reads them turn by turn (:meth:`Extractor.extract_turns`): those of ``read``
    only when given (an appended turn), which are also the ones the report lists when skipped.
    ``append``: ``text`` extends the conversation's text in force by ``read``, stored in place
    (``beliefdb.append_turn``: only the new turn's fragment is written). ``turn_key``: the idempotency key of
    the turn ``read`` names and whether its time was stamped now (``beliefdb.append_turn`` then, grown or not:
    a retry with the key appends nothing; rule 18 of docs/rules.md). A leading BOM is no part of it."""
    text = files.without_bom(text) if turns is None else text
    if options.name is None or not options.name.strip():  # blanks only: no name to see or give again
        raise errors.InvalidInput("a source name is required")
    check_size(options.name, text, max_bytes, read=read)
    if not text.strip():
        raise errors.InvalidInput(f"{options.name}: empty text")
    check_choices(options)
    ready = prepare(text, options.name, candidates, extractor, turns=turns, read=read)
    args = (options.name, text, options.origin, options.authority, options.provenance,
            options.version_label, path, Jsonb(ready.fragments), Jsonb(ready.claims), Jsonb(ready.rejected))
    marks = interrupted.Left(stored=0 if preview else 1)  # (a Ctrl-C in its commit: said when it committed)
    with interrupted.transaction(db, conn, marks=marks) as c:
        if preview:
            row = c.execute(Q.ingest_preview, args).fetchone()
            assert row is not None
            return ready.told(ingest_report(row[0], path), row[0].get("forgotten"))
        if append or turn_key is not None:
            grown = [r.start for r in read or ()] if append else None  # (grown in place: its new turns only)
            new = [f for f in ready.fragments if grown is None or any(f["start"] >= start for start in grown)]
            row = c.execute(Q.append_turn, (options.name, text, Jsonb(new), Jsonb(ready.claims),
                                            Jsonb(ready.rejected), *(turn_key or (None, False)))).fetchone()
        else:
            row = c.execute(Q.ingest_version, args).fetchone()
        assert row is not None
        report = ready.told(ingest_report(row[0], path), row[0].get("forgotten"))
        marks.unembedded = len(report.accepted) if embed else 0
    try:
        deferred = embed_accepted(db, report, embed, conn)
    except KeyboardInterrupt as exc:  # (Ctrl-C once it committed: the text is stored)
        interrupted.left(exc).stored = int(conn is None)
        raise
    return replace(report, embedding_deferred=deferred) if deferred else report


def embed_accepted(db: Database, report: IngestReport, embed: bool,
                   conn: psycopg.Connection[Any] | None = None) -> str | None:
    """Embed the beliefs an ingest accepted (unless not ``embed``), as :func:`~beliefdb.store.vectors.embed_written`
    does: once it has committed, or in ``conn``'s transaction; why they wait, if they must."""
    return embed_written(db, [a.id for a in report.accepted] if embed else [], conn)


def max_ingest_bytes(max_bytes: int | None = None) -> int:
    """The largest text an ingest accepts, in bytes of UTF-8: ``max_bytes``, else the setting."""
    limit = settings.load().ingest_max_bytes if max_bytes is None else max_bytes
    if limit < 1:
        raise errors.InvalidInput(f"the ingest size limit must be at least 1 byte, not {limit}")
    return limit


#: how an agent over MCP or HTTP hears of the limit: no tool or body takes max_bytes, the variable is the server's
REMOTE_LIMIT = "the limit is this server's BELIEFDB_INGEST_MAX_BYTES, set by its operator"


def too_big(name: str, size: int, limit: int, *, argument: bool = True) -> errors.DocumentTooLarge:
    """The refusal of ``name``'s ``size`` bytes, in its reader's words: ``argument``, the call took the limit
    as an argument (``max_bytes=``, ``--max-bytes``) besides the variable."""
    local = (f"raise it with {errors.argument('max_bytes')} or BELIEFDB_INGEST_MAX_BYTES" if argument
             else "raise BELIEFDB_INGEST_MAX_BYTES")
    return errors.DocumentTooLarge(f"{name}: {_size(size)} is over the ingest limit of {_size(limit)};"
                                   f" {errors.spelled(local, local, http=REMOTE_LIMIT, mcp=REMOTE_LIMIT)}")


def conversation_full(name: str, size: int, limit: int) -> errors.InvalidInput:
    """The refusal of a turn that fits the limit, appended to the conversation ``name`` (``size`` bytes with it),
    which the limit holds whole (no call that remembers a turn takes the limit as an argument)."""
    remote = "ask this server's operator to raise its BELIEFDB_INGEST_MAX_BYTES"
    hint = errors.spelled("raise BELIEFDB_INGEST_MAX_BYTES", "raise BELIEFDB_INGEST_MAX_BYTES", http=remote, mcp=remote)
    return errors.InvalidInput(f"the conversation {name} is at the ingest limit of {_size(limit)} ({_size(size)}"
                               f" with this turn): start a new conversation, or {hint}")


def _size(size: int) -> str:
    """A size in bytes, and from 1 KiB up in KiB or MiB first ("60 bytes", "1.5 KiB (1,536 bytes)")."""
    exact = f"{size:,} byte{'' if size == 1 else 's'}"
    if size < 1024:
        return exact
    return f"{size / 1024 / 1024:.1f} MiB ({exact})" if size >= 1024 * 1024 else f"{size / 1024:.1f} KiB ({exact})"


def check_size(name: str, text: str, max_bytes: int | None = None, *, read: Sequence[TurnSpan] | None = None,
               argument: bool = True) -> None:
    """InvalidInput naming the size and the limit when ``text`` is over ``max_bytes`` (default: the
    setting) in bytes of UTF-8. Time and memory of an ingest grow with the text (linearly): the
    limit says what was measured to work (docs/benchmarks.md). ``read``: the turns remembered into the
    conversation ``text``; when they fit, what is over is the conversation (:func:`conversation_full`).
    ``argument``: whether the caller took the limit as an argument (a worker's is its setting only)."""
    limit = max_ingest_bytes(max_bytes)
    if len(text) * 4 <= limit:  # (a character is at most 4 bytes: no need to count them)
        return
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return
    if read:
        if sum(len(text[t.start:t.end].encode("utf-8", "surrogatepass")) for t in read) <= limit:
            raise conversation_full(name, size, limit)
        raise too_big(name, size, limit, argument=False)
    raise too_big(name, size, limit, argument=argument)


def check_choices(options: SourceOptions) -> None:
    """InvalidInput for an authority, label or origin that is none of the vocabulary's."""
    check_choice("authority", options.authority, AUTHORITIES)
    check_choice("label", options.provenance, LABELS)
    check_choice("origin", options.origin, ORIGINS)


def check_choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    """InvalidInput naming the value and the choices when ``value`` (None: not given) is none of them."""
    if value is not None and value not in choices:
        raise errors.InvalidInput(f"invalid {name} '{value}' (choose from: {', '.join(choices)})")


def ingest_paths(db: Database, paths: list[Path], options: SourceOptions, *, claims: Path | None = None,
                 extractor: str = "rules", embed: bool = True, preview: bool = False,
                 progress: Callable[[Path], None] | None = None,
                 max_bytes: int | None = None) -> list[IngestReport | IngestFailure]:
    """Ingest files (a directory: its documents, see :func:`beliefdb.store.documents.documents`) one
    transaction each; a bad file
    is reported and does not stop the others.
    With ``preview``, what each would change, nothing written. A file over ``max_bytes`` (default
    ``BELIEFDB_INGEST_MAX_BYTES``) is refused without being read."""
    named = named_documents(paths, "ingest", source=options.name)
    limit = max_ingest_bytes(max_bytes)
    if claims is not None and len(named) > 1:
        raise errors.InvalidInput(f"{errors.argument('claims')} belongs to one document: give it one file at a time")
    get_extractor(extractor)  # an unknown extractor or option is an error before anything is read
    check_choices(options)
    candidates = load_claims(claims) if claims is not None else []

    def one(path: Path) -> IngestReport:
        check_file_size(path, limit)
        text = read_document(path)
        check_size(shown(path), text, limit)
        return ingest_text(db, text, file_source(options, path, name=named[path]), candidates=candidates,
                           extractor=extractor, path=shown(path), embed=embed, preview=preview, max_bytes=limit)

    return each_file(list(named), one, progress)


def file_source(options: SourceOptions, path: Path, *, name: str | None = None) -> SourceOptions:
    """``options`` for one file: its source named by the file (or ``name``: its path below the directory
    given) unless the options name one."""
    return SourceOptions(name=options.name or name or shown(path.name), authority=options.authority,
                         provenance=options.provenance, origin=options.origin,
                         version_label=options.version_label)


def check_file_size(path: Path, limit: int) -> None:
    """Refuse a regular file that cannot hold a text within ``limit`` before reading it (a byte-order
    mark is not text); anything else is read_document's to judge."""
    if path.is_file():
        size = path.stat().st_size
        if size > limit + len(codecs.BOM_UTF8):
            raise too_big(shown(path), size, limit)
