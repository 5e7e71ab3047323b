"""Commands that come before a workspace is bound: the schema (migrate), the embedded server
(db), the workspace directory (workspace), the servers' bearer tokens (token), the configuration
(config), the rules (rules) and the demo. They parse and print; the work is in ``beliefdb.api``."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.cli.common import OPERATIONS, TRUTH, DbUrl, Home, Json, Principal, errors, text_arguments


class DemoStory(StrEnum):
    returns = "returns"
    repair = "repair"


db_app = typer.Typer(help="Manage the embedded PostgreSQL server (used when no --db / BELIEFDB_URL is given).",
                     no_args_is_help=True)
workspace_app = typer.Typer(help="Create, list and delete workspaces (the tenant boundary).", no_args_is_help=True)
token_app = typer.Typer(help="Bearer tokens of 'beliefdb serve' and MCP over HTTP: each speaks for one principal in one"
                             " workspace. Managed by the schema owner's database user.", no_args_is_help=True)


def migrate(
    sql: Annotated[bool, typer.Option("--sql", help="Print the SQL instead of running it (for DBAs).")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Bring the database schema to the current version (idempotent)."""
    with errors(as_json):
        if sql:
            typer.echo(api.migration_sql())
            return
        done = api.migrate(db, home=home)
    if as_json:
        typer.echo(render.to_json(done))
    else:
        typer.echo(f"schema at revision {done.after}"
                   + (f" (was {done.before})" if done.before != done.after else " (already current)"))


def demo(
    story: Annotated[DemoStory, typer.Argument(
        help="returns: the return-policy story (a superseded rule, a flagged decision, a held action);"
             " repair: one poisoned agent memory repaired.")
    ] = DemoStory.returns,
    keep: Annotated[bool, typer.Option(
        "--keep", help="Keep the demo's workspace to explore afterwards (default: it is deleted).")] = False,
    home: Home = None, db: DbUrl = None,
) -> None:
    """Tell a story on a throw-away workspace of the (embedded) database, deleted afterwards unless --keep."""
    with errors(False):
        api.demo(story.value, say=typer.echo, url=db, home=home, keep=keep)


def rules(
    number: Annotated[int | None, typer.Argument(help="Print only this rule.", show_default=False)] = None,
    as_json: Json = False,
) -> None:
    """Print the truth rules (docs/rules.md), or rule NUMBER: what every "rule N" in beliefdb's
    messages, help and SQL comments refers to."""
    with errors(as_json):
        found = api.rules(number)
    if as_json:
        typer.echo(render.to_json(found))
    else:
        typer.echo("\n\n".join(f"{r.number}. {r.title}\n\n{r.text}" for r in found))


def config(as_json: Json = False) -> None:
    """Show every BELIEFDB_* setting: its effective value, whether it came from the environment or is the
    default, and what it does. API keys and passwords in URLs are masked."""
    with errors(as_json):
        rows = api.effective_settings()
    if as_json:
        typer.echo(render.to_json(rows))
        return
    width = max(len(r.name) for r in rows)
    shown = {r.name: "(unset)" if r.value is None else str(r.value) for r in rows}
    value_width = min(40, max(len(v) for v in shown.values()))
    for r in rows:
        typer.echo(f"{r.name:<{width}}  {shown[r.name]:<{value_width}}  {r.source:<11}  {r.help}".rstrip())


@db_app.command("status")
@text_arguments
def db_status(home: Home = None, as_json: Json = False) -> None:
    """Whether the embedded server runs, where its data is, and its URL."""
    status = api.server_status(home)
    if as_json:
        typer.echo(render.to_json(status))
        return
    state = f"running (pid {status.pid})" if status.running else "stopped"
    typer.echo(f"embedded PostgreSQL: {state}\n  data: {status.pgdata}"
               + ("" if status.initialized else " (not initialised yet)")
               + (f"\n  url:  {status.url}" if status.url else ""))


@db_app.command("start")
@text_arguments
def db_start(home: Home = None, as_json: Json = False) -> None:
    """Start the embedded server (initialising and migrating it on first use)."""
    with errors(as_json):
        url = api.start_server(home)
    typer.echo(render.to_json({"running": True, "url": url}) if as_json else f"running: {url}")


@db_app.command("stop")
@text_arguments
def db_stop(home: Home = None, as_json: Json = False) -> None:
    """Stop the embedded server; its data stays."""
    with errors(as_json):
        was_running = api.stop_server(home)
    if as_json:
        typer.echo(render.to_json({"stopped": was_running}))
    else:
        typer.echo("stopped" if was_running else "not running")


