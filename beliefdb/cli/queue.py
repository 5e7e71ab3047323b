"""The queue's commands: ``ingest --queue`` (its printing), ``worker`` and ``jobs``."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from beliefdb import api, render
from beliefdb.cli.common import MEMORY, Json, Memory, errors, print_skipped, skipped_files, usage, with_memory
from beliefdb.models import DatabaseWait, Job, JobOutcome, WorkReport
from beliefdb.render.terminal import for_terminal, plain
from beliefdb.vocabulary import JobStatus


def submit(memory: Memory, paths: list[Path], *, source: str | None, authority: str | None, label: str | None,
           version_label: str | None, extractor: str, max_bytes: int | None, chat: bool, as_json: bool) -> None:
    """``beliefdb ingest ... --queue``: queue the files (``chat``: as conversations) and print their job ids."""
    with errors(as_json), memory.open() as bdb:
        queue = bdb.submit_transcripts if chat else bdb.submit
        ids = queue(*paths, source=source, authority=authority, label=label, version_label=version_label,
                    extractor=extractor, max_bytes=max_bytes)
    left_out = skipped_files(paths, chat)
    if as_json:
        typer.echo(render.to_json({"jobs": list(ids), "unchanged": ids.unchanged}
                                  | ({"skipped_files": [{"path": p, "skipped_file": why}
                                                        for p, why in left_out]} if left_out else {})))
        return
    listed = api.documents(paths, api.CHAT_SUFFIXES) if chat else api.documents(paths)
    same = {u.path for u in ids.unchanged}
    for job, path in zip(ids, [p for _name, p in listed if api.shown(p) not in same], strict=True):
        typer.echo(f"queued job {job}: {plain(api.shown(path))}")
    if ids or not ids.unchanged:
        typer.echo(f"{len(ids)} job(s) queued: run them with 'beliefdb worker', follow them with 'beliefdb jobs'")
    if ids.unchanged:
        # (a drop folder submitted again by cron: one line, not a line per file; --json names them)
        typer.echo(f"{len(ids.unchanged)} file(s) unchanged, not queued (the text their source holds in force, or"
                   " that a job of it still to run carries; --json names them)")
    print_skipped(left_out, chat)


@for_terminal
def _outcome_line(o: JobOutcome) -> str:
    if o.status == "done":
        line = f"job {o.id} done: {api.shown(o.source)} (attempt {o.attempts})"
        return line + (f"; embedding deferred: {o.embedding_deferred}" if o.embedding_deferred else "")
    if o.status == "queued":
        return f"job {o.id} will be tried again (attempt {o.attempts} failed): {api.shown(o.error or '')}"
    if o.status == "waiting":
        return f"job {o.id} waits for the workspace another writer holds (no attempt used): {api.shown(o.source)}"
    return f"job {o.id} failed after {o.attempts} attempt(s): {api.shown(o.error or '')}"


def _summary(r: WorkReport) -> str:
    line = f"{r.done} done, {r.retried} attempt(s) failed and queued again, {r.failed} failed for good"
    line += f"; {r.waited} time(s) a job waited for the workspace" if r.waited else ""
    return line + (f"; embedded {r.embedded} belief(s) an earlier run had left without vectors" if r.embedded else "")


def _stamped(line: str) -> str:
    """A worker's line after the UTC time it is printed, to the second (a service's log reads when)."""
    return f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ} {line}"


@for_terminal
def _database_line(wait: DatabaseWait) -> str:
    if wait.back:
        return f"database back after {wait.seconds:,.0f} s of waiting: taking jobs again"
    return f"database lost, waiting for it (the jobs stay queued): {api.shown(wait.reason or '')}"


@contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    """An event set by SIGTERM or SIGINT (the job under way is finished first), the handlers restored after."""
    stop = threading.Event()

    def handle(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@with_memory()
def worker(
    concurrency: Annotated[int, typer.Option("--concurrency", "-c", min=1, max=64,
                                             help="Jobs run at once (threads).")] = 1,
    once: Annotated[bool, typer.Option("--once", help="Run the oldest ready job (if any), then stop.")] = False,
    until_empty: Annotated[bool, typer.Option(
        "--until-empty", help="Stop when no job is left queued (retries waiting for their backoff are waited"
                              " for).")] = False,
    embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Embed new beliefs after each job, and any"
                                        " left without vectors when the queue is empty (--no-embed: later, with"
                                        " 'beliefdb embed').")] = True,
    backoff: Annotated[float, typer.Option(
        "--backoff", min=0.0,
        help="Seconds before a failed job is tried again, doubled for each attempt before.")] = 1.0,
    name: Annotated[str | None, typer.Option("--name", help="The worker's name on its jobs (default host:pid).")]
        = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Ingest queued documents (beliefdb ingest --queue), each in one transaction with its job's completion:
    a worker killed at any point loses no document and ingests none twice. Runs until SIGTERM or Ctrl-C (the
    job under way is finished first), --until-empty or --once. A failed document is tried again with an
    exponential backoff, and failed for good after its last attempt, with the reason (beliefdb jobs); with
    --until-empty or --once, a job failed for good makes the worker exit 1. Each line it prints starts with
    the UTC time (2026-03-04T09:15:02Z); a lost database is waited for, said when the wait starts and ends."""
    if once and until_empty:
        usage("choose one of --once or --until-empty")

    def show(outcome: JobOutcome) -> None:
        if not as_json:
            typer.echo(_stamped(_outcome_line(outcome)))

    def database(wait: DatabaseWait) -> None:
        if not as_json:
            typer.echo(_stamped(_database_line(wait)))

    with errors(as_json), _stop_on_signals() as stop, \
            api.connect(memory.url, memory.workspace, principal=memory.principal, home=memory.home,
                        max_size=concurrency + 1) as bdb:
        report = bdb.work(concurrency=concurrency, stop_when_empty=until_empty, once=once, embed=embed,
                          backoff=backoff, worker=name, stop=stop, on_outcome=show, on_database=database)
    typer.echo(render.to_json(report) if as_json else _stamped(_summary(report)))
    if report.failed and (until_empty or once):
        # a run that drains the queue for a script fails when a document did (a service worker, stopped by
        # a signal, exits 0: its failed jobs are in beliefdb jobs)
        if not as_json:
            typer.echo(f"error: {report.failed} job(s) failed for good: see beliefdb jobs --status failed", err=True)
        raise typer.Exit(1)


