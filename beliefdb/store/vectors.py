"""Belief embeddings in the database: computed in batches, stored per model, never mixed.

Each workspace records the model (name, dimension) its embeddings belong to. Writing or searching
with another model is refused; switching is an explicit :func:`reembed`, resumable batch by batch,
that moves the workspace to the new model only once every belief has a vector of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from pgvector import Vector

from beliefdb.db.connector import Database, translated_errors
from beliefdb.db.queries import Q
from beliefdb.embedders import Embedder, cut
from beliefdb.errors import BeliefDBError, EmbedderUnavailable, InvalidInput, ModelMismatch, spelled
from beliefdb.models import EmbedReport
from beliefdb.store import interrupted


@dataclass(frozen=True)
class WorkspaceModel:
    model: str
    dim: int
    target_model: str | None
    target_dim: int | None


def literal(vector: Sequence[float]) -> str:
    """pgvector's text form, for SQL written by hand (benchmarks, psql); beliefdb's own connections send
    :class:`pgvector.Vector` in binary instead."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def workspace_model(db: Database, conn: psycopg.Connection[Any] | None = None) -> WorkspaceModel | None:
    found: WorkspaceModel | None = db.fetch_one(
        WorkspaceModel, Q.workspace_model, None, conn)
    return found


def check_model(db: Database, embedder: Embedder, conn: psycopg.Connection[Any] | None = None) -> None:
    """Refuse an embedder whose model is not the workspace's (a silent mix of vector spaces)."""
    recorded = workspace_model(db, conn)
    if recorded is not None and recorded.model != embedder.model:
        raise ModelMismatch(f"this workspace's embeddings are {recorded.model}, not {embedder.model}: "
                            "switch with " + spelled(f"reembed(embedder={embedder.name!r})",
                                                  f"'beliefdb reembed --embedder {embedder.name}'",
                                                  http=f"'beliefdb reembed --embedder {embedder.name}' on the server",
                                                  mcp=f"'beliefdb reembed --embedder {embedder.name}' on the server"))


def _store(db: Database, conn: psycopg.Connection[Any], model: str, ids: Sequence[UUID],
           vectors: Sequence[Sequence[float]]) -> int:
    with conn.cursor() as cur:
        # one statement per vector, pipelined: an array of vectors would have to name their type
        cur.executemany(Q.store_embeddings, [(i, model, Vector(list(v))) for i, v in zip(ids, vectors, strict=True)])
        return cur.rowcount


def _missing(conn: psycopg.Connection[Any], model: str, ids: Sequence[UUID] | None,
             limit: int) -> list[tuple[UUID, str]]:
    params = {"ids": list(ids) if ids is not None else None, "model": model, "limit": limit}
    rows = conn.execute(Q.beliefs_missing_embedding, params).fetchall()
    return [(UUID(str(r[0])), str(r[1])) for r in rows]


def count_missing(db: Database, model: str, conn: psycopg.Connection[Any] | None = None) -> int:
    """How many beliefs have no vector of ``model``."""
    return int(db.scalar(Q.count_missing_embeddings, (model,), conn))


def _record_model(conn: psycopg.Connection[Any], embedder: Embedder) -> None:
    conn.execute(Q.record_embedding_model, (embedder.model, embedder.dim))


def _embed_rows(db: Database, conn: psycopg.Connection[Any], embedder: Embedder,
                todo: Sequence[tuple[UUID, str]]) -> int:
    """Embed (id, statement) rows with one model call and store them with one statement."""
    if not todo:
        return 0
    # (at most what the model reads, whatever the embedder: a statement may be megabytes)
    vectors = embedder.passages([cut(text, embedder.max_chars) for _, text in todo])
    # the workspace's write lock before the first row, as every writer takes it (the model is called
    # before, outside it): each row stored appends to the audit chain, whose head another session
    # storing a vector of the same belief would otherwise wait for while holding that row
    conn.execute(Q.lock_workspace)
    # (read again under the lock: a belief forgotten while the model ran is not there to store)
    still = {i for i, _ in _missing(conn, embedder.model, [i for i, _ in todo], len(todo))}
    kept = [(i, v) for (i, _), v in zip(todo, vectors, strict=True) if i in still]
    if not kept:
        return 0
    _record_model(conn, embedder)
    return _store(db, conn, embedder.model, [i for i, _ in kept], [v for _, v in kept])


