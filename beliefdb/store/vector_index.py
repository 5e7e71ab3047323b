"""The vector index of each embedding dimension, kept by the DBA's tool ``beliefdb.ensure_vector_index``:
HNSW under 20,000 vectors, IVFFlat over halfvec from then on, rebuilt once the store has grown 4 times
past what its lists were made for (docs/dba.md, "Retrieval")."""

from __future__ import annotations

import time
from collections.abc import Callable

from beliefdb import errors, settings
from beliefdb.db.connector import connect, not_installed, probe, translated_errors
from beliefdb.db.queries import Q
from beliefdb.models import VectorIndex


def ensure_vector_indexes(url: str, *, dim: int | None = None, memory: str | None = None,
                          starting: Callable[[int], None] | None = None) -> list[VectorIndex]:
    """Make sure ``dim`` (default: every dimension a workspace's model or reembed uses) has the index
    its size calls for, each in its own transaction, as the database user of ``url`` (the schema
    owner, or a user a DBA granted the tool: it is not the application role's). A build may use
    ``memory`` (``maintenance_work_mem``; default ``BELIEFDB_INDEX_MEMORY``), runs without a statement
    timeout and blocks writes to ``belief_embedding`` while it runs. A dimension that fails is
    reported with its error (nothing of it changed) and the others are done all the same.
    ``starting(dim)`` before each dimension."""
    if dim is not None and not 1 <= dim <= 16000:
        raise errors.InvalidInput(f"{errors.argument('dim')} must be between 1 and 16000, not {dim}")
    memory = memory if memory is not None else settings.load().index_memory
    probe(url)
    done: list[VectorIndex] = []
    with translated_errors(), connect(url, migration=True) as conn:
        installed = conn.execute(Q.beliefdb_installed).fetchone()
        if installed is None or installed[0] is None:
            raise not_installed()
        allowed = conn.execute(Q.may_build_vector_index).fetchone()
        if allowed is None or not allowed[0]:
            raise errors.PermissionDenied(
                f"a vector index is built by the schema owner (who runs 'beliefdb migrate'), and"
                f" {allowed[1] if allowed else 'this user'} may not run beliefdb.ensure_vector_index")
        try:  # (a value PostgreSQL refuses: before any build, named as the caller gave it)
            with translated_errors():
                conn.execute(Q.index_build_settings, (memory,))
        except errors.InvalidInput:
            raise errors.InvalidInput(
                f"{errors.argument('memory')} (or BELIEFDB_INDEX_MEMORY) {memory!r} is no memory size PostgreSQL"
                " takes for maintenance_work_mem: a number with a unit, such as 512MB or 1GB") from None
        used = [int(r[0]) for r in conn.execute(Q.vector_dimensions).fetchall()]
        conn.commit()
        if dim is not None and dim not in used:
            # (a typo would otherwise build an index nothing ever reads)
            raise errors.InvalidInput(f"no workspace's embedding model has {dim} dimensions, so an index for it would"
                                      f" stay empty; in use: {', '.join(map(str, used)) or 'none'}")
        dims = [dim] if dim is not None else used
        for d in dims:
            if starting is not None:
                starting(d)
            started = time.perf_counter()
            try:
                with translated_errors(), conn.transaction():
                    conn.execute(Q.index_build_settings, (memory,))
                    built = conn.execute(Q.ensure_vector_index, (d,)).fetchone()
                    state = conn.execute(Q.vector_index, {"dim": d}).fetchone()
            except errors.BeliefDBError as exc:
                if isinstance(exc, errors.DatabaseUnavailable):
                    raise
                done.append(VectorIndex(dim=d, index=None, lists=None, built=False,
                                        seconds=round(time.perf_counter() - started, 3), error=exc.message))
                continue
            assert built is not None and state is not None
            done.append(VectorIndex(dim=d, index=state[0], lists=state[1], built=bool(built[0]),
                                    seconds=round(time.perf_counter() - started, 3)))
    return done
