"""The picture methods of :class:`~beliefdb.api.async_memory.AsyncBeliefDB` (it inherits them), each
:class:`~beliefdb.api.pictures.Pictures`' method of the same name awaited on a worker thread."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from beliefdb.api.async_part import AsyncPart
from beliefdb.models import Graph, NodeLabel


class AsyncPictures(AsyncPart):
    """Why a node is held, what a change would do, a run and the workspace as pictures, and what names a node."""


    async def why_graph(self, ref: str | UUID, *, as_of: datetime | None = None, limit: int | None = None,
                        offset: int = 0, include_fixtures: bool = False) -> Graph:
        return await self.call(self.sync.why_graph, ref, as_of=as_of, limit=limit, offset=offset,
                               include_fixtures=include_fixtures)

    async def impact_graph(self, *refs: str | UUID, limit: int | None = None, offset: int = 0,
                           include_fixtures: bool = False, source: str | None = None, version: int | None = None
                           ) -> Graph:
        return await self.call(self.sync.impact_graph, *refs, limit=limit, offset=offset,
                               include_fixtures=include_fixtures, source=source, version=version)

    async def run_graph(self, ref: str | UUID) -> Graph:
        return await self.call(self.sync.run_graph, ref)

    async def workspace_graph(self, *, subject: str | None = None, status: str | None = None,
                              since: datetime | None = None, until: datetime | None = None,
                              as_of: datetime | None = None, limit: int = 200, offset: int = 0) -> Graph:
        return await self.call(self.sync.workspace_graph, subject=subject, status=status, since=since, until=until,
                               as_of=as_of, limit=limit, offset=offset)

    async def labels(self, ids: Sequence[UUID]) -> list[NodeLabel]:
        return await self.call(self.sync.labels, ids)
