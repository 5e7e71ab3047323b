"""Test helpers for the servers: the HTTP app run by uvicorn on a free loopback port in a thread, and
the MCP server run as ``python -m beliefdb mcp`` (the SDK's stdio client starts it)."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from mcp.client.stdio import StdioServerParameters

from beliefdb.interfaces.http import create_app


@contextmanager
def running_server(url: str) -> Iterator[str]:
    """``beliefdb serve`` over the database of ``url`` on 127.0.0.1 and a free port; yields its base URL."""
    server = uvicorn.Server(uvicorn.Config(create_app(url), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="beliefdb-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def stdio_server(url: str, *args: str) -> StdioServerParameters:
    """``python -m beliefdb mcp ARGS`` on the database of ``url``, with this interpreter and import path."""
    env = {"BELIEFDB_URL": url}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=sys.executable, args=["-m", "beliefdb", "mcp", *args], env=env)
