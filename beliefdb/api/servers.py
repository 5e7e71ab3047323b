"""Running the servers agents reach beliefdb through: the HTTP API (``beliefdb serve``, with MCP over
streamable HTTP under ``/mcp``) and the MCP server on stdio (``beliefdb mcp``). They are thin layers
over :class:`beliefdb.api.BeliefDB` (:mod:`beliefdb.interfaces`) and need the ``serve`` extra."""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from beliefdb.api.memory import connect
from beliefdb.db.bootstrap import resolve_url
from beliefdb.db.connector import DEFAULT_WORKSPACE
from beliefdb.errors import InvalidInput, ServeUnavailable

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
    import uvicorn

    from beliefdb import settings
    from beliefdb.interfaces.http import create_app
    from beliefdb.interfaces.stopping import Server

    configured = settings.load()
    app = create_app(resolve_url(url, home=Path(home) if home is not None else None),
                     max_open=configured.serve_max_memories if max_memories is None else max_memories)
    server = Server(uvicorn.Config(app, host=host, port=port, log_level=log_level),
                    grace=configured.serve_stop_timeout if stop_timeout is None else stop_timeout)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:
        raise SystemExit(3)  # as uvicorn.run: the server did not start, and its log said why


@contextlib.contextmanager
def serving(url: str, *, mcp: bool = True, timeout: float = 60) -> Iterator[str]:
    """``beliefdb serve``'s app over the database at ``url``, in a thread of this process on 127.0.0.1
    and a free port (for tests, benchmarks and scripts that drive it); yields its base URL, stops it
    on leaving."""
    require_serve()
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


def serve_mcp(*, workspace: str = DEFAULT_WORKSPACE, principal: str | None = None, url: str | None = None,
              home: str | Path | None = None) -> None:
    """Serve MCP on stdin/stdout as ``principal`` in ``workspace`` until the client closes it."""
    require_serve()
    from beliefdb.interfaces import mcp

    with connect(url, workspace, principal=principal, home=home) as db:
        mcp.build(local=db).run("stdio")
