"""The review queue through :class:`~beliefdb.BeliefDB` (it inherits it from :class:`Review`): the items a
person approves or rejects (flagged decisions, held actions, conflicts, proposals to an owner)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.models import ReviewItem, ReviewResolution
from beliefdb.store import review


class Review:
    """The review methods of :class:`~beliefdb.BeliefDB` (one transaction each)."""

    database: Database

    def review_items(self, *, limit: int | None = None, after: str | UUID | None = None,
                     kind: str | Sequence[str] | None = None) -> list[ReviewItem]:
        """Open review items: flagged decisions, held actions, conflicts, proposals to an owner; oldest first,
        at most ``limit`` (all when None), those after the item ``after`` (the last one of the page before);
        only those of ``kind`` (one kind or several: ``conflict``, ``decision_flagged``, ``action_held``,
        ``correction_proposed``, ``version_proposed``, ``retraction_proposed``) when given. Each names who may
        resolve it (``owners``)."""
        return review.list_items(self.database, limit=limit, after=after, kind=kind)

    def review_count(self) -> int:
        """How many review items are open (what :meth:`review_items` would list with no limit)."""
        return review.count_items(self.database)

    def resolve_review(self, item: str | UUID, verdict: str, *, note: str | None = None,
                       winner: str | UUID | None = None) -> ReviewResolution:
        """Approve or reject (``verdict``: approved | rejected) an open review item. The resolution says what
        the verdict applied (an approved conflict: the winner, the loser and the decisions flagged and actions
        held by the loser's loss) and which other review items it closed (``closed``, each with its note). An
        item resolved already raises :class:`~beliefdb.errors.AlreadyResolved`."""
        return review.resolve_item(self.database, item, verdict, note=note, winner=winner)
