"""The beliefdb command line. It parses arguments and prints results; nothing else."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from beliefdb import audit as audit_mod
from beliefdb import beliefs as beliefs_mod
from beliefdb import cli_calibrate, cli_lifecycle, cli_repair, cli_retrieval, cli_truth, render, workspaces
from beliefdb import ingest as ingest_mod
from beliefdb.cli_common import (
    Authority,
    DbUrl,
    ExtractorName,
    Home,
    Json,
    Label,
    Principal,
    WorkspaceOpt,
    database,
    errors,
    parse_time,
)
from beliefdb.connector import DEFAULT_WORKSPACE, ensure_migrated, probe, resolve_url
from beliefdb.embedded import EmbeddedServer
from beliefdb.models import IngestFailure


class DemoStory(StrEnum):
    returns = "returns"
    repair = "repair"

app = typer.Typer(
    name="beliefdb",
    help="Agent memory that knows why it believes something, and what must change when it is wrong.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="Manage the embedded PostgreSQL server (used when no --db / BELIEFDB_URL is given).",
                     no_args_is_help=True)
workspace_app = typer.Typer(help="Create and list workspaces (the tenant boundary).", no_args_is_help=True)
audit_app = typer.Typer(help="The per-workspace SHA-256 audit chain.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(workspace_app, name="workspace")
app.add_typer(audit_app, name="audit")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="UTF-8 .txt, .md or .markdown files.", show_default=False,
                                                metavar="PATH...")],
    source: Annotated[str | None, typer.Option(help="Source name (default: the file name). One file only.")] = None,
    authority: Annotated[Authority | None, typer.Option(
        help="Authority tier of the source (new sources default to internal).")] = None,
    label: Annotated[Label | None, typer.Option(
        help="Provenance label (new sources default to production).")] = None,
    version_label: Annotated[str | None, typer.Option(help="A label for this version, e.g. v3.2.")] = None,
    claims: Annotated[Path | None, typer.Option(
        help="JSONL claims: {statement, subject, attribute, value, quote} per line, plus optional kind, scope,"
             " valid_from, valid_to, start, end. One document only.")] = None,
    extractor: Annotated[ExtractorName, typer.Option(
        help="Extractor to run on the text: rules (offline), none, or llm (an OpenAI-compatible chat endpoint:"
             " set BELIEFDB_LLM_URL, optionally BELIEFDB_LLM_MODEL, BELIEFDB_LLM_API_KEY; its quotes pass the"
             " same evidence gate).")] = ExtractorName.rules,
    embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Embed new beliefs now (--no-embed: later,"
                                        " with 'beliefdb embed').")] = True,
    preview: Annotated[bool, typer.Option("--preview", help="Show exactly what ingesting would change (new and"
                                          " superseded beliefs, re-verified, unsupported, flagged, held, current"
                                          " again); write nothing.")] = False,
    db: DbUrl = None, home: Home = None, workspace: WorkspaceOpt = DEFAULT_WORKSPACE, principal: Principal = None,
    as_json: Json = False,
) -> None:
    """Store documents as source versions and extract beliefs whose quotes pass the evidence gate.

    The same bytes as a version the source has is a no-op that says so. A changed file is a new
    version of the same source, which supersedes what the old version said and the new one
    contradicts. A source belongs to whoever first ingested it: another principal's new version is
    proposed to the owner as a review item.
    """
    options = ingest_mod.SourceOptions(name=source, authority=authority.value if authority else None,
                                       provenance=label.value if label else None, version_label=version_label)
    with errors(as_json), database(db, home, workspace, principal) as bound:
        if len(paths) > 3 and not as_json:
            with typer.progressbar(length=len(paths), label="ingesting", file=sys.stderr) as bar:
                results = ingest_mod.ingest_paths(bound, paths, options, claims=claims, extractor=extractor.value,
                                                  embed=embed, preview=preview, progress=lambda _p: bar.update(1))
        else:
            results = ingest_mod.ingest_paths(bound, paths, options, claims=claims, extractor=extractor.value,
                                              embed=embed, preview=preview)
    failed = [r for r in results if isinstance(r, IngestFailure)]
    if as_json:
        if len(results) == 1 and failed:
            typer.echo(render.to_json({"error": failed[0].error, "message": failed[0].message}))
        else:
            typer.echo(render.to_json(results[0] if len(results) == 1 else results))
    else:
        for r in results:
            if isinstance(r, IngestFailure):
                typer.echo(f"error: {r.message}", err=True)
            else:
                typer.echo(render.ingest_report(r))
    if failed:
        raise typer.Exit(1)


@app.command()
def beliefs(
    subject: Annotated[str | None, typer.Option(help="Only this subject.")] = None,
    attribute: Annotated[str | None, typer.Option(help="Only this attribute.")] = None,
    include_all: Annotated[bool, typer.Option("--all", help="Every belief with its status, not only current.")]
        = False,
    as_of: Annotated[str | None, typer.Option(help="What was believed at this ISO 8601 moment.")] = None,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures", help="Also fixture and synthetic beliefs (separate worlds), labelled.")] = False,
    db: DbUrl = None, home: Home = None, workspace: WorkspaceOpt = DEFAULT_WORKSPACE, principal: Principal = None,
    as_json: Json = False,
) -> None:
    """List current beliefs (or all with their status, or as of a moment): production history only,
    unless --include-fixtures."""
    moment = parse_time(as_of, as_json)
    with errors(as_json), database(db, home, workspace, principal) as bound:
        rows = beliefs_mod.list_beliefs(bound, subject=subject, attribute=attribute, include_all=include_all,
                                        as_of=moment, include_fixtures=include_fixtures)
    typer.echo(render.to_json(rows) if as_json else render.beliefs_table(rows, with_status=include_all))


@app.command()
def why(
    belief: Annotated[str, typer.Argument(help="Belief id, or a unique prefix of it.")],
    as_of: Annotated[str | None, typer.Option(
        help="As it was believed at this ISO 8601 moment (evidence and history recorded by then).")] = None,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures", help="Allow a fixture or synthetic belief (not production history).")] = False,
    db: DbUrl = None, home: Home = None, workspace: WorkspaceOpt = DEFAULT_WORKSPACE, principal: Principal = None,
    as_json: Json = False,
) -> None:
    """Why a belief is held: evidence (quote, offsets, source, version), confidence factors, history, and
    the decisions and actions built on it."""
    moment = parse_time(as_of, as_json)
    with errors(as_json), database(db, home, workspace, principal) as bound:
        result = beliefs_mod.why(bound, belief, as_of=moment, include_fixtures=include_fixtures)
    typer.echo(render.to_json(result) if as_json else render.why(result))


@app.command()
def migrate(
    sql: Annotated[bool, typer.Option("--sql", help="Print the SQL instead of running it (for DBAs).")] = False,
    db: DbUrl = None, home: Home = None, as_json: Json = False,
) -> None:
    """Bring the database schema to the current version (idempotent)."""
    from beliefdb import migrate as migrate_mod  # alembic loads only for this command

    with errors(as_json):
        if sql:
            typer.echo(migrate_mod.upgrade_sql())
            return
        url = resolve_url(db, home=home, migrate=False)
        probe(url)
        before, after = migrate_mod.upgrade(url)
    if as_json:
        typer.echo(render.to_json({"before": before, "after": after}))
    else:
        typer.echo(f"schema at revision {after}" + (f" (was {before})" if before != after else " (already current)"))


@app.command()
def demo(
    story: Annotated[DemoStory, typer.Argument(
        help="returns: the return-policy story of DESIGN.md; repair: one poisoned agent memory repaired.")
    ] = DemoStory.returns,
    home: Home = None, db: DbUrl = None,
) -> None:
    """Tell a story on a throw-away workspace of the (embedded) database."""
    with errors(False):
        url = resolve_url(db, home=home)
        if story is DemoStory.repair:
            from beliefdb.demo_repair import run_repair_demo

            run_repair_demo(url, typer.echo)
        else:
            from beliefdb.demo import run_demo

            run_demo(url, typer.echo)


@db_app.command("status")
def db_status(home: Home = None, as_json: Json = False) -> None:
    """Whether the embedded server runs, where its data is, and its URL."""
    status = EmbeddedServer(home).status()
    if as_json:
        typer.echo(render.to_json(status))
        return
    state = f"running (pid {status.pid})" if status.running else "stopped"
    typer.echo(f"embedded PostgreSQL: {state}\n  data: {status.pgdata}"
               + ("" if status.initialized else " (not initialised yet)")
               + (f"\n  url:  {status.url}" if status.url else ""))


@db_app.command("start")
def db_start(home: Home = None, as_json: Json = False) -> None:
    """Start the embedded server (initialising and migrating it on first use)."""
    with errors(as_json):
        url = EmbeddedServer(home).start()
        ensure_migrated(url)
    typer.echo(render.to_json({"running": True, "url": url}) if as_json else f"running: {url}")


@db_app.command("stop")
def db_stop(home: Home = None, as_json: Json = False) -> None:
    """Stop the embedded server; its data stays."""
    with errors(as_json):
        was_running = EmbeddedServer(home).stop()
    if as_json:
        typer.echo(render.to_json({"stopped": was_running}))
    else:
        typer.echo("stopped" if was_running else "not running")


@db_app.command("url")
def db_url(home: Home = None) -> None:
    """Print the embedded server's URL (starting it if needed), e.g. for psql."""
    with errors(False):
        url = EmbeddedServer(home).start()
        ensure_migrated(url)
    typer.echo(url)