def _counts(result: dict[str, object]) -> str:
    """What a done job's ingest did: accepted always, then each other count that is not 0, then the version."""
    others = [f"{result[key]} {key}" for key in ("corroborated", "superseded", "conflicts", "rejected")
              if result.get(key)]
    return ", ".join([f"{result.get('accepted', 0)} accepted", *others, f"version {result.get('version')}"])


@for_terminal
def _jobs_table(rows: list[Job]) -> str:
    if not rows:
        return "no jobs"
    lines = [f"{'id':>6}  {'status':<8} {'tries':>5}  source / what happened"]
    for j in rows:
        if j.status == "done" and j.result is not None:
            # an ingest that stored no version (the same text again, a proposal to the owner) says why
            said = (j.result.get("note") if j.result.get("version") is None or not j.result.get("new_version")
                    else None) or _counts(j.result)
        else:
            said = j.last_error or ""
        lines.append(f"{j.id:>6}  {j.status:<8} {j.attempts:>2}/{j.max_attempts:<2}  {api.shown(j.source or '')}"
                     + (f" — {api.shown(said)}" if said else ""))
    return "\n".join(lines)


@dataclass(frozen=True)
class _Group:
    """What was typed on ``beliefdb jobs`` before its subcommand (left in ``ctx.obj``): its connection
    options and its --json, which apply to the subcommand (``beliefdb jobs --json -w ops cancel 2``)."""

    memory: Memory
    as_json: bool


def _with_group(ctx: typer.Context, memory: Memory, as_json: bool) -> tuple[Memory, bool]:
    """A subcommand's memory and --json, with the group's (:class:`_Group`) for what it did not type."""
    group = ctx.obj
    if not isinstance(group, _Group):
        return memory, as_json
    return memory.within(group.memory), as_json or group.as_json


jobs_app = typer.Typer(help="The workspace's queued documents (beliefdb ingest --queue): list them, retry the"
                            " failed ones, cancel queued or failed ones.")


