"""Print a picture of the return-policy story (``beliefdb.demo.pictures``) for the README: by default
the Mermaid of ``beliefdb impact return-policy.md`` once the agent has decided on the policy v3.2 —
"if the official policy were wrong".

    python scripts/demo_pictures.py                          # the README's impact picture
    python scripts/demo_pictures.py --picture why --format dot

It tells the story in a throw-away workspace of the database ``BELIEFDB_URL`` names (else the
embedded server) and deletes the workspace again.
"""

from __future__ import annotations

import argparse
import secrets
import sys

import beliefdb
from beliefdb import api, graph
from beliefdb.demo import pictures
from beliefdb.models import Graph

RENDER = {"mermaid": graph.to_mermaid, "dot": graph.to_dot, "text": graph.to_text}


def draw(db: beliefdb.BeliefDB, picture: str, stage: str) -> Graph:
    """Tell the story in ``db`` through ``stage`` and draw ``picture`` of it."""
    ids = pictures.build(db, stage)
    if picture == "impact":
        return db.impact_graph("return-policy.md")
    if picture == "why":
        return db.why_graph(ids["refuse"])
    return db.workspace_graph()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--picture", choices=("impact", "why", "workspace"), default="impact")
    parser.add_argument("--format", choices=tuple(RENDER), default="mermaid")
    parser.add_argument("--stage", choices=pictures.STAGES, default="decisions",
                        help="how far the story is told first (default: the agent's decisions on v3.2)")
    parser.add_argument("--db", help="database URL (default: BELIEFDB_URL, else the embedded server)")
    args = parser.parse_args(argv)
    name = f"pictures-{secrets.token_hex(4)}"
    api.create_workspace(name, url=args.db, principal="demo")
    try:
        with beliefdb.connect(args.db, name, principal="demo") as db:
            sys.stdout.write(RENDER[args.format](draw(db, args.picture, args.stage)))
    finally:
        api.delete_workspace(name, url=args.db, force=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
