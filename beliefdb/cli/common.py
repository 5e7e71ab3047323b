"""What every beliefdb command shares: its options, error printing, help panels and the BeliefDB it
acts through."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from beliefdb import api, render
from beliefdb.api import BeliefDB, connect
from beliefdb.errors import BeliefDBError
from beliefdb.models import IngestFailure
from beliefdb.render.terminal import plain
from beliefdb.vocabulary import Authority as Authority  # option types, listed in beliefdb.vocabulary
from beliefdb.vocabulary import Label as Label

# The groups of commands in --help (typer's rich_help_panel).
MEMORY = "Memory"
TRUTH = "Truth"
DECISIONS = "Decisions"
REVIEW = "Review and repair"
OPERATIONS = "Operations"


class ExtractorName(StrEnum):
    rules = "rules"
    none = "none"
    llm = "llm"


class TextFormat(StrEnum):
    """How ``ingest`` reads a file: ``auto`` (chat for .jsonl, text otherwise), ``text`` or ``chat``."""

    auto = "auto"
    text = "text"
    chat = "chat"


class PictureFormat(StrEnum):
    text = "text"
    mermaid = "mermaid"
    dot = "dot"


def file_path(value: str) -> Path:
    """The parser of every path argument and option: an empty one is a value its option refuses (a usage
    error), not the current directory pathlib would read it as (``ingest ""`` stored the documents of
    wherever it ran)."""
    if value == "":
        raise ValueError("an empty path names no file")
    return Path(value)


DbUrl = Annotated[str | None, typer.Option("--db", envvar="BELIEFDB_URL", show_envvar=True,
                                           help="PostgreSQL URL (>= 15, with pgvector). Default: the embedded server.")]
Home = Annotated[Path | None, typer.Option("--home", envvar="BELIEFDB_HOME", show_envvar=True, parser=file_path,
                                          help="Folder of the embedded server's data; given, it wins over"
                                               " BELIEFDB_URL (not with --db). Default: /var/lib/beliefdb for root,"
                                               " else the user's data folder.")]
WorkspaceOpt = Annotated[str | None, typer.Option(
    "--workspace", "-w", envvar="BELIEFDB_WORKSPACE", show_envvar=True, show_default="default",
    help="Workspace to act in (an agent's login: its own).")]
Principal = Annotated[str | None, typer.Option("--as", envvar="BELIEFDB_PRINCIPAL", show_envvar=True,
                                               help="Who is acting (agent or person), stamped on every write.")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
#: decide, act, outcome: a key naming the request, so a retry records nothing twice (rule 18 of docs/rules.md)
IdempotencyKey = Annotated[str | None, typer.Option(
    help="Names this request: the same one again with this key records nothing and prints what the first"
         " recorded (already applied), so a retry is safe; another request with it is refused.")]
#: what a replay (the same request again by its key) adds to the line it prints
REPLAYED = " (already applied: the same request with this --idempotency-key recorded it)"
Format = Annotated[PictureFormat | None, typer.Option(
    "--format", help="text (for people, the default), mermaid (a flowchart to paste into Markdown) or dot"
                     " (Graphviz: dot -Tsvg); --json prints the data instead.")]

#: ingest --claims: the extractor runs beside the claims (a trial got its dated claims and the rules'
#: undated beliefs of the same lines side by side), unless --extractor none
CLAIMS_HELP = ("JSONL claims: {statement, subject, attribute, value, quote} per line, plus optional kind, scope,"
               " valid_from, valid_to, start, end. One document only. The --extractor (rules by default) runs too"
               " and adds what it extracts beside the claims: --extractor none stores only the claims.")

#: the file arguments beliefdb only opens: a name with bytes that are not UTF-8 still names its file
FILE_ARGUMENTS = frozenset({"paths", "claims", "labels", "plot"})


def fail(code: str, message: str, as_json: bool, exit_code: int = 1) -> NoReturn:
    message = api.shown(message)  # a message quoting bad bytes must not fail to print
    if as_json:
        typer.echo(render.to_json({"error": code, "message": message}))
    else:
        typer.echo(f"error: {plain(message)}", err=True)  # (one line, whatever name it quotes)
    raise typer.Exit(exit_code)


#: click's exceptions, wherever this typer takes click from (recent releases vendor it as typer._click)
_CLICK = importlib.import_module(typer.BadParameter.__module__)
_CLICK_GLOBALS = importlib.import_module(_CLICK.__name__.rpartition(".")[0] + ".globals")


def usage(message: str) -> NoReturn:
    """A usage error a command finds itself (options that do not go together, a value its option's type
    cannot bound), raised as click's own are, for the root to print as every usage error
    (:func:`usage_error`): one line pointing at the command's help, ``invalid_input`` with --json, exit 2."""
    raise _CLICK.UsageError(message, _CLICK_GLOBALS.get_current_context(silent=True))


