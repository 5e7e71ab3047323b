"""The pictures :class:`~beliefdb.BeliefDB` draws (it inherits them from :class:`Pictures`): why a
belief, decision or action is held, what a change would do, a run's trace, and the product view's
workspace, each as a :class:`~beliefdb.models.graph.Graph` that ``beliefdb.graph.to_mermaid``,
``to_dot`` and ``to_text`` render."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.inputs import ids_of
from beliefdb.models import Graph, NodeLabel


class Pictures:
    """The picture methods of :class:`~beliefdb.BeliefDB` (one transaction each, reads only).

    Each imports the builders (:mod:`beliefdb.graph`) when it is called: every command imports this
    module, and only the picture commands draw."""

    database: Database

    def why_graph(self, ref: str | UUID, *, as_of: datetime | None = None, limit: int | None = None,
                  offset: int = 0, include_fixtures: bool = False) -> Graph:
        """Why a belief, decision or action (id or unique prefix) is held, as a picture: a belief's sources
        (the quote on each edge), what it replaced, was replaced by or conflicts with, and what is built on
        it (decisions, their actions, derived beliefs); a decision's reasons, live and lost, its actions and
        outcome; an action's decision and its reasons. ``as_of``: what was recorded by then. ``limit``: a
        belief's picture draws at most that many of what rests on it, from ``offset`` (decisions first);
        ``page`` says which of how many. Production history only unless ``include_fixtures`` (every world,
        labelled): a fixture belief is refused, fixture material left out. A decision or action a reviewer
        approved or rejected carries the verdict (``GraphNode.verdict``: who, when, their note). An id that
        names no belief, decision or action but a review item draws what the item is about (its node, or a
        proposal's source), the item in ``Graph.review_item``."""
        from beliefdb import graph

        return graph.why_graph(self.database, ref, as_of=as_of, limit=limit, offset=offset,
                               include_fixtures=include_fixtures)

    def impact_graph(self, *refs: str | UUID, limit: int | None = None, offset: int = 0,
                     include_fixtures: bool = False, source: str | None = None, version: int | None = None) -> Graph:
        """:meth:`impact` as a picture: each node it names marked stops_holding, stops_current (still holds,
        superseded anew), becomes_current, would_flag, would_hold or survives (with what it survives on), a
        fragment folded into its source, with the nodes asked about and the edges between them. With
        ``limit``, at most that many marked nodes from ``offset`` (flagged decisions and held actions
        first): ``page`` says which of how many, ``totals`` how many nodes each mark names in the whole
        answer. Production history only unless ``include_fixtures`` (every world, labelled): a fixture
        target is refused, fixture material left out of the marks and totals. ``source`` and ``version``: as
        :meth:`impact` takes them."""
        from beliefdb import graph

        return graph.impact_graph(self.database, refs, limit=limit, offset=offset, include_fixtures=include_fixtures,
                                  source=source, version=version)

    def run_graph(self, ref: str | UUID) -> Graph:
        """A run's trace (id or unique prefix) as a picture: the run, its steps, what each read or rested on
        and what it wrote, marked with what a repair made of them."""
        from beliefdb import graph

        return graph.run_graph(self.database, ref)

    def workspace_graph(self, *, subject: str | None = None, status: str | None = None,
                        since: datetime | None = None, until: datetime | None = None,
                        as_of: datetime | None = None, limit: int = 200, offset: int = 0) -> Graph:
        """The product view: Sources → Beliefs → Decisions → Actions for the newest ``limit`` production
        beliefs from ``offset`` of ``subject`` with ``status`` recorded in [``since``, ``until``) (or as
        believed at ``as_of``), corrections and supersessions on the beliefs they changed; ``truncated``
        when more beliefs passed the filters, ``page`` which of how many they are."""
        from beliefdb import graph

        return graph.workspace_graph(self.database, subject=subject, status=status, since=since, until=until,
                                     as_of=as_of, limit=limit, offset=offset)

    def labels(self, ids: Sequence[UUID]) -> list[NodeLabel]:
        """What names each of these beliefs, decisions and actions to a person (its statement, title or
        description), as a page names what a change touched: these ids only, in one read; any other id
        (a fragment, a correction, an unknown one) is left out. A fixture belief is named like any other:
        the page that asks decided to show it."""
        from beliefdb.graph import read

        return read.labels(self.database, ids_of(ids, "ids"))
