"""bench/ingest.py (issue 20) runs end to end at a tiny size against this test's database and prints
the keys docs/benchmarks.md quotes, with figures that say what they are; bench/ingest_batch.py
measures one batch on the workspace it kept and leaves that workspace as it was."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import psycopg
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import ingest as bench_bulk  # noqa: E402
import ingest_batch  # noqa: E402


def test_the_benchmark_documents_restate_the_claims_before_them() -> None:
    docs = bench_bulk.documents("measured", 150)
    assert len(docs) == 3 and docs[0][0] == "measured-0.md"
    claims = [list(bench_bulk.claim_rows([d])) for d in docs]
    assert [len(c) for c in claims] == [50, 52, 52]
    # the second document restates two claims of the first: one with another value, one the same
    first = {(c[1], c[2]): c[3] for c in claims[0]}
    restated = [(c[1], c[2], c[3]) for c in claims[1] if (c[1], c[2]) in first]
    assert len(restated) == 2 and sum(first[(s, a)] == v for s, a, v in restated) == 1


@pytest.mark.slow
def test_bulk_ingest_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_bulk.main(["--beliefs", "300", "--measure", "100", "--embed-beliefs", "50", "--batch", "1",
                                "--db", db_url, "--json", "--queue-documents", "0"])
    assert code == 0
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert set(report) == {"beliefs", "beliefs_per_s", "copy_rows_per_s", "copy_ratio", "embed_ratio", "queue",
                           "indexed_copy_beliefs_per_s", "server_cpu_s", "client_cpu_s", "load"}
    # what the run cost in CPU, beside its wall time (the test's server is local: its CPU is readable)
    assert report["server_cpu_s"] > 0
    assert report["client_cpu_s"] > 0 and len(report["load"]) == 2
    assert report["indexed_copy_beliefs_per_s"] > 0
    assert report["beliefs"] == 101  # two documents of 50, and the second's one claim with another value
    assert report["beliefs_per_s"] > 0 and report["copy_rows_per_s"] > 0 and report["embed_ratio"] > 0
    assert report["copy_ratio"] == pytest.approx(report["copy_rows_per_s"] / report["beliefs_per_s"], rel=0.02)
    assert report["queue"] is None  # (--queue-documents 0; the queue's run is tests/test_queue_kill.py's)


@pytest.mark.slow
def test_one_batch_is_measured_and_rolled_back(db_url: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert bench_bulk.main(["--beliefs", "200", "--measure", "50", "--embed-beliefs", "50", "--db", db_url,
                                "--json", "--queue-documents", "0", "--keep"]) == 0
    found = re.search(r"into workspace (bench-ingest-[0-9a-f]+)", err.getvalue())
    assert found is not None, err.getvalue()
    workspace = found.group(1)

    def stored() -> tuple[int, int]:
        with psycopg.connect(db_url) as conn:
            row = conn.execute("select (select count(*) from beliefdb.belief b where b.workspace_id = w.id),"
                               " (select count(*) from beliefdb.audit_event e where e.workspace_id = w.id)"
                               " from beliefdb.workspace w where w.name = %s", (workspace,)).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    before = stored()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert ingest_batch.main(["--db", db_url, "--workspace", workspace, "--measure", "100", "--json"]) == 0
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert set(report) == {"accepted", "seconds", "backend_cpu_s", "beliefs_per_cpu_s", "load"}
    assert report["accepted"] == 101  # two documents of 50, and the second's one claim with another value
    assert report["seconds"] > 0 and report["backend_cpu_s"] > 0 and len(report["load"]) == 2
    # rolled back: not a belief, not an audit event more
    assert stored() == before
