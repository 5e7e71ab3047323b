"""``beliefdb demo``: the return-policy story (docs/rules.md tells its rules), as far as it is built, on a
throw-away workspace that is deleted afterwards unless it is kept (``tell``)."""

from __future__ import annotations

import contextlib
import secrets
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from uuid import UUID

from beliefdb import errors, render
from beliefdb.db.connector import Database
from beliefdb.demo.repair import run_repair_demo
from beliefdb.graph import read
from beliefdb.models import IngestFailure, IngestReport
from beliefdb.render import ask as render_ask
from beliefdb.store import audit, beliefs, corrections, decisions, ingest, retraction, retrieve, workspaces

STORIES = ("returns", "repair")

V32 = """# Return policy
Owner: Operations

Returns are accepted within 7 days of delivery.
The restocking fee is 10%.
The refund method is store credit.
"""

V33 = V32.replace("within 7 days", "within 15 days")

FORUM = """Saw this on a forum:
The restocking fee is 10%.
Return shipping is now free.
"""


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _report(result: IngestReport | IngestFailure) -> IngestReport:
    if isinstance(result, IngestFailure):
        raise RuntimeError(f"demo ingest failed: {result.message}")
    return result


def _one(db: Database, subject: str, attribute: str) -> UUID:
    (belief,) = beliefs.list_beliefs(db, subject=subject, attribute=attribute)
    return belief.id


def _status(db: Database) -> str:
    lines = [render.decisions(decisions.list_decisions(db)), render.actions(decisions.list_actions(db))]
    return "\n".join(lines)


def tell(story: str, url: str, say: Callable[[str], None], *, keep: bool = False) -> str:
    """Tell ``story`` (returns or repair) in a new workspace of ``url``, then delete the workspace
    unless ``keep``; returns its name."""
    if story not in STORIES:
        raise errors.InvalidInput(f"unknown demo '{story}' (choose from: {', '.join(STORIES)})")
    prefix, command = ("demo", "beliefdb demo") if story == "returns" else ("demo-repair", "beliefdb demo repair")
    name = f"{prefix}-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    workspaces.create_workspace(url, name, principal="demo")
    try:
        (run_demo if story == "returns" else run_repair_demo)(url, name, say)
    except BaseException:
        if not keep:
            with contextlib.suppress(errors.BeliefDBError):
                workspaces.delete_workspace(url, name, force=True)
        raise
    lead = "" if story == "returns" else "\n"  # the returns story ends with a blank line already
    if keep:
        if story == "returns":
            say(f"Explore it yourself:  beliefdb beliefs --all --workspace {name}")
            say(f"                      beliefdb review list --workspace {name}")
        else:
            say(f"{lead}Explore it yourself:  beliefdb runs --workspace {name}")
        return name
    try:
        workspaces.delete_workspace(url, name, force=True)
    except errors.BeliefDBError as exc:
        say(f"{lead}note: the workspace '{name}' stays ({exc.message}); delete it with:"
            f" beliefdb workspace delete {name} --force")
    else:
        say(f"{lead}The workspace '{name}' is deleted again ('{command} --keep' keeps it to explore).")
    return name


