"""Test helpers for the servers: the HTTP app run by uvicorn on a free loopback port in a thread or as a
``python -m beliefdb serve`` process, and the MCP server run as ``python -m beliefdb mcp`` (the SDK's
stdio client starts it)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from beliefdb import api
from beliefdb.api.servers import serving
from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer


@contextmanager
def own_server(prefix: str) -> Iterator[tuple[EmbeddedServer, str]]:
    """A server of its own (the suite's is shared), migrated, for a test to stop or crash; removed after."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    own = EmbeddedServer(home)
    url = own.start()
    try:
        migrate.upgrade(url)
        yield own, url
    finally:
        own.stop()
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def running_server(url: str) -> Iterator[str]:
    """``beliefdb serve`` over the database of ``url`` on 127.0.0.1 and a free port; yields its base URL."""
    with serving(url) as base:
        yield base


def free_port() -> int:
    """A loopback port free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_process(url: str, *, log_level: str = "warning",
                  env: Mapping[str, str] | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m beliefdb serve`` over the database of ``url`` as a process on a free loopback port (its
    environment: this one and ``env``), once it answers ``/health``; yields it and its base URL. Stopped
    at the end if the test left it running (SIGTERM, then SIGKILL), its output read."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "beliefdb", "serve", "--port", str(port), "--db", url, "--log-level", log_level],
        env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.communicate()[0]
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "beliefdb serve did not answer"
            time.sleep(0.1)
        yield process, base
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        process.communicate(timeout=30)


def stdio_server(url: str, *args: str) -> StdioServerParameters:
    """``python -m beliefdb mcp ARGS`` on the database of ``url``, with this interpreter and import path."""
    env = {"BELIEFDB_URL": url}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=sys.executable, args=["-m", "beliefdb", "mcp", *args], env=env)


def bearer(db_url: str, who: str = "alice", *, read_only: bool = False) -> dict[str, str]:
    """The Authorization header of a new token of ``who`` in the default workspace."""
    return {"Authorization": f"Bearer {api.create_token('default', who, read_only=read_only, url=db_url).token}"}


def refused(response: Any, status: int, code: str) -> str:
    """The one-line message of an error answer with this status and code."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error", "message"} and body["error"] == code, body
    message: str = body["message"]
    assert message and "\n" not in message and "pydantic" not in message, message
    return message


def follow_pages(client: Any, url: str, headers: Mapping[str, str]) -> tuple[list[list[Any]], list[str]]:
    """The ids of each page a list answers from ``url`` on, following each answer's ``Link`` to the
    next page (each answer 200), and the links followed."""
    pages: list[list[Any]] = []
    links: list[str] = []
    while url:
        answer = client.get(url, headers=headers)
        assert answer.status_code == 200, answer.text
        pages.append([row["id"] for row in answer.json()])
        link = answer.headers.get("link")
        if link:
            links.append(link)
        url = link.split(";")[0].strip("<>") if link else ""
    return pages, links


def tool_answer(memory: Any, name: str, arguments: Mapping[str, Any], *, error: bool = False) -> Any:
    """The parsed answer of one call of the MCP tool ``name`` over ``memory``'s MCP server in memory (as
    stdio's tools act), which must be a tool error (``error``) or must not."""
    from beliefdb.interfaces.mcp import build

    answers: list[Any] = []

    async def run() -> None:
        async with Client(build(local=memory)) as client:
            result = await client.call_tool(name, dict(arguments))
            assert result.is_error == error, result
            answers.append(json.loads(result.content[0].text))  # type: ignore[union-attr]

    anyio.run(run)
    return answers[0]
