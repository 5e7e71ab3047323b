"""``beliefdb forget`` as a person or a script runs it: ``--preview --json`` first, then the apply with
``--expect`` and the fingerprint the preview printed (the command line erases nothing without it)."""

from __future__ import annotations

import os

from conftest import Cli, Env
from typer.testing import Result


def forget(cli: Cli, *args: str | os.PathLike[str], env: Env | None = None, expect: int | None = 0) -> Result:
    """Preview the forget ``args`` name (its options, ``--as``, ``--mask-mentions``, ``--json``...), then apply
    it with the preview's fingerprint; the apply's result, its exit code asserted as ``cli`` does."""
    fingerprint = cli.json("forget", *args, "--preview", env=env)["fingerprint"]
    return cli("forget", *args, "--expect", fingerprint, env=env, expect=expect)