@workspace_app.command("create")
def workspace_create(
    name: Annotated[str, typer.Argument(help="Workspace name: letters, digits, '_', '.', '-'.")],
    db: DbUrl = None, home: Home = None, principal: Principal = None, as_json: Json = False,
) -> None:
    """Create a workspace; its id is generated by the server."""
    with errors(as_json):
        created = workspaces.create_workspace(resolve_url(db, home=home), name, principal)
    typer.echo(render.to_json(created) if as_json else f"created workspace {created.name} ({created.id})")


@workspace_app.command("list")
def workspace_list(db: DbUrl = None, home: Home = None, as_json: Json = False) -> None:
    """List workspaces."""
    with errors(as_json):
        rows = workspaces.list_workspaces(resolve_url(db, home=home))
    if as_json:
        typer.echo(render.to_json(rows))
    else:
        for w in rows:
            typer.echo(f"{w.name}\t{w.id}\t{w.created_at.isoformat()}")


@audit_app.command("verify")
def audit_verify(
    db: DbUrl = None, home: Home = None, workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: Json = False,
) -> None:
    """Verify the workspace's hash chain; exits 1 and names the first broken link if it is broken."""
    with errors(as_json), database(db, home, workspace, None) as bound:
        result = audit_mod.verify(bound)
    typer.echo(render.to_json(result) if as_json else render.audit(result))
    if not result.ok:
        raise typer.Exit(1)


cli_truth.register(app)
cli_repair.register(app)
cli_retrieval.register(app)
cli_calibrate.register(app)
cli_lifecycle.register(app)