@jobs_app.callback(invoke_without_command=True)
@with_memory(principal=False)
def jobs(
    ctx: typer.Context,
    status: Annotated[JobStatus | None, typer.Option(help="Only jobs with this status.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=api.MAX_PAGE,
                                               help="At most this many (up to 100,000), newest first.")] = 100,
    totals: Annotated[bool, typer.Option("--totals", help="With --json: an object, the jobs listed under"
                                         " \"jobs\", how many match under \"matching\" and per status under"
                                         " \"totals\" (without: the list alone, as ever).")] = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """The workspace's queued documents, newest first: queued, running (a live worker holds it), done (what
    its ingest did) or failed (the reason of its last attempt), then how many match in each status, and
    how many --limit left out. 'beliefdb jobs retry' queues failed ones again."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = _Group(memory, as_json)  # (beliefdb jobs -w ops retry 4: the subcommand acts, there)
        return
    chosen = status.value if status else None
    with errors(as_json), memory.open() as bdb:
        rows = bdb.jobs(status=chosen, limit=limit)
        # (--json without --totals is the bare list scripts read, and counts nothing more)
        counts = bdb.job_totals(status=chosen) if totals or not as_json else {}
    matching = sum(counts.values())
    if as_json:
        typer.echo(render.to_json({"jobs": rows, "matching": matching, "totals": counts} if totals else rows))
        return
    typer.echo(_jobs_table(rows))
    if rows:
        typer.echo("totals: " + ", ".join(f"{n:,} {s}" for s, n in counts.items() if chosen in (None, s)))
    if len(rows) < matching:
        typer.echo(f"showing {len(rows):,} of {matching:,} (use --limit)")


@jobs_app.command("retry")
@with_memory()
def retry(
    typer_context: typer.Context,
    ids: Annotated[list[int] | None, typer.Argument(metavar="JOB_ID", show_default=False,
                                                    help="The failed jobs to queue again (see beliefdb jobs"
                                                         " --status failed).")] = None,
    all_failed: Annotated[bool, typer.Option("--all-failed", help="Every failed job of the workspace (with"
                                             " --as, or an agent's login: its own).")] = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Queue failed jobs again (after fixing what made them fail: a worker's limit, the llm's endpoint),
    each with its attempts afresh and ready at once, for 'beliefdb worker' to run. All or none, in one
    transaction: an id that is not a failed job of the workspace is an error, and nothing is queued. A
    job whose source was forgotten has no text left and cannot be retried."""
    if bool(ids) == all_failed:
        usage("give the ids of the failed jobs to retry, or --all-failed: one of them")
    memory, as_json = _with_group(typer_context, memory, as_json)
    with errors(as_json), memory.open() as bdb:
        queued = bdb.retry(all_failed=True) if all_failed else bdb.retry(*(ids or []))
    if as_json:
        typer.echo(render.to_json({"jobs": queued}))
        return
    if not queued:
        typer.echo("no failed jobs to retry")
        return
    for job in queued:
        typer.echo(f"job {job} queued again")
    typer.echo(f"{len(queued)} job(s) queued again: run them with 'beliefdb worker', follow them with 'beliefdb jobs'")


@jobs_app.command("cancel")
@with_memory()
def cancel(
    typer_context: typer.Context,
    ids: Annotated[list[int] | None, typer.Argument(metavar="JOB_ID", show_default=False,
                                                    help="The queued or failed jobs to cancel (see beliefdb"
                                                         " jobs).")] = None,
    source: Annotated[str | None, typer.Option(help="Every queued or failed job of this source name"
                                                    " (with --as, or an agent's login: its own).")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Cancel queued or failed jobs: each is deleted with the text it carries. A document queued and never
    stored is in no source, so 'beliefdb forget' cannot reach it: this is how its text goes (then vacuum
    beliefdb.job, docs/dba.md). All or none, in one transaction: a running, done or unknown job is an error,
    and nothing is cancelled. A --source with no queued or failed job has nothing to cancel: exit 0, as
    'jobs retry --all-failed' with none."""
    if bool(ids) == (source is not None):
        usage("give the ids of the jobs to cancel, or --source NAME: one of them")
    memory, as_json = _with_group(typer_context, memory, as_json)
    with errors(as_json), memory.open() as bdb:
        cancelled = bdb.cancel(source=source) if source is not None else bdb.cancel(*(ids or []))
    if as_json:
        typer.echo(render.to_json({"jobs": cancelled, "cancelled": len(cancelled)}))
        return
    if not cancelled:  # (only --source finds none: an id of no job is unknown, an error)
        typer.echo(f"nothing to cancel: no queued or failed job of source {api.shown(source or '')}")
        return
    for job in cancelled:
        typer.echo(f"job {job} cancelled")
    typer.echo(f"{len(cancelled)} job(s) cancelled: their text is deleted")


def register(app: typer.Typer) -> None:
    app.command("worker", rich_help_panel=MEMORY)(worker)
    app.add_typer(jobs_app, name="jobs", rich_help_panel=MEMORY)
