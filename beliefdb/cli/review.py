"""The review queue's commands: list the open items (of some kinds), approve or reject one. They parse and
print; the verdict and what it cascades to are decided in SQL (``beliefdb.review_resolve``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from beliefdb import api, render
from beliefdb.cli.common import Json, Memory, errors, page_cursor, with_memory
from beliefdb.models import ReviewResolution
from beliefdb.render.ids import short, shorts
from beliefdb.render.terminal import plain
from beliefdb.vocabulary import REVIEW_ITEM_KINDS

review_app = typer.Typer(help="The review queue: flagged decisions, held actions, open conflicts.",
                         no_args_is_help=True)


@review_app.command("list")
@with_memory(principal=False)
def review_list(
    limit: Annotated[int | None, typer.Option(
        min=1, max=api.MAX_PAGE, help="At most this many (a page of up to 100,000; default: all of them).")]
        = None,
    after: Annotated[str | None, typer.Option(
        callback=page_cursor,
        help="Only those after this item, oldest first (the last id of the page before).", metavar="ID")] = None,
    kind: Annotated[list[str] | None, typer.Option(
        help=f"Only items of this kind ({', '.join(REVIEW_ITEM_KINDS)}); repeat it, or comma-separate, for"
             " several.", metavar="KIND")] = None,
    *, memory: Memory, as_json: Json = False,
) -> None:
    """Open review items, oldest first (--kind: only those of a kind), each ending with who may resolve it
    (owner: alice; --json: owners). Page through many with --limit N and --after LAST_ID. beliefdb why ITEM
    explains one, open or resolved (who resolved it, when, the note)."""
    with errors(as_json), memory.open() as bdb:
        rows = bdb.review_items(limit=limit, after=after, kind=kind)
    typer.echo(render.to_json(rows) if as_json else render.review_items(rows, paged=after is not None))


def _resolve(item: str, verdict: str, note: str | None, winner: str | None, memory: Memory, as_json: bool) -> None:
    with errors(as_json), memory.open() as bdb:
        result = bdb.resolve_review(item, verdict, note=note, winner=winner)
    typer.echo(render.to_json(result) if as_json else "\n".join([render.review_resolution(result),
                                                                   *_cascade(result)]))


def _cascade(result: ReviewResolution) -> list[str]:
    """What a verdict changed beyond its item, a line each: an approved conflict's flagged decisions and held
    actions (as an approved correction says them), then the other review items it closed, each with why."""
    lines = []
    if result.kind == "conflict" and result.applied:
        flagged: list[Any] = result.applied.get("flagged") or []
        held: list[Any] = result.applied.get("held") or []
        lines += [f"  flagged {len(flagged)} decision(s)" + (": " + shorts(flagged) if flagged else ""),
                  f"  held {len(held)} action(s)" + (": " + shorts(held) if held else "")]
    if result.closed:
        lines.append(f"  closed {len(result.closed)} other review item(s):")
        # (one settled by itself says why in its note; one resolved with the verdict, its status first)
        lines += [f"    {short(c['id'])} {c['kind']} {short(c['node'] or c['source_id'] or '')}: "
                  + (plain(c["note"] or "") if c["status"] == "closed"
                     else c["status"] + (f" ({plain(c['note'])})" if c["note"] else "")) for c in result.closed]
    return lines


@review_app.command("approve")
@with_memory()
def review_approve(
    item: Annotated[str, typer.Argument(help="Review item id (or unique prefix).")],
    note: Annotated[str | None, typer.Option(help="A note for the record.")] = None,
    winner: Annotated[str | None, typer.Option(help="For a conflict: the belief that wins.")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Approve: keep a flagged decision, release a held action, settle a conflict for --winner, or
    apply a proposed correction. Only a belief's owner approves a correction of it, or its loss
    in a conflict (--as / BELIEFDB_PRINCIPAL names who is acting). It says what the verdict flagged, held and
    closed beside its item."""
    _resolve(item, "approved", note, winner, memory, as_json)


@review_app.command("reject")
@with_memory()
def review_reject(
    item: Annotated[str, typer.Argument(help="Review item id (or unique prefix).")],
    note: Annotated[str | None, typer.Option(help="A note for the record.")] = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Reject: a flagged decision is rejected and its held actions cancelled; a held action is cancelled;
    a proposed correction is dismissed (by the belief's owner)."""
    _resolve(item, "rejected", note, None, memory, as_json)
