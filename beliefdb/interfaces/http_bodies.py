"""The request bodies of the HTTP API's resources, read by one JSON reader (:func:`read_json`: an object
naming a key twice, anywhere in a body, is refused) and checked by pydantic before a route runs: text
PostgreSQL cannot store and moments without a zone are refused in the field that holds them, in the words
the MCP tools use. Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Request
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from beliefdb import api, errors
from beliefdb.interfaces import problems
from beliefdb.vocabulary import Authority, BeliefKind, Label, Origin, Outcome, StepKind

INT4 = 2**31 - 1


def _storable(value: Any) -> Any:
    """PostgreSQL text holds neither NUL nor lone surrogates: refuse them as bad input, up front, in the
    field that holds them (named as the MCP tools name their arguments)."""
    why = api.unstorable_in(value)
    if why is not None:
        raise ValueError(why)
    return value


def _moment(value: Any) -> datetime:
    """A moment as the library reads one (ISO 8601 with a zone, in range), refused in its words, the
    MCP tools' too: the same bad moment is the same message at every door."""
    if not isinstance(value, str):
        raise ValueError("Input should be a valid string")
    try:
        return api.parse_moment(value, "moment", zoned=True)
    except errors.InvalidInput as exc:
        raise ValueError(exc.message.removeprefix("moment: ")) from None


def _query_moment(value: Any) -> datetime:
    """A moment from a URL's query string, as :func:`_moment` reads one, with a hint when a ``+`` of its
    offset came as a space (:func:`problems.plus_as_space`)."""
    try:
        return _moment(value)
    except ValueError as exc:
        raise ValueError(f"{exc}{problems.plus_as_space(value) if isinstance(value, str) else ''}") from None


class _Repeats(dict[str, Any]):
    """A JSON object as read that named a key more than once (the last value kept, as json does), with how
    many times it named each such key, in the order they came."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        counts: dict[str, int] = {}
        for name, _ in pairs:
            counts[name] = counts.get(name, 0) + 1
        self.repeated = {name: count for name, count in counts.items() if count > 1}


class Repeated:
    """A request body that named a key of one of its objects more than once: what :class:`Body` is given in
    its stead, and refuses (400, naming each such key by its place in the body)."""

    def __init__(self, message: str) -> None:
        self.message = message


#: the type of a body's problem when it named a key twice (beliefdb.interfaces.http answers its message as is)
REPEATED_KEY = "repeated_key"
#: what else a 413 of a resource that takes a text means (errors.DocumentTooLarge, in the OpenAPI document)
TEXT_OVER = ", or a text in it over the ingest limit, BELIEFDB_INGEST_MAX_BYTES (the message names it and its size)"


def _place(path: tuple[str | int, ...]) -> str:
    """A place in a body as its problems name it (``turns.1.speaker``); a key no terminal prints as is (a
    control character, a lone surrogate) in JSON's escapes."""
    return ".".join(str(p) if isinstance(p, int) or p.isprintable() else json.dumps(p) for p in path)


def _repeated_in(value: Any) -> list[str]:
    """Each key an object of ``value`` named more than once, at its place, in the order the body holds the
    objects (an object's own before those inside it; a walk, not a recursion: a body nested as deep as the
    reader takes is walked too)."""
    said: list[str] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        here, path = stack.pop()
        if isinstance(here, _Repeats):
            said += [f"{_place((*path, name))}: given {'twice' if count == 2 else f'{count} times'} in one object:"
                     " give it once" for name, count in here.repeated.items()]
        inside = list(here.items()) if isinstance(here, dict) else list(enumerate(here)) if isinstance(here, list) \
            else []
        stack += [(v, (*path, k)) for k, v in reversed(inside) if isinstance(v, dict | list)]
    return said


