"""Agent runs: the list, and a run's trace (its steps in order, what each read and wrote, as a picture
and as a table) with the repair plan for a memory the viewer names as faulty (a dry run: nothing is
changed)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from beliefdb.graph import EDGE_RELATIONS
from beliefdb.interfaces.web import view
from beliefdb.interfaces.web.paging import MAX_LIMIT, MAX_OFFSET, paging
from beliefdb.interfaces.web.picture import picture
from beliefdb.interfaces.web.session import Reader
from beliefdb.interfaces.web.svg import MARK_WORDS

#: the order a repair plan's actions are shown in
PLAN_ACTIONS = ("delete", "quarantine", "invalidate", "replay", "preserve")

#: the JSON API serves /runs and /runs/{id} too: a browser gets these pages (view.SharedPageRoute)
router = APIRouter(route_class=view.SharedPageRoute, include_in_schema=False)


#: how many runs a page lists
RUNS_LIMIT = 60


@router.get("/runs")
def runs(request: Request, v: Reader, limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = RUNS_LIMIT,
         offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0) -> Response:
    shown = v.db.runs(limit=limit, offset=offset, newest_first=True)
    pages = paging("/runs", [], offset=offset, shown=len(shown), total=v.db.run_count(), limit=limit,
                   default_limit=RUNS_LIMIT, one="run", many="runs", order="newest first")
    return view.page(request, "runs.html", {"viewer": v, "title": "Runs", "nav": "runs", "runs": shown,
                                            "pages": pages, "pages_label": "Pages of runs"})


@router.get("/runs/{run}")
def run(request: Request, run: str, v: Reader, faulty: Annotated[list[str] | None, Query()] = None) -> Response:
    trace = v.db.run_trace(run)
    graph = v.db.run_graph(run)
    inputs: dict[object, list[object]] = {}
    for i in trace.inputs:
        inputs.setdefault(i.step_id, []).append(i)
    # a memory is what a step of the run wrote: a belief the run only rested on is not one, and a repair
    # of it is refused; one retracted already, by a repair or by hand, is no faulty memory to plan again
    steps = {s.id for s in trace.steps}
    wrote = {e.target for e in graph.edges if e.source in steps and e.relation == EDGE_RELATIONS["produces"]}
    memories = [n for n in graph.nodes if n.kind == "belief" and n.id in wrote and n.status != "retracted"]
    named = [f.strip() for f in faulty or [] if f.strip()]
    plan = v.db.repair_plan(named) if named else None
    by_action = [(a, plan.of(a)) for a in PLAN_ACTIONS] if plan else []
    labels = {n.id: n.label for n in graph.nodes}
    info = v.db.run(run)  # this run only (every run was read to find it)
    context = {"viewer": v, "title": f"Run {info.task or str(info.id)[:8]}",
               "nav": "runs", "run": info, "trace": trace, "inputs": inputs, "picture": picture(graph, "run"),
               "memories": memories, "faulty": named, "plan": plan, "by_action": by_action, "labels": labels,
               "mark_words": MARK_WORDS}
    return view.page(request, "run.html", context)
