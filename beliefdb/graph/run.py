"""A run's trace as a picture: the run, its steps in order, what each step read or rested on, what it
wrote, and what a repair made of them (a step invalidated or waiting for replay, a belief quarantined)."""

from __future__ import annotations

from uuid import UUID

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.graph import read
from beliefdb.graph.canvas import Canvas
from beliefdb.models.graph import Graph
from beliefdb.store import trace


def run_graph(db: Database, ref: str | UUID) -> Graph:
    """The picture of a run (id or unique prefix): run → steps, the beliefs each step read, and what
    the steps wrote."""
    canvas = Canvas()
    with db.transaction() as c:
        run_id = trace.run_id(db, ref, c)
        run = read.run(db, run_id, c)
        if run is None:
            raise errors.NotFound(f"unknown run {ref}")
        steps = trace.steps(db, run_id, conn=c)
        ids = [s.id for s in steps]
        canvas.add(run_id, "run", run["task"] or "(no task)", "replay" if run["parent_run_id"] else "recorded",
                   f"agent {run['agent']}" + (f", replay of {str(run['parent_run_id'])[:8]}"
                                              if run["parent_run_id"] else ""))
        for s in steps:
            canvas.edge(run_id, s.id, "ran", f"#{s.seq}")
        canvas.wanted.update(ids)
        canvas.support(read.in_edges(db, ids, None, c))
        canvas.support(r for r in read.out_edges(db, ids, None, c) if r["consequent_kind"] != "step")
        read.fill(db, canvas, c)
    return canvas.graph(f"Run: {run['task'] or run_id}", [run_id])
