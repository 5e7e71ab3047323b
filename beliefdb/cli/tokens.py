"""``beliefdb token create | list | revoke``: the bearer tokens of the servers, each speaking for one
principal in one workspace. They parse and print; the work is in ``beliefdb.api``."""

from __future__ import annotations

from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.cli.common import OPERATIONS, DbUrl, Home, Json, errors, text_arguments
from beliefdb.render.terminal import cleaned

token_app = typer.Typer(help="Bearer tokens of 'beliefdb serve' and MCP over HTTP: each speaks for one principal in one"
                             " workspace. Managed by the schema owner's database user.", no_args_is_help=True)


@token_app.command("create")
@text_arguments
def token_create(
    principal: Annotated[str, typer.Option(help="Who the token speaks for (stamped on every write it makes).")],
    workspace: Annotated[str, typer.Option("--workspace", "-w", envvar="BELIEFDB_WORKSPACE", show_envvar=True,
                                           help="The one workspace the token may use.")] = api.DEFAULT_WORKSPACE,
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
    for t in cleaned(rows):
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
    """Revoke a bearer token: it stops working at once. One revoked before is said to be (exit 0): nothing
    changes."""
    with errors(as_json):
        revoked = api.revoke_token(token_id, url=db, home=home)
    who = f"{revoked.id} ({revoked.principal} in workspace {revoked.workspace})"
    if as_json:
        typer.echo(render.to_json(revoked))
    elif revoked.already_revoked and revoked.revoked_at is not None:
        typer.echo(f"token {who} was already revoked at {revoked.revoked_at.isoformat()}: nothing changed")
    else:
        typer.echo(f"revoked token {who}")


def register(app: typer.Typer) -> None:
    app.add_typer(token_app, name="token", rich_help_panel=OPERATIONS)
