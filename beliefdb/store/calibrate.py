"""Calibration: does a stored confidence of 0.8 mean right four times out of five?

A reviewer labels a sample of beliefs correct or not (a CSV of ``belief_id,correct``); this module
fetches their confidences in one query, bins them by confidence and reports, per bin, how many
there are, their mean confidence, the fraction correct (accuracy) and the gap between the two, with
the expected calibration error ECE = Σ (n_b / N) · |acc_b − conf_b|. Sums are computed with exact
fractions of the stored values, so a hand-computed ECE compares equal.

The reliability diagram (a PNG) needs matplotlib, an optional extra (``pip install 'beliefdb[plot]'``);
the table never does.
"""

from __future__ import annotations

import csv
import importlib
import io
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any
from uuid import UUID

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.errors import PlotUnavailable
from beliefdb.inputs import shown
from beliefdb.models import Calibration, CalibrationBin, KindSummary
from beliefdb.store import files

DEFAULT_BINS = 10
MAX_BINS = 1000
PLOT_HINT = "pip install 'beliefdb[plot]'"

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_FULL_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_PREFIX = re.compile(r"^[0-9a-f-]{4,36}$")


@dataclass(frozen=True)
class Label:
    """One row of the reviewer's sample: a belief reference as written and whether it was right."""

    line: int
    ref: str
    correct: bool


@dataclass(frozen=True)
class LabelledBelief:
    line: int
    belief_id: UUID
    correct: bool
    confidence: Decimal
    confidence_kind: str


def parse_bool(value: str) -> bool | None:
    """true/false, 1/0, yes/no (any case, surrounding spaces ignored); None for anything else."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def parse_labels(lines: Iterable[str], name: str = "labels") -> list[Label]:
    """The rows of a ``belief_id,correct`` CSV (header required, extra columns ignored, blank lines skipped)."""
    reader = csv.reader(lines)
    try:
        header: list[str] | None = None
        for row in reader:
            if any(cell.strip() for cell in row):
                header = [cell.strip().lower() for cell in row]
                break
        if header is None:
            raise errors.InvalidInput(f"{name}: empty file (expected a header 'belief_id,correct')")
        if "belief_id" not in header or "correct" not in header:
            raise errors.InvalidInput(
                f"{name}, line {reader.line_num}: header must name the columns 'belief_id' and 'correct',"
                f" got {','.join(header)!r}")
        id_col, ok_col = header.index("belief_id"), header.index("correct")
        labels: list[Label] = []
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            line = reader.line_num
            if len(row) <= max(id_col, ok_col):
                raise errors.InvalidInput(f"{name}, line {line}: expected belief_id and correct, got {','.join(row)!r}")
            ref, correct = row[id_col].strip().lower(), parse_bool(row[ok_col])
            if not _PREFIX.match(ref):
                raise errors.InvalidInput(
                    f"{name}, line {line}: {row[id_col].strip()!r} is not a belief id or id prefix (4+ hex digits)")
            if correct is None:
                raise errors.InvalidInput(
                    f"{name}, line {line}: correct must be true/false, 1/0 or yes/no, got {row[ok_col].strip()!r}")
            labels.append(Label(line, ref, correct))
    except csv.Error as exc:
        raise errors.InvalidInput(f"{name}, line {reader.line_num}: {exc}") from exc
    if not labels:
        raise errors.InvalidInput(f"{name}: no labelled beliefs")
    return labels


def read_labels(path: Path) -> list[Label]:
    """The labels of a regular UTF-8 CSV file (rows split on line breaks only, as the csv module reads)."""
    name = shown(path)
    text = files.decode_utf8(files.read_regular(path), name)
    return parse_labels(io.StringIO(text, newline=""), name)


@dataclass(frozen=True)
class _Match:
    line: int
    id: UUID
    confidence: Decimal
    confidence_kind: str


def fetch(db: Database, labels: Sequence[Label]) -> list[LabelledBelief]:
    """The labelled beliefs with their stored confidence, resolved (full ids or unique prefixes, in the
    bound workspace) and fetched in one query. Unknown, ambiguous or repeated beliefs are errors."""
    full = [lab for lab in labels if _FULL_ID.match(lab.ref)]
    prefixes = [lab for lab in labels if not _FULL_ID.match(lab.ref)]
    # confidence is a real: through numeric it reads as the decimal that was stored (0.7, not 0.69999999),
    # so a value on a bin edge lands in the bin it names
    rows: list[_Match] = db.fetch_all(
        _Match,
        Q.calibration_matches,
        {"full_ids": [UUID(lab.ref) for lab in full], "full_lines": [lab.line for lab in full],
         "prefixes": [lab.ref for lab in prefixes], "prefix_lines": [lab.line for lab in prefixes]})
    by_line: dict[int, list[_Match]] = {}
    for row in rows:
        by_line.setdefault(row.line, []).append(row)
    found: list[LabelledBelief] = []
    first_line: dict[UUID, int] = {}
    for lab in labels:
        matches = by_line.get(lab.line, [])
        if not matches:
            raise errors.UnknownBelief(f"line {lab.line}: unknown belief {lab.ref}")
        if len(matches) > 1:
            raise errors.AmbiguousId(
                f"line {lab.line}: belief id prefix {lab.ref} is ambiguous ({len(matches)} matches)")
        match = matches[0]
        if match.id in first_line:
            raise errors.InvalidInput(
                f"line {lab.line}: belief {match.id} is labelled twice (first on line {first_line[match.id]})")
        first_line[match.id] = lab.line
        found.append(LabelledBelief(lab.line, match.id, lab.correct, Decimal(match.confidence),
                                    match.confidence_kind))
    return found


def _bin_of(confidence: Decimal, bins: int) -> int:
    # exact: Decimal * int has no binary rounding, so 0.7 with 10 bins is bin 7, not 6
    return min(max(math.floor(confidence * bins), 0), bins - 1)


def reliability(sample: Sequence[LabelledBelief], bins: int = DEFAULT_BINS) -> Calibration:
    """The reliability table of ``sample`` over ``bins`` equal-width confidence bins, and its ECE."""
    if not 1 <= bins <= MAX_BINS:
        raise errors.InvalidInput(f"{errors.argument('bins')} must be between 1 and {MAX_BINS}, got {bins}")
    if not sample:
        raise errors.InvalidInput("no labelled beliefs")
    total = len(sample)
    members: list[list[LabelledBelief]] = [[] for _ in range(bins)]
    for item in sample:
        members[_bin_of(item.confidence, bins)].append(item)
    table: list[CalibrationBin] = []
    ece = Fraction(0)
    for index, group in enumerate(members):
        lower, upper = Fraction(index, bins), Fraction(index + 1, bins)
        if not group:
            table.append(CalibrationBin(float(lower), float(upper), 0, 0, None, None, None))
            continue
        right = sum(1 for item in group if item.correct)
        accuracy = Fraction(right, len(group))
        confidence = sum((Fraction(item.confidence) for item in group), Fraction(0)) / len(group)
        ece += Fraction(len(group), total) * abs(accuracy - confidence)
        table.append(CalibrationBin(float(lower), float(upper), len(group), right, float(confidence),
                                    float(accuracy), float(accuracy - confidence)))
    kinds: dict[str, list[LabelledBelief]] = {}
    for item in sample:
        kinds.setdefault(item.confidence_kind, []).append(item)
    by_kind = [_summary(kind, group) for kind, group in sorted(kinds.items())]
    right = sum(1 for item in sample if item.correct)
    mean = sum((Fraction(item.confidence) for item in sample), Fraction(0)) / total
    return Calibration(count=total, correct=right, accuracy=float(Fraction(right, total)),
                       mean_confidence=float(mean), ece=float(ece), bins=table, by_kind=by_kind)


def _summary(kind: str, group: list[LabelledBelief]) -> KindSummary:
    right = sum(1 for item in group if item.correct)
    mean = sum((Fraction(item.confidence) for item in group), Fraction(0)) / len(group)
    return KindSummary(kind, len(group), right, float(Fraction(right, len(group))), float(mean))


def calibrate(db: Database, labels: Path, bins: int = DEFAULT_BINS) -> Calibration:
    """Read a reviewer's ``belief_id,correct`` CSV and compute the reliability table of those beliefs."""
    if not 1 <= bins <= MAX_BINS:
        raise errors.InvalidInput(f"{errors.argument('bins')} must be between 1 and {MAX_BINS}, got {bins}")
    return reliability(fetch(db, read_labels(labels)), bins)


