"""One HTTP client for the OpenAI-compatible endpoints beliefdb calls (``/embeddings`` for the openai
embedder, ``/chat/completions`` for the llm extractor), on ``httpx``.

A call is one JSON ``POST {base_url}/{path}`` whose whole answer must come within the timeout (checked as it
arrives, each read waiting the timeout at most: within about twice it in all) and be at most
:data:`MAX_ANSWER_BYTES` long and, when there is a key,
``Authorization: Bearer …`` (a user part of the URL goes as HTTP Basic auth, as httpx sends it, and is in no
URL httpx logs nor an error names: :func:`beliefdb.settings.masked_url`). HTTP 429 and 5xx, timeouts and
connection errors are retried up to ``retries`` times (not a TLS certificate this machine does not trust,
:class:`Untrusted`), waiting ``backoff`` seconds doubled each time, or what
the server's ``Retry-After`` asks (seconds or an HTTP date), at most :data:`MAX_WAIT` (30 s) each time. Any
other HTTP error is not retried. The callers turn :class:`EndpointError` into their own beliefdb exception
(:class:`beliefdb.errors.EmbedderUnavailable`, :class:`beliefdb.errors.ExtractorUnavailable`; their
:class:`Refused` is :class:`beliefdb.errors.EmbedderRefused`, :class:`beliefdb.errors.ExtractorRefused`).
"""

from __future__ import annotations

import email.utils
import json
import re
import ssl
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

from beliefdb import errors
from beliefdb.inputs import storable
from beliefdb.settings import masked_url

if TYPE_CHECKING:
    import httpx

__all__ = ["MAX_ANSWER_BYTES", "MAX_RETRY_AFTER", "MAX_WAIT", "EndpointError", "Failed", "Malformed",
           "OpenAIClient", "Refused", "Untrusted", "retry_after"]

T = TypeVar("T")

#: the longest wait between two attempts, in seconds: the doubled backoff's, or a server's Retry-After's
MAX_WAIT: Final = 30.0
#: the longest wait a server's Retry-After may impose (:data:`MAX_WAIT`)
MAX_RETRY_AFTER: Final = MAX_WAIT
_DETAIL_CHARS: Final = 300
#: the largest answer read, in bytes: an endpoint that sends more is not read to the end (the memory it
#: would take), its answer malformed
MAX_ANSWER_BYTES: Final = 64 * 1024 * 1024


class EndpointError(Exception):
    """The endpoint gave nothing usable; ``problem`` says why in a few words (e.g. ``HTTP 500: …``); ``url`` is
    the endpoint as messages name it, a password in its user part masked (:func:`beliefdb.settings.masked_url`)."""

    def __init__(self, url: str, problem: str, *, status: int | None = None) -> None:
        super().__init__(problem)
        self.url = url
        self.problem = problem
        self.status = status


class Refused(EndpointError):
    """An HTTP error that is not retried (4xx other than 429); ``said`` is the endpoint's own error message
    (OpenAI's ``{"error": {"message": ...}}``, or the body's first characters), "" when it gave none."""

    def __init__(self, url: str, problem: str, *, status: int | None = None, said: str = "") -> None:
        super().__init__(url, problem, status=status)
        self.said = said

    def explained(self, endpoint: str, settings: str) -> str:
        """One line for the caller's error: which endpoint refused, its status and message, and the settings to
        check (asking again will not help); what made it unsendable, when it was refused before it was sent (a
        key no HTTP header can carry)."""
        if self.status is None:
            return f"no request was sent to the {endpoint}: {self.problem}; check {settings}"
        said = f": {errors.echoed(self.said)}" if self.said else ""
        return (f"the {endpoint} refused the request with HTTP {self.status}{said}; trying again will not help:"
                f" check {settings}")


class Untrusted(Refused):
    """The endpoint's TLS certificate is not one this machine trusts (a private CA, a self-signed certificate):
    asking again meets it again; ``SSL_CERT_FILE`` (or ``SSL_CERT_DIR``), read by httpx, names what to trust."""

    def explained(self, endpoint: str, settings: str) -> str:
        # (SSL_CERT_FILE replaces the trust store: a bundle of the CA alone untrusts every public endpoint)
        return (f"the {endpoint} is not trusted: {self.problem}; trying again will not help: unless its"
                " certificate expired or names another host, set SSL_CERT_FILE to a CA bundle holding the public"
                " roots and the CA that signed it (or SSL_CERT_DIR to a directory of them)")


class Failed(EndpointError):
    """Every attempt failed (HTTP 429/5xx, timeouts, connection errors, or malformed answers when retried)."""

    def __init__(self, url: str, problem: str, *, attempts: int, status: int | None = None,
                 malformed: bool = False) -> None:
        super().__init__(url, problem, status=status)
        self.attempts = attempts
        self.malformed = malformed


