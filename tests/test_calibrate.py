"""Calibration against a reviewer's labelled sample: reliability table, ECE computed by hand, CSV
errors, the optional reliability diagram and the JSON shape. The tests of the sample clone its beliefs
from a template that holds them; those that write their own beliefs (bin edges, CSV and library errors,
other workspaces) are in tests/test_calibrate_own_beliefs.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from pytest_postgresql import factories

import beliefdb
from beliefdb.store import calibrate as calibrate_mod

# The sample: 10 beliefs in 2 of the 10 default bins.
#   bin [0.2, 0.3): confidences 0.2, 0.2, 0.25, 0.25 -> mean 0.9 / 4 = 0.225; 2 of 4 correct -> accuracy 0.5
#                   gap = 0.5 - 0.225 = +0.275
#   bin [0.9, 1.0]: confidences 0.9, 0.9, 0.95, 0.95, 1.0, 1.0 -> mean 5.7 / 6 = 0.95; 3 of 6 correct -> 0.5
#                   gap = 0.5 - 0.95 = -0.45 (1.0 falls in the last, closed bin)
#   ECE = (4/10)·|0.5 - 0.225| + (6/10)·|0.5 - 0.95| = 0.4·0.275 + 0.6·0.45 = 0.11 + 0.27 = 0.38
#   overall: accuracy 5/10 = 0.5, mean confidence (0.9 + 5.7) / 10 = 0.66
# (all of 0.2, 0.25, 0.9, 0.95, 1.0 are stored as real; they are read back as the decimals stored)
SAMPLE: list[tuple[float, bool]] = [
    (0.2, True), (0.2, False), (0.25, True), (0.25, False),
    (0.9, True), (0.9, False), (0.95, True), (0.95, False), (1.0, True), (1.0, False),
]


def make_beliefs(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], confidences: list[float],
                 kinds: dict[int, str] | None = None) -> list[UUID]:
    """One belief per confidence, each from its own conversation, with that exact stored confidence."""
    ids: list[UUID] = []
    for n in range(len(confidences)):
        quote = f"Order {n} ships in {n + 2} days."
        report = bdb.remember(f"order {n} ships in {n + 2} days", f"order-{n}", "shipping", f"{n + 2} days", quote,
                              source=f"chat-{n}", text=f"Hello. {quote}")
        assert len(report.accepted) == 1, report
        ids.append(report.accepted[0].id)
    for n, (belief_id, confidence) in enumerate(zip(ids, confidences, strict=True)):
        postgresql.execute("update beliefdb.belief set confidence = %s where id = %s", (confidence, belief_id))
        if kinds and n in kinds:
            postgresql.execute("update beliefdb.belief set confidence_kind = %s where id = %s", (kinds[n], belief_id))
    postgresql.commit()
    return ids


def write_labels(tmp_path: Path, rows: list[str], name: str = "labels.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _write_sample(url: str) -> list[UUID]:
    """The sample's beliefs, one a human correction; their ids."""
    with beliefdb.connect(url) as bdb, psycopg.connect(url) as conn:
        return make_beliefs(bdb, conn, [c for c, _ in SAMPLE], kinds={4: "human_correction"})


# every test here starts from the sample's beliefs: each clones them from a template that holds them
sample_proc = seeded_proc(_write_sample)
postgresql = factories.postgresql("sample_proc")


@pytest.fixture
def sample(postgresql: psycopg.Connection[Any], tmp_path: Path) -> tuple[Path, list[UUID]]:
    """The hand-computed sample as a CSV: every spelling of true/false, prefixes, blank lines; one
    belief's confidence is a human correction (this test's database holds the beliefs)."""
    ids: list[UUID] = SEEDS[postgresql.info.dbname]
    spellings = {True: ["true", "1", "yes", "TRUE", " Yes "], False: ["false", "0", "no", "False", "NO"]}
    rows = ["belief_id,correct", ""]
    for n, (belief_id, (_, correct)) in enumerate(zip(ids, SAMPLE, strict=True)):
        ref = str(belief_id) if n % 2 else str(belief_id)[:13]  # full ids and unique prefixes
        rows.append(f"{ref},{spellings[correct][n // 2]}")
        if n == 5:
            rows.append("   ")
    return write_labels(tmp_path, rows), ids


