"""bench/plan_audit.py runs every operation it lists on a small benchmark workspace and reports the
scans of store tables wider than its threshold, with the statement they are in."""

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

import forget_mentions  # noqa: E402
import impact as bench_impact  # noqa: E402
import plan_audit  # noqa: E402


def small_workspace(db_url: str, seed: int) -> str:
    """The name of a new workspace bench/impact.py's loader filled with a 3,000-node graph."""
    ws = bench_impact.create_workspace(db_url)
    with psycopg.connect(db_url) as conn:
        bench_impact.load(conn, ws, bench_impact.generate(3000, np.random.default_rng(seed)))
        row = conn.execute("select name from beliefdb.workspace where id = %s", (ws,)).fetchone()
    assert row is not None
    return str(row[0])


def audit(db_url: str, name: str, threshold: int) -> dict[str, object]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = plan_audit.main(["--db", db_url, "--workspace", name, "--threshold", str(threshold), "--json"])
    assert code == 0
    result: dict[str, object] = json.loads(out.getvalue())
    return result


@pytest.mark.slow
def test_the_plan_audit_runs_each_operation_and_names_wide_scans(db_url: str) -> None:
    name = small_workspace(db_url, 3)
    # 200,000 rows read by one scan (loops counted) is ten times the whole 3,000-node workspace's adjacency:
    # a plan that reads it for each row of another. The tables have no statistics yet, or some of them
    # (a fresh workspace, autovacuum's analyze coming when it does): the actions held by a change probed
    # every decision needing review for each action (35,000-83,000 rows in runs alone, a million in a CI
    # run; each action's decision is read by its key since, at most ~6,000 rows for any scan then), and CI
    # met a retraction preview's antecedent probes above 20,000 in some state of the statistics
    loose = audit(db_url, name, 200_000)
    operations = loose["operations"]
    assert isinstance(operations, list) and len(operations) == len({o["operation"] for o in operations}) > 20
    assert all(o["outcome"] == "ok" for o in operations), [o for o in operations if o["outcome"] != "ok"]
    # (which operation and scan, when one is: CI once met a million-row scan here that no run alone shows)
    assert not any(o["wide_scans"] for o in operations), [(o["operation"], o["wide_scans"]) for o in operations
                                                          if o["wide_scans"]]

    # a threshold of one row: every scan that read a row is named, with its table and statement
    strict = audit(db_url, name, 1)
    scans = [s for o in strict["operations"] for s in o["wide_scans"]]  # type: ignore[attr-defined]
    assert {"node", "belief"} <= {s["table"] for s in scans}
    assert all(s["rows"] + s["filtered"] >= 1 and s["statement"] for s in scans)


@pytest.mark.slow
def test_the_forget_benchmark_forgets_each_person_and_counts_the_mention_search(db_url: str) -> None:
    name = small_workspace(db_url, 4)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = forget_mentions.main(["--db", db_url, "--workspace", name, "--runs", "1", "--json"])
    assert code == 0
    result = json.loads(out.getvalue())
    assert result["runs"] == 1 and result["workspace"]["node"] >= 3000
    assert result["forget_s"]["median"] > 0 and result["writer_waited_s"]["median"] >= 0
    # the preview looks for the name once; the statement reads the workspace's decisions (no index has it)
    assert result["mention_statements"]["preview"] == 1
    assert result["mention_statement_rows_read"]["preview"]["decision"] >= result["workspace"]["decision"]
    # and where the stored texts still name them once, apart: Bob's turn, Bob's document, and the badge's
    # document around the forgotten quote ("badge code is 4471"), one time each
    assert result["text_mention_statements"] == {"preview": 1, "forget": 1} and result["text_mentions"] == [3]
    assert result["text_mention_statement_rows_read"]["preview"]["source_version"] >= 1
    with psycopg.connect(db_url) as conn:  # everyone it made up was forgotten
        left = conn.execute("select count(*) from beliefdb.belief where subject like 'maya%%'").fetchone()
    assert left == (0,)
