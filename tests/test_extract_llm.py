"""The LLM extractor against a local server that speaks the chat-completions API with scripted answers:
good answers, malformed JSON, schema mismatches, paraphrased and invented quotes, server errors and timeouts.
Whatever the model says, only quotes that are exact substrings of the document are stored (truth rule 1)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql

import beliefdb
from beliefdb import errors
from beliefdb.cli.common import ExtractorName
from beliefdb.text.extractor import KINDS
from beliefdb.text.llm import RESPONSE_FORMAT, SCHEMA, LLMConfig, LLMExtractor, chunk_text
from beliefdb.text.registry import EXTRACTORS, get_extractor

DOC = ("# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
       "The restocking fee is 10% for opened items.\n")
Q7 = "Returns are accepted within 7 days of delivery."
QFEE = "The restocking fee is 10% for opened items."
WINDOW = {"statement": "Returns are accepted within 7 days of delivery.", "subject": "return_policy",
          "attribute": "window", "value": "7 days", "quote": Q7, "kind": "policy", "scope": []}
FEE = {"statement": "Opened items have a 10% restocking fee.", "subject": "Restocking fee", "attribute": "rate",
       "value": "10%", "quote": QFEE, "kind": "policy", "scope": [{"key": "condition", "value": "opened"}]}
PARAPHRASED = {**WINDOW, "statement": "Returns: one week.", "value": "one week",
               "quote": "Returns are accepted up to one week after delivery."}
INVENTED = {"statement": "Refunds are issued within 3 business days.", "subject": "refund_policy",
            "attribute": "delay", "value": "3 business days", "quote": "Refunds are issued within 3 business days.",
            "kind": "policy", "scope": []}
TABLES = ("source", "source_version", "fragment", "belief", "evidence")


def answer(*beliefs: dict[str, Any]) -> str:
    return json.dumps({"beliefs": list(beliefs)})


# --- the scripted server -----------------------------------------------------------------------------

@dataclass
class Reply:
    """One scripted answer: a chat completion whose message content is ``content``, or an HTTP error."""

    content: str = ""
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def user_text(self) -> str:
        return "\n".join(m["content"] for m in self.body["messages"] if m["role"] == "user")


class ChatServer:
    """A chat-completions server on 127.0.0.1 (random port) that answers from a script, in order.

    When the script runs out, the last reply repeats (so ``[Reply(status=500)]`` always fails).
    Requests are served in parallel threads, so a slow reply does not hold up the retry after a timeout.
    """

    def __init__(self) -> None:
        self.script: list[Reply] = [Reply(answer())]
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with outer._lock:
                    outer.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.body is not None:
                    data = reply.body
                elif reply.status == 200:
                    data = json.dumps({
                        "id": "chatcmpl-test", "object": "chat.completion", "model": body.get("model"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply.content}}],
                    }).encode()
                else:
                    data = json.dumps({"error": {"message": f"scripted {reply.status}"}}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # server_close joins its threads
        self.server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def env(self) -> dict[str, str]:
        """The settings that point the llm extractor at this server (the ``llm`` fixture sets them in
        this process; a ``cli`` call is given them explicitly)."""
        return {"BELIEFDB_LLM_URL": self.url, "BELIEFDB_LLM_MODEL": "test-model", "BELIEFDB_LLM_BACKOFF": "0.001"}

    def answers(self, *replies: Reply | str) -> None:
        self.script = [r if isinstance(r, Reply) else Reply(r) for r in replies]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


def serving_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A scripted chat server, configured as beliefdb's LLM endpoint (and nothing else of the LLM's
    settings) while it runs."""
    server = ChatServer()
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    for name in ("BELIEFDB_LLM_API_KEY", "BELIEFDB_LLM_TIMEOUT", "BELIEFDB_LLM_RETRIES",
                 "BELIEFDB_LLM_HTTP_RETRIES", "BELIEFDB_LLM_CHUNK_CHARS"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)


