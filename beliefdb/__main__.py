"""The ``beliefdb`` command (its console script calls :func:`main`) and ``python -m beliefdb``."""

from __future__ import annotations

import sys

# the exit codes of a command stopped by Ctrl-C (SIGINT) and by SIGTERM, as a shell reports a signal
INTERRUPTED, TERMINATED = 130, 143

_terminated: list[int] = []


def _on_sigterm(signum: int, _frame: object) -> None:
    # A supervisor's SIGTERM (a timeout, systemd, a CI job's cancel) stops a command as Ctrl-C does,
    # so that it cleans up: a dump's password file and partial file are removed and its pg_dump stopped
    # (Python's default for SIGTERM is to die on the spot, leaving them all behind).
    _terminated.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """Run the command line. Ctrl-C at any moment, while the command still loads too, exits 130 without a
    traceback (once it runs, the command says what an interrupted change had stored); SIGTERM does the
    same and exits 143. ``serve``, ``mcp`` and ``worker`` handle SIGTERM their own way."""
    import signal  # (here: this module is imported before Ctrl-C can be caught, so it imports nothing)

    signal.signal(signal.SIGTERM, _on_sigterm)
    code: int | str | None
    try:
        from beliefdb.cli.main import app

        app(prog_name="beliefdb")
        code = 0
    except KeyboardInterrupt:
        code = INTERRUPTED
    except SystemExit as exc:
        code = exc.code
    sys.exit(TERMINATED if _terminated and code == INTERRUPTED else code)


if __name__ == "__main__":
    main()
