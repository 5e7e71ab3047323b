"""MCP on stdin/stdout (``beliefdb mcp``): the SDK's stdio transport, but for the lines of stdin that are
not MCP messages. The SDK hands each over as an exception and drops it with a debug log, so a client (or a
person) sending anything else got no answer and the server exited 0 at the end of stdin: each such line is
named on stderr and answered with JSON-RPC's parse error, and the run ends with an error."""

from __future__ import annotations

import contextlib
import errno
import sys
import threading
from collections.abc import Callable
from typing import Any, cast

import anyio
import psycopg
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from pydantic import ValidationError

from beliefdb import api, errors
from beliefdb.api import BeliefDB
from beliefdb.interfaces import mcp_wire

__all__ = ["DRAIN_SECONDS", "Later", "run_stdio"]

#: how long ``beliefdb mcp`` waits, once stdin ended, for the requests under way to be answered; past it, it
#: exits 1 naming those it drops, without waiting for their tools (a worker thread cannot be stopped)
DRAIN_SECONDS = 600.0


class _Watched:
    """The stdio transport's read stream, but for the lines of stdin that are not MCP messages (which the SDK
    hands over as exceptions, and drops with a debug log): each is named on stderr with its line number and
    answered with JSON-RPC's parse error (id null), and counted in :attr:`bad`. A line the SDK's parser
    refused only for a lone surrogate in a string is passed on as the message it is (its tool refuses it)."""

    def __init__(self, inner: Any, write: Any, ended: threading.Event) -> None:
        self.inner, self.write, self.ended = inner, write, ended
        self.lines = self.bad = 0
        # the requests not answered yet, each with what it asks (its tool, else its method): at the end of stdin
        # they are answered before the server stops (the SDK stopped at once, and a client that closed stdin
        # after its last request never got its answer)
        self.pending: dict[str | int, str] = {}
        self.answered = anyio.Event()
        # the answers handed to stdout's writer that may not have been written: the last (a failed write is
        # of the last item handed over), and those refused once the writer was gone
        self.last: str | None = None
        self.lost: list[str] = []

    def _noted(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        if isinstance(message, JSONRPCRequest):
            params = message.params or {}
            what = params.get("name") if message.method == "tools/call" else message.method
            self.pending[message.id] = api.shown(str(what))[:60]
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self.pending.pop((message.params or {}).get("requestId", ""), None)
        return item

    def named(self, key: str | int) -> str:
        return f"{api.shown(str(key))[:40]} ({self.pending.pop(key)})"

    async def sent(self, item: Any) -> None:
        """``item`` handed to stdout's writer; an answer to a pending request takes it off. Once the writer is
        gone (its write failed: the client closed stdout), an answer is dropped and noted, not raised."""
        message = getattr(item, "message", None)
        key = message.id if isinstance(message, JSONRPCResponse | JSONRPCError) else None
        answer = key is not None and key in self.pending
        try:
            await self.write.send(item)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            if key is not None and answer:
                self.lost.append(self.named(key))
        else:
            self.last = self.named(key) if key is not None and answer else None
        if answer and not self.pending:
            self.answered.set()

    def dropped(self, gone: bool) -> list[str]:
        """The requests whose answers were not written, with what each asked (``gone``: stdout's writer failed,
        on the last answer handed to it)."""
        return [*([self.last] if gone and self.last else []), *self.lost,
                *(f"{api.shown(str(k))[:40]} ({v})" for k, v in dict(self.pending).items())]

    async def _drained(self) -> None:
        """At the end of stdin: wait for the requests under way to be answered (:func:`run_stdio` waits at most
        :data:`DRAIN_SECONDS`, told by :attr:`ended`)."""
        self.ended.set()
        while self.pending:
            self.answered = anyio.Event()
            await self.answered.wait()

    @property
    def last_context(self) -> Any:
        return getattr(self.inner, "last_context", None)

    async def _seen(self, item: Any) -> Any:
        """``item``, or the message the SDK refused in it (a lone surrogate: :func:`mcp_wire.refused_line`), to
        pass on; None for a bad line, reported instead."""
        self.lines += 1
        if not isinstance(item, Exception):
            return item
        message = mcp_wire.refused_line(item)
        if message is not None:
            return SessionMessage(message)
        self.bad += 1
        why = item.errors()[0]["msg"] if isinstance(item, ValidationError) else str(item)
        sys.stderr.write(f"beliefdb mcp: line {self.lines} of stdin is not an MCP message (JSON-RPC 2.0): "
                         f"{api.shown(' '.join(why.split()))[:200]}\n")
        sys.stderr.flush()
        with contextlib.suppress(Exception):  # (the client may be gone: the line is reported all the same)
            await self.write.send(SessionMessage(JSONRPCError(
                jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=f"Parse error: {why}"))))
        return None

    async def receive(self) -> Any:
        try:
            while (passed := await self._seen(await self.inner.receive())) is None:
                pass
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            await self._drained()
            raise
        return self._noted(passed)

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        try:
            while (passed := await self._seen(await self.inner.__anext__())) is None:
                pass
        except StopAsyncIteration:
            await self._drained()
            raise
        return self._noted(passed)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _Watched:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return cast(bool | None, await self.inner.__aexit__(*exc))


