from __future__ import annotations

from beliefdb.cli.main import app

app(prog_name="beliefdb")
