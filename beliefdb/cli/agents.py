"""``beliefdb agent create | list | drop``: a database login per agent, with its own password, acting as
itself in one workspace. They parse and print; the work is in ``beliefdb.api``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.cli.common import OPERATIONS, DbUrl, Home, Json, errors, fail, text_arguments
from beliefdb.models import AgentLogin
from beliefdb.render.terminal import for_terminal

agent_app = typer.Typer(help="Database logins of agents: each logs in with its own password, is its own principal and"
                             " acts in one workspace only. Managed by the schema owner's database user.",
                        no_args_is_help=True)


def _read_password(as_json: bool) -> str:
    line = sys.stdin.readline()
    if not line.strip():
        fail("invalid_input", "--password-stdin: no password on standard input", as_json, 2)
    return line.rstrip("\r\n")


@agent_app.command("create")
@text_arguments
def agent_create(
    name: Annotated[str, typer.Argument(help="The agent's login role, and the principal its writes carry: letters,"
                                             " digits, '_', '.', '-'.")],
    workspace: Annotated[str, typer.Option("--workspace", "-w", envvar="BELIEFDB_WORKSPACE", show_envvar=True,
                                           help="The one workspace the agent may act in.")] = api.DEFAULT_WORKSPACE,
    password_stdin: Annotated[bool, typer.Option(
        "--password-stdin", help="Read the password from the first line of standard input (at least 12"
                                 " characters) instead of generating one.")] = False,
    read_only: Annotated[bool, typer.Option(
        "--read-only", help="An auditor's login: granted beliefdb_reader instead of beliefdb_app, it reads the"
                            " workspace (psql, beliefdb's read commands) and never writes.")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Create an agent's login role (granted beliefdb_app, or beliefdb_reader with --read-only; bound to one
    workspace) and print its connection URL once: the password is not kept, only its SCRAM-SHA-256 verifier."""
    with errors(as_json):
        password = _read_password(as_json) if password_stdin else None
        made = api.create_agent(name, workspace, password=password, read_only=read_only, url=db, home=home)
    if as_json:
        typer.echo(render.to_json(made))
        return
    typer.echo(made.url)
    what = "read-only login" if made.read_only else "agent"
    typer.echo(f"{what} {made.name} in workspace {made.workspace}: its URL holds the password, shown once", err=True)


@for_terminal
def _line(agent: AgentLogin) -> str:
    workspace = agent.workspace if agent.workspace is not None else f"(deleted workspace {agent.workspace_id})"
    state = "\t(read only)" if agent.read_only else ""
    state += "" if agent.can_login else "\t(role dropped or altered by hand: cannot log in)"
    if agent.role_of_database is not None:
        state += f"\t(role of database {agent.role_of_database}: this one is a copy of it)"
    return f"{agent.name}\t{workspace}\t{agent.created_at.isoformat()}{state}"


@agent_app.command("list")
@text_arguments
def agent_list(
    workspace: Annotated[str | None, typer.Option("--workspace", "-w", help="Only this workspace's agents.")] = None,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """List agents' logins (never their passwords): name, workspace, created, and (read only) for an auditor's."""
    with errors(as_json):
        rows = api.list_agents(workspace=workspace, url=db, home=home)
    if as_json:
        typer.echo(render.to_json(rows))
        return
    for agent in rows:
        typer.echo(_line(agent))
    if not rows:
        typer.echo("(no agents)")


@agent_app.command("drop")
@text_arguments
def agent_drop(
    name: Annotated[str, typer.Argument(help="The agent's login role, as 'agent list' shows it.")],
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Drop an agent's login role: it can no longer log in, and its open sessions are ended. What it
    wrote stays, under its name. In a copy of another database of the same server (restored from its dump,
    or made from it as a template), whose agents' roles are that database's, only the binding here goes:
    the role is left to it."""
    with errors(as_json):
        dropped = api.drop_agent(name, url=db, home=home)
    if as_json:
        typer.echo(render.to_json(dropped))
    elif dropped.role_of_database is not None:
        typer.echo(f"removed agent {dropped.name} from this database; its role is database"
                   f" {dropped.role_of_database}'s (this one is a copy of it) and was left as it is: drop it there")
    else:
        typer.echo(f"dropped agent {dropped.name}")


def register(app: typer.Typer) -> None:
    app.add_typer(agent_app, name="agent", rich_help_panel=OPERATIONS)
