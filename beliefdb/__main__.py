"""The ``beliefdb`` command (its console script calls :func:`main`) and ``python -m beliefdb``."""

from __future__ import annotations

import sys


def main() -> None:
    """Run the command line. Ctrl-C at any moment, while the command still loads too, exits 130 without a
    traceback (once it runs, the command says what an interrupted change had stored)."""
    try:
        from beliefdb.cli.main import app

        app(prog_name="beliefdb")
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
