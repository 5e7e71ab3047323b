"""The LLM extractor: candidate beliefs from an OpenAI-compatible chat endpoint (optional).

Usage::

    export BELIEFDB_LLM_URL=http://127.0.0.1:8080/v1      # any OpenAI-compatible server (required)
    export BELIEFDB_LLM_MODEL=gpt-4o-mini                  # default: gpt-4o-mini
    export BELIEFDB_LLM_API_KEY=...                        # optional, sent as "Authorization: Bearer ..."
    beliefdb ingest return-policy.md --extractor llm       # or db.ingest_text(..., extractor="llm")

The rule extractor stays the default; without ``BELIEFDB_LLM_URL`` the ``llm`` extractor is refused with
:class:`beliefdb.errors.InvalidInput` when it is created (importing this module needs no configuration).

Other settings (environment, or :class:`LLMConfig` in code): ``BELIEFDB_LLM_TIMEOUT``, ``BELIEFDB_LLM_RETRIES``
(re-asks of a malformed answer), ``BELIEFDB_LLM_HTTP_RETRIES``, ``BELIEFDB_LLM_BACKOFF``, ``BELIEFDB_LLM_CHUNK_CHARS``
(the largest piece of a document asked for in one request): ``beliefdb config`` lists each with its value and what
it does (:mod:`beliefdb.settings`).

What is sent: ``POST {BELIEFDB_LLM_URL}/chat/completions`` (:mod:`beliefdb.openai_client`, on httpx) with
``temperature`` 0 and a strict JSON schema as ``response_format`` (``{"type": "json_schema", ...}``):
``{"beliefs": [{statement, subject, attribute, value, quote, kind, scope}]}``, ``scope`` being a list of
``{key, value}`` conditions. The schema is generated from the pydantic model
:class:`beliefdb.text.llm_schema.Answer`, which also checks the answer; what it refuses is a malformed answer. The
prompt says the quote must be copied from the document exactly, character for character.

The model proposes; it decides nothing. Candidates go through the same exact-quote evidence gate as every other
extractor (:mod:`beliefdb.text.gate`): a paraphrased or invented quote is rejected with its reason and counted in the
ingest report, never stored. Offsets are never taken from the model: the gate finds the quote in the text (its
first occurrence on word boundaries). More is asked of a model than of other extractors (rule 1 of docs/rules.md,
:func:`beliefdb.text.gate.model_quote`, checked on the model's own quote before a conversation's is widened to its
turn): a quote that cuts a word, a value that shares no word or number with its quote, and a first-person quote of
one turn given to another subject than its speaker are refused with the reason (:mod:`beliefdb.text.proposals`).
Subject and attribute are normalised like the rule extractor's (:func:`beliefdb.text.extractor.normalise_name`), so
both name the same thing the same way. A kind outside
:data:`beliefdb.vocabulary.BELIEF_KINDS` becomes ``other``; the same candidate from two pieces of a document is
kept once.

Failures: a malformed answer is re-asked (telling the model what was wrong); HTTP 429/5xx, timeouts and refused
connections are retried with exponential backoff (or the server's ``Retry-After``); when retries run out,
:class:`beliefdb.errors.ExtractorUnavailable` is raised. Any other HTTP error (400, 401, 403, 404, 422: a bad key,
an unknown model) is not retried: :class:`beliefdb.errors.ExtractorRefused` names the endpoint's status and
message. Either is raised before anything is written, so the ingest stores nothing.

Counts: each extractor has ``stats`` (:class:`LLMStats`: requests, malformed answers, HTTP retries, kinds mapped
to ``other``, duplicates dropped); malformed answers, unknown kinds and retries are also logged at INFO on the
``beliefdb.text.llm`` logger (not WARNING, so the CLI's one-line errors stay one line). Unlike the rule
extractor's, the answers depend on the model and the server.
"""

from __future__ import annotations