def embed_beliefs(db: Database, embedder: Embedder, ids: Sequence[UUID], conn: psycopg.Connection[Any]) -> int:
    """Embed these beliefs (those without a vector of the model) inside the caller's transaction."""
    if not ids:
        return 0
    check_model(db, embedder, conn)
    return _embed_rows(db, conn, embedder, _missing(conn, embedder.model, ids, len(ids)))


def embed_new(db: Database, ids: Sequence[UUID], conn: psycopg.Connection[Any],
              embedder: Embedder | None = None) -> str | None:
    """Best effort at write time (ingest, corrections): embed these new beliefs with ``embedder`` (default:
    the configured one), or say why it was deferred (``beliefdb embed`` backfills). A deferred
    embedding never fails the write it belongs to."""
    if not ids:
        return None
    from beliefdb.embedders import get_embedder

    try:
        chosen = embedder or get_embedder()
        # (translated here, inside the savepoint: a refusal of the database, store_embedding's BD011, is
        # a ModelMismatch that defers, not an error that fails the write's transaction)
        with translated_errors(), conn.transaction():
            embed_beliefs(db, chosen, ids, conn)
    except (EmbedderUnavailable, ModelMismatch) as exc:
        return exc.message
    return None


#: new beliefs embedded per transaction once their write has committed (as ``beliefdb embed`` does)
EMBED_BATCH = 64


def embed_ids(db: Database, ids: Sequence[UUID]) -> str | None:
    """Embed these committed beliefs, ``EMBED_BATCH`` a transaction; why the rest waits, if it must.

    Their write has committed: nothing raised here may reach its caller as if it had failed (a retry would
    only say already_applied), so any error is why the rest waits: beliefdb's in its own words, any other
    (a bug, a library's refusal of a setting) named by its type."""
    start = 0
    try:
        for start in range(0, len(ids), EMBED_BATCH):
            with db.transaction() as c:
                deferred = embed_new(db, ids[start:start + EMBED_BATCH], c)
            if deferred:
                return deferred
    except KeyboardInterrupt as exc:  # (Ctrl-C: the batch under way rolled back)
        interrupted.left(exc).unembedded += len(ids) - start
        raise
    except Exception as exc:  # (the write is stored: see above)
        said = exc.message if isinstance(exc, BeliefDBError) else f"{type(exc).__name__}: {exc}"
        server = "'beliefdb embed' on the server"
        later = spelled("db.embed()", "'beliefdb embed'", http=server, mcp=server)
        return f"{said} (the write is stored; embed the rest with {later})"
    return None


def embed_written(db: Database, ids: Sequence[UUID], conn: psycopg.Connection[Any] | None = None) -> str | None:
    """Embed the beliefs a write just made (an ingest's, a correction's replacement, an approved proposal's),
    or say why they wait (``beliefdb embed`` backfills), in words that fit any write: the write's result
    carries it as ``embedding_deferred``.

    When the write ran in a transaction of its own (``conn`` None), once it has committed, ``EMBED_BATCH`` a
    transaction: a model takes far longer than the writes, and inside the write's transaction every other
    writer of the workspace waited for it (for its first load too, in each command's process) and a large
    document's vectors outlasted the server's idle-in-transaction timeout. The write is stored whatever
    happens then (:func:`embed_ids`). In ``conn``'s transaction when the caller gives one, which holds the
    workspace's lock until it commits anyway: there only an embedder that is unavailable or of another model
    defers; any other error fails the caller's transaction, which has stored nothing yet."""
    if not ids:
        return None
    if conn is None:
        return embed_ids(db, ids)
    with db.transaction(conn) as c:
        return embed_new(db, ids, c)