class Malformed(EndpointError):
    """The answer is not JSON, or ``decode`` refused it (when malformed answers are not retried)."""


def retry_after(header: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delay-seconds or an HTTP date), or None."""
    if header is None or not header.strip():
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _transport_problem(exc: httpx.TransportError) -> str:
    """``timed out``, or the innermost cause (e.g. ``ConnectionRefusedError: [Errno 111] …``)."""
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    inner: BaseException = exc
    while type(inner).__module__.split(".")[0] in ("httpx", "httpcore"):  # httpcore chains without ``from``
        below = inner.__cause__ or inner.__context__
        if below is None:
            break
        inner = below
    if isinstance(inner, TimeoutError):
        return "timed out"
    return f"{type(inner).__name__}: {inner}"


def _untrusted(exc: BaseException) -> ssl.SSLCertVerificationError | None:
    """The certificate error a transport error comes from (httpcore chains without ``from``), or None."""
    inner: BaseException | None = exc
    for _ in range(10):
        if inner is None or isinstance(inner, ssl.SSLCertVerificationError):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None


def _detail(response: httpx.Response, hide: Callable[[str], str] = str) -> str:
    """The body's first characters on one line, ``hide`` applied before the cut (a secret across it is not
    half shown)."""
    text = hide(response.content[:_DETAIL_CHARS * 8].decode("utf-8", "replace"))[:_DETAIL_CHARS].strip()
    return " ".join(text.split())


def _said(response: httpx.Response, hide: Callable[[str], str] = str) -> str:
    """The error message of an OpenAI-compatible error answer (``{"error": {"message": ...}}``, or
    ``{"error": "..."}``, ``{"message": ...}``, ``{"detail": ...}``), on one line; else :func:`_detail`."""
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        return _detail(response, hide)
    found: Any = body.get("error") if isinstance(body, dict) else None
    if isinstance(found, dict):
        found = found.get("message")
    if found is None and isinstance(body, dict):
        found = body.get("message") or body.get("detail")
    if not isinstance(found, str) or not found.strip():
        return _detail(response, hide)
    return " ".join(hide(found)[:_DETAIL_CHARS].split())


class _TooLarge(Exception):
    pass


def _read_whole(streamed: httpx.Response, deadline: float, limit: int) -> httpx.Response:
    """``streamed``'s whole answer, read by ``deadline`` (:func:`time.monotonic`; the client's timeout is of
    each read, so an endpoint that sends a byte now and then would hold the caller for ever) and of at most
    ``limit`` bytes (:class:`_TooLarge`)."""
    import httpx

    chunks, size = [], 0
    for chunk in streamed.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the answer took longer than the timeout")
    # (decoded already: a Content-Encoding kept would have the answer decoded twice)
    headers = [(k, v) for k, v in streamed.headers.multi_items() if k.lower() != "content-encoding"]
    return httpx.Response(streamed.status_code, headers=headers, content=b"".join(chunks),
                          request=streamed.request)


def _without_user(url: str) -> tuple[httpx.URL, httpx.Auth]:
    """``url`` without its user part, and that part as the HTTP Basic auth httpx would make of it (none
    without one): httpx logs each request's URL as it is (at INFO), a password in it too."""
    import httpx

    target = httpx.URL(url)
    if not (target.username or target.password):
        return target, httpx.Auth()
    return target.copy_with(userinfo=b""), httpx.BasicAuth(target.username, target.password)


def _identity(body: Any) -> Any:
    return body