import itertools
import logging
import re
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from beliefdb import errors, settings
from beliefdb.openai_client import MAX_WAIT, EndpointError, Failed, Malformed, OpenAIClient, Refused
from beliefdb.text.extractor import Candidate, Extractor, on_turn, turn_of
from beliefdb.text.llm_schema import (
    RESPONSE_FORMAT,
    SCHEMA,
    Answer,
    BeliefItem,
    ScopeCondition,
    parse_answer,
    snake_name,
)
from beliefdb.text.llm_schema import MalformedAnswer as _Malformed
from beliefdb.text.llm_schema import content as _content
from beliefdb.text.naming import as_said, speaker_subject
from beliefdb.text.proposals import checked, other_speaker
from beliefdb.text.turns import TurnSpan
from beliefdb.vocabulary import BELIEF_KINDS

__all__ = ["DEFAULT_MODEL", "RESPONSE_FORMAT", "SCHEMA", "Answer", "BeliefItem", "LLMConfig", "LLMExtractor",
           "LLMStats", "ScopeCondition", "chunk_text"]

log = logging.getLogger(__name__)

DEFAULT_MODEL: Final = "gpt-4o-mini"
# A model's subject for what a speaker said of themselves when it did not name them ("I moved" -> "I")
_FIRST_PERSON: Final = frozenset({"i", "me", "myself", "my", "speaker"})
NO_ENDPOINT: Final = ("the llm extractor needs an OpenAI-compatible endpoint: set BELIEFDB_LLM_URL "
                      "(e.g. http://127.0.0.1:8080/v1; the rule extractor is the default)")
#: the same, to a remote caller of ``beliefdb serve`` (:func:`beliefdb.errors.for_remote`): the variable is
#: the server's, which only its operator can set
NO_SERVER_ENDPOINT: Final = ("the llm extractor needs an OpenAI-compatible endpoint: the server has no LLM endpoint"
                             " configured (its operator's setting; the rule extractor is the default)")


CONVERSATION_NOTE: Final = (
    "This document is a conversation: each line is one turn, '[time] Speaker: text' (or 'Speaker: text')."
    " What a speaker says about themselves (I, my, we, our) is about that speaker: use the speaker's name as"
    " the subject. Copy each quote exactly from the text of one turn, after 'Speaker: ', never the speaker"
    " or the time. Questions, greetings and small talk state no belief.")

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
            raise errors.InvalidInput(f"BELIEFDB_LLM_URL must be an http(s) URL, not {settings.masked_url(self.url)!r}")
        if self.timeout <= 0:
            raise errors.InvalidInput("BELIEFDB_LLM_TIMEOUT must be more than 0 seconds")
        if self.chunk_chars < 100:
            raise errors.InvalidInput("BELIEFDB_LLM_CHUNK_CHARS must be at least 100")
        if min(self.retries, self.http_retries) < 0 or self.backoff < 0:
            raise errors.InvalidInput("LLM retries and backoff must not be negative")

    def __repr__(self) -> str:  # never the key, nor a password in the URL
        return (f"LLMConfig(url={settings.masked_url(self.url)!r}, model={self.model!r}, timeout={self.timeout},"
                f" retries={self.retries}, http_retries={self.http_retries}, backoff={self.backoff},"
                f" chunk_chars={self.chunk_chars})")

    @classmethod
    def from_env(cls) -> LLMConfig:
        """From the ``BELIEFDB_LLM_*`` variables (:mod:`beliefdb.settings`)."""
        configured = settings.load()
        url = (configured.llm_url or "").strip()
        if not url:
            raise errors.InvalidInput(NO_SERVER_ENDPOINT if errors.for_remote() else NO_ENDPOINT)
        return cls(url=url, model=configured.llm_model.strip() or DEFAULT_MODEL,
                   api_key=(configured.secret("llm_api_key") or "").strip() or None,
                   timeout=configured.llm_timeout, retries=configured.llm_retries,
                   http_retries=configured.llm_http_retries, backoff=configured.llm_backoff,
                   chunk_chars=configured.llm_chunk_chars)

    def longest(self, text: str) -> float:
        """The longest reading ``text`` may take, in seconds: for each of its pieces, every re-ask of a
        malformed answer times every HTTP attempt (each answer within about twice the timeout) and the waits
        between them (at most :data:`beliefdb.openai_client.MAX_WAIT` each)."""
        attempts = (self.http_retries + 1) * 2 * self.timeout + self.http_retries * MAX_WAIT
        return max(len(chunk_text(text, self.chunk_chars)), 1) * (self.retries + 1) * attempts

    @property
    def endpoint(self) -> str:
        """The chat completions URL as messages name it: a password in its user part masked."""
        return settings.masked_url(self.url.strip().rstrip("/") + "/chat/completions")


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


