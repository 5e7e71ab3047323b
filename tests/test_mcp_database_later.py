"""``beliefdb mcp`` started before its database is reachable (a desktop app launched before its PostgreSQL):
it exited at once with "error: cannot connect to the database", before the MCP handshake, so the client saw
"Connection closed" and the server stayed gone until the app was restarted. It serves anyway: each tool call
answers the tool error ``database_unavailable`` with ``retry_after`` 3 (as README's MCP section says stdio
answers) until the database can be reached, and is then served, with no restart."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import anyio
from mcp.client import Client
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from serving import free_port, stdio_server


@contextmanager
def relay(port: int, db_url: str) -> Iterator[None]:
    """127.0.0.1:``port`` relayed to the database of ``db_url`` (TCP or its Unix socket) while inside."""
    info = conninfo_to_dict(db_url)
    host, target = str(info.get("host") or "127.0.0.1"), int(info.get("port") or 5432)

    def dial() -> socket.socket:
        if host.startswith("/"):
            s = socket.socket(socket.AF_UNIX)
            s.connect(f"{host}/.s.PGSQL.{target}")
            return s
        return socket.create_connection((host, target))

    def pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            upstream = dial()
            back = threading.Thread(target=pump, args=(upstream, self.request), daemon=True)
            back.start()
            pump(self.request, upstream)
            back.join(5)
            upstream.close()

    socketserver.ThreadingTCPServer.allow_reuse_address = True
    server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def said(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


def test_stdio_serves_before_its_database_is_reachable_and_once_it_is(db_url: str) -> None:
    port = free_port()
    later = make_conninfo(db_url, host="127.0.0.1", port=port)

    async def session() -> None:
        async with Client(stdio_server(later)) as client:  # (the handshake, with no database)
            assert {t.name for t in (await client.list_tools()).tools} >= {"ask", "remember_turn"}
            for tool, arguments in (("ask", {"question": "where does Maya live?"}), ("beliefs", {}),
                                    ("remember_turn", {"conversation": "c", "speaker": "Maya", "text": "hi"})):
                result = await client.call_tool(tool, arguments)
                answer = said(result)
                assert result.is_error and answer["error"] == "database_unavailable", (tool, answer)
                assert answer["retry_after"] == 3 and result.structured_content == answer, answer
            with relay(port, db_url):  # the database is reachable now: served, without a restart
                stored = await client.call_tool("remember_turn", {"conversation": "c", "speaker": "Maya",
                                                                  "text": "I moved to Porto last week."})
                assert not stored.is_error and said(stored)["accepted"], said(stored)
                asked = await client.call_tool("ask", {"question": "where does Maya live?"})
                assert not asked.is_error and said(asked)["beliefs"][0]["value"] == "Porto", said(asked)

    anyio.run(session)
