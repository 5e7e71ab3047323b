"""The JSON Schema of what :func:`beliefdb.render.jsonable` makes of a result type, so the servers'
OpenAPI document describes exactly the JSON they send (and the CLI prints with ``--json``)."""

from __future__ import annotations

import dataclasses
import types
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints
from uuid import UUID

from psycopg.types.range import Range

from beliefdb.models import Changes, Forgotten, Skipped, Why

Schema = dict[str, Any]

_SCALARS: dict[Any, Schema] = {
    UUID: {"type": "string", "format": "uuid"},
    datetime: {"type": "string", "format": "date-time"},
    Path: {"type": "string"},
    str: {"type": "string"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    type(None): {"type": "null"},
    Any: {},
}


#: fields :func:`beliefdb.render.jsonable` adds to a dataclass: a skipped sentence's full length, and
#: whether its quote was cut
_JSON_ONLY: dict[type, Schema] = {Skipped: {"quote_length": {"type": "integer"}, "truncated": {"type": "boolean"}}}


def schema_of(tp: Any) -> Schema:
    """The JSON Schema of ``jsonable(x)`` for any ``x`` of type ``tp`` (a result dataclass, a list of
    them, or the types their fields have)."""
    if tp in _SCALARS:
        return dict(_SCALARS[tp])
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        kinds = {type(a) for a in args}
        return {"type": "string", "enum": list(args)} if kinds == {str} else {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [schema_of(a) for a in args]}
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = get_type_hints(tp)
        names = [f.name for f in dataclasses.fields(tp)]
        extra = _JSON_ONLY.get(tp, {})  # (fields jsonable adds)
        return {"type": "object", "title": tp.__name__,
                "properties": {**{n: schema_of(hints[n]) for n in names}, **extra}, "required": [*names, *extra]}
    if tp is Range or origin is Range:
        bound = schema_of((args[0] if args else Any) | None)
        return {"type": "object", "properties": {"from": bound, "to": bound}, "required": ["from", "to"]}
    if origin is list:
        return {"type": "array", "items": schema_of(args[0] if args else Any)}
    if origin is tuple:
        return {"type": "array", "prefixItems": [schema_of(a) for a in args], "minItems": len(args),
                "maxItems": len(args)}
    if origin is dict or tp is dict:
        value = args[1] if len(args) == 2 else Any
        return {"type": "object"} if value is Any else {"type": "object", "additionalProperties": schema_of(value)}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _object(properties: Schema, required: list[str] | None = None) -> Schema:
    return {"type": "object", "properties": properties, "required": list(properties) if required is None else required}


_STRING, _NUMBER, _BOOL = {"type": "string"}, {"type": "number"}, {"type": "boolean"}
_IDS = {"type": "array", "items": {"type": "string", "format": "uuid"}}
_MAYBE_STRING = {"anyOf": [_STRING, {"type": "null"}]}

#: what :func:`beliefdb.render.evidence_json` makes of a piece of evidence (offsets as start and end)
EVIDENCE: Schema = _object({
    "quote": _STRING, "start": {"type": "integer"}, "end": {"type": "integer"}, "source": _STRING,
    "version": {"type": "integer"}, "version_label": _MAYBE_STRING, "version_sha256": _STRING, "in_force": _BOOL,
    "role": _STRING, "origin_type": _STRING, "authority": _STRING, "provenance": _STRING,
    "fragment_id": {"type": "string", "format": "uuid"}, "belief_id": {"type": "string", "format": "uuid"},
    "created_at": {"type": "string", "format": "date-time"}, "speaker": _MAYBE_STRING,
    "spoken_at": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}, "retracted": _BOOL})

#: what :func:`beliefdb.render.why_json` makes of a Why
WHY: Schema = {**schema_of(Why), "properties": {**schema_of(Why)["properties"],
                                                 "evidence": {"type": "array", "items": EVIDENCE}}}