def typed(name: str) -> bool:
    """Whether the running command's option ``name`` was given on its command line (not its default, nor
    its environment variable, which may be set for other commands)."""
    ctx = _CLICK_GLOBALS.get_current_context(silent=True)
    source = ctx.get_parameter_source(name) if ctx is not None else None
    return source is not None and source.name == "COMMANDLINE"


def asks_json(args: Sequence[str]) -> bool:
    """Whether a command line asks for JSON: ``--json`` among its options (not after ``--``)."""
    args = list(args)
    return "--json" in args[:args.index("--")] if "--" in args else "--json" in args


def usage_error(exc: Exception, as_json: bool) -> NoReturn:
    """A usage error (a missing argument, an unknown option, a value its option refuses) as beliefdb's
    other errors: one line (``{"error": "invalid_input", "message": ...}`` with ``as_json``) instead of
    typer's panel, with click's exit code (2 for usage errors). Help shown for a command given without
    arguments is raised again, for typer to print."""
    if not isinstance(exc, _CLICK.ClickException) or isinstance(exc, getattr(_CLICK, "NoArgsIsHelpError", ())):
        raise exc
    ctx, param = getattr(exc, "ctx", None), getattr(exc, "param", None)
    if isinstance(exc, _CLICK.BadParameter) and not isinstance(exc, _CLICK.MissingParameter) and param is not None:
        said = str(exc.message).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        message = f"{_named(ctx, param) if ctx is not None else param.name}: {said}"
    else:
        message = exc.format_message()
    message = " ".join(message.split())
    if not as_json and ctx is not None:
        message += f" (see {ctx.command_path} --help)"
    fail("invalid_input", message, as_json, exc.exit_code)


def _named(ctx: typer.Context, param: Any) -> str:
    """An argument as the user gave it: its metavar, its longest option name, or its variable."""
    if param.param_type_name != "option":
        return str(param.metavar or param.name.upper())
    option = str(max(param.opts, key=len))
    source = ctx.get_parameter_source(param.name)
    if source is not None and source.name == "ENVIRONMENT" and param.envvar:
        envvar = param.envvar if isinstance(param.envvar, str) else param.envvar[0]
        return f"{envvar} ({option})"
    return option


def refuse_unreadable_arguments(ctx: typer.Context, as_json: bool) -> None:
    """A one-line error naming the first argument (or environment variable) of the command that holds
    bytes that are not UTF-8 (lone surrogates, as ``os.fsdecode`` hands them over): PostgreSQL could
    not store it, nor a terminal print it. File names are exempt (:data:`FILE_ARGUMENTS`)."""
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, Path) and param.name not in FILE_ARGUMENTS:
                item = os.fspath(item)
            if isinstance(item, str) and (why := api.unstorable(item)) is not None:
                fail("invalid_input", f"{_named(ctx, param)}: {why}: '{api.shown(item)}'", as_json, 2)


