"""Bulk ingest, the :class:`~beliefdb.BeliefDB` methods for many documents at once (it inherits them
from :class:`Bulk`): one transaction per batch, every truth rule of :meth:`~beliefdb.BeliefDB.ingest`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from beliefdb.db.connector import Database
from beliefdb.inputs import check_callback, given_path
from beliefdb.models import BulkReport
from beliefdb.store import bulk
from beliefdb.store.ingest import SourceOptions

#: documents per transaction unless the caller says otherwise
DEFAULT_BATCH = bulk.DEFAULT_BATCH


class Bulk:
    """The bulk-ingest methods of :class:`~beliefdb.BeliefDB`."""

    database: Database

    def bulk_ingest(self, *items: str | Path | tuple[str, str], authority: str | None = None,
                    label: str | None = None, origin: str | None = None, version_label: str | None = None,
                    extractor: str = "rules", batch: int = DEFAULT_BATCH, embed: bool = True,
                    progress: Callable[[int, int], None] | None = None,
                    max_bytes: int | None = None,
                    embed_progress: Callable[[int, int], None] | None = None) -> BulkReport:
        """Ingest many documents: paths (a directory: its .txt/.md/.markdown files, each source named by
        its path below it; a file: by its name) or ``(source, text)`` pairs. Each document is its own
        source version with its exact fragments and evidence, stored as :meth:`ingest` would; ``batch``
        documents a transaction, with one audit event each. A document that cannot be read (too large,
        empty, not UTF-8) is listed in the report's ``failed``, the others stored; one the database refuses
        raises before its batch is written, earlier batches staying, and running the same documents again
        resumes (what is stored is a no-op). ``progress(done, total)`` after each batch (documents); then
        ``embed_progress(done, total)`` (new beliefs embedded: most are embedded after the last batch, the
        embedder being far slower than the writes); ``embed=False`` leaves the new beliefs for :meth:`embed`."""
        check_callback(progress, "progress")
        check_callback(embed_progress, "embed_progress")
        options = SourceOptions(authority=authority, provenance=label, origin=origin, version_label=version_label)
        items = tuple(item if isinstance(item, tuple) else given_path(item, "items") for item in items)
        return bulk.bulk_ingest(self.database, items, options, batch=batch, extractor=extractor, embed=embed,
                                progress=progress, max_bytes=max_bytes, embed_progress=embed_progress)
