"""Queued ingest under SIGKILL: documents queued with ``beliefdb ingest --queue``'s library call, ingested
by ``beliefdb worker`` processes that are killed with SIGKILL again and again (each restarted at once),
then counted: how many documents were lost (never ingested) and how many were duplicated (ingested more
than once, or a belief stored twice).

The kills are spread over the run (the k-th of K once k/(K+1) of the documents are done), each once its
victim has finished a job since it started (past start-up, in the middle of its stream of jobs), then a
random moment up to 100 ms more: most land inside a job's transaction (``in_flight`` in the log). After
the last kill the workers run until the queue is empty.
The documents go to a new workspace, deleted at the end unless ``--keep``.

    python bench/queue_kill.py                                  # 1,000 documents, 2 workers, 20 kills
    python bench/queue_kill.py --documents 100 --kills 5 --json
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common

import beliefdb


def document(i: int) -> str:
    return (f"# Queue document {i}\n"
            f"The reference code of item {i} is R{i:06d}.\n"
            f"The shelf of item {i} is S{i % 97}.\n")


@dataclass(frozen=True)
class Outcome:
    """Everything the run found; :func:`run` reports the four figures."""

    documents: int
    kills: int
    in_flight: int
    lost: int
    duplicated: int
    jobs_done: int
    chain_ok: bool
    seconds: float

    def figures(self) -> dict[str, int]:
        return {"documents": self.documents, "kills": self.kills, "lost": self.lost, "duplicated": self.duplicated}


def _worker(url: str, workspace: str, log: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "beliefdb", "worker", "--until-empty", "--no-embed",
                             "--db", url, "--workspace", workspace],
                            stdout=subprocess.DEVNULL, stderr=log, env=os.environ.copy())


def _done(conn: psycopg.Connection[Any], ws: str) -> int:
    row = conn.execute("select count(*) from beliefdb.job where workspace_id = %s and status = 'done'",
                       (ws,)).fetchone()
    return int(row[0]) if row else 0


def _held(conn: psycopg.Connection[Any], ws: str) -> int:
    """How many of the workspace's jobs a worker holds now (as beliefdb.jobs tells: the job's row is
    locked by a transaction in progress)."""
    row = conn.execute("select count(*) from beliefdb.job j where j.workspace_id = %s and j.status = 'queued'"
                       " and j.xmax <> '0'::xid and j.xmax in (select t.transactionid from pg_catalog.pg_locks t"
                       " where t.locktype = 'transactionid' and t.mode = 'ExclusiveLock' and t.granted)",
                       (ws,)).fetchone()
    return int(row[0]) if row else 0


def _count(conn: psycopg.Connection[Any], ws: str, names: list[str]) -> tuple[int, int]:
    """(lost, duplicated): documents with no version, and documents stored more than once (a second
    version, a second ingest event in the audit chain) plus beliefs stored twice."""
    lost = conn.execute("""
        select count(*) from unnest(%s::text[]) n(name)
         where not exists (select from beliefdb.source s
                             join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
                            where s.workspace_id = %s and s.name = n.name)""", (names, ws)).fetchone()
    twice = conn.execute("""
        select (select count(*) from (select v.source_id from beliefdb.source_version v where v.workspace_id = %(ws)s
                                       group by v.source_id having count(*) > 1) x)
             + (select count(*) from (select e.payload ->> 'source' from beliefdb.audit_event e
                                       where e.workspace_id = %(ws)s and e.action = 'ingest'
                                       group by 1 having count(*) > 1) y)
             + (select coalesce(sum(c - 1), 0) from (select count(*) c from beliefdb.belief b
                                                      where b.workspace_id = %(ws)s
                                                      group by b.subject, b.attribute, b.value, b.statement) z)
        """, {"ws": ws}).fetchone()
    assert lost is not None and twice is not None
    return int(lost[0]), int(twice[0])


def _kill(watch: psycopg.Connection[Any], ws: str, procs: list[subprocess.Popen[bytes]], documents: int,
          kills: int, rng: random.Random, start: Any, deadline: float) -> tuple[int, int]:
    """SIGKILL a random worker ``kills`` times, spread over the run (the k-th once k/(kills+1) of the
    documents are done) and each once its victim has done a job since it started, then restart it;
    (kills, kills that found a job held by a worker)."""
    births = [_done(watch, ws)] * len(procs)
    done_kills = in_flight = 0
    for k in range(kills):
        victim = rng.randrange(len(procs))
        target = max((k + 1) * documents // (kills + 1), births[victim] + 1)
        while (done := _done(watch, ws)) < target and time.monotonic() < deadline:
            time.sleep(0.01)
        if done >= documents or time.monotonic() >= deadline:
            break
        time.sleep(rng.uniform(0, 0.1))
        in_flight += _held(watch, ws) > 0
        procs[victim].send_signal(signal.SIGKILL)
        procs[victim].wait()
        done_kills += 1
        births[victim] = _done(watch, ws)
        procs[victim] = start()
        if done_kills % 5 == 0:
            _common.log(f"{done_kills} kills, {births[victim]}/{documents} documents done")
    return done_kills, in_flight


def kill_run(db_url: str, documents: int = 1000, workers: int = 2, kills: int | None = None, *, seed: int = 1,
             keep: bool = False, timeout: float = 3600) -> Outcome:
    """Queue ``documents``, run ``workers`` worker processes and SIGKILL one of them ``kills`` times
    (default: one per 50 documents, at least 5), then let them empty the queue and count."""
    kills = max(5, documents // 50) if kills is None else kills
    rng = random.Random(seed)
    name = f"queue-kill-{uuid.uuid4().hex[:8]}"
    ws = str(beliefdb.api.create_workspace(name, url=db_url).id)
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="beliefdb-queue-kill-") as tmp:
            paths = [Path(tmp) / f"doc-{i:06d}.md" for i in range(documents)]
            for i, path in enumerate(paths):
                path.write_text(document(i), encoding="utf-8")
            with beliefdb.connect(db_url, workspace=name) as db:
                ids = db.submit(*paths)
            assert len(ids) == documents
            _common.log(f"queued {documents} documents in workspace {name}")
            log = open(Path(tmp) / "workers.log", "wb")  # noqa: SIM115 (closed below, after the workers)
            with psycopg.connect(db_url, autocommit=True) as watch:
                procs = [_worker(db_url, name, log) for _ in range(workers)]
                try:
                    done_kills, in_flight = _kill(watch, ws, procs, documents, kills, rng,
                                                  lambda: _worker(db_url, name, log), time.monotonic() + timeout)
                    for p in procs:
                        p.wait(timeout=timeout)
                finally:
                    for p in procs:
                        if p.poll() is None:
                            p.kill()
                            p.wait()
                    log.close()
                failed = [p.returncode for p in procs if p.returncode != 0]
                if failed:
                    raise RuntimeError(f"a worker exited with {failed}: {(Path(tmp) / 'workers.log').read_text()}")
                lost, duplicated = _count(watch, ws, [p.name for p in paths])
                jobs_done = _done(watch, ws)
            with beliefdb.connect(db_url, workspace=name) as db:
                chain_ok = db.audit_verify().ok
    finally:
        if not keep:
            beliefdb.api.delete_workspace(name, url=db_url, force=True)
    seconds = time.perf_counter() - started
    outcome = Outcome(documents=documents, kills=done_kills, in_flight=in_flight, lost=lost, duplicated=duplicated,
                      jobs_done=jobs_done, chain_ok=chain_ok, seconds=seconds)
    _common.log(f"{outcome.kills} kills ({in_flight} inside a job), {jobs_done}/{documents} jobs done, lost {lost},"
                f" duplicated {duplicated}, audit chain {'verifies' if chain_ok else 'BROKEN'}, {seconds:.1f} s")
    return outcome


def run(db_url: str, documents: int = 1000, workers: int = 2, kills: int | None = None) -> dict[str, int]:
    """``{"documents", "kills", "lost", "duplicated"}`` of one run (bench/ingest.py's ``queue``); a broken
    audit chain is an error, not a figure."""
    outcome = kill_run(db_url, documents, workers, kills)
    if not outcome.chain_ok:
        raise RuntimeError("the audit chain does not verify after the run")
    return outcome.figures()


def main() -> None:
    parser = _common.arguments(__doc__)
    parser.add_argument("--documents", type=int, default=1000, help="documents queued (default 1000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--kills", type=int, default=None, help="SIGKILLs (default: one per 50 documents, >= 5)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the kills (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the workspace")
    args = parser.parse_args()
    with _common.database(args.db) as url:
        outcome = kill_run(url, args.documents, args.workers, args.kills, seed=args.seed, keep=args.keep)
    if not outcome.chain_ok:
        raise SystemExit("error: the audit chain does not verify after the run")
    if args.json:
        _common.print_json(outcome.figures())
    else:
        print(f"{outcome.documents} documents through {args.workers} workers, {outcome.kills} SIGKILLs"
              f" ({outcome.in_flight} inside a job): {outcome.lost} lost, {outcome.duplicated} duplicated,"
              f" {outcome.jobs_done} jobs done, audit chain verifies; {outcome.seconds:.1f} s")


if __name__ == "__main__":
    main()
