"""Text for agent runs and repair plans (the CLI's human output; ``--json`` prints the rows)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from beliefdb.models import RepairPlan, RepairResult, ReplayResult, Run, TraceInput, TraceStep
from beliefdb.render import short
from beliefdb.render.terminal import for_terminal
from beliefdb.vocabulary import REPAIR_ACTIONS, RepairAction

MARKS: dict[str, str] = {RepairAction.delete: "✗", RepairAction.quarantine: "⊘", RepairAction.invalidate: "–",
         RepairAction.replay: "↻", RepairAction.preserve: "✓"}


@for_terminal
def runs(rows: Iterable[Run]) -> str:
    lines = [f"{short(r.id)}  {r.created_at:%Y-%m-%d %H:%M:%S}  {r.steps:>4} steps  {r.agent}  {r.task}"
             + (f"  (replay of {short(r.parent_run_id)})" if r.parent_run_id else "") for r in rows]
    return "\n".join(lines) if lines else "(no runs recorded)"


def _payload(payload: dict[str, object], width: int = 70) -> str:
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"


@for_terminal
def steps(rows: Iterable[TraceStep], inputs: Iterable[TraceInput]) -> str:
    by_step: dict[object, list[TraceInput]] = {}
    for i in inputs:
        by_step.setdefault(i.step_id, []).append(i)
    lines = []
    for s in rows:
        state = "holds" if s.holds else "does not hold"
        extra = f", {s.status}" if s.status != "recorded" else ""
        lines.append(f"{s.seq:>3} {short(s.id)} {s.kind:<12} [{state}{extra}] {_payload(s.payload)}")
        for i in by_step.get(s.id, []):
            how = "supports (alone)" if i.alternative else i.edge
            lines.append(f"        ← {how} {i.node_kind} {short(i.node)}")
    return "\n".join(lines) if lines else "(no steps)"


#: the reason a plan gives a step of an affected run that nothing faulty reaches (beliefdb.repair_plan)
UNTOUCHED = "not reachable from the faulty memories"


@for_terminal
def plan(p: RepairPlan, *, list_untouched: bool = True) -> str:
    """The plan, each action with how many it takes: the figure ``applied`` prints for the same plan
    (``p`` read with ``untouched``). Without ``list_untouched`` the untouched steps are counted, not
    listed."""
    lines = ["repair plan for faulty memories: " + ", ".join(short(x) for x in p.faulty)]
    for action in REPAIR_ACTIONS:
        items = p.of(action)
        hidden = [] if list_untouched else [i for i in items if i.reason == UNTOUCHED]
        lines.append(f"{action}: {len(items)}" + (f" ({len(hidden)} of them steps nothing faulty reaches, not listed:"
                                                  " --all lists them)" if hidden else ""))
        for i in items:
            if i in hidden:
                continue
            what = i.step_kind or i.node_kind
            where = f" run {short(i.run_id)} #{i.seq}" if i.run_id else ""
            saved = (" — saved by " + ", ".join(short(x) for x in i.saved_by)) if i.saved_by else ""
            lines.append(f"  {MARKS[action]} {short(i.node)} {what}{where}: {i.reason}{saved}")
    return "\n".join(lines)


@for_terminal
def applied(r: RepairResult) -> str:
    counts = ", ".join(f"{len(r.plan.of(a))} {a}" for a in REPAIR_ACTIONS)
    lines = [f"repair {r.repair_id} applied: {counts}"]
    if r.plan.replay:
        lines.append(f"replay the {len(r.plan.replay)} listed step(s) with the library: "
                     f"db.repair_replay('{r.repair_id}', executor)")
    return "\n".join(lines)


@for_terminal
def replayed(r: ReplayResult) -> str:
    lines = [f"replayed {len(r.replayed)} step(s) with {r.calls} executor call(s)"]
    lines += [f"  run {short(old)} → branch {short(new)}" for old, new in r.run_ids.items()]
    lines += [f"  new answer of run {short(run)}: {_payload(payload)}" for run, payload in r.answers.items()]
    return "\n".join(lines)
