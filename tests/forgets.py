"""``beliefdb forget`` as a person or a script runs it: ``--preview --json`` first, then the apply with
``--expect`` and the fingerprint the preview printed (the command line erases nothing without it)."""

from __future__ import annotations

import os
import re
import shlex

from conftest import Cli, Env
from typer.testing import Result


def forget(cli: Cli, *args: str | os.PathLike[str], env: Env | None = None, expect: int | None = 0) -> Result:
    """Preview the forget ``args`` name (its options, ``--as``, ``--mask-mentions``, ``--json``...), then apply
    it with the preview's fingerprint; the apply's result, its exit code asserted as ``cli`` does."""
    fingerprint = cli.json("forget", *args, "--preview", env=env)["fingerprint"]
    return cli("forget", *args, "--expect", fingerprint, env=env, expect=expect)


HINTED = re.compile(r"beliefdb (forget [^,;)]*)")


def run_hinted(cli: Cli, hint: str, placeholder: str, value: str, env: Env | None = None) -> Result:
    """Run the forget a mention's ``hint`` names, as written (``placeholder`` replaced by ``value``): its
    preview, then, as the hint says, again with ``--expect`` and the fingerprint that preview printed.
    The apply's result; both exit codes asserted 0."""
    found = HINTED.search(hint)
    assert found, hint
    argv = [value if a == placeholder else a for a in shlex.split(found.group(1))]
    shown = cli(*argv, env=env)
    assert "then again with --expect" in hint[found.end():], hint
    fingerprint = re.search(r"^fingerprint: (\S+)", shown.stdout, re.M)
    assert fingerprint, shown.stdout
    applied = [a for a in argv if a != "--preview"] + ["--expect", fingerprint.group(1)]
    return cli(*applied, env=env)
