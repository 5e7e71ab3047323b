"""The beliefdb command line. It parses arguments and prints results; nothing else."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from beliefdb import api, render
from beliefdb.cli import agents as cli_agents
from beliefdb.cli import bulk as cli_bulk
from beliefdb.cli import calibrate as cli_calibrate
from beliefdb.cli import lifecycle as cli_lifecycle
from beliefdb.cli import operations as cli_operations
from beliefdb.cli import queue as cli_queue
from beliefdb.cli import repair as cli_repair
from beliefdb.cli import retrieval as cli_retrieval
from beliefdb.cli import scale as cli_scale
from beliefdb.cli import serve as cli_serve
from beliefdb.cli import stdin as cli_stdin
from beliefdb.cli import tokens as cli_tokens
from beliefdb.cli import truth as cli_truth
from beliefdb.cli.common import (
    CLAIMS_HELP,
    MEMORY,
    REVIEW,
    Authority,
    ExtractorName,
    Format,
    Json,
    Label,
    Memory,
    PictureFormat,
    TextFormat,
    asks_json,
    errors,
    failure_line,
    file_path,
    page_cursor,
    parse_time,
    picture_format,
    print_skipped,
    say_interrupted,
    skipped_files,
    typed,
    unwrap_help,
    usage,
    usage_error,
    with_memory,
)
from beliefdb.errors import InvalidInput, wording
from beliefdb.models import IngestFailure, IngestReport
from beliefdb.render import pictures

HELP = "Agent memory that knows why it believes something, and what must change when it is wrong."


class _Root(TyperGroup):
    """The root command: it names the database sessions after the command being run (e.g.
    ``beliefdb db dump``), so ``pg_stat_activity`` tells them apart, and prints every usage error of
    any command as one line, JSON when the command line has ``--json`` (:func:`usage_error`)."""

    def make_context(self, info_name: Any, args: Any, parent: Any = None, **extra: Any) -> Any:
        as_json = asks_json(args)
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except Exception as exc:  # (click's, vendored or not: usage_error raises anything else again)
            usage_error(exc, as_json)
        ctx.meta["beliefdb.json"] = as_json
        return ctx

    def invoke(self, ctx: Any) -> Any:
        try:
            with wording("cli"):  # beliefdb's messages name options (--reason), not arguments (reason=)
                return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # (typer exits 130)
            say_interrupted(exc)
            raise
        except Exception as exc:
            usage_error(exc, bool(ctx.meta.get("beliefdb.json")))

    # (click's types, which typer vendors in recent releases: Any keeps this valid with either)
    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        group: Any = command
        path, more = [name or ""], list(rest)
        # a group of commands (db, workspace, ...): name the session after its command too
        while hasattr(group, "get_command") and more and (sub := group.get_command(ctx, more[0])) is not None:
            path.append(more[0])
            group, more = sub, more[1:]
        api.name_sessions(" ".join(["beliefdb", *path]))
        return name, command, rest


app = typer.Typer(
    name="beliefdb",
    cls=_Root,
    help=HELP,
    epilog='Messages cite the truth rules as "rule N": beliefdb rules N prints one (docs/rules.md).',
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
audit_app = typer.Typer(help="The per-workspace SHA-256 audit chain.", no_args_is_help=True)
app.add_typer(audit_app, name="audit", rich_help_panel=REVIEW)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"beliefdb {api.version()}")
        raise typer.Exit()


@app.callback(help=HELP)
def main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print beliefdb's version and exit.")] = False,
) -> None:
    for warning in api.unknown_settings():  # (on stderr: --json's stdout stays JSON)
        typer.echo(f"warning: {warning}", err=True)


def _chat_format(text_format: TextFormat, paths: list[Path]) -> bool:
    """Whether ``--format`` (auto: by the suffixes of the files, a directory's included) reads the files as
    conversations."""
    if text_format is not TextFormat.auto:
        return text_format is TextFormat.chat
    jsonl = [p.suffix.lower() == ".jsonl" for _name, p in api.documents(paths, api.CHAT_SUFFIXES)]
    if any(jsonl) and not all(jsonl):
        raise InvalidInput("a mix of .jsonl conversations and documents: give --format chat or --format text")
    return bool(jsonl) and all(jsonl)


@app.command(rich_help_panel=MEMORY)
@with_memory()
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        parser=file_path,
        help="UTF-8 .txt, .md or .markdown files, or directories of them (their files, recursively, each source"
             " named by its path below the directory; its other files are listed as skipped, with why); with"
             " --format chat, .jsonl files too; - reads one document from standard input (with --source).",
        show_default=False,
        metavar="PATH...")],
    source: Annotated[str | None, typer.Option(help="Source name (default: the file name). One file only.")] = None,
    authority: Annotated[Authority | None, typer.Option(
        help="Authority tier of the source (new sources default to internal, a new conversation to user).")] = None,
    label: Annotated[Label | None, typer.Option(
        help="Provenance label (new sources default to production).")] = None,
    version_label: Annotated[str | None, typer.Option(help="A label for this version, e.g. v3.2.")] = None,
    claims: Annotated[Path | None, typer.Option(parser=file_path, help=CLAIMS_HELP)] = None,
    extractor: Annotated[ExtractorName, typer.Option(
        help="Extractor to run on the text: rules (offline), none, or llm (an OpenAI-compatible chat endpoint:"
             " set BELIEFDB_LLM_URL, optionally BELIEFDB_LLM_MODEL, BELIEFDB_LLM_API_KEY; its quotes pass the"
             " same evidence gate).")] = ExtractorName.rules,
    embed: Annotated[bool, typer.Option("--embed/--no-embed", help="Embed new beliefs now (--no-embed: later,"
                                        " with 'beliefdb embed').")] = True,
    preview: Annotated[bool, typer.Option("--preview", help="Show exactly what ingesting would change (new and"
                                          " superseded beliefs, re-verified, unsupported, flagged, held, current"
                                          " again); write nothing.")] = False,
    max_bytes: Annotated[int | None, typer.Option(
        "--max-bytes", min=1, envvar="BELIEFDB_INGEST_MAX_BYTES", show_envvar=False,  # (too long for help's column)
        help="Refuse a file larger than this many bytes, before anything is written (default 32 MiB,"
             " or BELIEFDB_INGEST_MAX_BYTES).")] = None,
    queue: Annotated[bool, typer.Option("--queue", help="Queue the files (documents, or conversations with"
                                        " --format chat) for 'beliefdb worker' and print their job ids at once"
                                        " (follow them with 'beliefdb jobs'); a file that would change nothing"
                                        " (its source's text in force, or a job of it still to run) is not"
                                        " queued, and counted.")] = False,
    text_format: Annotated[TextFormat, typer.Option(
        "--format", envvar="BELIEFDB_INGEST_FORMAT", show_envvar=False,  # (too long for help's column)
        help="chat: each file is a conversation (.jsonl of {speaker, time, text}, or 'Speaker: text',"
             " '**Speaker:** text', '\\[time] Speaker: text' lines; the colon may be the full-width '：' of CJK"
             " chat ('张伟：text')), each turn a fragment with its speaker and time; text: a document; auto: chat"
             " when every file, a directory's too, is .jsonl, text when none is, refused for a mix (or"
             " BELIEFDB_INGEST_FORMAT).")] = TextFormat.auto,
    bulk: Annotated[bool, typer.Option("--bulk", help="Many documents set-based: each file still its own source"
                                       " version with its exact fragments and evidence, every truth rule kept, one"
                                       " transaction per --batch.")] = False,
    batch: Annotated[int, typer.Option("--batch", min=1, envvar="BELIEFDB_BULK_BATCH",
                                         help=cli_bulk.BATCH_HELP)]
        = cli_bulk.DEFAULT_BATCH,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Store documents as source versions and extract beliefs whose quotes pass the evidence gate.

    The same bytes as a version the source has is a no-op that says so. A changed file is a new
    version of the same source, which supersedes what the old version said and the new one
    contradicts. A source belongs to whoever first ingested it: another principal's new version is
    proposed to the owner as a review item. With --queue, workers ingest them later (beliefdb worker).
    """
    if queue and bulk:
        usage("--queue and --bulk are two ways to ingest many files: give one")
    if not bulk and typed("batch"):
        usage("--batch sizes the transactions of --bulk: give --bulk too, or leave --batch out")
    if bulk and text_format is TextFormat.chat:
        usage("--bulk reads documents: not with --format chat")
    if queue and (claims is not None or preview or not embed):
        usage("--queue takes no --claims, --preview or --no-embed (the worker embeds: beliefdb worker --no-embed)")
    if Path("-") in paths:  # (standard input: one document, named by --source)
        return cli_stdin.ingest(
            memory, count=len(paths), source=source, claims=claims is not None, queue=queue, bulk=bulk,
            chat=text_format is TextFormat.chat, authority=authority.value if authority else None,
            label=label.value if label else None, version_label=version_label, extractor=extractor.value,
            embed=embed, preview=preview, max_bytes=max_bytes, as_json=as_json)
    with errors(as_json):  # (d1/p.md and d2/p.md: one source, the second a new version of the first)
        chat = not bulk and _chat_format(text_format, paths)
        api.one_file_a_name(api.documents(paths, api.CHAT_SUFFIXES if chat else api.SUPPORTED_SUFFIXES))
    if bulk:
        one = [name for name, value in (("--source", source), ("--claims", claims), ("--preview", preview)) if value]
        if one:
            usage(f"{one[0]} belongs to one document and cannot be used with --bulk")
        with errors(as_json), memory.open() as bdb:
            cli_bulk.run(bdb, paths, authority=authority.value if authority else None,
                         label=label.value if label else None, version_label=version_label,
                         extractor=extractor.value, batch=batch, embed=embed, max_bytes=max_bytes, as_json=as_json)
        return
    with errors(as_json):
        count = len(api.documents(paths, api.CHAT_SUFFIXES if chat else api.SUPPORTED_SUFFIXES))
    if chat and claims is not None:
        usage("--claims belongs to a document: not with --format chat")
    if count > 1 and (source is not None or claims is not None):
        usage(("--source names one source" if source is not None else "--claims belongs to one document")
              + ": give it one file at a time")
    if queue:
        cli_queue.submit(memory, paths, source=source, authority=authority.value if authority else None,
                         label=label.value if label else None, version_label=version_label,
                         extractor=extractor.value, max_bytes=max_bytes, chat=chat, as_json=as_json)
        return
    with errors(as_json):
        if claims is not None and not api.count_claims(claims):  # (an empty --claims stored the document alone)
            raise InvalidInput(f"{api.shown(claims)}: empty file (it holds no claims)")
    with errors(as_json), memory.open() as bdb:

        def run(progress: Callable[[Path], None] | None = None) -> list[IngestReport | IngestFailure]:
            if chat:
                return bdb.ingest_transcripts(
                    *paths, source=source, authority=authority.value if authority else None,
                    label=label.value if label else None, version_label=version_label, extractor=extractor.value,
                    embed=embed, preview=preview, progress=progress, max_bytes=max_bytes)
            return bdb.ingest(*paths, source=source, authority=authority.value if authority else None,
                              label=label.value if label else None, version_label=version_label, claims=claims,
                              extractor=extractor.value, embed=embed, preview=preview, progress=progress,
                              max_bytes=max_bytes)

        if count > 3 and not as_json:
            with typer.progressbar(length=count, label=f"ingesting {count:,} files", file=sys.stderr) as bar:
                results = run(lambda _p: bar.update(1))
        else:
            results = run()
    failed = [r for r in results if isinstance(r, IngestFailure)]
    # (a directory's files ingest does not read, each with why: one result per file, a skipped one too)
    skipped = skipped_files(paths, chat)
    if as_json:
        # one file given is its report (or its error); a directory or several files a list, whatever
        # they hold, so that a script reads one shape
        if len(paths) == 1 and not paths[0].is_dir() and len(results) == 1:
            typer.echo(render.to_json({"error": failed[0].error, "message": failed[0].message} if failed
                                      else results[0]))
        else:
            typer.echo(render.to_json([*results, *({"path": path, "skipped_file": why} for path, why in skipped)]))
    else:
        for r in results:
            if isinstance(r, IngestFailure):
                alone = len(paths) == 1 and not paths[0].is_dir() and len(results) == 1
                typer.echo(failure_line(r, alone=alone), err=True)
            else:
                typer.echo(render.ingest_report(r))
        print_skipped(skipped, chat)
    if failed:
        raise typer.Exit(1)


@app.command(rich_help_panel=MEMORY)
@with_memory()
def beliefs(
    subject: Annotated[str | None, typer.Option(
        help="Only this subject (a person's name, Maya López, names maya_lopez when no belief has the name itself"
             " as its subject).")] = None,
    attribute: Annotated[str | None, typer.Option(help="Only this attribute.")] = None,
    include_all: Annotated[bool, typer.Option("--all", help="Every belief with its status, not only current.")]
        = False,
    as_of: Annotated[str | None, typer.Option(help="What was believed at this ISO 8601 moment.")] = None,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures", help="Also fixture and synthetic beliefs (separate worlds), labelled.")] = False,
    limit: Annotated[int | None, typer.Option(
        min=1, max=api.MAX_PAGE, help="At most this many (a page of up to 100,000; default: all of them).")] = None,
    after: Annotated[str | None, typer.Option(
        callback=page_cursor,
        help="Only those after this belief in the listing's order (the last id of the page before).",
        metavar="ID")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """List current beliefs (or all with their status, or as of a moment): production history only,
    unless --include-fixtures. Ordered by subject, attribute and recording; page through a large store
    with --limit N and --after LAST_ID."""
    if include_all and as_of is not None:  # (as the library refuses them, in its words: a usage error here)
        usage("--all and --as-of do not go together: as of a moment, the beliefs believed then are listed;"
              " why ID --as-of ... gives one belief's status then")
    moment = parse_time(as_of, as_json)
    with errors(as_json), memory.open() as bdb:
        rows = bdb.beliefs(subject=subject, attribute=attribute, include_all=include_all, as_of=moment,
                           include_fixtures=include_fixtures, limit=limit, after=after)
    typer.echo(render.to_json(rows) if as_json else render.beliefs_table(rows, with_status=include_all))


@app.command(rich_help_panel=MEMORY)
@with_memory()
def why(
    ref: Annotated[str, typer.Argument(
        help="A belief, decision or action id, or a unique prefix of it; or a review item's (its subject is"
             " explained).", metavar="ID")],
    as_of: Annotated[str | None, typer.Option(
        help="As it stood at this ISO 8601 moment, with the status it had then (superseded, expired or retracted"
             " then too; evidence and history recorded by then).")] = None,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures",
        help="Allow a fixture or synthetic belief, and show fixture material built on or under it, labelled"
             " (not production history).")] = False,
    fmt: Format = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Why a belief is held: evidence (quote, offsets, source, version), confidence factors, history, and
    what is built on it (decisions, their actions, derived beliefs). For a decision: its reasons, live
    and lost, its actions and its outcome; for an action: its decision and that decision's reasons. One a
    reviewer approved or rejected says who, when and their note (--json: verdict). A review item's id: the
    item (--json: review_item), then what it is about (a node, or a proposed version's or retraction's source).

    --format mermaid or dot draws it (sources, beliefs, decisions, actions; a lost reason dashed).
    """
    shape = picture_format(fmt, as_json)
    moment = parse_time(as_of, as_json)
    with errors(as_json), memory.open() as bdb:
        picture = bdb.why_graph(ref, as_of=moment, include_fixtures=include_fixtures)
        (focus,) = [n for n in picture.nodes if n.id in picture.focus]
        # a belief is shown only as why shows it: production history unless --include-fixtures (rule 15)
        result = bdb.why(focus.id, as_of=moment, include_fixtures=include_fixtures) if focus.kind == "belief" else None
    if as_json:  # (named by a review item's id: which item, too)
        typer.echo(render.to_json(render.why_json(result, picture.review_item) if result is not None else picture))
    elif shape is PictureFormat.text and result is not None:
        typer.echo(render.why(result, picture.review_item))
    else:
        typer.echo(pictures.draw(picture, shape))


@audit_app.command("verify")
@with_memory(principal=False)
def audit_verify(
    *, memory: Memory, as_json: Json = False,
) -> None:
    """Verify the workspace's hash chain; exits 1 and names the first broken link if it is broken."""
    with errors(as_json), memory.open() as bdb:
        result = bdb.audit_verify()
    typer.echo(render.to_json(result) if as_json else render.audit(result))
    if not result.ok:
        raise typer.Exit(1)


# (--help shows the panels in the order their first command is registered: Memory, Truth, Decisions,
# Review and repair, Operations)
cli_truth.register(app)
cli_lifecycle.register(app)
cli_repair.register(app)
cli_calibrate.register(app)
cli_retrieval.register(app)
cli_operations.register(app)
cli_tokens.register(app)
cli_queue.register(app)
cli_agents.register(app)
cli_serve.register(app)
cli_scale.register(app)
# (last: every command registered)
unwrap_help(app)