def counts(conn: psycopg.Connection[Any]) -> dict[str, int]:
    out = {}
    for table in TABLES:
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
        assert row is not None
        out[table] = int(row[0])
    conn.rollback()
    return out


def extractor(**config: Any) -> tuple[LLMExtractor, list[float]]:
    """An extractor from the environment (plus overrides) that records its backoff sleeps instead of sleeping."""
    sleeps: list[float] = []
    base = LLMConfig.from_env()
    cfg = LLMConfig(**{**base.__dict__, **config})
    return LLMExtractor(cfg, sleep=sleeps.append), sleeps


# --- a good answer -----------------------------------------------------------------------------------

def test_good_answer_is_stored_with_exact_quotes_and_offsets(llm: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    llm.answers(answer(WINDOW, FEE))
    report = bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert report.rejected == []
    got = {(a.subject, a.attribute, a.value, a.quote, a.start, a.end) for a in report.accepted}
    assert got == {("return_policy", "window", "7 days", Q7, DOC.index(Q7), DOC.index(Q7) + len(Q7)),
                   ("restocking_fee", "rate", "10%", QFEE, DOC.index(QFEE), DOC.index(QFEE) + len(QFEE))}
    stored = {b.subject: b for b in bdb.beliefs()}
    assert stored["restocking_fee"].scope == {"condition": "opened"}
    assert stored["return_policy"].kind == "policy"
    assert len(llm.seen) == 1


def test_the_request_carries_model_document_schema_and_key(llm: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LLM_API_KEY", "sk-test-123")
    llm.answers(answer(WINDOW))
    found = get_extractor("llm").extract(DOC, source_name="return-policy.md")
    assert [c.quote for c in found] == [Q7]
    assert found[0].start is None and found[0].end is None  # offsets are the gate's job, never the model's
    (seen,) = llm.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test-123"
    assert seen.headers["content-type"] == "application/json"
    assert seen.body["model"] == "test-model"
    assert seen.body["temperature"] == 0
    assert DOC in seen.user_text and "return-policy.md" in seen.user_text
    system = seen.body["messages"][0]
    assert system["role"] == "system" and "character for character" in system["content"]
    fmt = seen.body["response_format"]
    assert fmt == RESPONSE_FORMAT and fmt["type"] == "json_schema"
    assert fmt["json_schema"]["strict"] is True and fmt["json_schema"]["schema"] == SCHEMA
    item = SCHEMA["properties"]["beliefs"]["items"]
    assert set(item["required"]) == {"statement", "subject", "attribute", "value", "quote", "kind", "scope"}
    assert item["additionalProperties"] is False and item["properties"]["kind"]["enum"] == list(KINDS)


def test_no_authorization_header_without_a_key(llm: ChatServer) -> None:
    get_extractor("llm").extract(DOC, source_name="a.md")
    assert "authorization" not in llm.seen[0].headers


def test_default_model_and_trailing_slash(llm: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_MODEL")
    monkeypatch.setenv("BELIEFDB_LLM_URL", llm.url + "/")
    get_extractor("llm").extract(DOC, source_name="a.md")
    assert llm.seen[0].body["model"] == "gpt-4o-mini" and llm.seen[0].path == "/v1/chat/completions"


# --- malformed answers -------------------------------------------------------------------------------

def test_malformed_json_is_re_asked_and_counted(llm: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    llm.answers('{"beliefs": [{"statement": "Returns', answer(WINDOW))
    ext, _ = extractor()
    found = ext.extract(DOC, source_name="return-policy.md")
    assert [c.quote for c in found] == [Q7]
    assert ext.stats.malformed == 1 and ext.stats.requests == 2
    retry = llm.seen[1].body["messages"]
    assert retry[-2] == {"role": "assistant", "content": '{"beliefs": [{"statement": "Returns'}
    assert "not JSON" in retry[-1]["content"] and DOC in retry[1]["content"]

    llm.seen.clear()
    llm.answers("Sure! Here are the beliefs you asked for.", answer(WINDOW))
    report = bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert [a.quote for a in report.accepted] == [Q7] and len(llm.seen) == 2


@pytest.mark.parametrize("bad", [
    json.dumps([WINDOW]),                                               # not the object
    json.dumps({"beliefs": [{**WINDOW, "value": ["7 days"]}]}),         # wrong type
    json.dumps({"beliefs": [{k: v for k, v in WINDOW.items() if k != "quote"}]}),  # missing field
    json.dumps({"beliefs": [{**WINDOW, "subject": "  "}]}),             # empty name
    json.dumps({"beliefs": [{**WINDOW, "scope": [{"key": "region"}]}]}),  # bad scope
    # a NUL character, which PostgreSQL text cannot hold: the whole document failed as invalid input
    json.dumps({"beliefs": [{**WINDOW, "value": "7\u0000days"}]}),
    json.dumps({"beliefs": [{**WINDOW, "scope": [{"key": "region", "value": "E\u0000U"}]}]}),
    json.dumps({"beliefs": [{**WINDOW, "value": "7\ud800days"}]}),  # a lone surrogate, which psycopg cannot send
])
def test_schema_mismatch_is_re_asked(llm: ChatServer, bad: str) -> None:
    llm.answers(bad, answer(WINDOW))
    ext, _ = extractor()
    assert [c.quote for c in ext.extract(DOC, source_name="a.md")] == [Q7]
    assert ext.stats.malformed == 1
    assert "not usable" in llm.seen[1].body["messages"][-1]["content"]


def test_fenced_json_is_accepted(llm: ChatServer) -> None:
    llm.answers(f"```json\n{answer(WINDOW)}\n```")
    ext, _ = extractor()
    assert [c.quote for c in ext.extract(DOC, source_name="a.md")] == [Q7] and ext.stats.malformed == 0


def test_always_malformed_fails_after_the_retries_and_writes_nothing(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    llm.answers("not json")
    ext, _ = extractor(retries=1)
    with pytest.raises(errors.ExtractorUnavailable, match=r"no usable answer .* in 2 attempts: the answer is not JSON"):
        ext.extract(DOC, source_name="a.md")
    assert ext.stats.malformed == 2
    llm.seen.clear()
    with pytest.raises(errors.ExtractorUnavailable) as caught:
        bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert caught.value.code == "extractor_unavailable"
    assert len(llm.seen) == 3  # default: 2 re-asks
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)


def test_unknown_kind_becomes_other_and_is_counted(llm: ChatServer) -> None:
    llm.answers(answer({**WINDOW, "kind": "guideline"}))
    ext, _ = extractor()
    (found,) = ext.extract(DOC, source_name="a.md")
    assert found.kind == "other" and ext.stats.unknown_kinds == 1 and ext.stats.malformed == 0


# --- the gate: paraphrases and inventions ------------------------------------------------------------

def test_paraphrased_and_invented_quotes_are_rejected_counted_and_not_stored(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    recased = {**FEE, "quote": QFEE.lower()}
    llm.answers(answer(WINDOW, PARAPHRASED, INVENTED, recased))
    report = bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert [a.quote for a in report.accepted] == [Q7]
    reasons = {r.quote: r.reason for r in report.rejected}
    assert reasons == {PARAPHRASED["quote"]: "quote is not in the source text",
                       INVENTED["quote"]: "quote is not in the source text",
                       QFEE.lower(): "quote differs from the source text in letter case"}
    assert [(b.subject, b.value) for b in bdb.beliefs(include_all=True)] == [("return_policy", "7 days")]
    assert counts(postgresql)["belief"] == 1 and counts(postgresql)["evidence"] == 1


def test_rejections_show_in_the_cli_report(llm: ChatServer, cli: Cli, tmp_path: Path) -> None:
    llm.answers(answer(WINDOW, PARAPHRASED, INVENTED))
    doc = tmp_path / "return-policy.md"
    doc.write_text(DOC, encoding="utf-8")
    report = cli.json("ingest", str(doc), "--extractor", "llm", env=llm.env)
    assert [a["quote"] for a in report["accepted"]] == [Q7]
    assert sorted(r["quote"] for r in report["rejected"]) == sorted([PARAPHRASED["quote"], INVENTED["quote"]])
    assert all(r["reason"] == "quote is not in the source text" for r in report["rejected"])

    llm.answers(answer(WINDOW, INVENTED))
    doc.write_text(DOC + "\nExchanges are free.\n", encoding="utf-8")
    result = cli("ingest", str(doc), "--extractor", "llm", env=llm.env)
    assert f'✗ rejected "{INVENTED["quote"]}": quote is not in the source text' in result.stdout


# --- HTTP failures -----------------------------------------------------------------------------------

def test_a_500_then_success_is_retried_with_backoff(llm: ChatServer, bdb: beliefdb.BeliefDB,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    llm.answers(Reply(status=500), Reply(status=503), answer(WINDOW))
    ext, sleeps = extractor(backoff=0.25)
    with caplog.at_level(logging.DEBUG, logger="beliefdb.text.llm"):
        assert [c.quote for c in ext.extract(DOC, source_name="a.md")] == [Q7]
    assert sleeps == [0.25, 0.5] and ext.stats.http_retries == 2 and ext.stats.requests == 3
    assert ext.stats.malformed == 0
    # retries are logged, below WARNING: Python's last-resort handler would print WARNINGs under the CLI's error
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.INFO]
    assert "HTTP 500" in caplog.records[0].getMessage()

    llm.answers(Reply(status=502), answer(WINDOW))
    report = bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert [a.quote for a in report.accepted] == [Q7]


def test_429_honours_retry_after(llm: ChatServer) -> None:
    llm.answers(Reply(status=429, headers={"Retry-After": "0.02"}), answer(WINDOW))
    ext, sleeps = extractor(backoff=5.0)
    assert [c.quote for c in ext.extract(DOC, source_name="a.md")] == [Q7]
    assert sleeps == [0.02]


def test_a_timeout_is_retried(llm: ChatServer) -> None:
    llm.answers(Reply(answer(WINDOW), delay=1.0), answer(WINDOW))
    ext, sleeps = extractor(timeout=0.2)
    assert [c.quote for c in ext.extract(DOC, source_name="a.md")] == [Q7]
    assert len(sleeps) == 1 and ext.stats.http_retries == 1


def test_one_attempt_is_said_in_the_singular(llm: ChatServer) -> None:
    llm.answers("not json")
    ext, _ = extractor(retries=0)
    with pytest.raises(errors.ExtractorUnavailable, match=r"no usable answer .* in 1 attempt: the answer is not JSON"):
        ext.extract(DOC, source_name="a.md")
    llm.answers(Reply(status=500))
    ext, _ = extractor(http_retries=0)
    with pytest.raises(errors.ExtractorUnavailable, match=r"failed after 1 attempt: HTTP 500"):
        ext.extract(DOC, source_name="a.md")


def test_always_500_is_a_clear_error_and_nothing_is_written(
        llm: ChatServer, bdb: beliefdb.BeliefDB, cli: Cli, tmp_path: Path,
        postgresql: psycopg.Connection[Any]) -> None:
    llm.answers(Reply(status=500))
    with pytest.raises(errors.ExtractorUnavailable, match=r"failed after 4 attempts: HTTP 500"):
        bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert len(llm.seen) == 4
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)

    doc = tmp_path / "return-policy.md"
    doc.write_text(DOC, encoding="utf-8")
    result = cli("ingest", str(doc), "--extractor", "llm", env=llm.env, expect=1)
    assert result.stdout.strip() == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: the llm endpoint "), result.stderr
    assert "HTTP 500" in lines[0] and "Traceback" not in result.output
    assert cli.json("ingest", str(doc), "--extractor", "llm", env=llm.env, expect=1)["error"] == "extractor_unavailable"
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)


def test_a_client_error_is_not_retried(llm: ChatServer) -> None:
    llm.answers(Reply(status=401))
    ext, sleeps = extractor()
    with pytest.raises(errors.ExtractorRefused, match=r"refused the request with HTTP 401: scripted 401"):
        ext.extract(DOC, source_name="a.md")
    assert sleeps == [] and len(llm.seen) == 1


def test_a_closed_port_fails_after_the_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    server = ChatServer()
    url = server.url
    server.close()  # nothing listens there now
    monkeypatch.setenv("BELIEFDB_LLM_URL", url)
    ext = LLMExtractor(LLMConfig(url=url, http_retries=2), sleep=lambda _s: None)
    with pytest.raises(errors.ExtractorUnavailable, match=r"failed after 3 attempts: ConnectionRefusedError"):
        ext.extract(DOC, source_name="a.md")


# --- long documents ----------------------------------------------------------------------------------

def test_long_documents_are_sent_in_chunks_and_duplicates_dropped(llm: ChatServer, bdb: beliefdb.BeliefDB,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    paragraphs = [f"Paragraph {i} talks about nothing in particular, at some length." for i in range(12)]
    text = "\n\n".join([Q7, *paragraphs, QFEE]) + "\n"
    monkeypatch.setenv("BELIEFDB_LLM_CHUNK_CHARS", "200")
    chunks = chunk_text(text, 200)
    assert len(chunks) >= 3 and all(len(c) <= 200 for c in chunks)
    assert "".join(chunks) == text
    # the same belief from every chunk (a model repeating itself), and the fee once
    llm.answers(*[answer(WINDOW) for _ in chunks[:-1]], answer(WINDOW, FEE))
    ext = get_extractor("llm")
    assert isinstance(ext, LLMExtractor)
    found = ext.extract(text, source_name="long.md")
    assert [c.quote for c in found] == [Q7, QFEE]
    assert ext.stats.chunks == len(chunks) == len(llm.seen) and ext.stats.duplicates == len(chunks) - 1
    for seen, chunk in zip(llm.seen, chunks, strict=True):
        assert chunk in seen.user_text and (chunk == chunks[0] or Q7 not in seen.user_text)

    llm.answers(*[answer(WINDOW) for _ in chunks[:-1]], answer(WINDOW, FEE))
    report = bdb.ingest_text(text, source="long.md", extractor="llm")
    assert sorted(a.quote for a in report.accepted) == sorted([Q7, QFEE]) and report.rejected == []


def test_an_oversized_paragraph_is_cut_at_lines() -> None:
    text = "\n".join(f"line {i:03d} " + "x" * 40 for i in range(20))
    chunks = chunk_text(text, 120)
    assert "".join(chunks) == text and all(len(c) <= 120 for c in chunks)
    assert all(c.endswith("\n") for c in chunks[:-1])
    assert chunk_text("  \n\n \n", 100) == []


# --- configuration -----------------------------------------------------------------------------------

def test_registered_and_the_rule_extractor_stays_the_default(no_endpoint: None, cli_without_db: Cli) -> None:
    assert EXTRACTORS["llm"] is LLMExtractor and ExtractorName("llm") is ExtractorName.llm
    get_extractor("rules")  # importing and using other extractors needs no endpoint
    result = cli_without_db("ingest", "--help")
    assert "BELIEFDB_LLM_URL" in result.output


def test_no_endpoint_is_a_clear_error(no_endpoint: None, bdb: beliefdb.BeliefDB,
                                      postgresql: psycopg.Connection[Any]) -> None:
    message = ("the llm extractor needs an OpenAI-compatible endpoint: set BELIEFDB_LLM_URL "
               "(e.g. http://127.0.0.1:8080/v1; the rule extractor is the default)")
    with pytest.raises(errors.InvalidInput) as caught:
        get_extractor("llm")
    assert caught.value.message == message
    with pytest.raises(errors.InvalidInput):
        bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)


def test_no_endpoint_through_the_cli_exits_with_one_error_line(
        no_endpoint: None, cli: Cli, tmp_path: Path, postgresql: psycopg.Connection[Any]) -> None:
    doc = tmp_path / "return-policy.md"
    doc.write_text(DOC, encoding="utf-8")
    result = cli.fail("ingest", str(doc), "--extractor", "llm")
    assert result.stdout.strip() == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: the llm extractor needs an OpenAI-compatible endpoint: set BELIEFDB_LLM_URL")
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)
    cli("ingest", str(doc))  # the default still works without any LLM settings


@pytest.mark.parametrize(("name", "value", "says"), [
    ("BELIEFDB_LLM_TIMEOUT", "soon", "BELIEFDB_LLM_TIMEOUT must be a number"),
    ("BELIEFDB_LLM_TIMEOUT", "0", "more than 0 seconds"),
    ("BELIEFDB_LLM_RETRIES", "1.5", "BELIEFDB_LLM_RETRIES must be a whole number"),
    ("BELIEFDB_LLM_HTTP_RETRIES", "-1", "must not be negative"),
    ("BELIEFDB_LLM_URL", "127.0.0.1:8080", "must be an http(s) URL"),
])
def test_bad_settings_are_invalid_input(llm: ChatServer, monkeypatch: pytest.MonkeyPatch, name: str, value: str,
                                        says: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(errors.InvalidInput, match=says.replace("(", r"\(").replace(")", r"\)")):
        get_extractor("llm")
    assert llm.seen == []


def test_the_api_key_is_not_in_the_repr() -> None:
    assert "sk-secret" not in repr(LLMConfig(url="http://127.0.0.1:1/v1", api_key="sk-secret"))


@pytest.mark.slow
def test_importing_the_module_first_works(no_endpoint: None) -> None:
    code = ("import beliefdb.text.llm as m; from beliefdb.text.registry import EXTRACTORS; "
            "assert EXTRACTORS['llm'] is m.LLMExtractor; print(sorted(EXTRACTORS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['llm', 'none', 'rules']"


def test_among_several_files_a_failure_names_its_file(llm: ChatServer, cli: Cli, tmp_path: Path) -> None:
    """Three files, the endpoint failing for the second: the others are stored, and the error line says which
    file it was (it said only "error: the llm endpoint … failed", where a bad file's error names it)."""
    llm.answers(answer(WINDOW), Reply(status=500), answer(WINDOW))
    paths = []
    for name in ("m1.md", "m2.md", "m3.md"):
        (tmp_path / name).write_text(DOC, encoding="utf-8")
        paths.append(str(tmp_path / name))
    result = cli("ingest", *paths, "--extractor", "llm", env={**llm.env, "BELIEFDB_LLM_HTTP_RETRIES": "0"}, expect=1)
    errors_said = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors_said) == 1 and errors_said[0].startswith(f"error: {paths[1]}: the llm endpoint "), result.stderr
    assert "m1.md: source 'm1.md' version 1" in result.stdout and "m3.md: source 'm3.md'" in result.stdout


def test_a_directory_of_one_file_names_it_when_it_fails(llm: ChatServer, cli: Cli, tmp_path: Path) -> None:
    """A directory holding one file gave one result, taken for a file given alone: its error line named no file."""
    llm.answers(Reply(status=500))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "m1.md").write_text(DOC, encoding="utf-8")
    result = cli("ingest", tmp_path / "docs", "--extractor", "llm", env={**llm.env, "BELIEFDB_LLM_HTTP_RETRIES": "0"},
                 expect=1)
    (said,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert said.startswith("error: ") and "m1.md: the llm endpoint " in said, result.stderr
