"""The one HTTP client for OpenAI-compatible endpoints (beliefdb.openai_client, on httpx), against a local
server that answers from a script: Retry-After is honoured (really waited for), capped, and read as seconds or
an HTTP date; the embedder and the llm extractor both go through it."""

from __future__ import annotations

import base64
import ipaddress
import json
import logging
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from beliefdb import errors, settings
from beliefdb.embedders import OpenAIEmbedder
from beliefdb.errors import EmbedderUnavailable
from beliefdb.openai_client import MAX_RETRY_AFTER, MAX_WAIT, Failed, OpenAIClient, Refused, Untrusted, retry_after
from beliefdb.text.llm import LLMConfig, LLMExtractor

Q7 = "Returns are accepted within 7 days of delivery."
WINDOW = {"statement": Q7, "subject": "return_policy", "attribute": "window", "value": "7 days", "quote": Q7,
          "kind": "policy", "scope": []}


@dataclass
class Step:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # sent as it is instead of an answer
    trickle: float = 0.0  # seconds between the answer's bytes, sent one at a time


class Scripted:
    """An OpenAI-compatible server on 127.0.0.1 answering embeddings and chat completions; each request takes
    the next step of the script (the last one repeats) and its arrival time is recorded."""

    def __init__(self, *steps: Step, tls: ssl.SSLContext | None = None) -> None:
        self.script = list(steps) or [Step()]
        self.arrivals: list[float] = []
        self.paths: list[str] = []
        self.authorizations: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.arrivals.append(time.monotonic())
                outer.paths.append(self.path)
                outer.authorizations.append(self.headers.get("Authorization"))
                step = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if step.body is not None:
                    data = step.body
                elif step.status != 200:
                    data = json.dumps({"error": {"message": f"scripted {step.status}"}}).encode()
                elif self.path.endswith("/embeddings"):
                    data = json.dumps({"data": [{"index": i, "embedding": [1.0, 0.0, 0.0]}
                                                for i, _ in enumerate(body["input"])]}).encode()
                else:
                    content = json.dumps({"beliefs": [WINDOW]})
                    data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(step.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in step.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if not step.trickle:
                    self.wfile.write(data)
                    return
                try:
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(step.trickle)
                except OSError:  # the client gave up
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:  # (a handshake the client gives up is the server's OSError, not the test's)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Scripted] = []

    def start(*steps: Step, tls: ssl.SSLContext | None = None) -> Scripted:
        servers.append(Scripted(*steps, tls=tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def test_429_with_retry_after_is_retried_after_that_wait(serve: Any) -> None:
    server = serve(Step(429, {"Retry-After": "1"}), Step())
    retries: list[tuple[str, float]] = []
    client = OpenAIClient(server.url, retries=3, backoff=0.01, on_retry=lambda p, d: retries.append((p, d)))
    started = time.monotonic()
    body: Any = client.post("embeddings", {"model": "m", "input": ["a"]})
    assert body["data"][0]["embedding"] == [1.0, 0.0, 0.0]
    assert len(server.arrivals) == 2  # it retried once
    assert server.arrivals[1] - server.arrivals[0] >= 0.95  # and waited what the server asked, not the backoff
    assert time.monotonic() - started >= 0.95
    assert [(p.split(":")[0], d) for p, d in retries] == [("HTTP 429", 1.0)] and "scripted 429" in retries[0][0]


def test_the_llm_extractor_honours_retry_after(serve: Any) -> None:
    server = serve(Step(429, {"Retry-After": "1"}), Step())
    ext = LLMExtractor(LLMConfig(url=server.url, backoff=0.01))
    found = ext.extract(Q7 + "\n", source_name="a.md")
    assert [c.quote for c in found] == [Q7]
    assert len(server.arrivals) == 2 and server.arrivals[1] - server.arrivals[0] >= 0.95
    assert ext.stats.http_retries == 1 and ext.stats.requests == 2
    assert server.paths == ["/v1/chat/completions"] * 2


def test_the_embedder_honours_retry_after_on_503(serve: Any) -> None:
    server = serve(Step(503, {"Retry-After": "1"}), Step())
    sleeps: list[float] = []
    embedder = OpenAIEmbedder(url=server.url, model="tiny", backoff=0.01, sleep=sleeps.append)
    assert embedder.query("anything") == [1.0, 0.0, 0.0]
    assert sleeps == [1.0] and len(server.arrivals) == 2


def test_retry_after_is_capped_and_backoff_doubles_without_it(serve: Any) -> None:
    server = serve(Step(429, {"Retry-After": "3600"}), Step(500), Step(502), Step())
    sleeps: list[float] = []
    client = OpenAIClient(server.url, retries=3, backoff=0.25, sleep=sleeps.append)
    client.post("embeddings", {"model": "m", "input": ["a"]})
    assert sleeps == [MAX_RETRY_AFTER, 0.5, 1.0]


def test_errors_say_what_happened(serve: Any) -> None:
    server = serve(Step(401))
    with pytest.raises(Refused) as refused:
        OpenAIClient(server.url, sleep=lambda _s: None).post("embeddings", {})
    assert refused.value.status == 401 and refused.value.problem.startswith("HTTP 401: ")
    assert "scripted 401" in refused.value.problem
    assert len(server.arrivals) == 1  # a client error is not retried

    down = serve(Step(503))
    with pytest.raises(Failed) as failed:
        OpenAIClient(down.url, retries=2, sleep=lambda _s: None).post("embeddings", {})
    assert failed.value.attempts == 3 and failed.value.status == 503 and len(down.arrivals) == 3
    with pytest.raises(EmbedderUnavailable, match=r"^embedder unavailable: HTTP 503 from http://127\.0\.0\.1:"):
        OpenAIEmbedder(url=down.url, retries=1, sleep=lambda _s: None).query("x")
    with pytest.raises(errors.ExtractorUnavailable, match=r"failed after 2 attempts: HTTP 503: .*scripted 503"):
        LLMExtractor(LLMConfig(url=down.url, http_retries=1), sleep=lambda _s: None).extract(Q7, source_name="a")


def test_a_url_the_http_client_cannot_use_fails_at_once_in_its_own_words() -> None:
    """A host with an empty label ('a..b') passes the URL's syntax, which the settings check, and fails in the
    HTTP client's encoding of the name (UnicodeError), an error of no endpoint: Failed after one attempt,
    naming it, so that the embedder is unavailable and the extractor says so, in one line, not a traceback."""
    slept: list[float] = []
    with pytest.raises(Failed) as failed:
        OpenAIClient("http://a..b/v1", retries=3, sleep=slept.append).post("embeddings", {})
    assert failed.value.attempts == 1 and slept == []
    assert failed.value.problem.startswith("the URL cannot be used (UnicodeError: "), failed.value.problem
    said = r"^embedder unavailable: cannot reach http://a\.\.b/v1: the URL cannot be used \(UnicodeError"
    with pytest.raises(EmbedderUnavailable, match=said):
        OpenAIEmbedder(url="http://a..b/v1", sleep=slept.append).query("x")


def test_retry_after_forms() -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert retry_after("2") == 2.0 and retry_after("0.5") == 0.5 and retry_after("-3") == 0.0
    assert retry_after(format_datetime(now + timedelta(seconds=7), usegmt=True), now=now) == 7.0
    assert retry_after(format_datetime(now - timedelta(seconds=7), usegmt=True), now=now) == 0.0
    assert retry_after(None) is None and retry_after("") is None and retry_after("soon") is None


def test_the_key_is_sent_but_never_shown(serve: Any) -> None:
    client = OpenAIClient("http://127.0.0.1:1/v1/", api_key="sk-secret")
    assert "sk-secret" not in repr(client) and client.endpoint("embeddings") == "http://127.0.0.1:1/v1/embeddings"


def test_retries_and_backoff_are_settings_both_clients_use(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedder's retries and backoff were fixed (3, 0.5 s): they are BELIEFDB_EMBED_RETRIES and
    BELIEFDB_EMBED_BACKOFF, as the llm extractor's are BELIEFDB_LLM_HTTP_RETRIES and BELIEFDB_LLM_BACKOFF. A
    down endpoint is asked 1 + retries times, waiting the backoff doubled each time (really, when not told how
    to sleep); a value given in code still wins."""
    down = serve(Step(503))
    monkeypatch.setenv("BELIEFDB_EMBED_URL", down.url)
    monkeypatch.setenv("BELIEFDB_LLM_URL", down.url)
    monkeypatch.setenv("BELIEFDB_EMBED_RETRIES", "2")
    monkeypatch.setenv("BELIEFDB_EMBED_BACKOFF", "0.1")
    embedder = OpenAIEmbedder()
    assert (embedder.retries, embedder.backoff) == (2, 0.1)
    with pytest.raises(EmbedderUnavailable, match="HTTP 503"):
        embedder.query("x")
    assert len(down.arrivals) == 3
    gaps = [b - a for a, b in zip(down.arrivals, down.arrivals[1:], strict=False)]
    assert gaps[0] >= 0.095 and gaps[1] >= 0.195, gaps

    def asked(make: Any) -> tuple[int, list[float]]:
        before, sleeps = len(down.arrivals), []
        with pytest.raises((EmbedderUnavailable, errors.ExtractorUnavailable)):
            make(sleeps.append)
        return len(down.arrivals) - before, sleeps

    monkeypatch.setenv("BELIEFDB_EMBED_RETRIES", "0")
    assert asked(lambda s: OpenAIEmbedder(sleep=s).query("x")) == (1, [])
    monkeypatch.setenv("BELIEFDB_EMBED_RETRIES", "4")
    monkeypatch.setenv("BELIEFDB_EMBED_BACKOFF", "0.25")
    assert asked(lambda s: OpenAIEmbedder(sleep=s).query("x")) == (5, [0.25, 0.5, 1.0, 2.0])
    assert asked(lambda s: OpenAIEmbedder(retries=1, backoff=0.5, sleep=s).query("x")) == (2, [0.5])
    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "1")
    monkeypatch.setenv("BELIEFDB_LLM_BACKOFF", "0.75")
    assert asked(lambda s: LLMExtractor(sleep=s).extract(Q7, source_name="a.md")) == (2, [0.75])
    with pytest.raises(errors.InvalidInput, match="must not be negative"):
        OpenAIEmbedder(retries=-1)
    with pytest.raises(errors.InvalidInput, match="must not be negative"):
        OpenAIEmbedder(backoff=-0.5)


def test_no_message_names_an_endpoint_with_its_password(serve: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A password in an endpoint's URL (BELIEFDB_EMBED_URL, BELIEFDB_LLM_URL: a proxy's user part) reached the
    caller in every error naming the endpoint (a write's embedding_deferred is one), in the client's errors and
    repr, in the llm extractor's retry log and in httpx's log of each request: each names the URL as beliefdb
    config shows it, masked (the user part goes as HTTP Basic auth, as httpx sent it from the URL)."""
    secret = "s3cr3t-key"

    def hidden(url: str, password: str = secret) -> str:
        return url.replace("http://", f"http://bob:{password}@")

    said: list[str] = []
    nobody = "http://127.0.0.1:9/v1"  # nothing listens
    servers = [serve(Step(401)), serve(Step(503)), serve(Step(body=b"not json")), serve(Step(body=b"[]"))]
    with caplog.at_level(logging.INFO):
        for url in [hidden(server.url) for server in servers] + [hidden(nobody)]:
            calls = [lambda: OpenAIEmbedder(url=url, retries=1, sleep=lambda _s: None).query("x"),  # noqa: B023
                     lambda: LLMExtractor(LLMConfig(url=url, http_retries=1, retries=0),  # noqa: B023
                                          sleep=lambda _s: None).extract(Q7, source_name="a.md")]
            for call in calls:
                with pytest.raises(errors.BeliefDBError) as caught:
                    call()
                said.append(caught.value.message)
    logged = [m for m in caplog.messages if "http://" in m]  # (httpx logs each request's URL at INFO)
    assert any("retrying" in m for m in logged) and any(m.startswith("HTTP Request: POST") for m in logged)
    said += logged
    with pytest.raises(Failed) as failed:
        OpenAIClient(hidden(servers[1].url), retries=0).post("embeddings", {})
    said += [failed.value.url, str(failed.value), repr(OpenAIClient(hidden(servers[1].url)))]
    for password in (f"{secret}/x", f"{secret}#x"):  # given in code, past the settings' check: the client refuses it
        with pytest.raises(EmbedderUnavailable) as unusable:
            OpenAIEmbedder(url=hidden(nobody, password), sleep=lambda _s: None).query("x")
        said.append(unusable.value.message)
    with pytest.raises(errors.InvalidInput) as invalid:
        LLMConfig(url="ftp://bob:s3cr3t-key@proxy.example/v1")
    said.append(invalid.value.message)
    assert [line for line in said if secret in line] == []
    named = [line for line in said if "bob:" in line]
    assert len(named) >= 16 and all(f"bob:{settings.MASK}@" in line for line in named), said
    basic = "Basic " + base64.b64encode(f"bob:{secret}".encode()).decode()
    assert servers[1].authorizations == [basic] * 5  # the user part is still sent, as HTTP Basic auth


def test_the_doubled_backoff_is_capped(serve: Any) -> None:
    """Each wait is at most MAX_WAIT (30 s), as a server's Retry-After is: the backoff doubled without end made
    BELIEFDB_EMBED_RETRIES=20 wait ~6 days before its last attempt, and past ~1,000 retries the next wait
    overflowed (OverflowError, not a beliefdb error). The settings take at most 20 retries; code may give more."""
    down = serve(Step(503))
    sleeps: list[float] = []
    with pytest.raises(EmbedderUnavailable, match="HTTP 503"):
        OpenAIEmbedder(url=down.url, retries=10, backoff=0.5, sleep=sleeps.append).query("x")
    assert sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0] + [MAX_WAIT] * 4 and len(down.arrivals) == 11
    sleeps.clear()
    with pytest.raises(Failed) as failed:  # nothing listens: refused at once, 1,101 times
        OpenAIClient("http://127.0.0.1:9/v1", retries=1100, backoff=0.5, sleep=sleeps.append).post("embeddings", {})
    assert failed.value.attempts == 1101 and len(sleeps) == 1100 and max(sleeps) == MAX_WAIT == 30.0
    sleeps.clear()
    with pytest.raises(Failed):
        OpenAIClient("http://127.0.0.1:9/v1", retries=2, backoff=1e300, sleep=sleeps.append).post("embeddings", {})
    assert sleeps == [MAX_WAIT, MAX_WAIT]


def test_an_answer_sent_a_byte_at_a_time_is_given_up_at_the_timeout(serve: Any) -> None:
    """The timeout was of each read: an endpoint sending a byte every 0.2 s held the caller for as long as it
    went on (a worker's job for hours), where the timeout is documented as the request's."""
    server = serve(Step(trickle=0.2))
    client = OpenAIClient(server.url, timeout=1.0, retries=0)
    started = time.monotonic()
    with pytest.raises(Failed, match="timed out"):
        client.post("embeddings", {"input": ["a", "b", "c"], "model": "m"})
    assert time.monotonic() - started < 3.0


def test_an_answer_larger_than_the_limit_is_not_read_to_its_end(serve: Any) -> None:
    """An endpoint's answer was read whole, whatever its size: a flood took the caller's memory."""
    server = serve(Step(body=b"[" + b"1," * 600_000 + b"1]"))
    client = OpenAIClient(server.url, timeout=10.0, retries=0, max_answer_bytes=1_000_000)
    with pytest.raises(Failed, match="larger than 1,000,000 bytes") as caught:
        client.post("embeddings", {"input": ["a"], "model": "m"}, retry_malformed=True)
    assert caught.value.malformed
    under = OpenAIClient(serve(Step(body=b"[" + b"1," * 400_000 + b"1]")).url, timeout=10.0, retries=0,
                         max_answer_bytes=1_000_000)
    assert under.post("embeddings", {"input": ["a"], "model": "m"}, decode=len) == 400_001


def test_a_key_that_is_not_ascii_is_refused_in_words(serve: Any) -> None:
    """A key an HTTP header cannot carry raised httpx's UnicodeEncodeError: a traceback at the command line."""
    client = OpenAIClient(serve().url, api_key="sk-secrét-123", retries=0)
    with pytest.raises(Refused, match="the API key is not ASCII text") as caught:
        client.post("embeddings", {"input": ["a"], "model": "m"})
    assert "secr" not in str(caught.value)
    # (the llm extractor's error said "refused the request with HTTP None", without these words)
    said = caught.value.explained("llm endpoint x", "BELIEFDB_LLM_API_KEY")
    assert said == ("no request was sent to the llm endpoint x: the API key is not ASCII text, which an HTTP header"
                    " cannot carry; check BELIEFDB_LLM_API_KEY"), said
    client = OpenAIClient(serve().url, api_key="sk-abc123\n", retries=3)
    with pytest.raises(Refused, match="the API key holds a line break") as caught:
        client.post("embeddings", {"input": ["a"], "model": "m"})
    assert "abc123" not in str(caught.value)


def test_the_key_is_masked_as_go_and_upper_case_escapes_write_it(serve: Any) -> None:
    key = "sk-AB&CD<EF>GH/1234"
    go = "sk-AB\\u0026CD\\u003cEF\\u003eGH\\/1234"
    server = serve(Step(status=500, body=json.dumps({"error": {"message": f"bad key {go}"}}).encode()
                        .replace(b"\\\\u", b"\\u").replace(b"\\\\/", b"\\/")),
                   Step(status=500, body=f"bad key {go.replace('003c', '003C').replace('003e', '003E')}".encode()))
    client = OpenAIClient(server.url, api_key=key, retries=0)
    for _ in range(2):
        with pytest.raises(Failed) as caught:
            client.post("embeddings", {"input": ["a"], "model": "m"})
        assert "GH" not in str(caught.value) and "********" in str(caught.value), caught.value


def _self_signed(folder: Path) -> ssl.SSLContext:
    """A TLS server context for 127.0.0.1 with a self-signed certificate, written to ``folder`` as cert.pem."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "beliefdb test CA")])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=1))
            .not_valid_after(now + timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


def test_a_certificate_not_trusted_is_said_once_with_what_to_set(serve: Any, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A TLS certificate this machine does not trust was retried as a connection error, 4 times with backoffs,
    for the same error each time; it is said at once, naming SSL_CERT_FILE, which httpx reads."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    server = serve(tls=_self_signed(tmp_path))
    sleeps: list[float] = []
    client = OpenAIClient(server.url, retries=3, sleep=sleeps.append)
    with pytest.raises(Untrusted, match="certificate") as caught:
        client.post("embeddings", {"model": "m", "input": ["a"]})
    assert sleeps == [] and isinstance(caught.value, Refused)
    said = caught.value.explained("llm endpoint x", "BELIEFDB_LLM_API_KEY")
    assert said.startswith("the llm endpoint x is not trusted: SSLCertVerificationError:") and \
        "set SSL_CERT_FILE to a CA bundle holding the public roots" in said, said
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "cert.pem"))  # (as documented: then it is trusted)
    body: Any = OpenAIClient(server.url, retries=0).post("embeddings", {"model": "m", "input": ["a"]})
    assert body["data"][0]["embedding"] == [1.0, 0.0, 0.0]
