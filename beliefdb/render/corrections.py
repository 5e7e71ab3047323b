"""The reports of what a retraction would change (``impact``) and of a correction, previewed, applied
and approved (a correction proposed to the belief's owner): one renderer says a correction's change
report, so the apply and the approval list what its preview showed (rule 7 of docs/rules.md)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from beliefdb.db.reports import correction
from beliefdb.models import Changes, CorrectionPreview, CorrectionResult, ImpactRow, StillSupported
from beliefdb.render.ids import short, shorts
from beliefdb.render.ingest import not_embedded
from beliefdb.render.terminal import for_terminal


def impact_json(rows: list[ImpactRow]) -> dict[str, Any]:
    """The dry run grouped by effect, as the CLI's --json prints it: ``stops_current`` is what stops being
    current and still holds (superseded anew by what the change brings back, or by a correction's
    replacement)."""
    return {
        "stops_holding": [{"id": r.node, "kind": r.kind} for r in rows if r.effect == "stops_holding"],
        "stops_current": [{"id": r.node, "kind": r.kind} for r in rows if r.effect == "stops_current"],
        "becomes_current": [{"id": r.node, "kind": r.kind} for r in rows if r.effect == "becomes_current"],
        "flagged": [r.node for r in rows if r.effect == "flag"],
        "held": [r.node for r in rows if r.effect == "hold"],
        "still_supported": [{"decision": r.node, "by": r.detail.get("by", [])} for r in rows
                            if r.effect == "survives"],
    }


@for_terminal
def impact(rows: list[ImpactRow]) -> str:
    grouped = impact_json(rows)
    lines = [f"would stop holding: {len(grouped['stops_holding'])}"]
    lines += [f"  - {x['kind']} {short(x['id'])}" for x in grouped["stops_holding"]]
    # (what stops being current and still holds: superseded anew, or by a correction's replacement)
    if grouped["stops_current"]:
        lines.append(f"would stop being current (still holds): {len(grouped['stops_current'])}")
        lines += [f"  - {x['kind']} {short(x['id'])}" for x in grouped["stops_current"]]
    if grouped["becomes_current"]:
        lines.append(f"would be current again: {len(grouped['becomes_current'])}")
        lines += [f"  + {x['kind']} {short(x['id'])}" for x in grouped["becomes_current"]]
    lines.append(f"decisions flagged (lost their last support): {len(grouped['flagged'])}")
    lines += [f"  ! {short(r.node)} {r.detail.get('title', '')}" for r in rows if r.effect == "flag"]
    lines.append(f"actions held: {len(grouped['held'])}")
    lines += [f"  ‖ {short(r.node)} {r.detail.get('description', '')}" for r in rows if r.effect == "hold"]
    lines.append(f"decisions that survive on other support: {len(grouped['still_supported'])}")
    for r in rows:
        if r.effect == "survives":
            by = "; ".join(" + ".join(short(x) for x in group) for group in r.detail.get("by", []))
            lines.append(f"  ✓ {short(r.node)} {r.detail.get('title', '')} — still supported by {by}")
    return "\n".join(lines)


def _listed(ids: list[UUID]) -> str:
    return (": " + shorts(ids)) if ids else ""


def _correction_changes(flagged: list[UUID], held: list[UUID], survives: list[StillSupported],
                        changes: Changes | None, *, preview: bool) -> list[str]:
    """A correction's change report, a line each, as its preview says it would happen (``preview``) or
    as its apply says it happened: the decisions flagged, the actions held, the decisions left standing
    and on what, then (from the report, when there is one) what stops being current, is current again,
    stops holding or holds again."""
    def verb(would: str, did: str) -> str:
        return would if preview else did

    lines = [f"  {verb('flag', 'flagged')} {len(flagged)} decision(s)" + _listed(flagged),
             f"  {verb('hold', 'held')} {len(held)} action(s)" + _listed(held)]
    for s in survives:
        by = "; ".join(" + ".join(short(x) for x in group) for group in s.by)
        lines.append(f"  {verb('leave', 'left')} decision {short(s.decision)} standing, supported by {by}")
    if changes is not None:
        make = verb("make", "made")
        lines.append(f"  {make} {len(changes.stopped_current)} node(s) no longer current"
                     + _listed(changes.stopped_current))
        for ids, what in ((changes.became_current, "current again"), (changes.stopped_holding, "stop holding"),
                          (changes.started_holding, "hold again")):
            if ids:
                lines.append(f"  {make} {len(ids)} node(s) {what}" + _listed(ids))
    return lines


@for_terminal
def correction_preview(p: CorrectionPreview) -> str:
    if p.proposed:
        lines = [f"belief {p.belief} (revision {p.revision}) is owned by {p.owner}: applying proposes the correction",
                 "  to them as a review item and changes nothing until they approve it. If they do, the",
                 "  correction would:"]
        if p.if_approved is None:  # (a session that cannot act as the owner cannot run the approval)
            lines.append("    (only a session that may act as the owner can preview the approval)")
        else:
            lines += ["    " + line for line in impact(p.if_approved).splitlines()]
        lines.append(f"propose with: --apply --expect-revision {p.revision}")
        return "\n".join(lines)
    return "\n".join([
        f"correcting belief {p.belief} at revision {p.revision} would:",
        *_correction_changes(p.would_flag, p.would_hold, p.still_supported, p.changes, preview=True),
        f"apply with: --apply --expect-revision {p.revision}",
    ])


@for_terminal
def correction_result(r: CorrectionResult) -> str:
    """An applied correction with the change report its preview showed (the same lines, said as done),
    or a correction proposed to the belief's owner."""
    if r.proposed:
        again = " (already proposed)" if r.already_applied else ""
        return "\n".join([
            f"correction proposed{again}: review item {r.review_item}",
            f"  the belief is owned by {r.owner}; it changes when its owner approves:"
            f" beliefdb review approve {short(r.review_item) if r.review_item else ''}",
        ])
    return "\n".join([
        f"correction {r.correction}: {_head(r)}",
        f"  replacement {r.replacement} (human_correction evidence: the reviewer's text)",
        *_applied(r),
        *([not_embedded(r.embedding_deferred)] if r.embedding_deferred else []),
    ])


def _head(r: CorrectionResult) -> str:
    return "already applied (dependency check re-run)" if r.already_applied else "applied"


def _applied(r: CorrectionResult) -> list[str]:
    """What an applied correction superseded, then its change report, said as done."""
    return ["  superseded " + shorts(r.superseded),
            *_correction_changes(r.flagged, r.held, r.changes.survives if r.changes else [], r.changes, preview=False)]


def approved_correction(raw: dict[str, Any]) -> list[str]:
    """``review approve``'s lines for an approved proposed correction (``ReviewResolution.correction``):
    the correction and its replacement, then what it superseded and its change report, the lines
    ``correct --apply`` prints (:func:`correction_result`), under the review item's line."""
    r = correction(raw)
    return [f"  correction {r.correction} {_head(r)}: replacement {r.replacement}",
            *("  " + line for line in _applied(r))]
