"""The set-based reads a picture is built from: each takes every id at once (one statement for any
number of nodes, never one per node), as named blocks of ``beliefdb/db/queries.sql``.

Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.graph.canvas import Canvas
from beliefdb.models import NodeLabel, ReviewMark

Conn = psycopg.Connection[Any]
Row = dict[str, Any]


def _ids(ids: Iterable[UUID]) -> list[UUID]:
    return list(dict.fromkeys(ids))


def resolve(db: Database, refs: Sequence[str], kinds: Sequence[str] | None, conn: Conn) -> list[Row]:
    """What each reference names (in order): ``id``, the node ``kind`` (None for a source or a
    version), and ``source_id`` for a source, a version or a fragment. With ``kinds``, only nodes of
    those kinds resolve (``beliefdb.resolve_node``), else anything ``beliefdb.resolve_target`` takes."""
    rows: list[Row] = db.fetch_all(dict, Q.graph_resolve, {"refs": list(refs), "kinds": kinds}, conn)
    return rows


def nodes(db: Database, ids: Iterable[UUID], conn: Conn) -> list[Row]:
    rows: list[Row] = db.fetch_all(dict, Q.graph_nodes, {"ids": _ids(ids)}, conn)
    return rows


def worlds(db: Database, ids: Iterable[UUID], conn: Conn) -> dict[UUID, str]:
    """The world (rule 15) of each of these beliefs, fragments, sources and versions (others left out)."""
    rows = db.fetch_all(dict, Q.graph_worlds, {"ids": _ids(ids)}, conn)
    return {r["id"]: r["world"] for r in rows}


def not_production(what: str, world: str) -> errors.InvalidInput:
    """The refusal of a production answer about fixture or synthetic material (rule 15)."""
    return errors.InvalidInput(f"{what} is {world} material, not production history:"
                               f" add {errors.argument('include_fixtures', True)} to see it")


def labels(db: Database, ids: Iterable[UUID], conn: Conn | None = None) -> list[NodeLabel]:
    """What names each of these beliefs, decisions and actions (other ids are left out)."""
    return db.fetch_all(NodeLabel, Q.node_labels, {"ids": _ids(ids)}, conn)


def sources(db: Database, ids: Iterable[UUID], conn: Conn, as_of: datetime | None = None) -> list[Row]:
    """These sources as they are (``as_of``: as they were then: retracted then, their version then)."""
    rows: list[Row] = db.fetch_all(dict, Q.graph_sources, {"ids": _ids(ids), "as_of": as_of}, conn)
    return rows


def evidence(db: Database, beliefs: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    rows: list[Row] = db.fetch_all(dict, Q.graph_evidence, {"ids": _ids(beliefs), "as_of": as_of}, conn)
    return rows


def fragment_versions(db: Database, ids: Iterable[UUID], conn: Conn) -> dict[UUID, Row]:
    """The source version of each of these fragments and versions (a version's own): ``version_id``,
    ``source_id``, ``version`` (its number) and ``label``."""
    rows = db.fetch_all(dict, Q.graph_fragment_versions, {"ids": _ids(ids)}, conn)
    return {r["id"]: r for r in rows}


def out_edges(db: Database, ids: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    """The reasons these nodes are antecedents of (evidence edges aside: see :func:`evidence`)."""
    rows: list[Row] = db.fetch_all(dict, Q.graph_out, {"ids": _ids(ids), "as_of": as_of}, conn)
    return rows


def in_edges(db: Database, ids: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    """The reasons of these nodes (evidence edges aside)."""
    rows: list[Row] = db.fetch_all(dict, Q.graph_in, {"ids": _ids(ids), "as_of": as_of}, conn)
    return rows


def relations(db: Database, beliefs: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    rows: list[Row] = db.fetch_all(dict, Q.graph_relations, {"ids": _ids(beliefs), "as_of": as_of}, conn)
    return rows


def corrections(db: Database, beliefs: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    rows: list[Row] = db.fetch_all(dict, Q.graph_corrections, {"ids": _ids(beliefs), "as_of": as_of}, conn)
    return rows


def believed_at(db: Database, beliefs: Iterable[UUID], as_of: datetime, conn: Conn) -> dict[UUID, str]:
    """Which of these beliefs were believed at ``as_of``, with the status they had then."""
    rows = db.fetch_all(dict, Q.graph_as_of, {"ids": _ids(beliefs), "as_of": as_of}, conn)
    return {r["id"]: r["status"] for r in rows}


def recorded_at(db: Database, beliefs: Iterable[UUID], as_of: datetime, conn: Conn) -> dict[UUID, str]:
    """Which of these beliefs were recorded by ``as_of``, with the status they had then, believed then or not
    (superseded, expired, retracted or unsupported then too)."""
    rows = db.fetch_all(dict, Q.graph_recorded_as_of, {"ids": _ids(beliefs), "as_of": as_of}, conn)
    return {r["id"]: r["status"] for r in rows}


def status_then(db: Database, ids: Iterable[UUID], as_of: datetime, conn: Conn) -> dict[UUID, str]:
    """The status these decisions and actions had at ``as_of`` (flagged, held, approved or rejected then); one
    recorded later is left out."""
    rows = db.fetch_all(dict, Q.graph_status_as_of, {"ids": _ids(ids), "as_of": as_of}, conn)
    return {r["id"]: r["status"] for r in rows}


def verdicts(db: Database, ids: Iterable[UUID], as_of: datetime | None, conn: Conn) -> list[Row]:
    """The review verdict that set the status of each of these decisions and actions (then, with ``as_of``):
    ``item``, ``kind``, ``status``, ``resolved_by``, ``resolved_at``, ``note``; none for a status no verdict set."""
    rows: list[Row] = db.fetch_all(dict, Q.graph_verdicts, {"ids": _ids(ids), "as_of": as_of}, conn)
    return rows


def review_item(db: Database, ref: str, conn: Conn) -> ReviewMark | None:
    """The review item ``ref`` (an id or a unique prefix) names, with its subject; None when it names none."""
    row = db.fetch_one(dict, Q.graph_review_item, {"ref": ref}, conn)
    if row is None:
        return None
    return ReviewMark(row["id"], row["kind"], row["status"], row["resolved_by"], row["resolved_at"], row["note"],
                      row["node"], row["node_kind"], row["source_id"], row["reason"])


def unfounded(db: Database, decision: UUID, conn: Conn) -> str | None:
    """What the review item opened with a decision recorded without any reason says (rule 4; for one of a
    run, the citations refused and why, rule 19); None for a decision with reasons."""
    row = db.fetch_one(dict, Q.graph_unfounded, {"id": decision}, conn)
    return None if row is None else str(row["reason"])


def run(db: Database, run_id: UUID, conn: Conn) -> Row | None:
    row: Row | None = db.fetch_one(dict, Q.graph_run, {"id": run_id}, conn)
    return row


def fill(db: Database, canvas: Canvas, conn: Conn) -> None:
    """Read every node and source the canvas's edges name and it has not read yet (two statements)."""
    wanted = [i for i in canvas.wanted if i not in canvas.nodes and i not in canvas.hidden]
    if wanted:
        canvas.add_rows(nodes(db, wanted, conn))
    missing = [i for i in canvas.sources if i not in canvas.nodes and i not in canvas.hidden]
    if missing:
        canvas.add_sources(sources(db, missing, conn, canvas.as_of))
