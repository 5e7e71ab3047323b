"""A LangChain retriever over beliefdb (extra ``langchain``): ``BeliefRetriever(db=...)`` answers a query
with :meth:`beliefdb.BeliefDB.ask`, so only beliefs current now come back (superseded, retracted,
unsupported, expired and fixture beliefs never do: rule 11 of docs/rules.md), ranked as ``ask`` ranks them.

Each ``Document`` is one belief: ``page_content`` is its statement, ``id`` its id, and ``metadata`` the
belief with its evidence as every adapter spells it (:func:`beliefdb.adapters.fields.answer_fields`):
``quote``, ``source``, ``version``, ``start``, ``end`` (the quote's offsets in that version),
``confidence``, ``warnings`` (open conflict, replaced, low confidence, provenance), ``belief_id``, and
``subject``, ``attribute``, ``value``, ``kind``, ``scope``, ``authority``, ``status``, plus ``score``.
"Memory unavailable" raises ``DatabaseUnavailable`` instead of looking like no match.

``ainvoke`` awaits the async client when given one (``db=await beliefdb.aconnect()``), else runs the
BeliefDB call on a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import ConfigDict

from beliefdb import errors
from beliefdb.adapters.fields import answer_fields
from beliefdb.api import AskResult, AsyncBeliefDB, BeliefDB

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - the extra is installed wherever the suite runs
    raise ImportError("beliefdb's LangChain retriever needs langchain-core: pip install 'beliefdb[langchain]'") from exc

__all__ = ["BeliefRetriever", "documents"]


def documents(result: AskResult) -> list[Document]:
    """An answer of ``ask`` as LangChain documents, in its order."""
    if result.status == "memory_unavailable":  # never an empty list that looks like no match (rule 11)
        raise errors.DatabaseUnavailable(result.reason or "memory unavailable")
    out = []
    for answer in result.beliefs:
        metadata: dict[str, Any] = answer_fields(answer)
        statement = metadata.pop("statement")
        metadata["score"] = answer.score
        out.append(Document(page_content=statement, metadata=metadata, id=metadata["belief_id"]))
    return out


class BeliefRetriever(BaseRetriever):
    """Current beliefs relevant to a query, as documents carrying their evidence.

    >>> retriever = BeliefRetriever(db=beliefdb.connect(), k=4)      # doctest: +SKIP
    >>> retriever.invoke("how many days for returns?")[0].metadata["quote"]   # doctest: +SKIP
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    #: the memory asked: a BeliefDB, or an async client (then ainvoke awaits it)
    db: BeliefDB | AsyncBeliefDB
    #: how many beliefs at most
    k: int = 5
    #: leave out beliefs under this confidence
    min_confidence: float = 0.0
    #: only beliefs whose conditions agree with this scope (e.g. {"region": "EU"}) on every key both name
    scope: dict[str, str] | None = None

    def _ask(self, db: BeliefDB, query: str) -> AskResult:
        return db.ask(query, k=self.k, min_confidence=self.min_confidence, scope=self.scope)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        db = self.db.sync if isinstance(self.db, AsyncBeliefDB) else self.db
        return documents(self._ask(db, query))

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        if isinstance(self.db, AsyncBeliefDB):
            return documents(await self.db.ask(query, k=self.k, min_confidence=self.min_confidence,
                                               scope=self.scope))
        return documents(await asyncio.to_thread(self._ask, self.db, query))