class _Sender:
    """The stdio transport's write stream, telling :class:`_Watched` which requests were answered."""

    def __init__(self, watched: _Watched) -> None:
        self.watched = watched

    async def send(self, item: Any) -> None:
        await self.watched.sent(item)

    async def aclose(self) -> None:
        await self.watched.write.aclose()

    async def __aenter__(self) -> _Sender:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None


class Later:
    """The memory ``beliefdb mcp`` acts on, opened (``open``) as it starts or, when its database cannot be
    reached then, by the first tool call that reaches it: until then each call answers the tool error
    ``database_unavailable`` with ``retry_after``, as a call does when the database goes away later. (It
    exited before the MCP handshake: a client started before its PostgreSQL saw "Connection closed" and
    never recovered without a restart.) Any other error opening it (a home that is a file, an unknown
    workspace) ends the command, as before."""

    def __init__(self, open_memory: Callable[[], BeliefDB]) -> None:
        self.open, self.db, self.lock = open_memory, cast(BeliefDB | None, None), threading.Lock()

    def __enter__(self) -> Later:
        try:
            self.db = self.open()
        except errors.DatabaseUnavailable as exc:
            if not isinstance(exc.__cause__, psycopg.Error):  # (not a server that is down: a home that is a file)
                raise
            sys.stderr.write(f"beliefdb mcp: {exc.message}\nbeliefdb mcp: serving all the same: each tool call"
                             " answers database_unavailable until the database can be reached\n")
            sys.stderr.flush()
        return self

    def __call__(self) -> BeliefDB:
        """The memory, opened now if it was not (:class:`errors.DatabaseUnavailable` while it cannot be)."""
        with self.lock:
            if self.db is None:
                self.db = self.open()
            return self.db

    def __exit__(self, *exc: object) -> None:
        if self.db is not None:
            self.db.close()


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` (the event loop's, a group of its tasks') only says stdout's reader is gone: the client
    closed its end of the pipe (it quit, or was killed)."""
    def gone(e: BaseException) -> bool:
        return (isinstance(e, anyio.BrokenResourceError | anyio.ClosedResourceError | BrokenPipeError)
                or (isinstance(e, OSError) and e.errno == errno.EPIPE))
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(gone)[1] is None
    return gone(exc)


def run_stdio(server: MCPServer) -> None:
    """Serve MCP on stdin/stdout until stdin ends, as ``server.run("stdio")``; lines of stdin that were not
    MCP messages (each named on stderr as it came) are an error once it ends (:class:`errors.InvalidInput`).
    The requests under way when stdin ends are answered within :data:`DRAIN_SECONDS`, else named in the
    error it ends with; a client gone (stdout closed) drops them, said in one line on stderr.

    The event loop runs in a thread of its own, which the command does not wait for past that bound: a tool
    blocked in the database runs in a worker thread that nothing can stop (the database rolls its transaction
    back when the process exits and its connection closes)."""
    watched: list[_Watched] = []
    failed: list[BaseException] = []
    ended, finished = threading.Event(), threading.Event()

    async def serve() -> None:
        lowlevel = server._lowlevel_server
        async with stdio_server() as (read, write):
            watched.append(_Watched(read, write, ended))
            await lowlevel.run(watched[0], _Sender(watched[0]), lowlevel.create_initialization_options())

    def loop() -> None:
        try:
            anyio.run(serve)
        except BaseException as exc:  # (raised again below, by the command's thread)
            failed.append(exc)
        finally:
            finished.set()
            ended.set()

    # (a daemon thread, as are the worker threads it starts: the process exits without them)
    threading.Thread(target=loop, name="beliefdb-mcp", daemon=True).start()
    ended.wait()  # stdin ended (or the loop stopped)
    if not finished.wait(DRAIN_SECONDS):
        dropped = watched[0].dropped(False)
        raise errors.BeliefDBError(f"stdin ended, and requests were still unanswered {DRAIN_SECONDS:g} s later:"
                                   f" {', '.join(dropped)}; their answers are dropped" if dropped else
                                   f"stdin ended, and the tool of a cancelled request still ran {DRAIN_SECONDS:g} s"
                                   " later: stopped without waiting for it")
    if failed and _client_gone(failed[0]) and watched:
        dropped = watched[0].dropped(True)
        sys.stderr.write("beliefdb mcp: stdout was closed (the client is gone)"
                         + (f": the answers to {', '.join(dropped)} are dropped\n" if dropped else "\n"))
        sys.stderr.flush()
        return
    if failed:
        raise failed[0]
    if watched and watched[0].bad:
        raise errors.InvalidInput(f"{watched[0].bad} line(s) of stdin were not MCP messages (JSON-RPC 2.0, one a"
                                  " line): 'beliefdb mcp' is started by an MCP client (Claude Desktop, Cursor, ...),"
                                  " not typed into")
