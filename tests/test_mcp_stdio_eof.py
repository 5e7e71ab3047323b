"""``beliefdb mcp`` given its last request and then the end of stdin (``printf ... | beliefdb mcp``, or a client
that closes its side after its last call): the SDK stopped at once, dropping the answer under way, and exited 0
(an upgrade trial, 3 times of 3). It answers what is under way, then stops."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