def run_demo(url: str, name: str, say: Callable[[str], None]) -> None:
    """Run the story against the workspace ``name`` of ``url``."""
    say(f"beliefdb demo — the return-policy story, in a new workspace '{name}'\n")
    with Database(url, name, principal="demo") as db, tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "return-policy.md"

        say("1. Operations' official return policy v3.2 is ingested. A candidate belief is kept only if")
        say("   its quote is an exact substring of the document; its offsets are stored.")
        doc.write_text(V32, encoding="utf-8")
        first = _report(ingest.ingest_paths(
            db, [doc], ingest.SourceOptions(authority="official", version_label="v3.2"))[0])
        say(_indent(render.ingest_report(first)) + "\n")
        before_v33 = datetime.now(UTC)
        seven = _one(db, "return_policy", "window")
        refund = _one(db, "refund", "method")

        say("2. An agent decides on those beliefs, and schedules an action:")
        refuse = decisions.decide(db, "Refuse the return of order 1042 (day 10)", because=[seven])
        email = decisions.act(db, refuse.id, "Email the customer a refusal")
        chat = ingest.ingest_text(db, "Customer 1043: I prefer store credit, please.", ingest.SourceOptions(
            name="chat-1043", origin="conversation", authority="user"), candidates=[ingest.parse_claim({
                "statement": "Customer 1043 prefers store credit.", "subject": "customer_1043",
                "attribute": "refund_preference", "value": "store credit",
                "quote": "I prefer store credit"}, "demo")], extractor="none")
        preference = chat.accepted[0].id
        credit = decisions.decide(db, "Refund order 1043 as store credit", because=[refund, preference])
        say(_indent(f"decision {render.short(refuse.id)} rests on the 7-day belief only; action "
                    f"{render.short(email.id)} carries it out.\n"
                    f"decision {render.short(credit.id)} has two independent reasons: the refund policy, and "
                    "what the customer said."))
        say(_indent(_status(db)) + "\n")

        say("3. Operations publishes v3.3: \"Returns are accepted within 15 days of delivery.\" Re-ingest sees")
        say("   a new version of the same source. The 7-day belief is superseded (kept as history); beliefs")
        say("   whose quote v3.3 repeats are re-verified. The refusal lost its only support: it is flagged")
        say("   and its action held — nothing else is flagged.")
        doc.write_text(V33, encoding="utf-8")
        second = _report(ingest.ingest_paths(db, [doc], ingest.SourceOptions(version_label="v3.3"))[0])
        say(_indent(render.ingest_report(second)))
        say(_indent(_status(db)) + "\n")

        fifteen = _one(db, "return_policy", "window")
        say(f"4. Why do we believe the return window is 15 days? (beliefdb why {render.short(fifteen)})")
        say(_indent(render.why(beliefs.why(db, fifteen))) + "\n")

        say("5. A reviewer corrects the refund method. Preview first:")
        seen = corrections.preview(db, refund)
        say(_indent(render.correction_preview(seen)))
        fixed = corrections.apply(db, refund, "Refunds go to the original payment method.", reviewer="rita",
                                  value="original payment method", reason="policy FAQ was wrong",
                                  expect_revision=seen.revision)
        say(_indent(render.correction_result(fixed)))
        assert fixed.replacement is not None  # the demo's principal owns what it ingested
        say("   The replacement is backed by the reviewer's own words, not by the old quote:")
        say(_indent(render.why(beliefs.why(db, fixed.replacement))))
        say(_indent(_status(db)) + "\n")

        say("6. An unverified forum post repeats the restocking fee and claims free return shipping; an")
        say("   agent builds on the second claim. Later the post turns out to be poisoned and is retracted.")
        forum = Path(tmp) / "forum-post.txt"
        forum.write_text(FORUM, encoding="utf-8")
        _report(ingest.ingest_paths(db, [forum], ingest.SourceOptions(authority="unverified"))[0])
        waive = decisions.decide(db, "Waive return shipping for order 1044",
                                 because=[_one(db, "return", "shipping")])
        say(_indent("beliefdb retract --source forum-post.txt --preview:"))
        would = retraction.preview(db, source="forum-post.txt")
        named = partial(read.labels, db)
        say(_indent(render.changes(would, preview=True, kinds=render.change_kinds(would, named))))
        say(_indent("beliefdb retract --source forum-post.txt --reason 'poisoned forum post':"))
        changes = retraction.retract(db, source="forum-post.txt", reason="poisoned forum post")
        say(_indent(render.changes(changes, kinds=render.change_kinds(changes, named))))
        fee = beliefs.list_beliefs(db, subject="restocking_policy", attribute="fee")
        say(_indent(f"decision {render.short(waive.id)} is flagged; the restocking fee is still believed "
                    f"({', '.join(b.value for b in fee)}): the official policy supports it independently."))
        say(_indent(_status(db)) + "\n")

        say(f"7. What did we believe before v3.3? (beliefdb beliefs --as-of {before_v33.isoformat()})")
        say(_indent(render.beliefs_table(beliefs.list_beliefs(db, as_of=before_v33))) + "\n")

        question = "how many days for returns?"
        say(f"8. An agent asks: beliefdb ask \"{question}\". Vector and text search only nominate")
        say("   candidates; the truth rules decide: the 15-day belief, its quote, and that it replaced 7 days.")
        answer = retrieve.ask(db, question, k=1)
        say(_indent(render_ask.ask_text(answer)))
        say(f"   ... and as of before v3.3 (beliefdb ask \"{question}\" --as-of {before_v33.isoformat()}):")
        say(_indent(render_ask.ask_text(retrieve.ask(db, question, k=1, as_of=before_v33))) + "\n")

        say("9. Every change above was appended to the workspace's SHA-256 audit chain:")
        say(_indent(render.audit(audit.verify(db))) + "\n")