@pytest.mark.slow
def test_ece_computed_by_hand(bdb: beliefdb.BeliefDB, sample: tuple[Path, list[UUID]]) -> None:
    path, _ = sample
    result = calibrate_mod.calibrate(bdb.database, path)
    assert result.ece == 0.38
    assert (result.count, result.correct, result.accuracy, result.mean_confidence) == (10, 5, 0.5, 0.66)
    assert len(result.bins) == 10
    low, high = result.bins[2], result.bins[9]
    assert (low.lower, low.upper, low.count, low.correct) == (0.2, 0.3, 4, 2)
    assert (low.mean_confidence, low.accuracy, low.gap) == (0.225, 0.5, 0.275)
    assert (high.lower, high.upper, high.count, high.correct) == (0.9, 1.0, 6, 3)
    assert (high.mean_confidence, high.accuracy, high.gap) == (0.95, 0.5, -0.45)
    for empty in [b for i, b in enumerate(result.bins) if i not in (2, 9)]:
        assert (empty.count, empty.mean_confidence, empty.accuracy, empty.gap) == (0, None, None, None)
    kinds = {k.confidence_kind: (k.count, k.correct) for k in result.by_kind}
    assert kinds == {"extracted": (9, 4), "human_correction": (1, 1)}


@pytest.mark.slow
def test_bins_option(cli: Cli, sample: tuple[Path, list[UUID]]) -> None:
    # two bins: [0, 0.5) holds the four low beliefs and [0.5, 1.0] the six high ones, so the ECE is the same
    path, _ = sample
    data = cli.json("calibrate", "--labels", str(path), "--bins", "2")
    assert data["ece"] == 0.38
    assert [(b["lower"], b["upper"], b["count"], b["accuracy"]) for b in data["bins"]] == [
        (0.0, 0.5, 4, 0.5), (0.5, 1.0, 6, 0.5)]
    # one bin: mean confidence 0.66, accuracy 0.5 -> ECE 0.16
    one = cli.json("calibrate", "--labels", str(path), "--bins", "1")
    assert one["ece"] == 0.16
    assert cli.one_line_error("calibrate", "--labels", str(path), "--bins", "0").startswith("error: --bins")


@pytest.mark.slow
def test_table_output(cli: Cli, sample: tuple[Path, list[UUID]]) -> None:
    path, _ = sample
    result = cli("calibrate", "--labels", str(path))
    out = result.stdout
    assert "calibration of 10 labelled beliefs (5 correct)" in out
    assert "[0.2, 0.3)" in out and "[0.9, 1]" in out
    row = next(line for line in out.splitlines() if line.startswith("[0.9, 1]"))
    assert row.split() == ["[0.9,", "1]", "6", "0.950", "0.500", "-0.450"]
    assert "expected calibration error (ECE) 0.380" in out
    assert "extracted 9" in out and "human_correction 1" in out


@pytest.mark.slow
def test_json_shape(cli: Cli, sample: tuple[Path, list[UUID]]) -> None:
    path, _ = sample
    data = cli.json("calibrate", "--labels", str(path))
    assert set(data) == {"count", "correct", "accuracy", "mean_confidence", "ece", "bins", "by_kind", "plot"}
    assert data["plot"] is None
    assert len(data["bins"]) == 10
    assert set(data["bins"][0]) == {"lower", "upper", "count", "correct", "mean_confidence", "accuracy", "gap"}
    assert data["bins"][0]["accuracy"] is None
    assert data["by_kind"][0] == {"confidence_kind": "extracted", "count": 9, "correct": 4, "accuracy": 4 / 9,
                                  "mean_confidence": data["by_kind"][0]["mean_confidence"]}
    assert abs(data["by_kind"][0]["mean_confidence"] - 5.7 / 9) < 1e-12


@pytest.mark.slow
def test_plot_writes_png(cli: Cli, sample: tuple[Path, list[UUID]], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path, _ = sample
    png = tmp_path / "reliability.png"
    result = cli("calibrate", "--labels", str(path), "--plot", str(png))
    assert f"reliability diagram: {png}" in result.stdout
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    as_json = cli.json("calibrate", "--labels", str(path), "--plot", str(png))
    assert as_json["plot"] == str(png)


@pytest.mark.slow
def test_plot_without_matplotlib_says_how_to_install(cli: Cli, sample: tuple[Path, list[UUID]], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # simulate a plain install: importing matplotlib fails
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    path, _ = sample
    png = tmp_path / "reliability.png"
    line = cli.one_line_error("calibrate", "--labels", str(path), "--plot", str(png))
    assert "pip install 'beliefdb[plot]'" in line and "matplotlib" in line
    assert not png.exists()
    # the table alone still works
    result = cli("calibrate", "--labels", str(path))
    assert "ECE) 0.380" in result.stdout
