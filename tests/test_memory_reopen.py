"""Opening memories again and again does not grow the process: a server evicting and reopening principals'
memories grew ~75 KB a memory for good (38 MB per 500; trial23), because psycopg keeps the loader and dumper
classes it makes for each CompositeInfo (functools.cache, by the info's identity), and each memory fetched new
infos; and pgvector's registration made two dumper classes a connection, which psycopg's adapters keep."""

from __future__ import annotations

import psycopg
import psycopg.types.composite as psycopg_composite

import beliefdb


def test_memories_opened_again_make_no_new_adapter_classes(db_url: str) -> None:
    with beliefdb.connect(db_url, max_size=2) as first:
        first.beliefs(limit=1)
        made = (psycopg_composite._make_loader.cache_info().currsize,
                psycopg_composite._make_binary_loader.cache_info().currsize)
        infos = [info for _, info in first.database._composites]
    for principal in ("alice", "bob", "carol", "alice"):
        with beliefdb.connect(db_url, principal=principal, max_size=2) as again:
            again.beliefs(limit=1)
            assert [info for _, info in again.database._composites] == infos
            assert all(a is b for (_, a), b in zip(again.database._composites, infos, strict=True))
    assert (psycopg_composite._make_loader.cache_info().currsize,
            psycopg_composite._make_binary_loader.cache_info().currsize) == made


def test_connections_share_the_vector_dumper_classes(db_url: str) -> None:
    """composites.register_vector registers pgvector's adapters as its register_vector_info does, with one
    pair of dumper classes per vector type (register_vector_info makes a new pair for every connection)."""
    from pgvector import Vector
    from psycopg.types import TypeInfo

    from beliefdb.db import composites

    seen = set()
    for _ in range(3):
        with psycopg.connect(db_url) as conn:
            conn.execute("select set_config('search_path', 'beliefdb_ext, public', false)")
            info = TypeInfo.fetch(conn, "vector")
            assert info is not None
            composites.register_vector(conn, info)
            seen.add(conn.adapters.get_dumper(Vector, psycopg.adapt.PyFormat.BINARY))
            assert conn.execute("select %s::vector", (Vector([1, 2]),)).fetchone() == (Vector([1, 2]),)
    assert len(seen) == 1
