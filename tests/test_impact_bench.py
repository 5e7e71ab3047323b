"""bench/impact.py runs end to end on a small graph against this test's database: every impact
answer equal to its Python reference (the script checks), corrections really applied (not only
proposed to another owner), figures in the JSON the docs quote."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import psycopg
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import impact as bench_impact  # noqa: E402


@pytest.mark.slow
def test_impact_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_impact.main(["--nodes", "3000", "--db", db_url, "--json", "--runs", "5", "--budget", "5"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["nodes"] == 3000
    assert result["impact_p50_ms"] and all(v > 0 for v in result["impact_p50_ms"].values())
    # the case is reported apart: seeds whose retraction stops at most HANDFUL nodes holding
    for t, runs in result["runs"].items():
        assert 0 <= result["handful_runs"][t] <= runs
        assert result["stopped_median"][t] >= 1  # the seed itself stops holding
        assert (result["handful_ratio"][t] is None) == (result["handful_runs"][t] == 0)
    assert result["correction_apply_p50_ms"] > 0
    assert result["correction_apply_p95_ms"] >= result["correction_apply_p50_ms"]


@pytest.mark.slow
def test_the_loader_writes_the_adjacency_and_reasons_the_server_derives(db_url: str) -> None:
    """The loader computes the adjacency rows and the decisions' reasons from its graph instead of
    asking the server (rebuild_adjacency took 36 min at 10M nodes): row for row what
    rebuild_adjacency and refresh_decision_reasons write, compared with except all both ways."""
    g = bench_impact.generate(3000, np.random.default_rng(5))
    ws = bench_impact.create_workspace(db_url)
    with psycopg.connect(db_url) as conn:
        bench_impact.load(conn, ws, g)
    decisions = g.first(bench_impact.ACTION) - g.first(bench_impact.DECISION)
    with psycopg.connect(db_url) as conn:
        # the rows cover every kind of entry the server derives: leaves carried on out rows,
        # supports and edges that carry none, decisions with reasons (every generated decision has one)
        row = conn.execute("""
            select count(*) filter (where entry = 'out' and kind is not null),
                   count(*) filter (where entry = 'out' and support),
                   count(*) filter (where entry = 'out' and support is null),
                   (select count(*) from beliefdb.decision d where d.workspace_id = %(ws)s and d.reasons <> '{}')
              from beliefdb.adjacency where workspace_id = %(ws)s""", {"ws": ws}).fetchone()
        assert row is not None and all(v > 0 for v in row), row
        drift = bench_impact.derived_drift(conn, ws)
        assert drift == {"adjacency": [0, 0, g.nodes + g.edges + len(g.cons)], "decision": [0, 0, decisions]}
        # the comparison sees one changed row of each
        conn.execute("set session_replication_role = replica")
        conn.execute("""update beliefdb.adjacency set support = null
                         where ctid = (select ctid from beliefdb.adjacency
                                        where workspace_id = %(ws)s and entry = 'out' and support limit 1)""",
                     {"ws": ws})
        conn.execute("""update beliefdb.decision set reasons = '{}'
                         where ctid = (select ctid from beliefdb.decision
                                        where workspace_id = %(ws)s and reasons <> '{}' limit 1)""", {"ws": ws})
        conn.commit()
        drift = bench_impact.derived_drift(conn, ws)
        assert drift == {"adjacency": [1, 1, g.nodes + g.edges + len(g.cons)], "decision": [1, 1, decisions]}


@pytest.mark.slow
def test_the_reads_benchmark_runs_on_a_workspace_impact_loaded(db_url: str) -> None:
    import reads as bench_reads

    # 400 nodes hold every kind the reads touch (6 sources, quoted and derived beliefs, 60 decisions and 60
    # actions, so the pages of 20 and 50 are full): the as-of reads test each belief of the workspace
    # (believed_at, ~8 ms a derived belief here), so the 3,000-node graph spent ~30-60 s on them alone
    g = bench_impact.generate(400, np.random.default_rng(7))
    ws = bench_impact.create_workspace(db_url)
    with psycopg.connect(db_url) as conn:
        bench_impact.load(conn, ws, g)
        name = conn.execute("select name from beliefdb.workspace where id = %s", (ws,)).fetchone()
    assert name is not None
    with psycopg.connect(db_url, autocommit=True) as conn:
        # as bench/impact.py leaves the workspace reads.py measures (its --keep): analyzed after the load
        conn.execute("vacuum (analyze) " + ", ".join(f"beliefdb.{t}" for t in bench_impact.LOADED_TABLES))
    # every read, and the retraction preview of the source that supports the most beliefs (one run each)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_reads.main(["--db", db_url, "--workspace", name[0], "--runs", "1", "--json", "--large-source"])
    assert code == 0
    large = json.loads(out.getvalue().strip().splitlines()[-1])
    assert all(ms > 0 for ms in large.values()), large
    assert {"decisions page of 50", "actions page of 50"} <= set(large)
    assert len(large) == 15 and any(k.startswith("preview_retract of the largest source (") for k in large), large
