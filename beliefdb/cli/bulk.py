"""``beliefdb ingest --bulk``: many documents, one transaction per batch, with a progress bar."""

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
from beliefdb.cli.common import print_skipped, skipped_files
from beliefdb.models import BulkReport
from beliefdb.render.bulk import bulk_summary

#: what --help says of batches (the ingest command's --batch and --bulk options)
BATCH_HELP = ("With --bulk: documents per transaction (one audit event each). A bad document stops the run before"
              " its batch is written; the batches before it stay committed, and running the same command again"
              " resumes (what is stored is a no-op).")


def run(bdb: BeliefDB, paths: list[Path], *, authority: str | None, label: str | None, version_label: str | None,
        extractor: str, batch: int, embed: bool, max_bytes: int | None, as_json: bool) -> None:
    """Bulk-ingest ``paths`` (files and directories) and print the totals (``--json``: with each report)."""
    if as_json:
        report = bdb.bulk_ingest(*paths, authority=authority, label=label, version_label=version_label,
                                 extractor=extractor, batch=batch, embed=embed, max_bytes=max_bytes)
        left_out = [{"path": p, "skipped_file": why} for p, why in skipped_files(paths, False)]
        typer.echo(render.to_json(_json(report) | ({"skipped_files": left_out} if left_out else {})))
        return
    with ExitStack() as stack:
        bar: Any = None
        started = time.perf_counter()

        def progress(done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = stack.enter_context(typer.progressbar(
                    length=total, label="bulk ingest", file=sys.stderr, show_eta=True, show_pos=True,
                    item_show_func=lambda rate: rate))
            rate = done / max(time.perf_counter() - started, 1e-9)
            bar.current_item = f"{rate:,.0f} documents/s"
            bar.update(done - bar.pos)

        report = bdb.bulk_ingest(*paths, authority=authority, label=label, version_label=version_label,
                                 extractor=extractor, batch=batch, embed=embed, max_bytes=max_bytes,
                                 progress=progress)
    typer.echo(summary(report))
    print_skipped(skipped_files(paths, False), False)


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
