"""The LangChain retriever (``beliefdb.adapters.langchain.BeliefRetriever``) against the real
langchain-core package and the real database: each document is a current belief carrying its quote,
source, offsets, confidence and warnings; a superseded or retracted belief is never a document; a
low-confidence one carries its warning; ainvoke over the async client and over a BeliefDB."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda

import beliefdb
from beliefdb.adapters.langchain import BeliefRetriever

POLICY = "# Return policy\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
QUESTION = "how many days for returns?"


def test_documents_carry_their_evidence(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    days = next(a for a in report.accepted if a.value == "7 days")
    retriever = BeliefRetriever(db=bdb, k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke(QUESTION)
    assert all(isinstance(d, Document) for d in docs)
    first = docs[0]
    assert first.page_content == days.statement and first.id == str(days.id)
    m = first.metadata
    assert (m["belief_id"], m["quote"], m["source"], m["version"]) == (str(days.id), days.quote, "return-policy.md", 1)
    assert POLICY[m["start"]:m["end"]] == m["quote"] == "Returns are accepted within 7 days of delivery."
    assert m["confidence"] == pytest.approx(0.9) and m["warnings"] == [] and m["authority"] == "official"
    assert (m["subject"], m["value"], m["status"]) == (days.subject, "7 days", "current") and m["score"] > 0
    assert "statement" not in m
    # a retriever is a runnable: it composes
    chain = retriever | RunnableLambda(lambda found: "\n".join(f"{d.page_content} [{d.metadata['source']}]"
                                                               for d in found))
    assert chain.invoke(QUESTION).startswith(f"{days.statement} [return-policy.md]")


def test_superseded_and_retracted_beliefs_are_never_documents(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    days = next(a for a in report.accepted if a.value == "7 days")
    seen = bdb.preview_correction(days.id)
    bdb.apply_correction(days.id, "Returns are accepted within 14 days.", value="14 days", reviewer="rita",
                         expect_revision=seen.revision)
    retriever = BeliefRetriever(db=bdb, k=5)
    docs = retriever.invoke(QUESTION)
    assert str(days.id) not in [d.id for d in docs]
    assert "7 days" not in [d.metadata["value"] for d in docs]
    corrected = next(d for d in docs if d.metadata["value"] == "14 days")
    assert corrected.metadata["confidence_kind"] == "human_correction"
    assert any(w.startswith("replaced '7 days'") for w in corrected.metadata["warnings"])

    bdb.ingest_text("The loyalty discount is 20%.\n", source="forum-post", authority="unverified")
    assert [d.metadata["value"] for d in retriever.invoke("what is the loyalty discount?")] == ["20%"]
    bdb.retract(source="forum-post", reason="poisoned")
    assert retriever.invoke("what is the loyalty discount?") == []


def test_a_low_confidence_belief_carries_its_warning(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("The gift wrap fee is 3 euros.\n", source="rumour", authority="unverified")
    bdb.decay(now=datetime.now(UTC) + timedelta(days=3 * 365))  # three years without new evidence
    (doc,) = BeliefRetriever(db=bdb).invoke("what is the gift wrap fee?")
    assert doc.metadata["value"] == "3 euros" and doc.metadata["confidence"] < 0.3
    assert any(w.startswith("low confidence") for w in doc.metadata["warnings"]), doc.metadata["warnings"]
    assert BeliefRetriever(db=bdb, min_confidence=0.3).invoke("what is the gift wrap fee?") == []


def test_ainvoke_over_the_async_client_and_over_a_beliefdb(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    expected = [d.id for d in BeliefRetriever(db=bdb).invoke(QUESTION)]

    async def both() -> None:
        async with await beliefdb.aconnect(db_url, max_size=2) as adb:
            over_async = BeliefRetriever(db=adb)
            assert [d.id for d in await over_async.ainvoke(QUESTION)] == expected
            assert [d.id for d in over_async.invoke(QUESTION)] == expected  # sync on the same memory
            together = await asyncio.gather(over_async.ainvoke(QUESTION), over_async.ainvoke("restocking fee?"))
            assert [d.id for d in together[0]] == expected and together[1]
        assert [d.id for d in await BeliefRetriever(db=bdb).ainvoke(QUESTION)] == expected

    asyncio.run(both())
