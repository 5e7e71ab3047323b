"""Bulk ingest: many documents, one transaction per batch, the same truth rules as ingest.

Python reads, splits, extracts and gates every document of a batch first (one it cannot read, too large,
empty or not UTF-8, is that document's failure, reported, and the others go on), then stages the batch
with binary COPY into the transaction's staging tables and makes one call,
``beliefdb.bulk_ingest_batch``, which stores each document as ``beliefdb.ingest_version`` would, through
the same body, with one summary audit event for the batch. Earlier batches stay committed; the same
documents again change nothing (rule 18 of docs/rules.md), so a run that stopped resumes by running it
again. New beliefs are embedded in a thread, one transaction per ``EMBED_BATCH``, from when their batch
commits: the writes go on meanwhile, but an embedder is far slower than they are (and its first batch
loads the model), so most of the embedding is done after the last batch; ``embed_progress`` reports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import copy_context
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors, settings
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.db.reports import ingest_report
from beliefdb.inputs import shown
from beliefdb.models import BulkReport, IngestFailure, IngestReport
from beliefdb.store import interrupted
from beliefdb.store.documents import documents, no_documents
from beliefdb.store.files import without_bom
from beliefdb.store.ingest import (
    Prepared,
    SourceOptions,
    check_choices,
    check_file_size,
    check_size,
    max_ingest_bytes,
    prepare,
    read_document,
)
from beliefdb.store.statistics_turns import taking_turns
from beliefdb.store.vectors import EMBED_BATCH, embed_ids
from beliefdb.text.registry import get_extractor

#: documents per transaction unless the caller says otherwise
DEFAULT_BATCH = 200

#: a document to bulk-ingest: a path (its source is named by the file), or (source name, text)
Item = str | Path | tuple[str, str]


@dataclass(frozen=True)
class _Document:
    name: str
    path: str | None
    text: str
    ready: Prepared


def expand(items: Sequence[Item]) -> list[tuple[str, Path | str]]:
    """(source name, path or text) of every document: a directory's supported files (recursively, in
    name order, each source named by its path below the directory), a file by its name."""
    out: list[tuple[str, Path | str]] = []
    for item in items:
        if isinstance(item, tuple):
            out.append(item)
        else:
            out.extend(documents([Path(item)]))
    if not out:
        given = [Path(i) for i in items if not isinstance(i, tuple)]
        raise no_documents("ingest", directories=[p for p in given if p.is_dir()])
    return out


def _read(name: str, what: Path | str, limit: int, extractor: str, llm_configured: bool) -> _Document:
    if isinstance(what, Path):
        check_file_size(what, limit)
        text = read_document(what)
        path: str | None = shown(what)
    else:
        text, path = without_bom(what), None
        if not text.strip():
            raise errors.InvalidInput(f"{name}: empty text")
    check_size(path or name, text, limit)
    return _Document(name=name, path=path, text=text, ready=prepare(text, name, (), extractor,
                                                                     llm_configured=llm_configured, bulk=True))


def _read_all(chunk: list[tuple[str, Path | str]], limit: int, extractor: str) -> list[_Document | IngestFailure]:
    """Each document of a batch read, split and extracted, or why it cannot be (a document Python refuses is
    that document's failure, as a plain ingest of several files reports it: the others are stored)."""
    # (the settings once a batch: reading them took longer than extracting a document)
    llm_configured = settings.load().llm_url is not None
    read: list[_Document | IngestFailure] = []
    for name, what in chunk:
        try:
            read.append(_read(name, what, limit, extractor, llm_configured))
        except errors.InvalidInput as exc:
            read.append(IngestFailure(path=shown(what) if isinstance(what, Path) else name, error=exc.code,
                                      message=exc.message))
    return read


def _stage(conn: psycopg.Connection[Any], docs: list[_Document], label: str | None) -> None:
    """COPY the batch (binary) into the staging tables ``bulk_stage`` made for this transaction."""
    conn.execute(Q.bulk_stage)
    with conn.cursor() as cur:
        with cur.copy(Q.bulk_copy_documents) as copy:
            copy.set_types(["int4", "text", "text", "text", "text", "jsonb"])
            for n, d in enumerate(docs):
                copy.write_row((n, d.name, d.text, label, d.path, Jsonb(d.ready.rejected)))
        with cur.copy(Q.bulk_copy_fragments) as copy:
            copy.set_types(["int4", "int4", "int4"])
            for n, d in enumerate(docs):
                for f in d.ready.fragments:
                    copy.write_row((n, f["start"], f["end"]))
        with cur.copy(Q.bulk_copy_claims) as copy:
            copy.set_types(["int4", "int4", "text", "text", "text", "text", "text", "int4", "int4", "text", "jsonb",
                            "text", "text"])
            for n, d in enumerate(docs):
                for i, c in enumerate(d.ready.claims):
                    copy.write_row((n, i, c["statement"], c["subject"], c["attribute"], c["value"], c["quote"],
                                    c["start"], c["end"], c["kind"], Jsonb(c["scope"]), c["valid_from"],
                                    c["valid_to"]))


def _write(db: Database, docs: list[_Document], options: SourceOptions) -> list[IngestReport]:
    marks = interrupted.Left(stored=len(docs))
    committed = False
    try:
        with interrupted.transaction(db, marks=marks) as c:
            _stage(c, docs, options.version_label)
            rows = c.execute(Q.bulk_ingest_batch, (options.origin, options.authority, options.provenance)).fetchall()
            marks.unembedded = sum(len(row[0]["accepted"]) for row in rows)
        committed = True
        return [d.ready.told(ingest_report(row[0], d.path), row[0].get("forgotten"))
                for d, row in zip(docs, rows, strict=True)]
    except KeyboardInterrupt as exc:  # (Ctrl-C once the batch committed, or while it did: its documents are stored)
        if committed:
            interrupted.mark(exc, marks)
        raise


def _batches(todo: list[tuple[str, Path | str]], size: int) -> Iterator[list[tuple[str, Path | str]]]:
    for start in range(0, len(todo), size):
        yield todo[start:start + size]


def bulk_ingest(db: Database, items: Sequence[Item], options: SourceOptions, *, batch: int = DEFAULT_BATCH,
                extractor: str = "rules", embed: bool = True, progress: Callable[[int, int], None] | None = None,
                max_bytes: int | None = None,
                embed_progress: Callable[[int, int], None] | None = None) -> BulkReport:
    """Ingest many documents, ``batch`` to a transaction, each its own source and version exactly as
    :func:`~beliefdb.store.ingest.ingest_text` would store it. A document that cannot be read (too large,
    empty, not UTF-8) is listed in the report's ``failed`` and the others are stored; one the database
    refuses stops the run before its batch is written, the batches before it committed (run again: what
    is stored is a no-op). ``progress(documents stored, documents)`` after each batch; then, once the last
    batch is stored, ``embed_progress(beliefs embedded, new beliefs)``: what was embedded beside the writes,
    then as the embedding thread finishes each ``EMBED_BATCH`` of them."""
    if batch < 1:
        raise errors.InvalidInput(f"{errors.argument('batch')} must be at least 1, not {batch}")
    if options.name:
        raise errors.InvalidInput("a bulk ingest names each source by its file:"
                                  f" {errors.argument('source')} is for one document")
    get_extractor(extractor)
    check_choices(options)
    limit = max_ingest_bytes(max_bytes)
    todo = expand(items)
    started = time.perf_counter()
    reports: list[IngestReport] = []
    failed: list[IngestFailure] = []
    embedding: list[tuple[int, Future[str | None]]] = []  # (beliefs, why they wait) of each EMBED_BATCH
    stopped: list[str] = []  # why embedding stopped: the rest waits for beliefdb embed, untried
    count = 0
    chunks = list(_batches(todo, batch))
    # (on Ctrl-C, what was stored, once the threads have stopped)
    with (_said_on_interrupt(lambda exc: _interrupted(exc, reports, len(todo), embedding if embed else None)),
          ThreadPoolExecutor(max_workers=1, thread_name_prefix="beliefdb-embed") as embedder,
          ThreadPoolExecutor(max_workers=1, thread_name_prefix="beliefdb-read") as reader,
          _cancelled_on_interrupt(embedder, reader)):
        # (the next batch is read and extracted while the database stores this one; each thread runs in a copy
        # of this context: a message or hint is worded for its reader, errors.spelled)
        ahead = reader.submit(copy_context().run, _read_all, chunks[0], limit, extractor)
        for number in range(len(chunks)):
            try:
                read = ahead.result()
            except errors.BeliefDBError as exc:
                raise type(exc)(_stopped(exc.message, number, count)) from exc
            if number + 1 < len(chunks):
                ahead = reader.submit(copy_context().run, _read_all, chunks[number + 1], limit, extractor)
            failed += [r for r in read if isinstance(r, IngestFailure)]
            docs = [r for r in read if isinstance(r, _Document)]
            try:
                written = _write(db, docs, options) if docs else []
            except errors.BeliefDBError as exc:
                if isinstance(exc, errors.DatabaseUnavailable) and not count:
                    raise  # (nothing was changed, as it says)
                fix = not isinstance(exc, errors.DatabaseUnavailable)
                raise type(exc)(_stopped(exc.message, number, count, fix=fix)) from exc
            reports.extend(written)  # (before count: what a Ctrl-C says is counted from the reports)
            count += len(written)
            ids = [a.id for r in written for a in r.accepted]
            if embed:
                embedding += [(len(part), embedder.submit(copy_context().run, _embed_quietly, db, part, stopped))
                              for part in (ids[at:at + EMBED_BATCH] for at in range(0, len(ids), EMBED_BATCH))]
            if progress is not None:
                progress(count + len(failed), len(todo))
        why = _embedded(embedding, embed_progress)
        unanalyzed = _analyze(db)
    return BulkReport(
        documents=count, batches=(len(todo) + batch - 1) // batch,
        new_versions=sum(r.new_version for r in reports), accepted=sum(len(r.accepted) for r in reports),
        corroborated=sum(len(r.corroborated) for r in reports), rejected=sum(len(r.rejected) for r in reports),
        seconds=time.perf_counter() - started, embedding_deferred=why, statistics_deferred=unanalyzed,
        reports=reports, failed=failed)


@contextmanager
def _cancelled_on_interrupt(*pools: ThreadPoolExecutor) -> Iterator[None]:
    """On Ctrl-C, cancel what the threads have not started (the batch under way is finished: its transaction
    is short), so that the run stops at once instead of embedding every batch queued first: the beliefs they
    were for stay stored without vectors, for ``beliefdb embed``."""
    try:
        yield
    except KeyboardInterrupt:
        for pool in pools:
            pool.shutdown(wait=False, cancel_futures=True)
        raise


@contextmanager
def _said_on_interrupt(said: Callable[[KeyboardInterrupt], str]) -> Iterator[None]:
    """On Ctrl-C, ``said(it)`` as a note on the KeyboardInterrupt (:mod:`beliefdb.store.interrupted`)."""
    try:
        yield
    except KeyboardInterrupt as exc:
        exc.add_note(said(exc))
        raise


def _interrupted(exc: KeyboardInterrupt, reports: list[IngestReport], total: int,
                 embedding: list[tuple[int, Future[str | None]]] | None) -> str:
    """What a run stopped by Ctrl-C stored (the batches written, the one under way if it had committed) and
    what waits: the documents not reached, the new beliefs without a vector (``embedding`` None: not asked)."""
    at = interrupted.left(exc)
    stored = len(reports) + at.stored
    said = f"{stored:,} of {total:,} documents stored" + interrupted.rest(stored, total)
    if embedding is None:
        return said
    embedded = sum(n for n, f in embedding
                   if f.done() and not f.cancelled() and f.exception() is None and f.result() is None)
    return said + interrupted.embed_later(sum(len(r.accepted) for r in reports) + at.unembedded - embedded)


def _stopped(message: str, number: int, count: int, *, fix: bool = True) -> str:
    """A failure's message, saying the batches before it are stored (``fix``: the batch holds what to fix; a
    database that timed out or went away just needs the run again)."""
    stored = (f"batch {number + 1} not written; {count} document(s) before it are stored:"
              f" {'fix it and ' if fix else ''}run again to resume")
    return interrupted.after_committed(message, stored) if count else f"{message} ({stored})"


def _embed_quietly(db: Database, ids: list[UUID], stopped: list[str]) -> str | None:
    """Embed ``ids`` (one ``EMBED_BATCH``), or say why they wait: once one batch could not, the rest are not
    tried (an unavailable embedder would be waited for again and again)."""
    if stopped:
        return stopped[0]
    why = embed_ids(db, ids)
    if why:
        stopped.append(why)
    return why


def _embedded(embedding: list[tuple[int, Future[str | None]]],
              progress: Callable[[int, int], None] | None) -> str | None:
    """Wait for the embedding thread, reporting ``progress(beliefs embedded, new beliefs)``: first what it
    embedded beside the writes, then as each batch finishes; why some wait, if they do."""
    total = sum(n for n, _ in embedding)
    done, why, told = 0, None, False
    for n, future in embedding:
        if progress is not None and not told and not future.done():
            progress(done, total)
            told = True
        said = future.result()
        done += n if said is None else 0
        why = why or said
        if progress is not None and told:
            progress(done, total)
    if progress is not None and total and not told:
        progress(done, total)
    return why


def _analyze(db: Database) -> str | None:
    """New planner statistics for what follows (the plans were made for the tables before the run); or why
    not: only a session of the schema's owner gathers them (an agent's login would hold the tables every
    workspace shares), and this login's are left to autovacuum.
    RANKING-STATISTICS (issue 20, ask): bulk_analyze is where per-workspace ranking statistics are
    refreshed too."""
    def gather() -> None:
        with db.transaction() as c:
            c.execute(Q.bulk_analyze)

    try:
        taking_turns(gather)
    except errors.PermissionDenied as exc:
        return exc.message
    except errors.StatisticsBusy:
        # (every batch is committed: the run's error would say "nothing was changed")
        return ("other sessions kept gathering planner statistics (forgets, bulk ingests of any workspace):"
                " they are left to autovacuum, and this workspace's ranking statistics to"
                " 'select beliefdb.refresh_ranking_stats()'")
    return None
