"""MCP messages the SDK's parser refuses though they are JSON: a string holding a lone surrogate (the escape
"\\ud800", which a client's JSON encoder writes for a broken character). pydantic's JSON parser reads text as
UTF-8, where a lone surrogate cannot be, and refused the whole message: on stdio it was answered with a parse
error of id null (so the request itself was never answered, and its client waited for its timeout), over
HTTP with 400. Python's own JSON reads it: such a message is passed on (stdio) or its tool call answered
(HTTP), so the tool refuses the argument as it refuses a NUL, in the tool error ``invalid_input`` naming it
(:func:`beliefdb.interfaces.mcp_server.unstorable`)."""

from __future__ import annotations

import json
import re
from typing import Any, Final

import pydantic_core
from mcp.types import JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from beliefdb import api

__all__ = ["ToolArguments", "lenient", "refused_line"]


def lenient(raw: str | bytes) -> JSONRPCMessage | None:
    """The MCP message ``raw`` holds, read by Python's JSON parser (which takes a lone surrogate), or None
    when it is no message there either."""
    try:
        return jsonrpc_message_adapter.validate_python(json.loads(raw), by_name=False)
    except (ValueError, RecursionError):  # (a ValidationError, a UnicodeDecodeError are ValueErrors)
        return None


# a lone surrogate as JSON writes it ("\ud800"), or as raw bytes (CESU-8's ED A0 80): what may make pydantic
# refuse a body Python reads; a body without one is left to the SDK without being parsed twice
_MAYBE_SURROGATE: Final = re.compile(rb"\\[uU][dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _surrogate_call(message: JSONRPCMessage | None) -> tuple[JSONRPCRequest, str, dict[str, Any]] | None:
    """``message`` as (request, tool, arguments) when it is a tool call whose arguments, and nothing else of it,
    hold text that cannot be stored: the tool refuses such an argument in its own error. Anything else with such
    text (an id, a method, a tool's name) is no message the answer could repeat (its writer refuses it)."""
    if not isinstance(message, JSONRPCRequest) or message.method != "tools/call" or not message.params:
        return None
    name, arguments = message.params.get("name"), message.params.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict) or api.unstorable_in(arguments) is None:
        return None
    rest = {key: value for key, value in message.params.items() if key != "arguments"}
    if api.unstorable_in([message.id if isinstance(message.id, str) else "", rest]) is not None:
        return None
    return message, name, arguments


def refused_line(error: Exception) -> JSONRPCMessage | None:
    """The tool call of a line of stdin the SDK's stdio reader refused (``error``: what it raised, with the
    line as its input) when Python's JSON parser reads it and only its arguments hold a lone surrogate
    (:func:`_surrogate_call`), or None (the SDK's parse error answers it)."""
    if not isinstance(error, ValidationError):
        return None
    found = error.errors()
    if len(found) != 1 or found[0]["type"] != "json_invalid" or not isinstance(found[0].get("input"), str):
        return None
    call = _surrogate_call(lenient(found[0]["input"]))
    return None if call is None else call[0]


def _tool_call(body: bytes) -> tuple[JSONRPCRequest, str, dict[str, Any]] | None:
    """The tool call ``body`` holds (request, tool, arguments) when pydantic's JSON parser refuses it, Python's
    reads it, and only its arguments hold text that cannot be stored; None otherwise."""
    if not _MAYBE_SURROGATE.search(body):
        return None
    try:
        pydantic_core.from_json(body)
        return None
    except ValueError:
        return _surrogate_call(lenient(body))


class ToolArguments:
    """The MCP endpoint (streamable HTTP, JSON answers), but for a tool call whose arguments hold a lone
    surrogate, which its transport refused with 400 and a parse error: it is called here as the transport
    would call it, and the tool's answer (its refusal of that argument) is the request's answer. Any other
    body the SDK refuses is refused by it as before."""

    def __init__(self, app: ASGIApp, server: Any) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        chunks, more = list[bytes](), True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # (the client went away)
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        call = _tool_call(body)
        if call is not None:
            request, name, arguments = call
            result = await self.server.call_tool(name, arguments)
            answer = JSONRPCResponse(jsonrpc="2.0", id=request.id,
                                     result=result.model_dump(by_alias=True, mode="json", exclude_none=True))
            await Response(answer.model_dump_json(by_alias=True, exclude_unset=True),
                           media_type="application/json")(scope, receive, send)
            return
        given = False

        async def again() -> Message:
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, again, send)
