"""The command line: it parses arguments, calls :class:`beliefdb.BeliefDB` and prints what comes back.

``main`` holds the root application and the memory commands; the other modules one group of
commands each; ``common`` the options and error handling they share."""

from __future__ import annotations

from beliefdb.cli.main import app

__all__ = ["app"]
