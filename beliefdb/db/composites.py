"""The composite types beliefdb's SQL API returns, loaded as the models of :mod:`beliefdb.models`.

A result is read with ``select * from beliefdb.<function>(...)``: its fields are the columns, and a
model whose fields have the same names is built from them (``Database.fetch_one``). A composite
nested in a result (the change report in a forget, the impact rows of a correction preview, the
items of a repair plan) is loaded by psycopg with the maker registered here, on every pooled
connection; the types are looked up once per :class:`~beliefdb.db.connector.Database`.

One shape differs between SQL and Python: SQL lists a decision that survives a change once per
reason that still holds it (``beliefdb.still_supported``: decision, reason), so the change report
stays flat; Python groups them back into :class:`~beliefdb.models.StillSupported` (decision, by).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any
from uuid import UUID

import psycopg
from pgvector import Vector
from pgvector.psycopg.vector import VectorBinaryDumper, VectorBinaryLoader, VectorDumper, VectorLoader
from psycopg.adapt import Dumper
from psycopg.types import TypeInfo
from psycopg.types.composite import CompositeInfo, register_composite

from beliefdb.db.queries import Q
from beliefdb.models import (
    Changes,
    CorrectionPreview,
    ImpactRow,
    PlanItem,
    Refusal,
    RepairPlan,
    RepairResult,
    StillSupported,
)


def surviving(reasons: Iterable[Sequence[Any]] | None) -> list[StillSupported]:
    """``beliefdb.still_supported`` rows (decision, reason), one per reason, grouped by decision in
    the order they come."""
    by: dict[UUID, list[list[UUID]]] = {}
    for decision, reason in reasons or []:
        by.setdefault(decision, []).append(list(reason or []))
    return [StillSupported(decision=decision, by=groups) for decision, groups in by.items()]


def changes(*, survives: Iterable[Sequence[Any]] | None, proposed: bool | None = False,
            **ids: Any) -> Changes:
    """A ``beliefdb.changes`` (its fields by name) as :class:`Changes`."""
    return Changes(survives=surviving(survives), proposed=bool(proposed), **ids)


def correction_preview(*, still_supported: Iterable[Sequence[Any]] | None, **fields: Any) -> CorrectionPreview:
    """A ``beliefdb.correction_preview`` (its fields by name) as :class:`CorrectionPreview`."""
    return CorrectionPreview(still_supported=surviving(still_supported), **fields)


def repair_result(*, repair_id: UUID, faulty: list[UUID], plan: list[PlanItem] | None,
                  changes: Changes) -> RepairResult:
    """A ``beliefdb.repair_result`` (its fields by name) as :class:`RepairResult`."""
    return RepairResult(repair_id=repair_id, plan=RepairPlan(faulty=list(faulty), items=list(plan or [])),
                        changes=changes)


def _by_name(build: Callable[..., Any]) -> Callable[[Sequence[Any], CompositeInfo], Any]:
    return lambda values, info: build(**dict(zip(info.field_names, values, strict=True)))


#: The composites that come nested in a result, and what each is loaded as (a reason that still
#: holds a decision stays a (decision, reason) pair: the change report around it groups them).
NESTED: dict[str, Callable[[Sequence[Any], CompositeInfo], Any]] = {
    "beliefdb.still_supported": lambda values, info: tuple(values),
    "beliefdb.changes": _by_name(changes),
    "beliefdb.impact_row": _by_name(ImpactRow),
    "beliefdb.plan_item": _by_name(PlanItem),
    "beliefdb.refusal": _by_name(Refusal),
}


Composites = list[tuple[str, CompositeInfo]]


#: every CompositeInfo made, by what it says: psycopg makes a loader and dumper class for each info it is
#: given and keeps them for good (functools.cache, keyed by the info's identity), so a new info for each
#: memory opened grew the process ~75 KB a memory (a server evicting and reopening principals' memories:
#: 38 MB per 500). Equal catalog rows get the same info, and so the same classes.
_INFOS: dict[tuple[Any, ...], CompositeInfo] = {}


def fetch(conn: psycopg.Connection[Any]) -> Composites:
    """The nested composites' catalog information, by name (those a database lacks are left out), in one
    round trip (``CompositeInfo.fetch`` takes one each: a fifth of opening a memory)."""
    rows = conn.execute(Q.composite_types, {"names": list(NESTED)}).fetchall()
    found: Composites = []
    for named, name, oid, array_oid, regtype, field_names, field_types in rows:
        key = (name, oid, array_oid, regtype, tuple(field_names), tuple(field_types))
        info = _INFOS.get(key)
        if info is None:
            info = _INFOS.setdefault(key, CompositeInfo(name, oid, array_oid, regtype=regtype,
                                                        field_names=field_names, field_types=field_types))
        found.append((named, info))
    return found


def register(conn: psycopg.Connection[Any], composites: Composites) -> None:
    """Load the nested composites on ``conn`` as their models."""
    for name, info in composites:
        register_composite(info, conn, make_object=NESTED[name])


#: pgvector's dumpers for a vector type's oid, made once (its register_vector_info makes two classes for each
#: connection, which psycopg's adapters keep for good: ~2 KB more a connection, for ever)
_VECTOR_DUMPERS: dict[int, tuple[type[Dumper], type[Dumper]]] = {}


def register_vector(conn: psycopg.Connection[Any], info: TypeInfo) -> None:
    """pgvector's register_vector_info for ``info`` on ``conn``, its dumper classes made once per oid."""
    info.register(conn)
    dumpers = _VECTOR_DUMPERS.get(info.oid)
    if dumpers is None:
        dumpers = _VECTOR_DUMPERS.setdefault(info.oid, (type("", (VectorDumper,), {"oid": info.oid}),
                                                        type("", (VectorBinaryDumper,), {"oid": info.oid})))
    for dumper in dumpers:
        conn.adapters.register_dumper(Vector, dumper)
        conn.adapters.register_dumper("numpy.ndarray", dumper)
    conn.adapters.register_loader(info.oid, VectorLoader)
    conn.adapters.register_loader(info.oid, VectorBinaryLoader)