# --- the extractor -----------------------------------------------------------------------------------

class LLMExtractor(Extractor):
    """Candidates proposed by a chat model (see the module docstring); the evidence gate decides."""

    name = "llm"

    def __init__(self, config: LLMConfig | None = None, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config if config is not None else LLMConfig.from_env()
        self.stats = LLMStats()
        self._client = OpenAIClient(self.config.url, api_key=self.config.api_key, timeout=self.config.timeout,
                                    retries=self.config.http_retries, backoff=self.config.backoff, sleep=sleep,
                                    on_attempt=self._counted, on_retry=self._retrying)

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        return [checked(c, text) for c in self._extract(text, source_name, conversation=False)]

    def extract_turns(self, text: str, turns: Sequence[TurnSpan], *, source_name: str,
                      read: Sequence[TurnSpan] | None = None) -> list[Candidate]:
        """The lines of these turns (of ``read`` when given) sent like a document (in pieces of
        ``chunk_chars``, not one request a turn), the prompt saying each line is ``[time] Speaker: text``
        and that a first-person statement's subject is its speaker; each candidate whose quote lies in a
        turn quotes that whole turn and starts its valid time at the turn's time. A role speaker's
        subject is kept as the rule extractor keeps it (:func:`beliefdb.text.naming.as_said`): the user's
        scoped to this conversation, nothing of the assistant's own self. Any other candidate goes to the
        gate as it is."""
        roles = {speaker_subject(t.speaker) for t in turns}  # (every turn's speaker, read or not)
        turns = turns if read is None else read
        if not turns:
            return []
        piece = text[text.rfind("\n", 0, turns[0].start) + 1:turns[-1].end]
        out = []
        for candidate in self._extract(piece, source_name, conversation=True, speakers=roles):
            candidate, turn = _without_label(candidate, text, turns)
            turn = turn or turn_of(candidate, text, turns, speaker_subject)
            if candidate.subject in _FIRST_PERSON and turn is not None:
                candidate = replace(candidate, subject=speaker_subject(turn.speaker))
            # (checked before its quote is widened to its turn: the model's own quote)
            candidate = checked(candidate, text, turn)
            if candidate.refused is None and turn is not None:
                candidate = replace(candidate, refused=other_speaker(candidate, turn, roles))
            kept = candidate if turn is None or candidate.refused is not None else on_turn(candidate, text, turn)
            said = as_said(kept, roles, source_name)
            if said is not None:
                out.append(said)
        return out

    def _extract(self, text: str, source_name: str, *, conversation: bool,
                 speakers: Collection[str] = ()) -> list[Candidate]:
        seen: dict[tuple[Any, ...], Candidate] = {}
        for chunk in chunk_text(text, self.config.chunk_chars):
            self.stats.chunks += 1
            for candidate in self._ask(chunk, source_name, conversation=conversation, speakers=speakers):
                key = (candidate.subject, candidate.attribute, candidate.value, candidate.quote, candidate.kind,
                       tuple(sorted(candidate.scope.items())))
                if key in seen:
                    self.stats.duplicates += 1
                else:
                    seen[key] = candidate
        self.stats.candidates += len(seen)
        return list(seen.values())

    def _candidate(self, item: BeliefItem, speakers: Collection[str] = ()) -> Candidate:
        """``item`` as a candidate, its subject named as the rule extractor names it: a speaker of ``speakers``
        (their :func:`speaker_subject`s) as that speaker (James is james, where snake_name makes him jame, and
        Carlos is not Carlo), anything else by :func:`snake_name`."""
        kind = item.kind.strip().lower()
        if kind not in BELIEF_KINDS:
            self.stats.unknown_kinds += 1
            log.info("llm extractor: unknown kind %r for %r, kept as 'other'", item.kind, item.statement)
            kind = "other"
        own = speaker_subject(item.subject)
        return Candidate(statement=item.statement.strip(), subject=own if own in speakers else snake_name(item.subject),
                         attribute=snake_name(item.attribute), value=item.value.strip(), quote=item.quote,
                         kind=kind, scope={c.key: c.value for c in item.scope})

    def _ask(self, chunk: str, source_name: str, *, conversation: bool = False,
             speakers: Collection[str] = ()) -> list[Candidate]:
        asked = (f"Conversation: {source_name}\n{CONVERSATION_NOTE}\n<document>\n{chunk}\n</document>"
                 if conversation else f"Document: {source_name}\n<document>\n{chunk}\n</document>")
        messages: list[dict[str, str]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": asked},
        ]
        attempts = self.config.retries + 1
        reason = ""
        for _ in range(attempts):
            content: str | None = None
            try:
                content = _content(self._post(messages))
                return [self._candidate(item, speakers) for item in parse_answer(content)]
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
        raise errors.ExtractorUnavailable(_for_caller(
            f"the llm extractor got no usable answer from {self.config.endpoint} in {_attempts(attempts)}: {reason}",
            f"gave no usable answer in {_attempts(attempts)}"))

    def _counted(self) -> None:
        self.stats.requests += 1

    def _retrying(self, problem: str, delay: float) -> None:
        self.stats.http_retries += 1
        log.info("llm extractor: %s %s; retrying in %.2fs", self.config.endpoint, problem, delay)

    def _post(self, messages: list[dict[str, str]]) -> Any:
        """The decoded JSON body of one chat completion (retries by :class:`OpenAIClient`)."""
        payload = {"model": self.config.model, "messages": messages, "temperature": 0,
                   "response_format": RESPONSE_FORMAT}
        endpoint = self.config.endpoint
        try:
            return self._client.post("chat/completions", payload)
        except Malformed as exc:
            raise _Malformed(exc.problem) from None
        except Refused as exc:
            url = ("BELIEFDB_LLM_URL (an OpenAI-compatible base URL, most often ending in /v1), "
                   if exc.status == 404 else "")
            schema = (", and that the server takes response_format json_schema (structured outputs)"
                      if exc.status in (400, 422) else "")
            raise errors.ExtractorRefused(_for_caller(exc.explained(
                f"llm endpoint {endpoint}",
                f"{url}BELIEFDB_LLM_API_KEY and BELIEFDB_LLM_MODEL (now {self.config.model!r}){schema}"),
                f"refused the request{f' with HTTP {exc.status}' if exc.status else ''}; trying again will not"
                " help: its LLM settings are its operator's to fix")) from None
        except Failed as exc:
            raise errors.ExtractorUnavailable(_for_caller(
                f"the llm endpoint {endpoint} failed after {_attempts(exc.attempts)}: {exc.problem}",
                f"failed after {_attempts(exc.attempts)}")) from None
        except EndpointError as exc:  # pragma: no cover - the three above are all there is
            raise errors.ExtractorUnavailable(f"the llm endpoint {endpoint}: {exc.problem}") from None


def _without_label(candidate: Candidate, text: str,
                   turns: Sequence[TurnSpan]) -> tuple[Candidate, TurnSpan | None]:
    """``candidate`` quoting its turn's words only, with that turn, when its quote began with the line's label
    (``[time] Speaker: ``, as the prompt shows each line) and went on into the turn: the label is no one's
    words, and it names the turn (two turns may hold the same words); else ``candidate`` as it is, and None."""
    quote = candidate.quote
    at = text.find(quote) if quote else -1
    while at >= 0:
        # (a label begins its line, after the time if any: "Bob: " inside "Big Bob: " is not Bob's label)
        if re.fullmatch(r"(\[[^\]\n]*\] ?)?", text[text.rfind("\n", 0, at) + 1:at]):
            end = at + len(quote)
            for turn in turns:
                if at < turn.start < end <= turn.end and "\n" not in text[at:turn.start]:
                    return replace(candidate, quote=text[turn.start:end], start=None, end=None), turn
        at = text.find(quote, at + 1)
    return candidate, None


def _for_caller(said: str, remote: str) -> str:
    """``said``, or to a remote caller of ``beliefdb serve`` (:func:`beliefdb.errors.for_remote`) that the server's
    llm endpoint ``remote``: its URL and settings are the operator's, whose log keeps ``said``."""
    if not errors.for_remote():
        return said
    logging.getLogger("beliefdb.serve").warning("%s", said)
    return f"the server's llm endpoint {remote} (the server's log says why)"


def _attempts(n: int) -> str:
    return f"{n} attempt{'' if n == 1 else 's'}"
