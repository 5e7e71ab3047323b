"""Calibration on beliefs each test writes itself (the hand-computed sample's tests are in
tests/test_calibrate.py): values on bin edges land in the bin they name; CSV errors name their line;
the library's error types; another workspace's beliefs are unknown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from test_calibrate import make_beliefs, write_labels

import beliefdb
from beliefdb import errors
from beliefdb.store import calibrate as calibrate_mod
from beliefdb.store import workspaces


def test_values_on_bin_edges_land_in_the_bin_they_name(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    # 0.3, 0.6 and 0.7 are not exact as binary reals (0.7 is stored as 0.69999999); each belongs to its own bin
    ids = make_beliefs(bdb, postgresql, [0.3, 0.6, 0.7, 0.0])
    path = write_labels(tmp_path, ["belief_id,correct", *(f"{i},yes" for i in ids)])
    result = calibrate_mod.calibrate(bdb.database, path)
    assert {i: b.count for i, b in enumerate(result.bins) if b.count} == {0: 1, 3: 1, 6: 1, 7: 1}
    assert result.bins[7].mean_confidence == 0.7
    # ECE = 1/4·(|1-0.3| + |1-0.6| + |1-0.7| + |1-0|) = 1/4·(0.7 + 0.4 + 0.3 + 1.0) = 0.6
    assert result.ece == 0.6


@pytest.mark.slow
@pytest.mark.parametrize(("rows", "expected"), [
    (["id,correct", "{a},true"], "line 1: header must name the columns 'belief_id' and 'correct'"),
    (["belief_id,correct", "{a},true", "{b},maybe"], "line 3: correct must be true/false, 1/0 or yes/no, got 'maybe'"),
    (["belief_id,correct", "{a}"], "line 2: expected belief_id and correct"),
    (["belief_id,correct", "not-an-id!,true"], "line 2: 'not-an-id!' is not a belief id"),
    (["belief_id,correct", "{a},true", "", "00000000-0000-0000-0000-000000000000,false"],
     "line 4: unknown belief 00000000-0000-0000-0000-000000000000"),
    (["belief_id,correct", "{a},true", "{b},no", "{a},yes"], "line 4: belief {a} is labelled twice (first on line 2)"),
    (["belief_id,correct", "{a8},true", "{a},no"], "line 3: belief {a} is labelled twice (first on line 2)"),
    (["belief_id,correct"], "no labelled beliefs"),
    ([], "empty file"),
])
def test_csv_errors(cli: Cli, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path,
                    rows: list[str], expected: str) -> None:
    a, b = make_beliefs(bdb, postgresql, [0.5, 0.5])
    fill = {"a": str(a), "b": str(b), "a8": str(a)[:8]}
    path = write_labels(tmp_path, [r.format(**fill) for r in rows])
    line = cli.one_line_error("calibrate", "--labels", str(path))
    assert expected.format(**fill) in line, line
    as_json = cli.fail("calibrate", "--labels", str(path), "--json")
    assert json.loads(as_json.stdout)["message"].endswith(line.split(": ", 1)[1].split(": ", 1)[-1])


def test_library_error_types(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    (a,) = make_beliefs(bdb, postgresql, [0.5])
    with pytest.raises(errors.InvalidInput, match="line 2"):
        calibrate_mod.calibrate(bdb.database, write_labels(tmp_path, ["belief_id,correct", f"{a},perhaps"]))
    with pytest.raises(errors.NotFound, match="unknown belief ffff"):
        calibrate_mod.calibrate(bdb.database, write_labels(tmp_path, ["belief_id,correct", "ffff,1"]))
    with pytest.raises(errors.NotFound, match="no such file"):
        calibrate_mod.calibrate(bdb.database, tmp_path / "missing.csv")


@pytest.mark.slow
def test_other_workspaces_beliefs_are_unknown(cli: Cli, db_url: str, bdb: beliefdb.BeliefDB,
                                              postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    (a,) = make_beliefs(bdb, postgresql, [0.5])
    path = write_labels(tmp_path, ["belief_id,correct", f"{a},true"])
    cli("calibrate", "--labels", str(path))
    workspaces.create_workspace(db_url, "other")
    assert f"unknown belief {a}" in cli.one_line_error("calibrate", "--labels", str(path), "--workspace", "other")
