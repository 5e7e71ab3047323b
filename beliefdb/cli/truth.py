"""Commands for what is built on beliefs: decisions, actions, impact, corrections, retraction, and the
review queue's group (its commands: :mod:`beliefdb.cli.review`). They parse and print; the truth rules run
in SQL."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from beliefdb import api, render
from beliefdb.cli.common import (
    DECISIONS,
    REPLAYED,
    REVIEW,
    TRUTH,
    Format,
    IdempotencyKey,
    Json,
    Memory,
    errors,
    page_cursor,
    picture_format,
    usage,
    with_memory,
)
from beliefdb.cli.review import review_app
from beliefdb.render import pictures
from beliefdb.vocabulary import ActionStatus, DecisionStatus


@with_memory()
def decide(
    title: Annotated[str, typer.Argument(help="What was decided.")],
    because: Annotated[list[str] | None, typer.Option(
        "--because", help="A belief that on its own justifies the decision; repeat for alternatives.")] = None,
    all_of: Annotated[list[str] | None, typer.Option(
        "--all-of", help="Comma-separated beliefs that together justify it (one joint reason); repeatable.")] = None,
    idempotency_key: IdempotencyKey = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Record a decision and why it was made. It is flagged when it loses its last support.

    With no reason at all it is still recorded, as needs_review ("No source-backed answer yet"):
    nothing may carry it out until a person approves it (beliefdb review approve). With --idempotency-key,
    the same title and reasons again are that decision, recorded once.
    """
    groups = [[x.strip() for x in group.split(",") if x.strip()] for group in all_of or []]
    if any(not group for group in groups):
        usage("--all-of names no belief: give comma-separated belief ids")
    with errors(as_json), memory.open() as bdb:
        recorded = bdb.decide(title, because=because or [], all_of=groups, idempotency_key=idempotency_key)
        # (a reason given that is not current now was recorded silently beside the others: said, as why does)
        notes = [note for d in bdb.decisions(of=recorded.id) for r in d.reasons for note in _notes(r)]
    if as_json:
        typer.echo(render.to_json({**render.jsonable(recorded), "notes": notes}))
        return
    typer.echo(f"decision {recorded.id} [{recorded.status}]" + (REPLAYED if recorded.already_applied else ""))
    for note in notes:
        typer.echo(f"note: {note}")


def _notes(reason: dict[str, Any]) -> list[str]:
    """What a person deciding should know of one reason of a decision (``Decision.reasons``): it does not
    hold now, or it holds on a belief a person must still choose between it and a rival (rule 8 of
    docs/rules.md): with the conflict's open review item, or none left open (a reviewer rejected it)."""
    beliefs = " + ".join(f"{render.short(b['id'])} ({b['status']})" for b in reason["beliefs"])
    if not reason["live"]:
        return [f"reason {beliefs} does not hold now (not every belief of it is current): it counts again if it"
                " is current again"]
    conflicting = [b for b in reason["beliefs"] if b["status"] == "conflicting"]
    if not conflicting:
        return []
    items = [b["conflict_item"] for b in conflicting if b.get("conflict_item")]
    if len(items) == len(conflicting):
        return [f"reason {beliefs} is in an open conflict (review item {render.shorts(list(dict.fromkeys(items)))};"
                " beliefdb review list --kind conflict): if its rival wins, the reason is lost"]
    return [f"reason {beliefs} is in a conflict a reviewer rejected (both sides stay conflicting; no review item"
            " is open for it): to settle it, correct one side (beliefdb correct ID --preview) or retract the source"
            " of one"]