@db_app.command("url")
@text_arguments
def db_url(home: Home = None) -> None:
    """Print the embedded server's URL (starting it if needed), e.g. for psql."""
    with errors(False):
        url = api.start_server(home)
    typer.echo(url)


@workspace_app.command("create")
@text_arguments
def workspace_create(
    name: Annotated[str, typer.Argument(help="Workspace name: letters, digits, '_', '.', '-'.")],
    db: DbUrl = None, home: Home = None, principal: Principal = None, as_json: Json = False,
) -> None:
    """Create a workspace; its id is generated by the server."""
    with errors(as_json):
        created = api.create_workspace(name, url=db, home=home, principal=principal)
    typer.echo(render.to_json(created) if as_json else f"created workspace {created.name} ({created.id})")


@workspace_app.command("list")
@text_arguments
def workspace_list(db: DbUrl = None, home: Home = None, as_json: Json = False) -> None:
    """List workspaces."""
    with errors(as_json):
        rows = api.list_workspaces(url=db, home=home)
    if as_json:
        typer.echo(render.to_json(rows))
    else:
        for w in rows:
            typer.echo(f"{w.name}\t{w.id}\t{w.created_at.isoformat()}")


@workspace_app.command("delete")
@text_arguments
def workspace_delete(
    name: Annotated[str, typer.Argument(help="The workspace to delete.")],
    force: Annotated[bool, typer.Option(
        "--force", help="Delete it even though it holds data: every source, belief, decision, run and its audit"
                        " chain go with it.")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Delete a workspace, in one transaction. Refused while it holds data unless --force. Needs the
    database user that owns the schema (the one that runs 'beliefdb migrate')."""
    with errors(as_json):
        gone = api.delete_workspace(name, url=db, home=home, force=force)
    typer.echo(render.to_json(gone) if as_json else
               f"deleted workspace {gone.name} ({gone.id}): {gone.sources} source(s), {gone.beliefs} belief(s),"
               f" {gone.decisions} decision(s), {gone.runs} run(s)")


@token_app.command("create")
@text_arguments
def token_create(
    principal: Annotated[str, typer.Option(help="Who the token speaks for (stamped on every write it makes).")],
    workspace: Annotated[str, typer.Option("--workspace", "-w", help="The one workspace the token may use.")],
    read_only: Annotated[bool, typer.Option("--read-only", help="It may read and preview, never change.")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Make a bearer token and print it once (only its SHA-256 is kept): the servers take the principal
    and the workspace from it, never from the request."""
    with errors(as_json):
        made = api.create_token(workspace, principal, read_only=read_only, url=db, home=home)
    if as_json:
        typer.echo(render.to_json(made))
        return
    typer.echo(made.token)
    typer.echo(f"token {made.id} for {made.principal} in workspace {made.workspace}"
               f" ({'read-only' if made.read_only else 'read-write'}): shown once, only its hash is kept", err=True)


@token_app.command("list")
@text_arguments
def token_list(
    workspace: Annotated[str | None, typer.Option("--workspace", "-w", help="Only this workspace's tokens.")] = None,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """List bearer tokens (never their secrets): id, workspace, principal, read-only, created, revoked."""
    with errors(as_json):
        rows = api.list_tokens(workspace=workspace, url=db, home=home)
    if as_json:
        typer.echo(render.to_json(rows))
        return
    for t in rows:
        state = f"revoked {t.revoked_at.isoformat()}" if t.revoked_at else "active"
        typer.echo(f"{t.id}\t{t.workspace}\t{t.principal}\t{'read-only' if t.read_only else 'read-write'}\t"
                   f"{t.created_at.isoformat()}\t{state}")
    if not rows:
        typer.echo("(no tokens)")


@token_app.command("revoke")
@text_arguments
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The token's id (or a unique prefix), as 'token list' shows it.")],
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Revoke a bearer token: it stops working at once."""
    with errors(as_json):
        revoked = api.revoke_token(token_id, url=db, home=home)
    typer.echo(render.to_json(revoked) if as_json else f"revoked token {revoked.id} ({revoked.principal} in"
               f" workspace {revoked.workspace})")


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=OPERATIONS)(text_arguments(migrate))
    app.command(rich_help_panel=OPERATIONS)(text_arguments(demo))
    app.command(rich_help_panel=OPERATIONS)(text_arguments(config))
    app.command(rich_help_panel=TRUTH)(text_arguments(rules))
    app.add_typer(db_app, name="db", rich_help_panel=OPERATIONS)
    app.add_typer(workspace_app, name="workspace", rich_help_panel=OPERATIONS)
    app.add_typer(token_app, name="token", rich_help_panel=OPERATIONS)