def _matplotlib() -> tuple[Any, Any]:
    """matplotlib's Figure class and Agg canvas, or PlotUnavailable with the install command."""
    try:
        figure = importlib.import_module("matplotlib.figure")
        agg = importlib.import_module("matplotlib.backends.backend_agg")
    except ImportError as exc:
        raise PlotUnavailable(f"the reliability diagram needs matplotlib, which is not installed: {PLOT_HINT}"
                              " (the table works without it)") from exc
    return figure.Figure, agg.FigureCanvasAgg


def require_plot() -> None:
    """Fail early, before any work, when a diagram is asked for and cannot be drawn."""
    _matplotlib()


def plot(result: Calibration, path: Path) -> Path:
    """Save the reliability diagram of ``result`` as a PNG: accuracy per bin against the diagonal of
    perfect calibration, with the gap shaded and the bin counts below. Uses the Agg backend only."""
    files.check_output(path)
    figure_cls, canvas_cls = _matplotlib()
    fig = figure_cls(figsize=(6, 7), layout="constrained")
    canvas_cls(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    width = result.bins[0].upper - result.bins[0].lower
    filled = [b for b in result.bins if b.count]
    centers = [(b.lower + b.upper) / 2 for b in filled]
    top.bar(centers, [b.accuracy for b in filled], width=width, edgecolor="black", color="tab:blue",
            label="accuracy")
    gaps = [(b.mean_confidence or 0) - (b.accuracy or 0) for b in filled]
    top.bar(centers, gaps, bottom=[b.accuracy for b in filled], width=width, edgecolor="tab:red", fill=False,
            hatch="//", label="gap to mean confidence")
    top.plot(centers, [b.mean_confidence for b in filled], linestyle="none", marker="_", markersize=14,
             color="tab:red", label="mean confidence")
    top.plot([0, 1], [0, 1], linestyle="--", color="gray", label="perfect calibration")
    top.set_xlim(0, 1)
    top.set_ylim(0, 1)
    top.set_ylabel("accuracy (fraction correct)")
    top.set_title(f"Reliability of {result.count} labelled beliefs — ECE {result.ece:.3f}")
    top.legend(loc="upper left")
    bottom.bar([(b.lower + b.upper) / 2 for b in result.bins], [b.count for b in result.bins], width=width,
               edgecolor="black", color="tab:gray")
    bottom.set_xlabel("stored confidence")
    bottom.set_ylabel("beliefs")
    try:
        fig.savefig(path, format="png", dpi=100)
    except OSError as exc:
        raise errors.InvalidInput(f"cannot write {shown(path)}: {exc.strerror or exc}") from exc
    return path
