"""Benchmark of rollback repair planning on agent runs of 1,000 steps (issue 5).

    python bench/repair_plan.py [--steps 1000] [--runs 3] [--repeat 30] [--memories 50] [--json] [--db URL] [--seed 1]

Target (issue 5): planning the repair of a run of 1,000 steps takes under 100 ms.

Records, in one workspace, a few short *sessions* that write ~50 memories (user preferences and
facts), then ``--runs`` agent runs of ``--steps`` steps each, one ``record_trace`` call per run.
A run is a sequence of turns with a realistic mix: a user input, memory reads of one to three of
the memories (popularity skewed, so a few memories are read everywhere), claims citing the reads,
a plan, a tool call and its observation, sometimes a claim the observation supports on its own,
an answer, and now and then a memory write (sometimes superseding an older memory). Then it
measures, ``--repeat`` times each, for faulty memories of different reach (the size of their
forward closure: an unread memory, a median one, the most read one, three at once):

* ``bdb.repair_plan([...])``: the library call (one transaction, the plan rows as items; untouched
  steps not listed);
* ``select * from beliefdb.repair_plan(..., true, false)``: the raw SQL call, as the application role;

and the recording speed (steps per second of ``RunRecorder.flush``, which is one call).

Without ``--db`` it starts a throw-away embedded server in a temporary directory (as
bench/impact.py does), migrates it, and stops and deletes it at the end. With ``--db`` it records
into a new workspace of that database. Progress goes to stderr; the report (or, with ``--json``,
one JSON object) to stdout.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import psycopg
from _common import arguments, database, log, percentile, print_json, server_settings, timed

import beliefdb
from beliefdb.store.workspaces import create_workspace

SESSION_STEPS = 20


class Trace:
    """What was recorded, as a graph (antecedent -> consequents, winner -> loser) for picking faults."""

    def __init__(self) -> None:
        self.forward: dict[UUID, set[UUID]] = {}
        self.memories: list[UUID] = []
        self.steps = 0

    def edge(self, a: UUID, b: UUID) -> None:
        self.forward.setdefault(a, set()).add(b)

    def closure(self, start: Sequence[UUID]) -> set[UUID]:
        seen, todo = set(start), list(start)
        while todo:
            for nxt in self.forward.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def reach(self, start: Sequence[UUID]) -> int:
        return len(self.closure(start))


def record_sessions(db: beliefdb.BeliefDB, trace: Trace, memories: int, rng: random.Random) -> None:
    """Short sessions that write the memories later runs read."""
    session = 0
    while len(trace.memories) < memories:
        with db.record_run(task=f"session {session}", agent="assistant") as run:
            u = run.step("user_input", {"text": f"session {session}: let me tell you about myself"})
            for i in range(SESSION_STEPS // 2):
                if len(trace.memories) >= memories:
                    break
                web = rng.random() < 0.3
                src = run.step("observation", {"page": f"profile page {i}"}) if web else u
                w = run.step("memory_write", {"key": f"k{len(trace.memories)}"},
                             inputs=[("cites" if web else "initiates", src)])
                m = run.memory(w, f"user:{session % 7}", f"fact_{len(trace.memories)}", f"value {rng.random():.3f}")
                trace.edge(src, w)
                trace.edge(w, m)
                trace.memories.append(m)
                trace.steps += 2 if web else 1
            trace.steps += 1
        session += 1


def record_run(db: beliefdb.BeliefDB, trace: Trace, steps: int, rng: random.Random, n: int) -> tuple[float, int]:
    """One agent run of ``steps`` steps, recorded with one call; returns (seconds, steps)."""
    run = db.record_run(task=f"long task {n}", agent="assistant")
    count = 0

    def step(kind: str, payload: dict[str, Any], inputs: Sequence[tuple[str, UUID]] = (),
             supports: Sequence[UUID] = ()) -> UUID:
        nonlocal count
        s = run.step(kind, payload, inputs=inputs, supports=supports)
        for _, a in inputs:
            trace.edge(a, s)
        for a in supports:
            trace.edge(a, s)
        count += 1
        return s

    turn = 0
    while count < steps - 12:   # a turn takes at most 12 steps
        u = step("user_input", {"text": f"turn {turn}"})
        reads = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            m = trace.memories[min(len(trace.memories) - 1, int(len(trace.memories) * rng.random() ** 2.5))]
            reads.append(step("memory_read", {"memory": str(m)}, inputs=[("reads", m)]))
        claims = [step("claim", {"fact": i}, inputs=[("cites", r)]) for i, r in enumerate(reads)]
        plan = step("plan", {"goal": f"turn {turn}"}, inputs=[("initiates", u)] + [("cites", c) for c in claims])
        call = step("tool_call", {"tool": rng.choice(("search", "crm", "calendar"))}, inputs=[("initiates", plan)])
        obs = step("observation", {"result": turn}, inputs=[("produces", call)])
        cited = [obs]
        if rng.random() < 0.3:  # a claim the tool's observation supports on its own
            cited.append(step("claim", {"checked": True}, inputs=[("cites", claims[0])], supports=[obs]))
        answer = step("answer", {"text": f"answer {turn}"}, inputs=[("cites", c) for c in cited + claims[:1]])
        if rng.random() < 0.15:
            w = step("memory_write", {"turn": turn}, inputs=[("cites", answer)])
            # sometimes a newer version of an old memory, one the new memory does not rest on (rule 3)
            loser = None
            if rng.random() < 0.3:
                for m in rng.sample(trace.memories, min(5, len(trace.memories))):
                    if answer not in trace.closure([m]):
                        loser = m
                        break
            m = run.memory(w, f"user:{turn % 7}", f"note_{n}_{turn}", f"value {turn}", supersedes=loser)
            trace.edge(w, m)
            if loser is not None:
                trace.edge(m, loser)
            trace.memories.append(m)
        turn += 1
    while count < steps:
        step("claim", {"filler": count}, inputs=[("initiates", u)])
    t0 = time.perf_counter()
    run.flush()
    elapsed = time.perf_counter() - t0
    trace.steps += count
    return elapsed, count


def pick_faults(trace: Trace, rng: random.Random) -> dict[str, list[UUID]]:
    reach = sorted((trace.reach([m]), str(m), m) for m in trace.memories)
    return {
        "unread": [reach[0][2]],
        "median": [reach[len(reach) // 2][2]],
        "most_read": [reach[-1][2]],
        "three": rng.sample([m for _, _, m in reach], 3),
    }


def measure(db: beliefdb.BeliefDB, faulty: list[UUID], repeat: int) -> dict[str, Any]:
    lib: list[float] = []
    raw: list[float] = []
    plan = db.repair_plan(faulty)  # warm-up (and the figures of the plan)
    for _ in range(repeat):
        with timed(lib):
            db.repair_plan(faulty)
    with db.database.transaction() as conn:
        conn.execute("select count(*) from beliefdb.repair_plan(%s::text[], true, false)", (faulty,)).fetchall()
    for _ in range(repeat):
        with db.database.transaction() as conn, timed(raw):
            rows = conn.execute("select * from beliefdb.repair_plan(%s::text[], true, false)", (faulty,)).fetchall()
    assert len(rows) == len(plan.items)
    # of which: the holding fixpoint over the closure with the faulty memories off
    fixpoint: list[float] = []
    for _ in range(max(5, repeat // 3)):
        with owner_session(db) as conn, timed(fixpoint):
            conn.execute("select beliefdb.evaluate(beliefdb.current_workspace_id(), %s, %s)", (faulty, faulty))
    counts = {a: len(plan.of(a)) for a in ("delete", "quarantine", "invalidate", "replay", "preserve")}
    return {"repair_plan_p50_ms": round(statistics.median(lib), 2),
            "repair_plan_p95_ms": round(percentile(lib, 95, nearest=True), 2),
            "sql_p50_ms": round(statistics.median(raw), 2), "sql_p95_ms": round(percentile(raw, 95, nearest=True), 2),
            "evaluate_p50_ms": round(statistics.median(fixpoint), 2), "closure": len(rows) and closure_size(db, faulty),
            "plan_items": len(plan.items), "actions": counts}


def owner_session(db: beliefdb.BeliefDB) -> psycopg.Connection[Any]:
    """A session of the schema's owner bound to the workspace: evaluate, propagate's fixpoint, is an
    internal the application role may not call (a session of the library's was refused)."""
    conn = psycopg.connect(db.database.url)
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(db.database.workspace_id),))
    return conn