def _embed_missing(db: Database, embedder: Embedder, batch: int, total: int,
                   progress: Callable[[int, int], None] | None, command: str) -> int:
    """Embed every belief without a vector of ``embedder``'s model, one transaction per batch
    (an interrupted run resumes where it stopped: a failure says what the batches before it embedded)."""
    done = 0
    while True:
        try:
            with db.transaction() as c:
                todo = _missing(c, embedder.model, None, batch)
                if not todo:
                    return done
                done += _embed_rows(db, c, embedder, todo)
        except BeliefDBError as exc:
            if not done:
                raise
            raise type(exc)(interrupted.after_committed(
                exc.message, f"{done:,} of {total:,} beliefs embedded before it: run {_again(command)} again to"
                             " resume")) from exc
        except KeyboardInterrupt as exc:  # (Ctrl-C: the batch under way rolled back)
            exc.add_note(f"{done:,} of {interrupted.counted(total, 'belief')} embedded"
                         + (f"; {total - done:,} not embedded yet: {_again(command)}" if done < total else ""))
            raise
        if progress is not None:
            progress(done, total)


def _again(command: str) -> str:
    """``beliefdb embed`` (``reembed``) as its reader runs it."""
    server = f"'beliefdb {command}' on the server"
    return spelled(f"db.{command}()", f"beliefdb {command}", http=server, mcp=server)


def _check_batch(batch: int) -> None:
    # a batch of 0 embeds nothing: backfill would report nothing to do, and reembed would switch to a
    # model without vectors and drop the old model's
    if batch < 1:
        raise InvalidInput(f"batch must be at least 1, not {batch}")


def backfill(db: Database, embedder: Embedder, *, batch: int = 64,
             progress: Callable[[int, int], None] | None = None) -> EmbedReport:
    """Embed every belief that has no vector of the workspace's model, one transaction per batch."""
    _check_batch(batch)
    with db.transaction() as c:
        check_model(db, embedder, c)
        total = count_missing(db, embedder.model, c)
    done = _embed_missing(db, embedder, batch, total, progress, "embed")
    return EmbedReport(model=embedder.model, embedded=done, missing=0)


def reembed(db: Database, embedder: Embedder, *, batch: int = 64,
            progress: Callable[[int, int], None] | None = None) -> EmbedReport:
    """Move the workspace to ``embedder``'s model: embed every belief with it (resumable), then switch
    in one transaction and drop the old model's vectors. Searches use the old model until the switch."""
    _check_batch(batch)
    with db.transaction() as c:
        recorded = workspace_model(db, c)
        if recorded is None or recorded.model == embedder.model:
            return backfill(db, embedder, batch=batch, progress=progress)
        c.execute(Q.lock_workspace)
        c.execute(Q.set_target_model, (embedder.model, embedder.dim))
        total = count_missing(db, embedder.model, c)
    done = _embed_missing(db, embedder, batch, total, progress, "reembed")
    with db.transaction() as c:
        c.execute(Q.lock_workspace)
        c.execute(Q.switch_to_target_model, (embedder.model,))
        # HNSW, or IVFFlat once the store is large (ensure_vector_index)
        has_index = any(c.execute(Q.relation_exists, (f"beliefdb.belief_embedding_{kind}_{embedder.dim}",)).fetchone()
                        == (True,) for kind in ("hnsw", "ivf"))
    index = None if has_index else (
        f"no vector index for dimension {embedder.dim} yet (exact search until then): the schema owner creates"
        f" it with 'beliefdb db vector-index --dim {embedder.dim}'"
        f" (or select beliefdb.ensure_vector_index({embedder.dim}))")
    return EmbedReport(model=embedder.model, embedded=done, missing=0, switched=True, index=index)