class OpenAIClient:
    """JSON POSTs to one OpenAI-compatible base URL (e.g. ``http://127.0.0.1:8080/v1``), with retries."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 30.0, retries: int = 3,
                 backoff: float = 0.5, sleep: Callable[[float], None] = time.sleep,
                 on_attempt: Callable[[], None] | None = None,
                 on_retry: Callable[[str, float], None] | None = None,
                 max_answer_bytes: int = MAX_ANSWER_BYTES) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.max_answer_bytes = max_answer_bytes
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        self._on_attempt = on_attempt
        self._on_retry = on_retry

    def __repr__(self) -> str:  # never the key, nor a password in the URL
        return f"OpenAIClient({masked_url(self.base_url)!r}, timeout={self.timeout}, retries={self.retries})"

    def endpoint(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _hidden(self, said: str) -> str:
        """What the endpoint (or the HTTP client) said, the configured key masked in every form it may take
        there: as sent, JSON-escaped (a slash escaped too), as Python shows its bytes. An endpoint may repeat it in
        its error (a proxy's "invalid key sk-…"), and what it says reaches error lines, --json, logs and a
        queued job's stored reason."""
        key = self.api_key
        said = storable(said)  # (it may be stored: a queued job's reason)
        if not key or not key.strip():
            return said
        escaped = json.dumps(key)[1:-1]
        # (Go's encoder escapes & < > too, and \u escapes may be in upper case)
        go = escaped.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
        forms = {key, escaped, go, repr(key.encode("utf-8"))[2:-1], repr(key)[1:-1]}
        forms |= {re.sub(r"\\u[0-9a-f]{4}", lambda m: m[0].upper().replace("\\U", "\\u"), f) for f in forms}
        forms |= {f.replace("/", "\\/") for f in forms}
        for form in sorted(forms, key=len, reverse=True):
            said = said.replace(form, "********")
        return said

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def post(self, path: str, payload: Any, *, decode: Callable[[Any], T] = _identity,
             retry_malformed: bool = False) -> T:
        """``decode`` of the JSON answer to ``payload``. A body that is not JSON, or that ``decode``
        refuses (ValueError, KeyError, TypeError, IndexError), raises :class:`Malformed`, or is retried
        like a server error when ``retry_malformed``. Raises :class:`Refused` or :class:`Failed`."""
        # (imported here: httpx is ~80 ms of every command's start, and most never call an endpoint)
        import httpx

        url = self.endpoint(path)
        shown = masked_url(url)
        if self.api_key and not self.api_key.isascii():
            raise Refused(shown, "the API key is not ASCII text, which an HTTP header cannot carry")
        if self.api_key and not self.api_key.isprintable():
            raise Refused(shown, "the API key holds a line break or another control character (read from a file"
                                 " with its newline?), which an HTTP header cannot carry")
        attempts = self.retries + 1
        body = json.dumps(payload).encode("utf-8")
        problem, status, malformed = "no attempt", None, False
        with httpx.Client(timeout=httpx.Timeout(self.timeout), headers=self._headers()) as client:
            for attempt in range(attempts):
                wait: float | None = None
                status, malformed = None, False
                if self._on_attempt is not None:
                    self._on_attempt()
                try:
                    target, auth = _without_user(url)
                    deadline = time.monotonic() + self.timeout
                    with client.stream("POST", target, content=body, auth=auth) as streamed:
                        response = _read_whole(streamed, deadline, self.max_answer_bytes)
                except httpx.TransportError as exc:
                    if (untrusted := _untrusted(exc)) is not None:  # (not retried: it is the same each time)
                        raise Untrusted(shown, self._hidden(f"{type(untrusted).__name__}: {untrusted.verify_message}"
                                                            if untrusted.verify_message else str(untrusted))) from None
                    problem = self._hidden(_transport_problem(exc))
                except _TooLarge:
                    reason = f"the answer is larger than {self.max_answer_bytes:,} bytes"
                    if not retry_malformed:
                        raise Malformed(shown, reason) from None
                    problem, malformed = reason, True
                except (httpx.InvalidURL, UnicodeError) as exc:
                    # a URL no request can be made of (a host 'a..b' the client cannot encode): no endpoint
                    # answered, and asking again cannot help; the client's words quote a user part's password
                    # as a 'port' when it holds a '/', '?' or '#'
                    said = type(exc).__name__ if "@" in url else f"{type(exc).__name__}: {exc}"
                    raise Failed(shown, f"the URL cannot be used ({said})", attempts=attempt + 1) from None
                else:
                    if response.is_success:
                        try:
                            return decode(response.json())
                        except (ValueError, KeyError, TypeError, IndexError) as exc:
                            not_json = isinstance(exc, json.JSONDecodeError | UnicodeDecodeError)
                            reason = "the response body is not JSON" if not_json else f"{type(exc).__name__}: {exc}"
                            if not retry_malformed:
                                raise Malformed(shown, reason) from None
                            problem, malformed = reason, True
                    else:
                        status = response.status_code
                        detail = _detail(response, self._hidden)
                        problem = f"HTTP {status}" + (f": {detail}" if detail else "")
                        if status != 429 and status < 500:
                            raise Refused(shown, problem, status=status, said=_said(response, self._hidden))
                        wait = retry_after(response.headers.get("Retry-After"))
                if attempt + 1 < attempts:
                    # (doubled at most 32 times: 2 ** 1024 is no float, and the cap is reached long before)
                    delay = min(self.backoff * 2.0 ** min(attempt, 32) if wait is None else wait, MAX_WAIT)
                    if self._on_retry is not None:
                        self._on_retry(problem, delay)
                    self._sleep(delay)
        raise Failed(shown, problem, attempts=attempts, status=status, malformed=malformed)
