"""Argument types the MCP tools share (:mod:`beliefdb.interfaces.mcp` and the modules that add tools to it),
bound as the HTTP API's bodies bound the same fields."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, WithJsonSchema
from pydantic_core import PydanticCustomError


def _given(value: str) -> str:
    """Text the HTTP API's bodies require non-empty, refused in pydantic's words as they refuse it. (A
    check in Python: pydantic's own min_length reads the text as UTF-8 first, and refused a lone surrogate
    with 'unable to parse raw data' before beliefdb's check could say what was wrong with it.)"""
    if not value:
        raise PydanticCustomError("string_too_short", "String should have at least 1 character", {"min_length": 1})
    return value


#: text the HTTP API's bodies require non-empty (the same field refused in the same words by both doors)
Given = Annotated[str, AfterValidator(_given), WithJsonSchema({"type": "string", "minLength": 1})]


#: a moment as the HTTP API's bodies take it, ISO 8601 with a time zone (JSON Schema's date-time, as they publish it)
Moment = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


#: what the recording tools (decide, act, record_outcome) say of their `idempotency_key` (rule 18 of
#: docs/rules.md): a retry after a timeout records nothing twice
KEYED = (" Give an `idempotency_key` to make a retry safe: the same request again with it records nothing and"
         " answers what the first recorded (`already_applied`); another request with it answers"
         " idempotency_key_reused.")
