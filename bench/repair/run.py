"""Rollback-repair benchmark (issue 5): six repair methods on seeded agent runs with faulty memories.

    python bench/repair/run.py --seed N [--cases N] [--json] [--db URL] [--jobs N] [--offset N] [--methods M,...]

Each case is a deterministic agent (travel booking, shopping assistant or customer service, with
in-process tools over a fare table, a catalogue or an order/CRM store) working through several
sessions of tasks, with one to four faulty memories injected (poisoned, stale, another user's,
a drifted summary). The ground truth is the same run on clean memory; only cases whose faults
change the final answer are kept. Each method gets each case in a workspace of its own, where
the faulty run is recorded through ``record_run``; see methods.py for the methods and scores.

Without ``--db`` a throw-away embedded server is started (and deleted at the end). Progress goes
to stderr; the table (or, with ``--json``, one JSON object per method) to stdout.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import arguments, database, log, print_json
from cases import FAULT_TYPES, is_compound, make_case
from methods import METHODS, Score, score

import beliefdb
from beliefdb.store.workspaces import create_workspace

JSON = dict[str, Any]
DEFAULT_CASES = 150
TARGETS = {"recovery_single": 0.95, "recovery_compound": 0.85, "fault_removal": 1.0, "benign_retention": 1.0,
           "replay_ratio": 0.15}


def run_case(url: str, seed: int, index: int, methods: Sequence[str], tag: str) -> tuple[list[Score], JSON]:
    """All methods on case ``index`` of ``seed``, each in a new workspace."""
    case = make_case(seed, index, compound=is_compound(index))
    scores = []
    for method in methods:
        name = f"rb-{tag}-{seed}-{index}-{method}"[:63]
        create_workspace(url, name)
        with beliefdb.connect(url, workspace=name) as db:
            scores.append(score(db, case, method))
    info = {"case": index, "domain": case.domain, "faults": [f.type for f in case.faults]}
    return scores, info


def _work(job: tuple[str, int, int, tuple[str, ...], str]) -> tuple[list[Score], JSON]:
    warnings.simplefilter("ignore")
    return run_case(*job)


def summarise(scores: Sequence[Score], methods: Sequence[str]) -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    for method in methods:
        mine = [s for s in scores if s.method == method]
        single = [s for s in mine if not s.compound]
        compound = [s for s in mine if s.compound]

        def share(part: Sequence[Score]) -> float:
            return sum(s.recovered for s in part) / len(part) if part else 0.0

        bad = sum(s.bad for s in mine)
        benign = sum(s.benign for s in mine)
        out[method] = {
            "recovery_single": share(single),
            "recovery_compound": share(compound),
            "fault_removal": sum(s.bad_removed for s in mine) / bad if bad else 1.0,
            "benign_retention": sum(s.benign_kept for s in mine) / benign if benign else 1.0,
            "replay_ratio": sum(s.replayed for s in mine) / max(1, sum(s.steps for s in mine)),
            "executor_calls": sum(s.calls for s in mine) / max(1, len(mine)),
            "recurrence": sum(s.recurred for s in mine) / max(1, len(mine)),
        }
    return out


def dominated(summary: dict[str, JSON], method: str = "beliefdb") -> list[str]:
    """Baselines that beat ``method``: recover more, or as much with fewer executor calls."""
    def recovery(m: str) -> float:
        return float(summary[m]["recovery_single"] + summary[m]["recovery_compound"])

    mine = recovery(method)
    return [m for m in summary if m != method and (recovery(m) > mine + 1e-12 or (
        abs(recovery(m) - mine) <= 1e-12 and summary[m]["executor_calls"] < summary[method]["executor_calls"]))]


def table(summary: dict[str, JSON], scores: Sequence[Score], infos: Sequence[JSON]) -> str:
    cases = len(infos)
    single = sum(1 for i in infos if len(i["faults"]) == 1)
    steps = [s.steps for s in scores if s.method == next(iter(summary))]
    kinds = {k: sum(k in i["faults"] for i in infos) for k in FAULT_TYPES}
    lines = [f"{cases} cases ({single} single-fault, {cases - single} compound with 2-4 faults; "
             + ", ".join(f"{k} {v}" for k, v in kinds.items()) + f"); {sum(steps) / max(1, len(steps)):.0f} steps"
             " per case on average", "",
             "| method | recovery (single) | recovery (compound) | fault removal | benign retention | replay ratio"
             " | executor calls | recurrence |", "|---|---|---|---|---|---|---|---|"]
    for method, f in summary.items():
        lines.append(f"| {method} | {f['recovery_single']:.1%} | {f['recovery_compound']:.1%} | "
                     f"{f['fault_removal']:.1%} | {f['benign_retention']:.1%} | {f['replay_ratio']:.1%} | "
                     f"{f['executor_calls']:.1f} | {f['recurrence']:.1%} |")
    if "beliefdb" in summary:
        b = summary["beliefdb"]
        met = [f"recovery single {b['recovery_single']:.1%} (>= 95%): {_ok(b['recovery_single'] >= 0.95)}",
               f"compound {b['recovery_compound']:.1%} (>= 85%): {_ok(b['recovery_compound'] >= 0.85)}",
               f"fault removal {b['fault_removal']:.1%} (100%): {_ok(b['fault_removal'] >= 1.0)}",
               f"benign retention {b['benign_retention']:.1%} (100%): {_ok(b['benign_retention'] >= 1.0)}",
               f"replay ratio {b['replay_ratio']:.1%} (<= 15%): {_ok(b['replay_ratio'] <= 0.15)}"]
        beaten = dominated(summary)
        met.append("no baseline dominates: " + (_ok(True) if not beaten else "NOT MET (" + ", ".join(beaten) + ")"))
        lines += ["", "targets (beliefdb repair): " + "; ".join(met)]
        missed = {s.case for s in scores if s.method == "beliefdb" and not s.recovered}
        if missed:
            lines.append("not recovered by beliefdb repair: " + ", ".join(
                f"case {i['case']} ({i['domain']}: {' + '.join(i['faults'])})" for i in infos if i["case"] in missed))
    return "\n".join(lines)


def _ok(flag: bool) -> str:
    return "met" if flag else "NOT MET"


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, json_help="print only the per-method figures as JSON",
                       db_help="libpq URL of a migrated beliefdb database (a workspace per case and method)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=DEFAULT_CASES)
    parser.add_argument("--offset", type=int, default=0, help="index of the first case (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of: " + ", ".join(METHODS))
    args = parser.parse_args(argv)
    methods = tuple(m for m in args.methods.split(",") if m)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown method(s): {', '.join(unknown)}")
    started = time.perf_counter()
    tag = uuid.uuid4().hex[:8]
    with database(args.db, "beliefdb-repair-bench-") as url:
        jobs = [(url, args.seed, i, methods, tag) for i in range(args.offset, args.offset + args.cases)]
        scores: list[Score] = []
        infos: list[JSON] = []
        with contextlib.ExitStack() as stack:
            if args.jobs > 1:
                pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(args.jobs))
                results: Iterator[tuple[list[Score], JSON]] = pool.imap(_work, jobs)
            else:
                results = map(_work, jobs)
            for n, (s, info) in enumerate(results, start=1):
                scores += s
                infos.append(info)
                if n % 10 == 0:
                    log(f"{n}/{args.cases} cases")
    summary = summarise(scores, methods)
    log(f"done in {time.perf_counter() - started:.0f} s")
    if args.json:
        print_json(summary, indent=2)
    else:
        print(f"python bench/repair/run.py --seed {args.seed} --cases {args.cases}")
        print(table(summary, scores, infos))
    return 0


if __name__ == "__main__":
    sys.exit(main())
