"""``beliefdb ingest --bulk``: many documents, one transaction per batch, with progress bars (the documents
stored, then the new beliefs embedded) and the totals of what each document's ingest did."""

from __future__ import annotations

import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import typer

from beliefdb import render
from beliefdb.api import BeliefDB
from beliefdb.api.bulk import DEFAULT_BATCH as DEFAULT_BATCH
from beliefdb.cli.common import failure_line, print_skipped, skipped_files
from beliefdb.models import BulkReport
from beliefdb.render.bulk import bulk_summary

#: what --help says of batches (the ingest command's --batch and --bulk options)
BATCH_HELP = ("With --bulk: documents per transaction (one audit event each). A file that cannot be read (too"
              " large, empty, not UTF-8) is reported and the others stored (exit 1); one the database refuses stops"
              " the run before its batch is written, the batches before it committed, and running the same"
              " command again resumes (what is stored is a no-op; what a stopped run left unembedded:"
              " beliefdb embed).")


def run(bdb: BeliefDB, paths: list[Path], *, authority: str | None, label: str | None, version_label: str | None,
        extractor: str, batch: int, embed: bool, max_bytes: int | None, as_json: bool) -> None:
    """Bulk-ingest ``paths`` (files and directories) and print the totals (``--json``: with each report)."""
    if as_json:
        report = bdb.bulk_ingest(*paths, authority=authority, label=label, version_label=version_label,
                                 extractor=extractor, batch=batch, embed=embed, max_bytes=max_bytes)
        left_out = [{"path": p, "skipped_file": why} for p, why in skipped_files(paths, False)]
        typer.echo(render.to_json(_json(report) | ({"skipped_files": left_out} if left_out else {})))
        if report.failed:
            raise typer.Exit(1)
        return
    with ExitStack() as stack:
        stored, embedded = _Bar(stack, "bulk ingest", "documents"), _Bar(stack, "embedding", "beliefs")

        def embedding(done: int, total: int) -> None:
            stored.close()
            embedded.update(done, total)

        report = bdb.bulk_ingest(*paths, authority=authority, label=label, version_label=version_label,
                                 extractor=extractor, batch=batch, embed=embed, max_bytes=max_bytes,
                                 progress=stored.update, embed_progress=embedding)
    typer.echo(summary(report))
    print_skipped(skipped_files(paths, False), False)
    for failure in report.failed:  # (one line each, as a plain ingest of several files says them)
        typer.echo(failure_line(failure), err=True)
    if report.failed:
        raise typer.Exit(1)


class _Bar:
    """A progress bar on stderr, opened at its first update, with its rate and the time left: the documents
    stored, then (a second bar: an embedder is far slower than the writes) the new beliefs embedded."""

    def __init__(self, stack: ExitStack, label: str, unit: str) -> None:
        self.stack, self.label, self.unit = stack, label, unit
        self.bar: Any = None
        self.started, self.first, self.closed = time.perf_counter(), 0, False  # (documents: from the run's start)

    def update(self, done: int, total: int) -> None:
        if self.bar is None:
            # (the embedding bar counts what is left once the documents are stored: its rate and time left are
            # those of what the run still waits for)
            label = self.label
            if self.unit == "beliefs":
                self.started, self.first = time.perf_counter(), done
                label = f"{self.label} {total:,} belief(s)" + (f" ({done:,} embedded already)" if done else "")
                if done == total:
                    typer.echo(f"embedded {total:,} belief(s) beside the writes", err=True)
                    self.closed = True
            if self.closed:
                return
            self.bar = typer.progressbar(length=total - self.first, label=label, file=sys.stderr, show_eta=True,
                                         show_pos=True, item_show_func=lambda rate: rate).__enter__()
            self.stack.callback(self.close)
        if self.closed:
            return
        rate = (done - self.first) / max(time.perf_counter() - self.started, 1e-9)
        self.bar.current_item = f"{rate:,.0f} {self.unit}/s"
        self.bar.update(done - self.first - self.bar.pos)

    def close(self) -> None:
        """Finish the bar (its line ends) before the next one starts."""
        if self.bar is not None and not self.closed:
            self.closed = True
            self.bar.__exit__(None, None, None)


def summary(report: BulkReport) -> str:
    """The text output of a bulk ingest (:func:`beliefdb.render.bulk.bulk_summary`)."""
    return bulk_summary(report)


def _json(report: BulkReport) -> dict[str, Any]:
    """The report, with the totals of what each document's report lists before the reports themselves."""
    out = render.jsonable(report)
    reports = out.pop("reports")
    return {**out, "beliefs_per_s": report.beliefs_per_s, **{name: getattr(report, name) for name in TOTALS},
            "reports": reports}


#: the totals ``--json`` gives at its top beside those of every run (documents, new_versions, accepted, ...)
TOTALS = ("superseded", "unsupported", "flagged", "held", "conflicts", "current_again", "skipped", "warnings",
          "rejected_by_reason")
