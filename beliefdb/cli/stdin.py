"""``beliefdb ingest - --source NAME``: one document read from standard input (a pipe, a here-document),
stored as the next version of the source it names, as a file of that name would be."""

from __future__ import annotations

import sys

import typer

from beliefdb import api
from beliefdb.cli.common import Memory, errors, usage
from beliefdb.render import ingest as render_ingest
from beliefdb.render import to_json


def ingest(memory: Memory, *, count: int, source: str | None, claims: bool, queue: bool, bulk: bool, chat: bool,
           authority: str | None, label: str | None, version_label: str | None, extractor: str, embed: bool,
           preview: bool, max_bytes: int | None, as_json: bool) -> None:
    """Check the options a text from standard input takes, read it, ingest it and print its report."""
    if count != 1:
        usage("- reads one document from standard input: give it alone, without files")
    if source is None:
        usage("- reads from standard input, which has no file name: name its source with --source")
    given = [name for name, value in (("--claims", claims), ("--queue", queue), ("--bulk", bulk),
                                      ("--format chat", chat)) if value]
    if given:
        usage(f"- reads one document from standard input: not with {given[0]}")
    if sys.stdin.isatty():
        usage("- reads standard input, which is a terminal: pipe the text in (cat FILE | beliefdb ingest - ...)")
    with errors(as_json), memory.open() as bdb:
        text = api.read_stream(sys.stdin.buffer, "standard input", api.max_ingest_bytes(max_bytes))
        report = bdb.ingest_text(text, source=source, authority=authority, label=label,
                                 version_label=version_label, extractor=extractor, embed=embed, preview=preview)
    typer.echo(to_json(report) if as_json else render_ingest.ingest_report(report))