def read_json(raw: bytes) -> Any:
    """A request body's JSON, as :func:`json.loads` reads it (and raises), but for an object naming a key
    more than once (RFC 8259 only says it SHOULD not, and the reader keeps the last value, silently: a
    client's bug or a proxy's merge would change what is stored without anyone knowing): then the body is
    a :class:`Repeated`, naming each such key, which :class:`Body` refuses. Refused there, not here, so
    that, as any other problem of a body, it is said after the token (401) and a write permission the
    route always needs (403)."""
    repeats = False

    def named(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeats
        found = dict(pairs)
        if len(found) == len(pairs):
            return found
        repeats = True
        return _Repeats(pairs)

    value = json.loads(raw, object_pairs_hook=named)
    return Repeated("; ".join(_repeated_in(value))) if repeats else value


class JsonBody(Request):
    """A request whose JSON body is read by :func:`read_json` (FastAPI reads a route's body with ``json()``)."""

    async def json(self) -> Any:
        if not hasattr(self, "_read"):
            self._read = read_json(await self.body())
        return self._read


#: a moment Python and psycopg read back in every time zone (beliefdb.inputs)
Moment = Annotated[AwareDatetime, BeforeValidator(_moment)]
#: such a moment given in a URL's query string (``GET /beliefs?as_of=...``)
QueryMoment = Annotated[AwareDatetime, BeforeValidator(_query_moment)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _once(cls, value: Any) -> Any:
        if isinstance(value, Repeated):  # (a key named twice is said before any field is read)
            raise PydanticCustomError(REPEATED_KEY, "{said}", {"said": value.message})
        return value

    @field_validator("*", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return _storable(value)


class IngestText(Body):
    source: str = Field(min_length=1, description="The source's name; a changed text is its next version.")
    text: str = Field(min_length=1)
    authority: Authority | None = None
    label: Label | None = None
    origin: Origin | None = None
    version_label: str | None = None
    extractor: Literal["rules", "none", "llm"] = "rules"
    preview: bool = Field(False, description="Only what ingesting would change; nothing written.")


class Remember(Body):
    statement: str = Field(min_length=1)
    subject: str = Field(min_length=1)
    attribute: str = Field(min_length=1)
    value: str
    quote: str = Field(min_length=1, description="Exactly as it stands in the text (rule 1).")
    source: str = Field(min_length=1)
    text: str | None = Field(None, description="The source's new text; without it, the version in force.")
    kind: BeliefKind = BeliefKind.fact
    scope: dict[str, str] = Field(default_factory=dict)
    valid_from: Moment | None = None
    valid_to: Moment | None = None
    authority: Authority | None = None
    origin: Origin | None = None


#: a write's key that makes its retry safe (rule 18 of docs/rules.md)
IDEMPOTENCY_KEY = ("Names this request: sent again with the same content it records nothing and answers what the"
                   " first recorded (`already_applied`); other content with the key is 409 idempotency_key_reused.")


class Decide(Body):
    title: str = Field(min_length=1)
    run: str | None = Field(None, description="A run whose reads returned the cited beliefs: it may cite only those,"
                                              " and only while current (rule 19); others are refused.")
    because: list[str] = Field(default_factory=list, description="Beliefs that each alone justify it.")
    all_of: list[list[str]] = Field(default_factory=list, description="Groups of beliefs that jointly justify it.")
    idempotency_key: str | None = Field(None, description=IDEMPOTENCY_KEY)


class Act(Body):
    decision: str = Field(min_length=1)
    description: str = Field(min_length=1)
    idempotency_key: str | None = Field(None, description=IDEMPOTENCY_KEY)


class RecordOutcome(Body):
    node: str = Field(min_length=1, description="The decision or action (id or unique prefix).")
    outcome: Outcome = Field(description="What actually happened.")
    note: str | None = Field(None, description="A note for the record.")
    idempotency_key: str | None = Field(None, description=IDEMPOTENCY_KEY)


class PreviewCorrection(Body):
    belief: str = Field(min_length=1)
    statement: str | None = None
    value: str | None = None


class Correct(Body):
    belief: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    expected_revision: int = Field(ge=0, le=INT4, strict=True, description="The revision the preview showed.")
    value: str | None = None
    reason: str | None = None
    idempotency_key: str | None = None


class Retract(Body):
    belief: str | None = None
    fragment: str | None = None
    source: str | None = None
    version: int | None = Field(None, ge=1, le=INT4, strict=True)
    reason: str = Field("", description="Why it is taken back: required to apply a retraction (not for a preview,"
                        " nor an undo), else 400 invalid_input.")
    undo: bool = False
    preview: bool = False
    expect: str | None = Field(None, min_length=1, description="The `fingerprint` a preview answered (32 hex digits):"
                               " apply only the change it showed (else 409 stale_preview, and nothing is written; a"
                               " value that is no fingerprint is 400 invalid_input).")


class Resolve(Body):
    verdict: Literal["approved", "rejected"]
    note: str | None = None
    winner: str | None = Field(None, description="Approving a conflict only: the belief that wins (id or prefix).")


class StepInput(Body):
    edge: str = Field(description="reads, cites, initiates, derives, produces, updates or consolidates")
    node: str


class StepMemory(Body):
    subject: str = Field(min_length=1)
    attribute: str = Field(min_length=1)
    value: str
    statement: str | None = None
    kind: BeliefKind = BeliefKind.fact


class RecordStep(Body):
    run: str | None = Field(None, description="The run to append to; none: a new run.")
    task: str = ""
    kind: StepKind
    payload: dict[str, Any] = Field(default_factory=dict)
    inputs: list[StepInput] = Field(default_factory=list)
    supports: list[str] = Field(default_factory=list)
    memory: StepMemory | None = None


class Ask(Body):
    question: str = Field(min_length=1)
    k: int = Field(5, ge=1, le=50, strict=True)  # (strict: a JSON true is no number)
    as_of: Moment | None = None
    scope: dict[str, str] = Field(default_factory=dict)
    min_confidence: float = Field(0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    include_fixtures: bool = False
    run: str | None = Field(None, description="Record which beliefs this run was shown (rule 19).")
    subjects: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Only beliefs about these subjects (each exactly as given: `maya_lopez`), the best of them"
                          " however many others match better, and no unextracted text (it is about no subject).")


class Impact(Body):
    refs: list[str] = Field(min_length=1, description="Beliefs, fragments, decisions or source names.")
