"""``beliefdb demo``: the return-policy story of DESIGN.md, as far as it is built, on a
throw-away workspace."""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from beliefdb import audit, beliefs, ingest, render, workspaces
from beliefdb.connector import Database

V32 = """# Return policy
Owner: Operations

Returns are accepted within 7 days of delivery.
The restocking fee is 10%.
Refunds go to the original payment method.
"""

V33 = """# Return policy
Owner: Operations

Returns are accepted within 15 days of delivery.
The restocking fee is 10%.
Refunds go to the original payment method.
"""


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def run_demo(url: str, say: Callable[[str], None]) -> str:
    """Run the story against ``url`` and return the name of the workspace it used."""
    name = f"demo-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    workspaces.create_workspace(url, name, principal="demo")
    say(f"beliefdb demo — the return-policy story, in a new workspace '{name}'\n")
    with Database(url, name, principal="demo") as db, tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "return-policy.md"

        say("1. Operations' official return policy v3.2 is ingested. Each candidate belief is kept only")
        say("   if its quote is an exact substring of the document; its offsets are stored.")
        doc.write_text(V32, encoding="utf-8")
        first = ingest.ingest_paths(db, [doc], ingest.SourceOptions(authority="official", version_label="v3.2"))[0]
        say(_indent(render.ingest_report(first)) + "\n")
        before_v33 = datetime.now(UTC)

        say("2. What the memory believes now:")
        say(_indent(render.beliefs_table(beliefs.list_beliefs(db))) + "\n")

        say("3. Operations publishes v3.3: \"Returns are accepted within 15 days of delivery.\"")
        say("   Re-ingest sees a new version of the same source (new sha256). The 7-day belief is")
        say("   superseded, kept as history; beliefs whose quote v3.3 repeats are re-verified.")
        doc.write_text(V33, encoding="utf-8")
        second = ingest.ingest_paths(db, [doc], ingest.SourceOptions(version_label="v3.3"))[0]
        say(_indent(render.ingest_report(second)) + "\n")

        say("4. Every belief with its status (beliefdb beliefs --all):")
        say(_indent(render.beliefs_table(beliefs.list_beliefs(db, include_all=True), with_status=True)) + "\n")

        window = beliefs.list_beliefs(db, subject="return_policy", attribute="window")
        if window:
            ref = render.short(window[0].id)
            say(f"5. Why do we believe the return window is {window[0].value}? (beliefdb why {ref})")
            say(_indent(render.why(beliefs.why(db, window[0].id))) + "\n")

        say(f"6. What did we believe before v3.3? (beliefdb beliefs --as-of {before_v33.isoformat()})")
        say(_indent(render.beliefs_table(beliefs.list_beliefs(db, as_of=before_v33))) + "\n")

        say("7. Every change above was appended to the workspace's SHA-256 audit chain:")
        say(_indent(render.audit(audit.verify(db))) + "\n")

        say("Same file again is a no-op:")
        again = ingest.ingest_paths(db, [doc], ingest.SourceOptions())[0]
        say(_indent(render.ingest_report(again).splitlines()[0]) + "\n")

    say(f"Explore it yourself:  beliefdb beliefs --all --workspace {name}")
    say(f"                      beliefdb why <id> --workspace {name}")
    return name
