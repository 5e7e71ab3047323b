"""bench/citus_sizing.py runs end to end against this test's database and reports, per table, the rows
per belief and bytes per row that docs/scale-out.md sizes a Citus cluster with."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from conftest import load_script

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.slow
def test_sizing_benchmark_runs_small(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))  # the script imports bench/_common.py as _common
    sizing = load_script("citus_sizing", BENCH / "citus_sizing.py")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = sizing.main(["--docs", "5", "--per-doc", "6", "--db", db_url, "--json"])
    assert code == 0
    report = json.loads(out.getvalue())
    tables = report["tables"]
    # 5 documents of 6 beliefs, one of them with a second version changing 3 values, one correction
    assert report["beliefs"] == tables["belief"]["rows"] == 5 * 6 + 3 + 1
    assert tables["belief_embedding"]["rows_per_belief"] == 1.0
    assert tables["decision"]["rows"] == 5 and tables["action"]["rows"] == 3
    assert tables["audit_event"]["rows_per_belief"] > 1
    assert report["bytes_per_belief"] == round(report["workspace_bytes"] / report["beliefs"])
    assert all(t["bytes_per_row"] > 0 for t in tables.values() if t["rows"])
