"""Steps appended to one recorded run at once (``record_step`` and ``ask`` with ``run``, in the library
and over HTTP): every one is recorded, each with a seq of its own, in the order they were written.
The seq is taken under the workspace's write lock, which recording a step takes anyway: the next
writer of the run reads the seq after the last one committed."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from fastapi.testclient import TestClient

import beliefdb
from beliefdb import api

T = TypeVar("T")
POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"


def _at_once(n: int, call: Callable[[int], T]) -> list[T]:
    """``call(i)`` for i < n, from n threads let go together."""
    start = threading.Barrier(n)

    def one(i: int) -> T:
        start.wait()
        return call(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def test_parallel_record_steps_all_land_each_with_its_own_seq(db_url: str) -> None:
    with beliefdb.connect(db_url, max_size=8) as db:
        run = db.record_step("user_input", {"text": "check six tools"}, task="parallel tools").run
        done = _at_once(6, lambda i: db.record_step("observation", {"tool": i}, run=run))
        assert sorted(d.seq for d in done) == [1, 2, 3, 4, 5, 6]
        assert {d.run for d in done} == {run}
        steps = db.steps(run)
        assert [s.seq for s in steps] == list(range(7))
        # each step is at the seq it was told: the one its call returned
        assert {(d.step, d.seq) for d in done} == {(s.id, s.seq) for s in steps[1:]}


def test_parallel_asks_in_one_run_all_record_their_reads(db_url: str) -> None:
    with beliefdb.connect(db_url, max_size=8) as db:
        db.ingest_text(POLICY, source="return-policy.md", authority="official")
        run = db.record_step("user_input", {}, task="parallel asks").run
        answers = _at_once(5, lambda i: db.ask("how many days for returns?", k=1, run=run))
        assert [a.status for a in answers] == ["ok"] * 5
        steps = db.steps(run)
        assert [(s.seq, s.kind) for s in steps] == [(0, "user_input")] + [(i, "memory_read") for i in range(1, 6)]


def test_parallel_steps_over_http_all_land(http_client: TestClient, db_url: str) -> None:
    agent = {"Authorization": f"Bearer {api.create_token('default', 'agent', url=db_url).token}"}
    run = http_client.post("/steps", json={"kind": "user_input", "task": "parallel"}, headers=agent).json()["run"]
    replies = _at_once(6, lambda i: http_client.post("/steps", json={"run": run, "kind": "observation",
                                                                    "payload": {"tool": i}}, headers=agent))
    assert [r.status_code for r in replies] == [200] * 6, [r.text for r in replies]
    assert sorted(r.json()["seq"] for r in replies) == [1, 2, 3, 4, 5, 6]
