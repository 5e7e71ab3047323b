"""Running the servers agents reach beliefdb through: the HTTP API (``beliefdb serve``, with MCP over
streamable HTTP under ``/mcp``) and the MCP server on stdio (``beliefdb mcp``). They are thin layers
over :class:`beliefdb.api.BeliefDB` (:mod:`beliefdb.interfaces`) and need the ``serve`` extra."""

from __future__ import annotations

import contextlib
import errno
import importlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from beliefdb.api.memory import connect
from beliefdb.db.bootstrap import resolve_url
from beliefdb.embedders import openmp_defaults
from beliefdb.errors import InvalidInput, ServeUnavailable, wording
from beliefdb.inputs import given_home

SERVE_HINT = "pip install 'beliefdb[serve]'"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")  # uvicorn's



def require_serve() -> None:
    """Fail early, before any work, when the servers' packages are missing."""
    for name in ("fastapi", "uvicorn", "mcp", "jinja2", "python_multipart"):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ServeUnavailable(f"the servers need {name}, which is not installed: {SERVE_HINT}") from exc


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, url: str | None = None,
          home: str | Path | None = None, log_level: str = "info", max_memories: int | None = None,
          stop_timeout: int | None = None) -> None:
    """Serve the HTTP API (and MCP over HTTP at /mcp) until SIGTERM or Ctrl-C. Every call needs a bearer
    token (``beliefdb token create``); listen beyond loopback only behind a TLS-terminating proxy. The
    memories of at most ``max_memories`` principals stay open at once (each keeps a connection; default
    32). On the signal it waits at most ``stop_timeout`` seconds (default 5) for the requests it is
    answering, cancels the rest, and exits at most 5 s later whatever still runs."""
    # refused before anything starts (uvicorn would fail with a traceback once the database is up)
    if not 0 <= port <= 65535:
        raise InvalidInput(f"port must be 0 to 65535, not {port}")
    if log_level.lower() not in LOG_LEVELS:
        raise InvalidInput(f"unknown log level '{log_level}' (choose from: {', '.join(LOG_LEVELS)})")
    require_serve()
    # (before the server's threads: one of them may load the local model)
    openmp_defaults(unless_configured_otherwise=True)
    import uvicorn

    from beliefdb import settings
    from beliefdb.interfaces.http import create_app
    from beliefdb.interfaces.stopping import Server

    configured = settings.load()
    check_port(host, port)  # (before the database: a busy port is one line, not uvicorn's log and exit 3)
    app = create_app(resolve_url(url, home=given_home(home)),
                     max_open=configured.serve_max_memories if max_memories is None else max_memories)
    server = Server(uvicorn.Config(app, host=host, port=port, log_level=log_level),
                    grace=configured.serve_stop_timeout if stop_timeout is None else stop_timeout)
    # its callers read the library's words (reason=), even when the CLI started it
    with contextlib.suppress(KeyboardInterrupt), wording("library"):
        server.run()
    if not server.started:
        raise SystemExit(3)  # as uvicorn.run: the server did not start, and its log said why


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a ``host``:``port`` the server could not listen on: each address of ``host`` is
    bound for a moment as asyncio binds it for uvicorn (SO_REUSEADDR; IPv6 only on an IPv6 socket). A port
    in use, a port this user may not open, an address this machine does not have: :class:`ServeUnavailable`
    naming it and how to choose another. Port 0 (any free one) is not checked."""
    if port == 0:
        return
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeUnavailable(f"cannot listen on {host}: {exc.strerror or exc}") from None
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise ServeUnavailable(
                        f"port {port} on {host} is already in use (another beliefdb serve, or another program):"
                        " choose another with --port, e.g. --port 0 for any free one") from None
                if exc.errno == errno.EACCES:
                    raise ServeUnavailable(f"port {port} on {host} is not allowed to this user (ports below 1024"
                                           " need privileges): choose another with --port") from None
                raise ServeUnavailable(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def serving(url: str, *, mcp: bool = True, timeout: float = 60) -> Iterator[str]:
    """``beliefdb serve``'s app over the database at ``url``, in a thread of this process on 127.0.0.1
    and a free port (for tests, benchmarks and scripts that drive it); yields its base URL, stops it
    on leaving."""
    require_serve()
    openmp_defaults(unless_configured_otherwise=True)
    import uvicorn

    from beliefdb.interfaces.http import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(url, mcp=mcp), host=DEFAULT_HOST, port=0,
                                          log_level="warning"))
    thread = threading.Thread(target=server.run, name="beliefdb-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise ServeUnavailable(f"the server did not start within {timeout:g} s")
        time.sleep(0.02)
    try:
        yield f"http://{DEFAULT_HOST}:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)


def serve_mcp(*, workspace: str | None = None, principal: str | None = None, url: str | None = None,
              home: str | Path | None = None) -> None:
    """Serve MCP on stdin/stdout as ``principal`` in ``workspace`` until the client closes it. A database that
    cannot be reached yet is connected to by the first tool call that can (until then each answers the tool
    error ``database_unavailable``, with ``retry_after``): a client started before its database recovers
    without a restart."""
    require_serve()
    from beliefdb.interfaces import mcp, mcp_stdio

    with mcp_stdio.Later(lambda: connect(url, workspace, principal=principal, home=home)) as memory, \
            wording("mcp"):
        mcp_stdio.run_stdio(mcp.build(local=memory))