def given_database(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A command's ``db`` and ``home`` as its command line gave them, None when they came from
    ``BELIEFDB_URL`` / ``BELIEFDB_HOME``, which the library reads itself: an option is the user's word for
    this command, a variable a standing default, so ``--home`` wins over ``BELIEFDB_URL`` (which wins over
    ``BELIEFDB_HOME``). Taken from the environment, ``db restore --home NEW --clean`` replaced the database
    of BELIEFDB_URL. ``--db`` with ``--home`` names two databases: a usage error."""
    given = {name for name in ("db", "home") if name in kwargs and typed(name)}
    if given == {"db", "home"}:
        usage("--db and --home name two databases: give one")
    return {k: None if k in ("db", "home") and k not in given else v for k, v in kwargs.items()}


def page_cursor(value: str | None) -> str | None:
    """An ``--after`` option's callback: a value that is no page cursor (``api.cursor_problem``, the words
    the library and the servers use) is a value its option refuses, a usage error."""
    problem = api.cursor_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def picture_format(fmt: PictureFormat | None, as_json: bool) -> PictureFormat:
    """The format asked for (text by default); --json and --format together are refused."""
    if fmt is not None and as_json:
        usage("choose one of --json or --format")
    return fmt or PictureFormat.text


def say_interrupted(exc: KeyboardInterrupt) -> None:
    """What a command stopped by Ctrl-C had stored and what is left, as the library noted it on the interrupt,
    in one line on stderr (``interrupted: 4 of 9 files stored; ...``); nothing when it noted nothing."""
    notes = getattr(exc, "__notes__", None)
    if notes:
        typer.echo(f"interrupted: {plain(api.shown('; '.join(notes)))}", err=True)


@contextmanager
def errors(as_json: bool) -> Iterator[None]:
    """beliefdb's errors as one line (a JSON object with ``as_json``) and exit code 1."""
    try:
        yield
    except BeliefDBError as exc:
        fail(exc.code, exc.message, as_json)


@contextmanager
def database(url: str | None, home: Path | None, workspace: str | None, principal: str | None) -> Iterator[BeliefDB]:
    """The memory of ``workspace`` (``url``, else the embedded server of ``home``, else BELIEFDB_URL, else the
    embedded server of BELIEFDB_HOME), closed afterwards."""
    with connect(url, workspace, principal=principal, home=home) as bdb:
        yield bdb


@dataclass(frozen=True)
class Memory:
    """The memory a command acts on, as its connection options name it (``--db``, ``--home``, ``-w``,
    ``--as``; ``url`` and ``home`` None unless given on the command line: :func:`given_database`; ``typed``
    names those of ``workspace`` and ``principal`` given on it, not taken from their variables)."""

    url: str | None
    home: Path | None
    workspace: str | None
    principal: str | None
    typed: frozenset[str] = frozenset()

    @contextmanager
    def open(self) -> Iterator[BeliefDB]:
        with database(self.url, self.home, self.workspace, self.principal) as bdb:
            yield bdb

    def within(self, group: object) -> Memory:
        """This command's options, each not typed on its command taken from its group's when typed there
        (``beliefdb jobs -w ops retry 4``: ``group`` is what the group's callback left in ``ctx.obj``), else
        from the environment: typed on the command > typed on the group > variable > default. (A variable
        beat the group's: ``BELIEFDB_WORKSPACE=default beliefdb jobs -w ops cancel 1`` acted in default.)"""
        if not isinstance(group, Memory):
            return self
        url, home = (self.url, self.home) if self.url or self.home else (group.url, group.home)
        workspace, principal = ((mine if name in self.typed or name not in group.typed else theirs)
                                for name, mine, theirs in (("workspace", self.workspace, group.workspace),
                                                           ("principal", self.principal, group.principal)))
        return Memory(url, home, workspace, principal, self.typed | group.typed)


Command = TypeVar("Command", bound=Callable[..., Any])
_KW = inspect.Parameter.KEYWORD_ONLY


def text_arguments(command: Command) -> Command:
    """Refuse an argument that is not text (:func:`refuse_unreadable_arguments`) before ``command`` runs,
    and give it the database its options name (:func:`given_database`); typer hands the wrapper its context
    as a hidden parameter. Every command is wrapped so."""
    hints = typing.get_type_hints(command, include_extras=True)
    own = [p.replace(annotation=hints[p.name]) for p in inspect.signature(command).parameters.values()]
    # (typer gives its context to one parameter only: a command that takes it shares it)
    taken = next((p.name for p in own if p.annotation is typer.Context), None)
    parameters = own if taken else [*own, inspect.Parameter("typer_context", _KW, annotation=typer.Context)]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        context = kwargs[taken] if taken else kwargs.pop("typer_context")
        refuse_unreadable_arguments(context, bool(kwargs.get("as_json", False)))
        return command(*args, **given_database(kwargs))

    wrapper.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    return typing.cast(Command, wrapper)


