"""The request bodies of the HTTP API's resources, checked by pydantic before a route runs: text PostgreSQL
cannot store and moments without a zone are refused in the field that holds them, in the words the MCP
tools use. Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Request
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from beliefdb import api, errors
from beliefdb.interfaces.http_callers import Reader
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


class _Named(dict[str, Any]):
    """A JSON object as read, with the names it held more than once (the last value kept, as json does)."""

    twice: list[str]


def _named(pairs: list[tuple[str, Any]]) -> _Named:
    found = _Named(pairs)
    twice: dict[str, None] = {}
    if len(found) < len(pairs):  # (one pass, whatever the object's size)
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                twice[name] = None
            seen.add(name)
    found.twice = list(twice)
    return found


async def scope_once(request: Request, _caller: Reader) -> None:
    """Refuse a body whose ``scope`` names a condition twice (a JSON object may, and the reader keeps the last
    value, silently: the question would be asked about that one alone), as the CLI refuses ``--scope`` given
    twice with one key. A body that is not JSON is left to the route's own reading. The caller first: a
    request without a valid token is 401 whatever its body says."""
    raw = await request.body()  # (read once: the route's own reading gets it from the request)
    if b"scope" not in raw and b"\\u" not in raw:
        return
    try:
        body = json.loads(raw, object_pairs_hook=_named)
    except ValueError:
        return
    scope = body.get("scope") if isinstance(body, _Named) else None
    if isinstance(scope, _Named) and scope.twice:
        raise errors.InvalidInput(f"scope: names {', '.join(map(repr, scope.twice))} twice: give each condition once")


#: a moment Python and psycopg read back in every time zone (beliefdb.inputs)
Moment = Annotated[AwareDatetime, BeforeValidator(_moment)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

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


class Decide(Body):
    title: str = Field(min_length=1)
    run: str | None = Field(None, description="A run whose reads returned the cited beliefs: it may cite only those,"
                                              " and only while current (rule 19); others are refused.")
    because: list[str] = Field(default_factory=list, description="Beliefs that each alone justify it.")
    all_of: list[list[str]] = Field(default_factory=list, description="Groups of beliefs that jointly justify it.")


class Act(Body):
    decision: str = Field(min_length=1)
    description: str = Field(min_length=1)


class RecordOutcome(Body):
    node: str = Field(min_length=1, description="The decision or action (id or unique prefix).")
    outcome: Outcome = Field(description="What actually happened.")
    note: str | None = Field(None, description="A note for the record.")


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
    reason: str = ""
    undo: bool = False
    preview: bool = False
    expect: str | None = Field(None, min_length=1, description="The `fingerprint` a preview answered: apply only"
                               " the change it showed (else 409 stale_preview, and nothing is written).")


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


class Impact(Body):
    refs: list[str] = Field(min_length=1, description="Beliefs, fragments, decisions or source names.")
