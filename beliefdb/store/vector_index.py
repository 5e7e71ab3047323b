"""The vector index of each embedding dimension, kept by the DBA's tool ``beliefdb.ensure_vector_index``:
HNSW under 20,000 vectors, IVFFlat over halfvec from then on, rebuilt once the store has grown 4 times
past what its lists were made for (docs/dba.md, "Retrieval")."""

from __future__ import annotations

import time
from collections.abc import Callable

from beliefdb import errors
from beliefdb.db.connector import connect, probe, translated_errors
from beliefdb.db.queries import Q
from beliefdb.models import VectorIndex


def ensure_vector_indexes(url: str, *, dim: int | None = None, memory: str = "1GB",
                          starting: Callable[[int], None] | None = None) -> list[VectorIndex]:
    """Make sure ``dim`` (default: every dimension a workspace's model or reembed uses) has the index
    its size calls for, each in its own transaction, as the database user of ``url`` (the schema
    owner: the tool is not granted to the application role). A build may use ``memory``
    (``maintenance_work_mem``) and blocks writes to ``belief_embedding`` while it runs; it takes as
    long as it takes (no statement timeout). ``starting(dim)`` before each dimension."""
    if dim is not None and not 1 <= dim <= 16000:
        raise errors.InvalidInput(f"--dim must be between 1 and 16000, not {dim}")
    probe(url)
    done: list[VectorIndex] = []
    try:
        with translated_errors(), connect(url, migration=True) as conn:
            installed = conn.execute(Q.beliefdb_installed).fetchone()
            if installed is None or installed[0] is None:
                raise errors.DatabaseUnavailable("beliefdb is not installed in this database: run 'beliefdb migrate'")
            owner = conn.execute(Q.owns_embeddings).fetchone()
            if owner is None or not owner[0]:
                raise errors.PermissionDenied(f"{owner[1] if owner else 'this user'} does not own beliefdb's tables")
            conn.execute(Q.index_build_memory, (memory,))  # (a value PostgreSQL refuses: before any build)
            dims = [dim] if dim is not None else [int(r[0]) for r in conn.execute(Q.vector_dimensions).fetchall()]
            conn.commit()
            for d in dims:
                if starting is not None:
                    starting(d)
                started = time.perf_counter()
                with conn.transaction():
                    conn.execute(Q.index_build_memory, (memory,))
                    built = conn.execute(Q.ensure_vector_index, (d,)).fetchone()
                    state = conn.execute(Q.vector_index, {"dim": d}).fetchone()
                assert built is not None and state is not None
                done.append(VectorIndex(dim=d, index=state[0], lists=state[1], built=bool(built[0]),
                                        seconds=round(time.perf_counter() - started, 3)))
    except errors.PermissionDenied as exc:
        raise errors.PermissionDenied(
            f"a vector index is built by the schema owner (who runs 'beliefdb migrate'): {exc.message}") from exc
    return done
