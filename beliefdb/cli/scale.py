"""``beliefdb scale``: when one machine is not enough. ``scale citus`` reads the catalog of a migrated
database and prints how it distributes over a Citus cluster by workspace, or (``--sql``) the script a
DBA runs on the coordinator. The plan and the script are ``beliefdb.api.scale``'s; this module prints."""

from __future__ import annotations

from typing import Annotated

import typer

from beliefdb import render
from beliefdb.api import scale
from beliefdb.cli.common import OPERATIONS, DbUrl, Home, Json, errors, text_arguments
from beliefdb.models.scale import CitusPlan

scale_app = typer.Typer(help="Scale out beyond one machine: distribute beliefdb by workspace (docs/scale-out.md).",
                        no_args_is_help=True)


@scale_app.command("citus")
@text_arguments
def scale_citus(
    sql: Annotated[bool, typer.Option(
        "--sql", help="Print the script a DBA runs with psql on the Citus coordinator, right after"
                      " 'beliefdb migrate' there: reference and distributed tables, the workspace-routed"
                      " wrappers of the API functions, and what Citus refuses rewritten. With"
                      " --json: the script as the sql of one JSON object.")] = False,
    shard_count: Annotated[int, typer.Option(
        "--shard-count", min=1, help="Shards of the colocation group (each holds many workspaces; a shard"
                              " moves between nodes as a whole).")] = scale.DEFAULT_SHARD_COUNT,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """How beliefdb distributes over a Citus cluster by workspace, read from the catalog of a migrated
    database: which tables are distributed by workspace_id and which are reference tables, and where each
    function runs. With --sql, the script itself."""
    with errors(as_json):
        if sql:  # (with --json, the script is the sql of one object: stdout stays one JSON document)
            script = scale.citus_script(db, home=home, shard_count=shard_count)
            typer.echo(render.to_json({"sql": script}) if as_json else script, nl=as_json)
            return
        plan = scale.citus_plan(db, home=home, shard_count=shard_count)
    typer.echo(render.to_json(plan) if as_json else _summary(plan))


def _short(name: str) -> str:
    return name.removeprefix("beliefdb.").split("(")[0]


def _summary(plan: CitusPlan) -> str:
    distributed = [_short(t.table) for t in plan.tables if t.placement == "distributed"]
    reference = [_short(t.table) for t in plan.tables if t.placement == "reference"]
    routes: dict[str, list[str]] = {}
    for r in plan.functions:
        routes.setdefault(r.route, []).append(_short(r.function))
    lines = [
        f"distributed by workspace_id ({len(distributed)} tables, one colocation group anchored on {plan.anchor},"
        f" {plan.shard_count} shards): " + ", ".join(distributed),
        f"reference tables ({len(reference)}, one copy on every node): " + ", ".join(reference),
        f"routed by workspace ({len(routes.get('workspace', []))} functions, as beliefdb_citus.<name>(workspace id,"
        " ...)): " + ", ".join(routes.get("workspace", [])),
    ]
    described = {"row": "inside the query that reads their row", "coordinator": "on the coordinator, across workspaces",
                 "anywhere": "anywhere (they read no workspace table)"}
    lines += [f"{described[k]}: " + ", ".join(routes[k]) for k in ("row", "coordinator", "anywhere") if k in routes]
    lines.append(f"rewritten for Citus: {len(plan.foreign_keys)} foreign keys ON DELETE SET NULL (now a trigger),"
                 f" {len(plan.rewritten_policies)} policies with a subquery, {len(plan.replaced_triggers)} trigger"
                 " on a reference table (beliefdb_citus.create_workspace instead)")
    lines.append("the script: beliefdb scale citus --sql; the design and what does not work unchanged:"
                 " docs/scale-out.md")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    app.add_typer(scale_app, name="scale", rich_help_panel=OPERATIONS)
