"""The source texts :class:`~beliefdb.BeliefDB` reads for people (it inherits them from :class:`Texts`):
a quote shown where it stands in its source version, for the product view's belief page."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.models import SourceExcerpt
from beliefdb.store import beliefs


class Texts:
    """The source-text methods of :class:`~beliefdb.BeliefDB` (one transaction each, reads only)."""

    database: Database

    def source_excerpts(self, fragments: Sequence[UUID], *, context: int = 1000) -> list[SourceExcerpt]:
        """The text of each fragment's source version (a belief's evidence names its ``fragment_id``) around
        it, ``context`` characters either side, and where the excerpt starts: a quote shown in its source
        at its offsets, without reading a large document whole."""
        return beliefs.excerpts(self.database, fragments, context=context)
