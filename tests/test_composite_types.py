"""The API's nested composite types are read in one query (``composites.fetch``), as psycopg's own
``CompositeInfo.fetch`` reads each: the same name, oids, regtype and fields in order, the oids as
unsigned ints (an ``::integer`` cast turns an oid above 2^31 negative, and its loader never runs)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.composite import CompositeInfo

from beliefdb.db import composites


def _fields(info: CompositeInfo) -> tuple[Any, ...]:
    return info.name, info.oid, info.array_oid, info.regtype, list(info.field_names), list(info.field_types)


def test_one_query_reads_what_psycopg_reads_for_each(postgresql: psycopg.Connection[Any]) -> None:
    # (a dropped column must not count: psycopg leaves it out)
    postgresql.execute("alter type beliefdb.refusal add attribute spare text")
    postgresql.execute("alter type beliefdb.refusal drop attribute spare")
    found = composites.fetch(postgresql)
    assert [name for name, _ in found] == list(composites.NESTED)
    for name, info in found:
        reference = CompositeInfo.fetch(postgresql, name)
        assert reference is not None and _fields(info) == _fields(reference), name
        assert all(type(oid) is int and oid > 0 for oid in (info.oid, info.array_oid, *info.field_types))


def test_a_type_the_database_lacks_is_left_out(postgresql: psycopg.Connection[Any]) -> None:
    postgresql.execute("drop type beliefdb.still_supported cascade")
    assert "beliefdb.still_supported" not in dict(composites.fetch(postgresql))
    assert len(composites.fetch(postgresql)) == len(composites.NESTED) - 1
