"""The LLM extractor: candidate beliefs from an OpenAI-compatible chat endpoint (optional).

Usage::

    export BELIEFDB_LLM_URL=http://127.0.0.1:8080/v1      # any OpenAI-compatible server (required)
    export BELIEFDB_LLM_MODEL=gpt-4o-mini                  # default: gpt-4o-mini
    export BELIEFDB_LLM_API_KEY=...                        # optional, sent as "Authorization: Bearer ..."
    beliefdb ingest return-policy.md --extractor llm       # or db.ingest_text(..., extractor="llm")

The rule extractor stays the default; without ``BELIEFDB_LLM_URL`` the ``llm`` extractor is refused with
:class:`beliefdb.errors.InvalidInput` when it is created (importing this module needs no configuration).

Other settings (environment, or :class:`LLMConfig` in code):

- ``BELIEFDB_LLM_TIMEOUT`` seconds per request (default 60);
- ``BELIEFDB_LLM_RETRIES`` re-asks after a malformed answer (not JSON, or not the schema; default 2);
- ``BELIEFDB_LLM_HTTP_RETRIES`` retries after HTTP 429/5xx, timeouts and connection errors (default 3), waiting
  ``BELIEFDB_LLM_BACKOFF`` seconds (default 0.5) doubled each time, or the server's ``Retry-After`` (at most 30 s);
- ``BELIEFDB_LLM_CHUNK_CHARS`` the largest piece of a document sent in one request (default 6000): long documents
  are cut at paragraph breaks (lines, then a hard cut, for a longer paragraph) and each piece is asked for separately.

What is sent: ``POST {BELIEFDB_LLM_URL}/chat/completions`` with ``temperature`` 0 and a strict JSON schema as
``response_format`` (``{"type": "json_schema", ...}``): ``{"beliefs": [{statement, subject, attribute, value,
quote, kind, scope}]}``, ``scope`` being a list of ``{key, value}`` conditions. The prompt says the quote must be
copied from the document exactly, character for character.

The model proposes; it decides nothing. Candidates go through the same exact-quote evidence gate as every other
extractor (:mod:`beliefdb.gate`): a paraphrased or invented quote is rejected with its reason and counted in the
ingest report, never stored. Offsets are never taken from the model: ``start``/``end`` stay None and the gate
finds the quote in the text. Subject and attribute are normalised like the rule extractor's
(:func:`beliefdb.extract.normalise_name`), so both name the same thing the same way. A kind outside
:data:`beliefdb.vocabulary.BELIEF_KINDS` becomes ``other``; the same candidate from two pieces of a document is
kept once.

Failures: a malformed answer is re-asked (telling the model what was wrong); HTTP 429/5xx, timeouts and refused
connections are retried with exponential backoff; any other HTTP error is not retried. When retries run out,
:class:`beliefdb.errors.ExtractorUnavailable` is raised before anything is written, so the ingest stores nothing.

Counts: each extractor has ``stats`` (:class:`LLMStats`: requests, malformed answers, HTTP retries, kinds mapped
to ``other``, duplicates dropped); malformed answers, unknown kinds and retries are also logged at INFO on the
``beliefdb.extract_llm`` logger (not WARNING, so the CLI's one-line errors stay one line). Unlike the rule
extractor's, the answers depend on the model and the server.
"""

from __future__ import annotations

import http.client
import itertools
import json
import logging
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from beliefdb import errors
from beliefdb.extract import Candidate, Extractor, normalise_name
from beliefdb.vocabulary import BELIEF_KINDS

__all__ = ["DEFAULT_MODEL", "RESPONSE_FORMAT", "SCHEMA", "LLMConfig", "LLMExtractor", "LLMStats", "chunk_text"]

log = logging.getLogger(__name__)

DEFAULT_MODEL: Final = "gpt-4o-mini"
NO_ENDPOINT: Final = ("the llm extractor needs an OpenAI-compatible endpoint: set BELIEFDB_LLM_URL "
                      "(e.g. http://127.0.0.1:8080/v1; the rule extractor is the default)")
MAX_RETRY_AFTER: Final = 30.0
_FIELDS: Final = ("statement", "subject", "attribute", "value", "quote")


SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "beliefs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "statement": {"type": "string", "description": "the belief as one self-contained sentence"},
                    "subject": {"type": "string", "description": "what it is about, snake_case, e.g. return_policy"},
                    "attribute": {"type": "string", "description": "which property, snake_case, e.g. window"},
                    "value": {"type": "string", "description": "the value as written, e.g. 7 days"},
                    "quote": {"type": "string",
                              "description": "the supporting text copied exactly, character for character"},
                    "kind": {"type": "string", "enum": list(BELIEF_KINDS)},
                    "scope": {
                        "type": "array",
                        "description": "conditions under which it holds, e.g. region = EU; empty if none",
                        "items": {
                            "type": "object",
                            "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                            "required": ["key", "value"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": [*_FIELDS, "kind", "scope"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["beliefs"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: Final[dict[str, Any]] = {
    "type": "json_schema",
    "json_schema": {"name": "candidate_beliefs", "strict": True, "schema": SCHEMA},
}

SYSTEM_PROMPT: Final = f"""\
You extract candidate beliefs (facts, rules, policies, preferences, ...) from a document for an agent's memory.
Answer with JSON only: {{"beliefs": [...]}}, each belief having
- statement: the belief as one self-contained sentence;
- subject and attribute: short snake_case names (e.g. subject "return_policy", attribute "window");
- value: the value as the document states it (e.g. "7 days");
- quote: the exact text of the document that supports the belief. Copy it exactly, character for character:
  a contiguous span of the document, usually one whole sentence or line, with the same letters, case, spacing,
  punctuation and typos. Never paraphrase, summarise, translate, shorten with "..." or join separate passages.
  A belief whose quote is not found verbatim in the document is rejected.
- kind: one of {", ".join(BELIEF_KINDS)};
- scope: the conditions under which it holds as a list of {{"key", "value"}} pairs (e.g. region = EU), or [].
Only state what the document says. If it says nothing that can be a belief, answer {{"beliefs": []}}."""


@dataclass
class LLMStats:
    """What one extractor did so far (it accumulates over calls)."""

    requests: int = 0
    chunks: int = 0
    malformed: int = 0
    """answers that were not JSON or did not match the schema (each one was re-asked)"""
    http_retries: int = 0
    unknown_kinds: int = 0
    """candidates whose kind was not one of BELIEF_KINDS, kept as ``other``"""
    duplicates: int = 0
    candidates: int = 0


def _env_number(env: Mapping[str, str], name: str, default: float, *, integer: bool = False) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise errors.InvalidInput(f"{name} must be {kind}, not {raw!r}") from None
    if value < 0 or value != value:
        raise errors.InvalidInput(f"{name} must not be negative, not {raw!r}")
    return value


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask; :meth:`from_env` reads the ``BELIEFDB_LLM_*`` variables."""

    url: str
    model: str = DEFAULT_MODEL
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    retries: int = 2
    http_retries: int = 3
    backoff: float = 0.5
    chunk_chars: int = 6000

    def __post_init__(self) -> None:
        if not self.url.strip():
            raise errors.InvalidInput(NO_ENDPOINT)
        if not re.match(r"https?://[^/\s]+", self.url.strip()):
            raise errors.InvalidInput(f"BELIEFDB_LLM_URL must be an http(s) URL, not {self.url!r}")
        if self.timeout <= 0:
            raise errors.InvalidInput("BELIEFDB_LLM_TIMEOUT must be more than 0 seconds")
        if self.chunk_chars < 100:
            raise errors.InvalidInput("BELIEFDB_LLM_CHUNK_CHARS must be at least 100")
        if min(self.retries, self.http_retries) < 0 or self.backoff < 0:
            raise errors.InvalidInput("LLM retries and backoff must not be negative")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig:
        env = os.environ if env is None else env
        url = env.get("BELIEFDB_LLM_URL", "").strip()
        if not url:
            raise errors.InvalidInput(NO_ENDPOINT)
        return cls(
            url=url,
            model=env.get("BELIEFDB_LLM_MODEL", "").strip() or DEFAULT_MODEL,
            api_key=env.get("BELIEFDB_LLM_API_KEY", "").strip() or None,
            timeout=_env_number(env, "BELIEFDB_LLM_TIMEOUT", 60.0),
            retries=int(_env_number(env, "BELIEFDB_LLM_RETRIES", 2, integer=True)),
            http_retries=int(_env_number(env, "BELIEFDB_LLM_HTTP_RETRIES", 3, integer=True)),
            backoff=_env_number(env, "BELIEFDB_LLM_BACKOFF", 0.5),
            chunk_chars=int(_env_number(env, "BELIEFDB_LLM_CHUNK_CHARS", 6000, integer=True)),
        )

    @property
    def endpoint(self) -> str:
        return self.url.strip().rstrip("/") + "/chat/completions"


# --- chunks ------------------------------------------------------------------------------------------

_PARAGRAPH_BREAK: Final = re.compile(r"\n[ \t\r\f\v]*\n\s*")


def _cut(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """``text[start:end]`` in pieces of at most ``max_chars``, cut after a line break when there is one."""
    pieces = []
    while end - start > max_chars:
        window_end = start + max_chars
        newline = text.rfind("\n", start + 1, window_end)
        cut = newline + 1 if newline > start else window_end
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def chunk_text(text: str, max_chars: int) -> list[str]:
    """``text`` in consecutive pieces of at most ``max_chars``, cut at paragraph breaks where possible.

    The pieces are exact slices: joined, they give ``text`` back. Whitespace-only pieces are left out.
    """
    bounds = [0, *(m.end() for m in _PARAGRAPH_BREAK.finditer(text)), len(text)]
    paragraphs = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
    spans: list[tuple[int, int]] = []
    for a, b in paragraphs:
        for piece in _cut(text, a, b, max_chars):
            if spans and piece[1] - spans[-1][0] <= max_chars:
                spans[-1] = (spans[-1][0], piece[1])
            else:
                spans.append(piece)
    return [text[a:b] for a, b in spans if text[a:b].strip()]


# --- answers -----------------------------------------------------------------------------------------

class _Malformed(Exception):
    """The answer cannot be used; the message says why (and is sent back to the model)."""


_FENCE: Final = re.compile(r"^```(?:json)?\s*\n(?P<body>.*)\n```\s*$", re.DOTALL)


def _content(body: Any) -> str:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise _Malformed("the response has no choices[0].message") from None
    if not isinstance(message, dict):
        raise _Malformed("choices[0].message is not an object")
    if message.get("refusal"):
        raise _Malformed(f"the model refused: {str(message['refusal'])[:200]}")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise _Malformed("the answer is empty")
    return content


def _scope(raw: Any, where: str) -> dict[str, str]:
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list):
        pairs = []
        for item in raw:
            if not isinstance(item, dict) or "key" not in item or "value" not in item:
                raise _Malformed(f"{where}: scope items must be objects with key and value")
            pairs.append((item["key"], item["value"]))
    else:
        raise _Malformed(f"{where}: scope must be a list of {{key, value}} objects")
    scope: dict[str, str] = {}
    for key, value in pairs:
        if not isinstance(key, str) or not key.strip() or not isinstance(value, str):
            raise _Malformed(f"{where}: scope keys must be non-empty strings and values strings")
        scope[key.strip()] = value
    return scope


def _name(raw: str) -> str:
    """Like the rule extractor's names; text normalise_name cannot spell in ASCII keeps its own letters."""
    return normalise_name(raw) or re.sub(r"\s+", "_", raw.strip().lower())


def parse_answer(content: str) -> list[dict[str, Any]]:
    """The belief objects of an answer (fields checked, names not yet normalised), or _Malformed."""
    fenced = _FENCE.match(content.strip())
    try:
        data = json.loads(fenced["body"] if fenced else content)
    except json.JSONDecodeError as exc:
        raise _Malformed(f"the answer is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("beliefs"), list):
        raise _Malformed('the answer must be an object {"beliefs": [...]}')
    items: list[dict[str, Any]] = []
    for i, item in enumerate(data["beliefs"]):
        where = f"beliefs[{i}]"
        if not isinstance(item, dict):
            raise _Malformed(f"{where} is not an object")
        for key in _FIELDS:
            if not isinstance(item.get(key), str):
                raise _Malformed(f"{where}: '{key}' must be a string")
        for key in ("statement", "subject", "attribute"):
            if not item[key].strip() or (key != "statement" and not _name(item[key])):
                raise _Malformed(f"{where}: '{key}' must not be empty")
        kind = item.get("kind", "other")
        if not isinstance(kind, str):
            raise _Malformed(f"{where}: 'kind' must be a string")
        items.append({**{k: item[k] for k in _FIELDS}, "kind": kind, "scope": _scope(item.get("scope", []), where)})
    return items


# --- the extractor -----------------------------------------------------------------------------------

class LLMExtractor(Extractor):
    """Candidates proposed by a chat model (see the module docstring); the evidence gate decides."""

    name = "llm"

    def __init__(self, config: LLMConfig | None = None, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config if config is not None else LLMConfig.from_env()
        self.stats = LLMStats()
        self._sleep = sleep

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        seen: dict[tuple[Any, ...], Candidate] = {}
        for chunk in chunk_text(text, self.config.chunk_chars):
            self.stats.chunks += 1
            for candidate in self._ask(chunk, source_name):
                key = (candidate.subject, candidate.attribute, candidate.value, candidate.quote, candidate.kind,
                       tuple(sorted(candidate.scope.items())))
                if key in seen:
                    self.stats.duplicates += 1
                else:
                    seen[key] = candidate
        self.stats.candidates += len(seen)
        return list(seen.values())

    def _candidate(self, item: Mapping[str, Any]) -> Candidate:
        kind = item["kind"].strip().lower()
        if kind not in BELIEF_KINDS:
            self.stats.unknown_kinds += 1
            log.info("llm extractor: unknown kind %r for %r, kept as 'other'", item["kind"], item["statement"])
            kind = "other"
        return Candidate(statement=item["statement"].strip(), subject=_name(item["subject"]),
                         attribute=_name(item["attribute"]), value=item["value"].strip(), quote=item["quote"],
                         kind=kind, scope=item["scope"])

    def _ask(self, chunk: str, source_name: str) -> list[Candidate]:
        messages: list[dict[str, str]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Document: {source_name}\n<document>\n{chunk}\n</document>"},
        ]
        attempts = self.config.retries + 1
        reason = ""
        for _ in range(attempts):
            content: str | None = None
            try:
                content = _content(self._post(messages))
                return [self._candidate(item) for item in parse_answer(content)]
            except _Malformed as exc:
                reason = str(exc)
                self.stats.malformed += 1
                log.info("llm extractor: malformed answer for %s: %s", source_name, reason)
                del messages[2:]  # re-ask from the document, with only the last answer and what was wrong
                if content is not None:
                    messages.append({"role": "assistant", "content": content[:4000]})
                messages.append({"role": "user", "content": (
                    f"That answer was not usable: {reason}. Answer again with only the JSON object "
                    '{"beliefs": [...]} of the schema, quotes copied exactly from the document.')})
        raise errors.ExtractorUnavailable(
            f"the llm extractor got no usable answer from {self.config.endpoint} in {attempts} attempts: {reason}")

    def _request(self, messages: list[dict[str, str]]) -> urllib.request.Request:
        payload = {"model": self.config.model, "messages": messages, "temperature": 0,
                   "response_format": RESPONSE_FORMAT}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        return urllib.request.Request(self.config.endpoint, data=json.dumps(payload).encode("utf-8"),
                                      headers=headers, method="POST")

    def _post(self, messages: list[dict[str, str]]) -> Any:
        """The decoded JSON body of one chat completion, retrying what may pass; raises what will not."""
        endpoint = self.config.endpoint
        attempts = self.config.http_retries + 1
        problem = ""
        for attempt in range(attempts):
            retry_after: float | None = None
            self.stats.requests += 1
            try:
                with urllib.request.urlopen(self._request(messages), timeout=self.config.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                with exc:
                    detail = exc.read(300).decode("utf-8", "replace").strip()
                    header = exc.headers.get("Retry-After") if exc.headers is not None else None
                problem = f"HTTP {exc.code}" + (f": {' '.join(detail.split())}" if detail else "")
                if exc.code != 429 and exc.code < 500:
                    raise errors.ExtractorUnavailable(f"the llm endpoint {endpoint} answered {problem}") from None
                retry_after = _seconds(header)
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                problem = "timed out" if isinstance(cause, TimeoutError) else f"{type(cause).__name__}: {cause}"
            else:
                try:
                    return json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    raise _Malformed("the response body is not JSON") from None
            if attempt + 1 < attempts:
                self.stats.http_retries += 1
                delay = self.config.backoff * 2 ** attempt
                if retry_after is not None:
                    delay = min(retry_after, MAX_RETRY_AFTER)
                log.info("llm extractor: %s %s; retrying in %.2fs", endpoint, problem, delay)
                self._sleep(delay)
        raise errors.ExtractorUnavailable(
            f"the llm endpoint {endpoint} failed after {attempts} attempts: {problem}")


def _seconds(header: str | None) -> float | None:
    if header is None:
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        return None
