"""The ``calibrate`` command: how well stored confidences match a reviewer's labelled sample."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.api import DEFAULT_BINS, Calibration
from beliefdb.cli.common import REVIEW, Json, Memory, errors, file_path, with_memory

Labels = Annotated[Path, typer.Option(
    "--labels", parser=file_path,
    help="CSV of a reviewer's sample with a header 'belief_id,correct' (id or unique prefix; correct is true/false,"
         " 1/0 or yes/no).", show_default=False)]
Bins = Annotated[int, typer.Option("--bins", min=1, max=api.MAX_BINS,
                                         help="Number of equal-width confidence bins (1 to 1,000).")]
Plot = Annotated[Path | None, typer.Option(
    "--plot", parser=file_path, help="Also save a reliability diagram as PNG (needs: pip install 'beliefdb\\[plot]').",
    show_default=False)]


def _edge(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") if x else "0"


def _num(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def table(result: Calibration, plot_path: Path | None = None) -> str:
    lines = [f"calibration of {result.count} labelled beliefs ({result.correct} correct)",
             f"{'confidence':<16} {'n':>5} {'mean conf':>10} {'accuracy':>9} {'gap':>7}"]
    last = len(result.bins) - 1
    for i, b in enumerate(result.bins):
        span = f"[{_edge(b.lower)}, {_edge(b.upper)}{']' if i == last else ')'}"
        lines.append(f"{span:<16} {b.count:>5} {_num(b.mean_confidence):>10} {_num(b.accuracy):>9}"
                     f" {_num(b.gap, signed=True):>7}")
    lines.append(f"accuracy {result.accuracy:.3f} · mean confidence {result.mean_confidence:.3f}"
                 f" · expected calibration error (ECE) {result.ece:.3f}")
    lines.append("gap = accuracy − mean confidence (negative: overconfident)")
    lines.append("by confidence kind: " + ", ".join(
        f"{k.confidence_kind} {k.count} (accuracy {k.accuracy:.3f}, mean confidence {k.mean_confidence:.3f})"
        for k in result.by_kind))
    if plot_path is not None:
        lines.append(f"reliability diagram: {api.shown(plot_path)}")
    return "\n".join(lines)


@with_memory(principal=False)
def calibrate(
    labels: Labels, bins: Bins = DEFAULT_BINS, plot: Plot = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """Reliability of stored confidences against a reviewer's labelled sample: a table by confidence bin,
    the expected calibration error (ECE) and, with --plot, a reliability diagram."""
    with errors(as_json), memory.open() as bdb:
        result = bdb.calibrate(labels, bins=bins, plot=plot)
    if as_json:
        shown = api.shown(plot) if plot is not None else None
        typer.echo(render.to_json({**render.jsonable(result), "plot": shown}))
    else:
        typer.echo(table(result, plot))


def register(app: typer.Typer) -> None:
    app.command("calibrate", rich_help_panel=REVIEW)(calibrate)
