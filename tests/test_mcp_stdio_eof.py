"""``beliefdb mcp`` given its last request and then the end of stdin (``printf ... | beliefdb mcp``, or a client
that closes its side after its last call): the SDK stopped at once, dropping the answer under way, and exited 0
(an upgrade trial, 3 times of 3). It answers what is under way, then stops."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import psycopg
from test_mcp_lone_surrogate import HELLO

import beliefdb


def test_the_requests_under_way_at_the_end_of_stdin_are_answered(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    (belief,) = bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="returns.md",
                                embed=False).accepted
    env = {**os.environ, "BELIEFDB_URL": db_url}
    env.pop("BELIEFDB_HOME", None)
    calls = [{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "why",
                                                                           "arguments": {"belief": str(belief.id)}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ask",
                                                                           "arguments": {"question": "returns?"}}}]
    lines = "".join(json.dumps(m) + "\n" for m in [*HELLO, *calls])
    done = subprocess.run([sys.executable, "-m", "beliefdb", "mcp"], input=lines, capture_output=True, text=True,
                          env=env, timeout=120)
    replies = {r.get("id"): r for r in map(json.loads, done.stdout.splitlines())}
    assert sorted(replies) == [1, 2, 3], (done.stdout, done.stderr)
    assert "7 days" in replies[2]["result"]["content"][0]["text"]
    assert done.returncode == 0, done.stderr


ASK = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
       "params": {"name": "ask", "arguments": {"question": "returns?"}}}
#: ``beliefdb mcp`` with DRAIN_SECONDS set to {}
DRAINING = ("import beliefdb.interfaces.mcp_stdio as m; m.DRAIN_SECONDS = {}; import runpy, sys;"
            " sys.argv = ['beliefdb', 'mcp']; runpy.run_module('beliefdb', run_name='__main__')")


def _mcp(db_url: str, *, drain: float | None = None) -> subprocess.Popen[str]:
    """``beliefdb mcp`` on the test's database, given the handshake and ASK, its stdin then closed (``drain``:
    with DRAIN_SECONDS so)."""
    env = {**os.environ, "BELIEFDB_URL": db_url, "BELIEFDB_LOCK_TIMEOUT": "0"}  # (a tool waits on a lock for good)
    env.pop("BELIEFDB_HOME", None)
    command = [sys.executable, "-m", "beliefdb", "mcp"]
    if drain is not None:
        command = [sys.executable, "-c", DRAINING.format(drain)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    assert process.stdin is not None
    process.stdin.write("".join(json.dumps(m) + "\n" for m in [*HELLO, ASK]))
    process.stdin.close()
    return process


@contextmanager
def belief_locked(db_url: str) -> Iterator[tuple[Callable[[], None], Callable[[], None]]]:
    """beliefdb.belief locked (access exclusive) until the block ends; yields a wait until a session waits on it,
    and the release of the lock."""
    with psycopg.connect(db_url) as lock:
        lock.execute("lock table beliefdb.belief in access exclusive mode")

        def waited_on() -> None:
            deadline = time.monotonic() + 60
            with psycopg.connect(db_url, autocommit=True) as look:
                while look.execute("select count(*) from pg_stat_activity where datname = current_database()"
                                   " and wait_event_type = 'Lock'").fetchone() != (1,):
                    assert time.monotonic() < deadline, "no tool call waited on the lock"
                    time.sleep(0.1)

        yield waited_on, lock.rollback
        lock.rollback()


def test_a_client_gone_before_its_answer_ends_the_server_quietly(db_url: str) -> None:
    """(a review) A client that closed both pipes (it quit, or was killed) while a tool still ran: the answer
    written to a stdout nobody read raised BrokenPipeError, and the server printed a 97-line traceback and
    exited 1 (0, silently, before it waited for the requests under way at the end of stdin). The answer is
    dropped, said in one line, and the server exits 0."""
    with belief_locked(db_url) as (waited_on, unlock), _mcp(db_url) as process:
        waited_on()  # (the ask runs, blocked by the lock)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the client is gone: nobody reads its stdout
        unlock()
        assert process.wait(timeout=60) == 0
        said = process.stderr.read().strip().splitlines()
    assert len(said) == 1 and "Traceback" not in said[0], said
    assert said[0].startswith("beliefdb mcp: stdout was closed") and "2 (ask)" in said[0], said


def test_the_wait_at_the_end_of_stdin_is_bounded_and_names_what_it_drops(db_url: str) -> None:
    """(a review) The wait for the requests under way at the end of stdin did not hold for a tool blocked in the
    database (it waited for the tool's thread, however long), and when it gave up the answer was dropped with
    exit 0 and nothing said. Past the bound the server exits 1 at once, naming the requests it drops."""
    with belief_locked(db_url) as (waited_on, _), _mcp(db_url, drain=2) as process:
        waited_on()
        started = time.monotonic()
        try:
            rc = process.wait(timeout=30)  # (the lock is still held: the tool has not returned)
        except subprocess.TimeoutExpired:
            process.kill()  # (else leaving the block would wait for it, holding the lock it waits for)
            raise
        assert time.monotonic() - started < 15
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
    assert rc == 1, err
    assert [json.loads(line).get("id") for line in out.splitlines()] == [1]
    said = err.strip().splitlines()
    assert len(said) == 1 and "Traceback" not in err, err
    assert "2 (ask)" in said[0] and "2 s" in said[0], said
