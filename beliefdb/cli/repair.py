"""Commands to inspect agent runs and to plan and apply rollback repairs. They parse and print;
the plan is computed in SQL (beliefdb.repair_plan). Replay needs the agent's own executor, so it
is a library call (``db.repair_replay``), not a command."""

from __future__ import annotations

from typing import Annotated

import typer

from beliefdb import render
from beliefdb.cli.common import (
    REVIEW,
    Format,
    Json,
    Memory,
    PictureFormat,
    errors,
    picture_format,
    with_memory,
)
from beliefdb.render import pictures
from beliefdb.render import trace as render_trace

repair_app = typer.Typer(help="Dependency-guided rollback repair of an agent's memory (plan, apply).",
                         no_args_is_help=True)

Faulty = Annotated[list[str], typer.Option("--faulty", help="A faulty memory (belief id or unique prefix); repeat.")]
NoIndependence = Annotated[bool, typer.Option(
    "--no-independent-evidence",
    help="Treat everything reachable from the faulty memories as affected (ignore independent support).")]


@with_memory(principal=False)
def runs(*, memory: Memory, as_json: Json = False,
         ) -> None:
    """List recorded agent runs (replays show the run they branch from)."""
    with errors(as_json), memory.open() as bdb:
        rows = bdb.runs()
    typer.echo(render.to_json(rows) if as_json else render_trace.runs(rows))


@with_memory(principal=False)
def run_show(
    run: Annotated[str, typer.Argument(help="Run id (or unique prefix).")],
    fmt: Format = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """Show a run's steps in order, whether each holds, what a repair made of it, and its inputs;
    --format mermaid or dot draws the run, its steps, what they read and what they wrote."""
    shape = picture_format(fmt, as_json)
    with errors(as_json), memory.open() as bdb:
        if shape is PictureFormat.text:
            found = bdb.run_trace(run)
            typer.echo(render.to_json(found) if as_json else render_trace.steps(found.steps, found.inputs))
            return
        picture = bdb.run_graph(run)
    typer.echo(pictures.draw(picture, shape))


@repair_app.command("plan")
@with_memory()
def repair_plan(
    faulty: Faulty, no_independent_evidence: NoIndependence = False, all_steps: Annotated[bool, typer.Option(
        "--all", help="Also list the untouched steps of the affected runs.")] = False,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """What repairing these faulty memories would delete, quarantine, invalidate, replay and preserve (dry run):
    each with the figure 'repair apply' prints (the untouched steps counted, listed with --all).

    Asked as the principal that would apply it (--as): an item that is another principal's call says so."""
    with errors(as_json), memory.open() as bdb:
        plan = bdb.repair_plan(faulty, independent_evidence=not no_independent_evidence,
                               untouched=all_steps or not as_json)
    typer.echo(render.to_json(plan) if as_json else render_trace.plan(plan, list_untouched=all_steps))


@repair_app.command("apply")
@with_memory()
def repair_apply(
    faulty: Faulty, no_independent_evidence: NoIndependence = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Carry out the plan's store side in one transaction: delete, quarantine, invalidate, mark for replay."""
    with errors(as_json), memory.open() as bdb:
        result = bdb.repair_apply(faulty, independent_evidence=not no_independent_evidence)
    typer.echo(render.to_json(result) if as_json else render_trace.applied(result))


def register(app: typer.Typer) -> None:
    app.command("runs", rich_help_panel=REVIEW)(runs)
    app.command("run", rich_help_panel=REVIEW)(run_show)
    app.add_typer(repair_app, name="repair", rich_help_panel=REVIEW)
