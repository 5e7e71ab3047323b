"""Test helpers for the servers: the HTTP app run by uvicorn on a free loopback port in a thread, and
the MCP server run as ``python -m beliefdb mcp`` (the SDK's stdio client starts it)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from mcp.client.stdio import StdioServerParameters

from beliefdb.api.servers import serving


@contextmanager
def running_server(url: str) -> Iterator[str]:
    """``beliefdb serve`` over the database of ``url`` on 127.0.0.1 and a free port; yields its base URL."""
    with serving(url) as base:
        yield base


def stdio_server(url: str, *args: str) -> StdioServerParameters:
    """``python -m beliefdb mcp ARGS`` on the database of ``url``, with this interpreter and import path."""
    env = {"BELIEFDB_URL": url}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=sys.executable, args=["-m", "beliefdb", "mcp", *args], env=env)
