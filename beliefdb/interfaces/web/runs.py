"""Agent runs: the list, and a run's trace (its steps in order, what each read and wrote, as a picture
and as a table) with the repair plan for a memory the viewer names as faulty (a dry run: nothing is
changed)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from beliefdb.interfaces.web import view
from beliefdb.interfaces.web.picture import picture
from beliefdb.interfaces.web.session import Reader
from beliefdb.interfaces.web.svg import MARK_WORDS

#: the order a repair plan's actions are shown in
PLAN_ACTIONS = ("delete", "quarantine", "invalidate", "replay", "preserve")

#: the JSON API serves /runs and /runs/{id} too: a browser gets these pages (view.SharedPageRoute)
router = APIRouter(route_class=view.SharedPageRoute, include_in_schema=False)


@router.get("/runs")
def runs(request: Request, v: Reader) -> Response:
    return view.page(request, "runs.html", {"viewer": v, "title": "Runs", "nav": "runs", "runs": v.db.runs()})


@router.get("/runs/{run}")
def run(request: Request, run: str, v: Reader, faulty: Annotated[list[str] | None, Query()] = None) -> Response:
    trace = v.db.run_trace(run)
    graph = v.db.run_graph(run)
    inputs: dict[object, list[object]] = {}
    for i in trace.inputs:
        inputs.setdefault(i.step_id, []).append(i)
    memories = [n for n in graph.nodes if n.kind == "belief"]
    named = [f.strip() for f in faulty or [] if f.strip()]
    plan = v.db.repair_plan(named) if named else None
    by_action = [(a, plan.of(a)) for a in PLAN_ACTIONS] if plan else []
    labels = {n.id: n.label for n in graph.nodes}
    run_id = trace.steps[0].run_id if trace.steps else None
    info = next((r for r in v.db.runs() if r.id == run_id), None)
    context = {"viewer": v, "title": f"Run {info.task if info and info.task else str(run_id or run)[:8]}",
               "nav": "runs", "run": info, "trace": trace, "inputs": inputs, "picture": picture(graph, "run"),
               "memories": memories, "faulty": named, "plan": plan, "by_action": by_action, "labels": labels,
               "mark_words": MARK_WORDS}
    return view.page(request, "run.html", context)