def closure_size(db: beliefdb.BeliefDB, faulty: list[UUID]) -> int:
    with owner_session(db) as conn:
        conn.execute("select beliefdb.evaluate(beliefdb.current_workspace_id(), %s, %s)", (faulty, faulty))
        row = conn.execute("select count(*) from pg_temp.beliefdb_evaluation").fetchone()
    return int(row[0]) if row else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--steps", type=int, default=1000, help="steps per agent run")
    parser.add_argument("--runs", type=int, default=3, help="agent runs of --steps steps")
    parser.add_argument("--memories", type=int, default=50, help="memories written by the sessions")
    parser.add_argument("--repeat", type=int, default=30, help="measured calls per figure")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    began = time.perf_counter()

    with database(args.db) as url:
        name = f"bench-repair-{uuid.uuid4().hex[:8]}"
        create_workspace(url, name)
        with beliefdb.connect(url, workspace=name) as db:
            trace = Trace()
            record_sessions(db, trace, args.memories, rng)
            log(f"sessions wrote {len(trace.memories)} memories in {trace.steps} steps")
            recording = []
            for n in range(args.runs):
                seconds, count = record_run(db, trace, args.steps, rng, n)
                recording.append(count / seconds)
                log(f"run {n}: {count} steps recorded in one call, {seconds * 1000:.0f} ms "
                    f"({count / seconds:.0f} steps/s)")
            faults = pick_faults(trace, rng)
            figures: dict[str, Any] = {}
            for label, faulty in faults.items():
                figures[label] = measure(db, faulty, args.repeat)
                figures[label]["reach"] = trace.reach(faulty)
                log(f"{label}: {json.dumps(figures[label])}")
            with db.database.transaction() as conn:
                server = server_settings(conn, ("server_version", "shared_buffers", "jit"))

    report = {
        "steps_per_run": args.steps, "runs": args.runs, "memories": len(trace.memories), "total_steps": trace.steps,
        "record_steps_per_s": {"median": round(statistics.median(recording)), "min": round(min(recording))},
        "plan": figures,
        "target_ms": 100,
        "meets_target": all(f["repair_plan_p95_ms"] < 100 for f in figures.values()),
        "machine": {"python": platform.python_version(), "platform": platform.platform(), **server},
    }
    if args.json:
        print_json(report)
    else:
        print(f"beliefdb repair plan benchmark: {args.runs} runs of {args.steps} steps, "
              f"{len(trace.memories)} memories, "
              f"{trace.steps} steps in all; {time.perf_counter() - began:.0f} s")
        print(f"recording: median {report['record_steps_per_s']['median']} steps/s "
              f"(slowest run {report['record_steps_per_s']['min']} steps/s), one call per run")
        print(f"{'faulty':>10} {'closure':>7} {'items':>6} {'replay':>6} {'lib p50':>8} {'lib p95':>8} "
              f"{'sql p50':>8} {'sql p95':>8} {'eval p50':>8}  (ms, {args.repeat} calls each)")
        for label, f in figures.items():
            print(f"{label:>10} {f['closure']:>7} {f['plan_items']:>6} {f['actions']['replay']:>6} "
                  f"{f['repair_plan_p50_ms']:>8.2f} {f['repair_plan_p95_ms']:>8.2f} {f['sql_p50_ms']:>8.2f} "
                  f"{f['sql_p95_ms']:>8.2f} {f['evaluate_p50_ms']:>8.2f}")
        print(f"target: p95 under 100 ms: {'met' if report['meets_target'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
