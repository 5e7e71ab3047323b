"""Commands that let agents reach beliefdb: the HTTP API (serve) and the MCP server on stdio (mcp).
They parse and print; the servers are ``beliefdb.api.servers``."""

from __future__ import annotations

import signal
from typing import Annotated

import typer

from beliefdb.api import servers
from beliefdb.cli.common import OPERATIONS, DbUrl, Home, Memory, errors, text_arguments, usage, with_memory


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on. Beyond loopback, put a TLS-terminating reverse"
                                           " proxy in front (see the README).")] = servers.DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on (0 to 65535).")] = servers.DEFAULT_PORT,
    log_level: Annotated[str, typer.Option(help=f"uvicorn's log level: {', '.join(servers.LOG_LEVELS)}.")]
        = "info",
    max_memories: Annotated[int, typer.Option(
        min=1, envvar="BELIEFDB_SERVE_MAX_MEMORIES", show_envvar=True,
        help="How many principals' memories stay open at once (each keeps a database connection); past it"
             " the least recently used is closed once idle, and opened again on its next call.")] = 32,
    stop_timeout: Annotated[int, typer.Option(
        min=0, envvar="BELIEFDB_SERVE_STOP_TIMEOUT", show_envvar=True,
        help="On SIGTERM or Ctrl-C, seconds to wait for the requests being answered before cancelling them; the"
             " server exits at most 5 s later whatever still runs.")] = 5,
    db: DbUrl = None, home: Home = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json) and MCP over streamable HTTP at /mcp.

    Every call needs a bearer token (beliefdb token create): it acts as the token's principal, in
    the token's workspace, never those a request names. A read-only token may read and preview only.
    """
    # (a port's range would widen --help's column of types past the variables' names)
    if not 0 <= port <= 65535:
        usage(f"--port must be 0 to 65535, not {port}")
    if log_level.lower() not in servers.LOG_LEVELS:
        usage(f"--log-level: '{log_level}' is not one of {', '.join(map(repr, servers.LOG_LEVELS))}.")
    # (uvicorn handles SIGTERM, then ends the process by it: the command line's own handler, which makes
    # SIGTERM a Ctrl-C so that other commands clean up, would make that exit 143)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with errors(False):
        servers.serve(host, port, url=db, home=home, log_level=log_level, max_memories=max_memories,
                      stop_timeout=stop_timeout)


@with_memory()
def mcp(*, memory: Memory) -> None:
    """Serve MCP on stdin/stdout for a local agent (Claude Desktop, Cursor, ...): its tools act as --as in
    --workspace. Configure it as the command 'beliefdb mcp' in the client."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (a client stops its server so; it ends there, as serve's)
    with errors(False):
        servers.serve_mcp(workspace=memory.workspace, principal=memory.principal, url=memory.url, home=memory.home)


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=OPERATIONS)(text_arguments(serve))
    app.command(rich_help_panel=OPERATIONS)(mcp)