@with_memory()
def act(
    decision: Annotated[str, typer.Argument(help="The decision this action carries out (id or unique prefix).")],
    description: Annotated[str, typer.Argument(help="What will be done.")],
    idempotency_key: IdempotencyKey = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Record an action carrying out a decision. It is held while its decision needs review; a rejected
    decision, or one recorded without reasons that nobody approved, may not be carried out. With
    --idempotency-key, the same decision and description again are that action, recorded once."""
    with errors(as_json), memory.open() as bdb:
        recorded = bdb.act(decision, description, idempotency_key=idempotency_key)
    typer.echo(render.to_json(recorded) if as_json
               else f"action {recorded.id} [{recorded.status}]" + (REPLAYED if recorded.already_applied else ""))


@with_memory()
def derive(
    statement: Annotated[str, typer.Argument(help="The derived statement.")],
    subject: Annotated[str, typer.Option(help="Subject of the derived belief.")],
    attribute: Annotated[str, typer.Option(help="Attribute of the derived belief.")],
    value: Annotated[str, typer.Option(help="Value of the derived belief.")],
    sources: Annotated[str, typer.Option("--from", help="Comma-separated beliefs it is derived from (all needed).")],
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Record a belief derived from others; it holds while all of them are current."""
    ids = [x.strip() for x in sources.split(",") if x.strip()]
    if not ids:
        usage("a derived belief needs --from beliefs: give comma-separated belief ids")
    with errors(as_json), memory.open() as bdb:
        recorded = bdb.derive(statement, subject, attribute, value, ids)
    typer.echo(render.to_json(recorded) if as_json else render.derived(recorded))


@with_memory(principal=False)
def list_decisions(
    ref: Annotated[str | None, typer.Argument(
        help="Only this decision, or the decision of this action (id or unique prefix).", metavar="[ID]")] = None,
    status: Annotated[DecisionStatus | None, typer.Option(help="Only decisions with this status.")] = None,
    limit: Annotated[int | None, typer.Option(
        min=1, max=api.MAX_PAGE, help="At most this many (a page of up to 100,000; default: all of them).")]
        = None,
    after: Annotated[str | None, typer.Option(
        callback=page_cursor,
        help="Only those after this decision, oldest first (the last id of the page before).", metavar="ID")] = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """List decisions, oldest first, with their status, whether they still hold, and their reasons: the
    beliefs each reason needs, and whether it is lost (a belief no longer current). Page through many
    with --limit N and --after LAST_ID."""
    with errors(as_json), memory.open() as bdb:
        rows = bdb.decisions(status.value if status else None, of=ref, limit=limit, after=after)
    typer.echo(render.to_json(rows) if as_json else render.decisions(rows))


@with_memory(principal=False)
def list_actions(
    status: Annotated[ActionStatus | None, typer.Option(help="Only actions with this status.")] = None,
    limit: Annotated[int | None, typer.Option(
        min=1, max=api.MAX_PAGE, help="At most this many (a page of up to 100,000; default: all of them).")]
        = None,
    after: Annotated[str | None, typer.Option(
        callback=page_cursor,
        help="Only those after this action, oldest first (the last id of the page before).", metavar="ID")] = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """List actions, oldest first, with their status. Page through many with --limit N and --after LAST_ID."""
    with errors(as_json), memory.open() as bdb:
        rows = bdb.actions(status.value if status else None, limit=limit, after=after)
    typer.echo(render.to_json(rows) if as_json else render.actions(rows))


@with_memory(principal=False)
def impact(
    ids: Annotated[list[str] | None, typer.Argument(
        help="Beliefs (id or prefix), fragments, decisions, source names, or a source's or source version's id"
             " (or prefix).", metavar="[IDS]...")] = None,
    source: Annotated[str | None, typer.Option(help="A source by name: all of its fragments.")] = None,
    version: Annotated[int | None, typer.Option(help="With --source: only this version (as retract names it).")]
        = None,
    include_fixtures: Annotated[bool, typer.Option(
        "--include-fixtures", help="Allow fixture or synthetic material and draw it, labelled (text and pictures;"
                                   " --json lists every world).")] = False,
    fmt: Format = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """Dry run: if these were retracted, what would stop holding, be current again, be flagged, be held,
    or survive on other support and on what (exactly what 'retract' would do).

    The text names statements and titles, a source's fragments folded into it, what is built on each
    belief under it, production history only unless --include-fixtures; --format mermaid or dot draws
    the same marks; --json lists the ids. --source NAME --version N names one version of a source, as
    retract --preview does.
    """
    if version is not None and source is None:
        usage("--version goes with --source")
    if not ids and source is None:
        usage("name what to assess: ids or source names, or --source NAME (with --version N: one version)")
    shape = picture_format(fmt, as_json)
    ids = ids or []
    with errors(as_json), memory.open() as bdb:
        if as_json:
            typer.echo(render.to_json(render.impact_json(bdb.impact(*ids, source=source, version=version))))
            return
        picture = bdb.impact_graph(*ids, include_fixtures=include_fixtures, source=source, version=version)
    typer.echo(pictures.draw(picture, shape))


@with_memory()
def correct(
    belief: Annotated[str, typer.Argument(help="The belief to correct (id or unique prefix).")],
    statement: Annotated[str, typer.Argument(help="The reviewer's corrected statement.")],
    reviewer: Annotated[str | None, typer.Option(
        help="Who corrects it (needed by --apply; default: who is acting, --as; a preview writes nothing).",
        envvar="BELIEFDB_REVIEWER")] = None,
    value: Annotated[str | None, typer.Option(help="The corrected value (default: the old one).")] = None,
    reason: Annotated[str | None, typer.Option(help="Why.")] = None,
    preview: Annotated[bool, typer.Option("--preview", help="Show what would change; write nothing.")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Apply it (needs --expect-revision from the preview).")]
        = False,
    expect_revision: Annotated[int | None, typer.Option(help="The revision the preview showed.")] = None,
    idempotency_key: Annotated[str | None, typer.Option(help="Makes a retried apply safe.")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Correct a belief: --preview first, then --apply --expect-revision N.

    The replacement is backed by a human-correction fragment with the reviewer's text, never by the old evidence.
    Only the belief's owner changes it: when --as names someone else, --apply proposes the correction
    to the owner as a review item (beliefdb review approve ITEM, by the owner, applies it).
    """
    if preview == apply:
        usage("choose one of --preview or --apply")
    if apply and expect_revision is None:
        usage("--apply needs --expect-revision (run --preview first)")
    reviewer = reviewer or memory.principal
    if apply and not (reviewer or "").strip():
        usage("--apply needs --reviewer NAME (or BELIEFDB_REVIEWER, or --as): who corrects it")
    with errors(as_json), memory.open() as bdb:
        if preview:
            seen = bdb.preview_correction(belief, statement, value)
            typer.echo(render.to_json(seen) if as_json else render.correction_preview(seen))
            return
        assert expect_revision is not None and reviewer is not None
        result = bdb.apply_correction(belief, statement, reviewer=reviewer, expect_revision=expect_revision,
                                      value=value, reason=reason, idempotency_key=idempotency_key)
    typer.echo(render.to_json(result) if as_json else render.correction_result(result))


@with_memory()
def retract(
    belief: Annotated[str | None, typer.Option(help="A belief (id or prefix).")] = None,
    fragment: Annotated[str | None, typer.Option(help="A fragment (full id).")] = None,
    source: Annotated[str | None, typer.Option(help="A source by name: all of its fragments.")] = None,
    version: Annotated[int | None, typer.Option(help="With --source: only this version.")] = None,
    reason: Annotated[str, typer.Option(help="Why it is no longer trustworthy (not needed by --undo or --preview).")]
        = "",
    preview: Annotated[bool, typer.Option("--preview", help="Show exactly what would change; write nothing.")]
        = False,
    undo: Annotated[bool, typer.Option("--undo", help="Restore what was retracted.")] = False,
    expect: Annotated[str | None, typer.Option(
        help="The fingerprint a --preview showed: apply only that change (else nothing is written).")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Declare a belief, fragment, source or version untrustworthy (or restore it with --undo).

    What rested only on it stops holding; what has independent support stays; what it superseded
    may be current again. Only its owner retracts a belief (or the correction that replaced it); a
    source belongs to whoever first ingested it, and anyone else's retraction of it (or of one of its
    versions or fragments) is proposed to them as a review item.
    """
    if len([x for x in (belief, fragment, source) if x is not None]) != 1:
        usage("retract exactly one of --belief, --fragment or --source")
    if version is not None and source is None:
        usage("--version goes with --source")
    if preview and expect is not None:
        usage("--expect goes with the apply, not with --preview (a preview changes nothing)")
    if not (undo or preview or reason.strip()):  # (a restore says no why, a preview writes nothing)
        usage("a retraction needs --reason")
    with errors(as_json), memory.open() as bdb:
        if preview:
            report = bdb.preview_retract(belief=belief, fragment=fragment, source=source, version=version, undo=undo)
        else:
            report = bdb.retract(belief=belief, fragment=fragment, source=source, version=version, reason=reason,
                                undo=undo, expect=expect)
        said = render.changes(report, preview=preview, kinds=render.change_kinds(report, bdb.labels))
        if preview:
            said += f"\nfingerprint: {report.fingerprint()} (retract --expect with it applies only this change)"
        typer.echo(render.to_json(render.retraction_json(report)) if as_json else said)


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=TRUTH)(impact)
    app.command(rich_help_panel=TRUTH)(correct)
    app.command(rich_help_panel=TRUTH)(retract)
    app.command(rich_help_panel=DECISIONS)(decide)
    app.command(rich_help_panel=DECISIONS)(act)
    app.command(rich_help_panel=DECISIONS)(derive)
    app.command("decisions", rich_help_panel=DECISIONS)(list_decisions)
    app.command("actions", rich_help_panel=DECISIONS)(list_actions)
    app.add_typer(review_app, name="review", rich_help_panel=REVIEW)