#: what :func:`beliefdb.render.ask.ask_json` makes of an answer
ASK: Schema = _object({
    "status": {"type": "string", "enum": ["ok", "no_match", "memory_unavailable"]},
    "question": _STRING,
    "as_of": _MAYBE_STRING,
    "beliefs": {"type": "array", "items": _object({
        "id": {"type": "string", "format": "uuid"}, "statement": _STRING, "subject": _STRING, "attribute": _STRING,
        "value": _STRING, "kind": _STRING, "status": _STRING, "confidence": _NUMBER, "confidence_kind": _STRING,
        "low_confidence": _BOOL, "scope": {"type": "object"}, "valid_time": schema_of(Range[datetime]),
        "recorded_at": {"type": "string", "format": "date-time"}, "provenance": _STRING,
        "evidence": {"type": "array", "items": EVIDENCE},
        "warnings": {"type": "array", "items": _STRING}, "conflicts": {"type": "array"},
        "replaced": {"type": "array"}, "matched_by": {"type": "array", "items": _STRING}, "score": _NUMBER,
        "similarity": {"anyOf": [_NUMBER, {"type": "null"}]},
        "history": {"type": "array", "items": _object({
            "id": {"type": "string", "format": "uuid"}, "statement": _STRING, "subject": _STRING,
            "attribute": _STRING, "value": _STRING, "status": _STRING, "valid_time": schema_of(Range[datetime]),
            "replaced_by": {"type": "string", "format": "uuid"}, "replaced_by_value": _STRING,
            "replaced_on": {"type": "string", "format": "date-time"}, "steps": {"type": "integer"},
            "evidence": {"type": "array", "items": EVIDENCE}})}})},
    "context": _STRING,
    "fragments": {"type": "array", "items": _object({
        "kind": {"type": "string", "enum": ["fragment"]}, "fragment_id": {"type": "string", "format": "uuid"},
        "text": _STRING, "source": _STRING, "version": {"type": "integer"}, "version_label": _MAYBE_STRING,
        "start": {"type": "integer"}, "end": {"type": "integer"},
        "recorded_at": {"type": "string", "format": "date-time"}, "speaker": _MAYBE_STRING,
        "spoken_at": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
        "authority": _STRING, "provenance": _STRING, "score": _NUMBER})},
    "fragments_after": {"type": "integer"},
    "degraded": _STRING,
    "reason": _STRING,
    "error": {"type": "string", "enum": ["workspace_busy", "database_unavailable"]},
    "hint": _STRING,
}, required=["status", "question", "as_of", "beliefs", "context", "fragments"])

#: what :func:`beliefdb.render.impact_json` makes of a dry run
IMPACT: Schema = _object({
    "stops_holding": {"type": "array", "items": _object({"id": {"type": "string", "format": "uuid"},
                                                         "kind": _STRING})},
    "stops_current": {"type": "array", "items": _object({"id": {"type": "string", "format": "uuid"},
                                                         "kind": _STRING})},
    "becomes_current": {"type": "array", "items": _object({"id": {"type": "string", "format": "uuid"},
                                                           "kind": _STRING})},
    "flagged": _IDS,
    "held": _IDS,
    "still_supported": {"type": "array", "items": _object({"decision": {"type": "string", "format": "uuid"},
                                                           "by": {"type": "array"}})},
})

#: what :func:`beliefdb.render.retraction_json` makes of a retraction's change report
RETRACTION: Schema = {**schema_of(Changes), "properties": {**schema_of(Changes)["properties"], "fingerprint": {
    "type": "string", "description": "What the report says, in a few characters: give it back as `expect` to"
                                     " apply only this change (else 409 stale_preview, nothing written)."}},
                      "required": [*schema_of(Changes)["required"], "fingerprint"]}

#: what :func:`beliefdb.render.forgotten_json` makes of what forgetting took away (or would)
FORGOTTEN: Schema = {**schema_of(Forgotten), "properties": {**schema_of(Forgotten)["properties"], "fingerprint": {
    "type": "string", "description": "What the report says would go, in a few characters: give it back as `expect`"
                                     " to forget only that (else 409 stale_preview, nothing forgotten)."}},
                     "required": [*schema_of(Forgotten)["required"], "fingerprint"]}

#: an error, as the CLI prints it with ``--json``
ERROR: Schema = _object({"error": _STRING, "message": _STRING})

__all__ = ["ASK", "ERROR", "EVIDENCE", "FORGOTTEN", "IMPACT", "RETRACTION", "WHY", "Schema", "schema_of"]
