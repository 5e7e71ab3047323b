"""One transaction per file: a run of files ingests each, and says which were stored, which refused
and why, and where a lost database or Ctrl-C stopped it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg

from beliefdb import errors
from beliefdb.inputs import shown
from beliefdb.models import IngestFailure, IngestReport
from beliefdb.store import interrupted


def timed_out(exc: errors.BeliefDBError) -> bool:
    """Whether ``exc`` is a statement's timeout: the work of one file outlasted BELIEFDB_STATEMENT_TIMEOUT,
    not a database that went away."""
    cause = exc.__cause__
    return (isinstance(cause, psycopg.errors.QueryCanceled)
            and "statement timeout" in (cause.diag.message_primary or ""))


def each_file(paths: Sequence[Path], ingest_one: Callable[[Path], IngestReport],
              progress: Callable[[Path], None] | None = None) -> list[IngestReport | IngestFailure]:
    """``ingest_one`` of each file, one transaction each: a beliefdb error is that file's failure and
    does not stop the others (a lost database does: saying which files before it are stored)."""
    results: list[IngestReport | IngestFailure] = []
    for path in paths:
        try:
            results.append(ingest_one(path))
        except errors.DatabaseUnavailable as exc:
            if timed_out(exc):  # (this file's work outlasted the limit: the database is there for the next)
                results.append(IngestFailure(path=shown(path), error=exc.code, message=interrupted.after_committed(
                    f"{shown(path)}: {exc.message}", "nothing of it stored; the bulk ingest (--bulk) stores a file"
                                                     " this large set-based, much faster, or raise the timeout")))
                if progress is not None:
                    progress(path)
                continue
            stored = sum(isinstance(r, IngestReport) for r in results)
            if not stored:
                raise  # (nothing was changed, as it says)
            before = f"the {len(results)} files" if stored == len(results) else f"{stored} of the {len(results)} files"
            raise type(exc)(interrupted.after_committed(exc.message, f"{shown(path)} not stored; {before} before it are"
                                                                " stored: run again to resume")) from exc
        except errors.BeliefDBError as exc:
            results.append(IngestFailure(path=shown(path), error=exc.code, message=exc.message))
        except KeyboardInterrupt as exc:
            exc.add_note(_interrupted(paths, results, interrupted.left(exc)))
            raise
        if progress is not None:
            progress(path)
    return results


def _interrupted(paths: Sequence[Path], results: list[IngestReport | IngestFailure], at: interrupted.Left) -> str:
    """What an ingest of ``paths`` stopped by Ctrl-C had stored: the files before the one under way (those
    refused aside), that one too if it had committed, and the beliefs left without a vector."""
    stored = sum(isinstance(r, IngestReport) for r in results) + at.stored
    refused = len(results) - sum(isinstance(r, IngestReport) for r in results)
    said = (f"{shown(paths[0])} {'stored' if stored else 'not stored'}" if len(paths) == 1 else
            f"{stored:,} of {len(paths):,} files stored" + (f", {refused:,} refused" if refused else "")
            + interrupted.rest(stored + refused, len(paths)))
    return said + interrupted.embed_later(at.unembedded)
