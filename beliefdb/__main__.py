from __future__ import annotations

from beliefdb.cli import app

app(prog_name="beliefdb")