def with_memory(*, principal: bool = True) -> Callable[[Command], Command]:
    """Give a command the connection options in one place instead of in every signature.

    The command declares a keyword-only ``memory: Memory`` parameter; typer is shown ``--db``,
    ``--home``, ``--workspace`` (and ``--as`` when ``principal``) in its place, just before ``--json``,
    and the command receives the :class:`Memory` they name.
    """
    def decorate(command: Command) -> Command:
        hints = typing.get_type_hints(command, include_extras=True)
        # typer passes every parameter by name, so all are keyword-only here: any order is valid
        own = [p.replace(annotation=hints[p.name], kind=_KW) for p in inspect.signature(command).parameters.values()
               if p.name != "memory"]
        options = [inspect.Parameter("db", _KW, default=None, annotation=DbUrl),
                   inspect.Parameter("home", _KW, default=None, annotation=Home),
                   inspect.Parameter("workspace", _KW, default=None, annotation=WorkspaceOpt)]
        if principal:
            options.append(inspect.Parameter("principal", _KW, default=None, annotation=Principal))
        at = next((i for i, p in enumerate(own) if p.name == "as_json"), len(own))
        parameters = own[:at] + options + own[at:]

        @functools.wraps(command)
        def wrapper(*, db: str | None = None, home: Path | None = None,
                    workspace: str | None = None, principal: str | None = None, **kwargs: Any) -> Any:
            return command(memory=Memory(db, home, workspace, principal,
                                         frozenset(n for n in ("workspace", "principal") if typed(n))), **kwargs)

        # typer reads the signature and the type hints: both must show the options, not ``memory``
        wrapper.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
        return text_arguments(typing.cast(Command, wrapper))

    return decorate


def parse_time(value: str | None, as_json: bool, option: str = "--as-of") -> datetime | None:
    """The moment ``option`` names (ISO 8601; local time without a zone), or a one-line error naming it
    and the accepted range."""
    if value is None:
        return None
    try:
        return api.parse_moment(value, option)
    except BeliefDBError as exc:
        fail(exc.code, exc.message, as_json, 2)


def unwrap_help(app: typer.Typer) -> None:
    """Give every command of ``app`` and its groups, once registered, its docstring as help with each
    paragraph on one line, for the terminal to wrap. typer's rich help keeps a paragraph's line breaks
    (in a group's listing of its commands, and in a command's own help past its first paragraph), so
    a paragraph written over several lines showed ragged at any width."""
    for info in app.registered_commands:
        doc = inspect.cleandoc(info.help) if info.help else inspect.getdoc(info.callback)
        if doc:
            # (click's conventions kept: what follows \f is not shown, a \b paragraph keeps its lines)
            shown, cut, hidden = doc.partition("\f")
            info.help = "\n\n".join(p if p.startswith("\b") else " ".join(p.split())
                                     for p in shown.rstrip().split("\n\n")) + cut + hidden
    for group in app.registered_groups:
        if group.typer_instance is not None:
            unwrap_help(group.typer_instance)


def skipped_files(paths: list[Path], chat: bool) -> list[tuple[str, str]]:
    """The files of the directories given that ingest (``chat``: as conversations) does not read, with why."""
    return [(api.shown(p), why) for p, why in api.skipped_files(paths, api.CHAT_SUFFIXES if chat else
                                                                 api.SUPPORTED_SUFFIXES)]


def print_skipped(files: list[tuple[str, str]], chat: bool) -> None:
    """The files ingest skipped, one line each with why, under a line saying which files it reads."""
    if files:
        reads = api.suffix_list(api.CHAT_SUFFIXES if chat else api.SUPPORTED_SUFFIXES, "and")
        typer.echo(f"{len(files)} file(s) skipped (ingest reads {reads} files):")
        for path, why in files:
            typer.echo(f"  {plain(path)}: {why}")


def failure_line(failure: IngestFailure, *, alone: bool = False) -> str:
    """The error line of a file an ingest of several refused, naming the file unless its message does (a
    failure of the extractor's endpoint does not) or it was the one file given (``alone``)."""
    named = alone or failure.message.startswith((f"{failure.path}:", f"{failure.path} "))
    return f"error: {plain(failure.message if named else f'{failure.path}: {failure.message}')}"
