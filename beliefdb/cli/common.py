"""What every beliefdb command shares: its options, error printing, help panels and the BeliefDB it
acts through."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from beliefdb import render
from beliefdb.api import BeliefDB, connect
from beliefdb.errors import BeliefDBError
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


DbUrl = Annotated[str | None, typer.Option("--db", envvar="BELIEFDB_URL", show_envvar=True,
                                           help="PostgreSQL URL (>= 15, with pgvector). Default: the embedded server.")]
Home = Annotated[Path | None, typer.Option("--home", envvar="BELIEFDB_HOME", show_envvar=True,
                                          help="Folder of the embedded server's data. Default: /var/lib/beliefdb for"
                                               " root, else the user's data folder.")]
WorkspaceOpt = Annotated[str, typer.Option("--workspace", "-w", envvar="BELIEFDB_WORKSPACE", show_envvar=True,
                                           help="Workspace to act in.")]
Principal = Annotated[str | None, typer.Option("--as", envvar="BELIEFDB_PRINCIPAL", show_envvar=True,
                                               help="Who is acting (agent or person), stamped on every write.")]
Json = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def fail(code: str, message: str, as_json: bool, exit_code: int = 1) -> NoReturn:
    if as_json:
        typer.echo(render.to_json({"error": code, "message": message}))
    else:
        typer.echo(f"error: {message}", err=True)
    raise typer.Exit(exit_code)


@contextmanager
def errors(as_json: bool) -> Iterator[None]:
    try:
        yield
    except BeliefDBError as exc:
        fail(exc.code, exc.message, as_json)


@contextmanager
def database(url: str | None, home: Path | None, workspace: str, principal: str | None) -> Iterator[BeliefDB]:
    """The memory of ``workspace`` (``url``, else BELIEFDB_URL, else the embedded server), closed afterwards."""
    with connect(url, workspace, principal=principal, home=home) as bdb:
        yield bdb


def parse_time(value: str | None, as_json: bool) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        fail("invalid_input", f"--as-of: not an ISO 8601 timestamp: {value!r}", as_json, 2)
    return parsed if parsed.tzinfo else parsed.astimezone()
