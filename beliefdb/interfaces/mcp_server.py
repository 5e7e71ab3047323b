"""The MCP server class the tools of :mod:`beliefdb.interfaces.mcp` are added to, and the tool error every
tool answers (:func:`failed`): arguments a tool does not take, or that do not fit its parameters, or that hold
text PostgreSQL cannot store, are refused in beliefdb's words before the tool runs."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.routing import Route

from beliefdb import api, errors, render
from beliefdb.interfaces import mcp_wire, problems
from beliefdb.interfaces.access import retry_seconds

log = logging.getLogger("beliefdb.mcp")


def failed(exc: errors.BeliefDBError) -> CallToolResult:
    """The tool error: ``{"error": code, "message": ...}``, and ``retry_after``, the seconds to wait before
    trying again, where the HTTP API sends them as ``Retry-After`` (a busy workspace, the database or the llm
    extractor unavailable). The object is the result's text and its structured content both: a client reads
    ``retry_after`` without parsing text (the tools publish no output schema, so the SDK passes it through and
    a client checks it against none; an answer stays text alone)."""
    said: dict[str, Any] = {"error": exc.code, "message": exc.message}
    seconds = retry_seconds(exc)
    if seconds is not None:
        said["retry_after"] = seconds
    text = render.to_json(said)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=said, is_error=True)


def unstorable(arguments: dict[str, Any]) -> CallToolResult | None:
    """The tool error for the first argument holding text PostgreSQL cannot store (a NUL, or a lone
    surrogate a JSON escape like "\\ud800" makes), or None."""
    for name, value in arguments.items():
        # (a step's inputs and memory arrive as models: their text is checked as it was given)
        plain = [v.model_dump() if isinstance(v, BaseModel) else v for v in value] if isinstance(value, list) else (
            value.model_dump() if isinstance(value, BaseModel) else value)
        why = api.unstorable_in(plain)
        if why is not None:
            return failed(errors.InvalidInput(f"{name}: {why}"))
    return None


class Server(MCPServer[Any]):
    """The SDK's server, answering arguments that do not fit a tool's parameters as beliefdb's other
    errors: ``invalid_input`` with one line naming each argument and what was wrong (the SDK's own
    answer is pydantic's report, several lines with a link). An argument a tool does not take is
    refused too, as the HTTP API refuses a field it does not take (the SDK would drop it, and the
    call would do something else than asked: a turn dated now instead of ``when``). An optional
    argument given as null is taken as not given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: each tool's arguments, in order, each with whether it is required
        self.takes: dict[str, dict[str, bool]] = {}
        #: each tool's arguments with their types, as its function declares them (the SDK builds its model of
        #: the arguments from the same signature, and keeps it to itself)
        self.types: dict[str, dict[str, Any]] = {}

    def _strangers(self, name: str, arguments: dict[str, Any]) -> CallToolResult | None:
        """The tool error for arguments the tool ``name`` does not take (with the required ones that
        are missing, named in the same line), or None."""
        takes = self.takes.get(name)
        unknown = sorted(set(arguments) - set(takes)) if takes is not None else []
        if takes is None or not unknown:
            return None
        found: list[dict[str, Any]] = [{
            "loc": (", ".join(unknown),), "type": "unknown_argument",
            "msg": f"not one of the arguments this tool takes ({', '.join(takes) or 'none'})"}]
        found += [{"loc": (argument,), "type": "missing"}
                  for argument, required in takes.items() if required and argument not in arguments]
        log.info("tool %r: arguments refused: %r", name, unknown)
        return failed(errors.InvalidInput(problems.one_line(found, whole="the arguments", placed=False)))

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
                        ) -> CallToolResult | InputRequiredResult:
        if name not in self.takes:  # (the SDK's answer is the text "Unknown tool: nope", in no error shape)
            return failed(errors.NotFound(f"unknown tool {name!r}: the tools are {', '.join(self.takes)}"))
        refused = self._strangers(name, arguments)
        if refused is not None:
            return refused
        # an optional argument sent as null is not given (an OpenAI strict-mode bridge sends null for each one its
        # model left out: "k": null was refused, "Input should be a valid integer"); a required one stays refused
        takes = self.takes[name]
        arguments = {argument: value for argument, value in arguments.items() if value is not None or takes[argument]}
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc, UnexpectedToolError) or not isinstance(exc.__cause__, ValidationError):
                raise
            found = exc.__cause__.errors()
            # the names only, as the SDK logs them: the values are the caller's data
            log.info("tool %r: arguments refused: %r", name, sorted({".".join(map(str, e["loc"])) for e in found}))
            return failed(errors.InvalidInput(problems.one_line(found, whole="the arguments", placed=False,
                                                                 takes=problems.arguments_of(self.types.get(name)))))

    def streamable_http_app(self, **options: Any) -> Starlette:
        """The SDK's app for MCP over streamable HTTP, its endpoint answering a tool call whose arguments hold
        a lone surrogate with the tool's refusal, as stdio and the in-memory transport do (its transport
        refused the whole request with 400: :class:`~beliefdb.interfaces.mcp_wire.ToolArguments`)."""
        app = super().streamable_http_app(**options)
        routes = app.router.routes
        for i, route in enumerate(routes):
            if isinstance(route, Route) and route.path == options.get("streamable_http_path", "/mcp"):
                routes[i] = Route(route.path, endpoint=mcp_wire.ToolArguments(route.endpoint, self))
        return app
