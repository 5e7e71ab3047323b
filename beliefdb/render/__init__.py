"""Turning results into text for people and JSON for scripts. No database access here.

Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from psycopg.types.range import Range

from beliefdb.models import (
    Action,
    AuditResult,
    Belief,
    Changes,
    Decision,
    DerivedBelief,
    Evidence,
    Forgotten,
    HistoryEntry,
    NodeLabel,
    ReviewItem,
    ReviewMark,
    ReviewResolution,
    Skipped,
    Why,
)
from beliefdb.render.corrections import (
    approved_correction,
    correction_preview,
    correction_result,
    impact,
    impact_json,
)
from beliefdb.render.ids import short, shorts
from beliefdb.render.ingest import ingest_report, not_embedded
from beliefdb.render.pictures.labels import HOLDS_AGAIN, review_item_lines, version_label
from beliefdb.render.terminal import JSON_CONTROLS, for_terminal

# (re-exported: these are the callers' names, render.short and render.ingest_report among them)
__all__ = ["correction_preview", "correction_result", "impact", "impact_json", "ingest_report", "short", "shorts"]


#: a skipped sentence's quote in JSON is cut to this many characters (a 3 MB line was quoted whole)
SKIPPED_QUOTE_CHARS = 500


def jsonable(value: Any) -> Any:
    """Plain JSON types for dataclasses, ids, timestamps and ranges. A skipped sentence (``Skipped``) is
    quoted up to :data:`SKIPPED_QUOTE_CHARS` characters, then "…", with its full ``quote_length`` and
    whether it was ``truncated`` (its ``start`` and ``end`` name the whole span)."""
    if isinstance(value, Skipped):
        cut = len(value.quote) > SKIPPED_QUOTE_CHARS
        return {"quote": value.quote[:SKIPPED_QUOTE_CHARS] + "…" if cut else value.quote, "start": value.start,
                "end": value.end, "reason": jsonable(value.reason), "detail": value.detail,
                "quote_length": len(value.quote), "truncated": cut}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, UUID | Path):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Range):
        return {"from": jsonable(value.lower), "to": jsonable(value.upper)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def to_json(value: Any) -> str:
    """``value`` as JSON, every control character escaped (JSON's escapes: the text is exact once read),
    none raw for a terminal to run. (json.dumps escapes C0 itself; DEL and C1 only appear in strings.)"""
    return json.dumps(jsonable(value), ensure_ascii=False, indent=2).translate(JSON_CONTROLS)


def evidence_json(e: Evidence) -> dict[str, Any]:
    """One piece of evidence as every ``--json`` output spells it: the quote's offsets in its source
    version are ``start`` and ``end`` (``text[start:end] == quote``), as in the claims files ingest reads
    and the ``accepted`` entries of an ingest report."""
    return {"quote": e.quote, "start": e.start_offset, "end": e.end_offset, "source": e.source,
            "version": e.version, "version_label": e.version_label, "version_sha256": e.version_sha256,
            "in_force": e.in_force, "role": e.role, "origin_type": e.origin_type, "authority": e.authority,
            "provenance": e.provenance, "fragment_id": str(e.fragment_id), "belief_id": str(e.belief_id),
            "created_at": e.created_at.isoformat(), "speaker": e.speaker,
            "spoken_at": e.spoken_at.isoformat() if e.spoken_at else None, "retracted": e.retracted}


def why_json(w: Why, review_item: ReviewMark | None = None) -> dict[str, Any]:
    """``why --json``: the fields of :class:`Why`, its evidence spelled by :func:`evidence_json`; asked of a
    review item's id, that item too (``review_item``)."""
    out: dict[str, Any] = jsonable(w)
    out["evidence"] = [evidence_json(e) for e in w.evidence]
    if review_item is not None:
        out["review_item"] = jsonable(review_item)
    return out


def valid_time(r: Range[datetime]) -> str:
    """``FROM → TO`` (``…`` for an open end); "time not stated" when neither was (as ``ask`` says it: such a
    belief is no claim to hold always)."""
    if r.lower is None and r.upper is None:
        return "time not stated"
    lower = r.lower.isoformat() if r.lower else "…"
    upper = r.upper.isoformat() if r.upper else "…"
    return f"{lower} → {upper}"


@for_terminal
def beliefs_table(rows: Iterable[Belief], *, with_status: bool = False) -> str:
    lines = []
    for b in rows:
        status = f" [{b.status}]" if with_status or b.status != "current" else ""
        label = f" ({b.provenance}, not production history)" if b.provenance != "production" else ""
        lines.append(f"{short(b.id)}  {b.subject} / {b.attribute} = {b.value}{status}{label}")
        stated = b.valid_time.lower is not None or b.valid_time.upper is not None
        lines.append(f"          \"{b.statement}\"  confidence {b.confidence:.2f} ({b.confidence_kind}),"
                     f" {b.evidence_count} evidence" + (f", valid {valid_time(b.valid_time)}" if stated else ""))
    return "\n".join(lines) if lines else "(no beliefs)"


def _in_effect(h: HistoryEntry, superseder: str) -> str:
    """What ``why`` adds to a supersession that no longer applies (rule 3: it stays as history): when it
    ended, or that its ``superseder`` (the newer belief) does not hold; nothing while it is in effect."""
    if h.ended is not None:
        return f"; ended at {h.ended.isoformat()}, no longer in effect"
    return "" if h.in_effect else f"; not in effect: {superseder} does not hold"


def _conflict_in_effect(h: HistoryEntry, b: Belief, other: UUID) -> str:
    """What ``why`` adds to a conflict no longer in effect (rule 8): when it was settled, which belief won
    and how (a review's "conflict resolved by …"), or which of the two is no longer current."""
    if h.ended is not None:
        won = "this belief" if h.winner == b.id else short(h.winner) if h.winner is not None else None
        how = ", ".join(x for x in (f"{won} won" if won else None, h.settled_by) if x)
        return f"; settled at {h.ended.isoformat()}" + (f" ({how})" if how else "") + ", no longer in effect"
    if h.in_effect:
        return ""
    return "; not in effect: " + ("this belief" if b.status not in ("current", "conflicting") else short(other)) \
        + " is not current"


#: the characters of a quote or statement ``why`` prints (a turn of megabytes is one quote; --json has it whole)
QUOTE_SHOWN = 2_000


def _capped(text: str) -> str:
    more = len(text) - QUOTE_SHOWN
    return text if more <= 0 else f"{text[:QUOTE_SHOWN]}… ({more:,} more characters: --json has it whole)"


@for_terminal
def why(w: Why, review_item: ReviewMark | None = None) -> str:
    """``why`` of a belief in words; asked of a review item's id, which item it is first."""
    b = w.belief
    lines = [
        *(review_item_lines(review_item) if review_item is not None else []),
        f"belief {b.id}",
        f"  {b.subject} / {b.attribute} = {b.value}   [{b.status}, revision {b.revision}]",
        f"  \"{_capped(b.statement)}\"",
        f"  kind {b.kind}, scope {json.dumps(b.scope, ensure_ascii=False)}, valid {valid_time(b.valid_time)},"
        f" recorded {b.recorded_at.isoformat()}, owner {b.owner}",
        f"  confidence {b.confidence:.2f} ({b.confidence_kind}), provenance {b.provenance}"
        + ("  ⚠ not production history" if b.provenance != "production" else ""),
        "evidence:",
    ]
    if not w.evidence:
        lines.append("  (none)")
    for e in w.evidence:
        # (a retracted quote, version or source supports nothing, rule 5: "history" read as a superseded text)
        force = "retracted: counts for nothing" if e.retracted else "in force" if e.in_force else "history"
        more = version_label(e.version, e.version_label)  # (a label "v2" of version 2: said once)
        label = f" {more}" if more else ""
        said = (f" — {e.speaker}" + (f", {e.spoken_at.isoformat()}" if e.spoken_at else "")) if e.speaker else ""
        lines.append(f"  \"{_capped(e.quote)}\"{said}")
        lines.append(f"      {e.role}; {e.source} v{e.version}{label} ({force}), chars [{e.start_offset},"
                     f" {e.end_offset}), {e.origin_type}, {e.authority}, {e.provenance},"
                     f" sha256 {e.version_sha256[:12]}")
    lines.append("confidence factors:")
    for f in w.confidence:
        lines.append(f"  {f.factor:<20} {f.weight:.2f}  {f.detail}")
    result = next((f.weight for f in w.confidence if f.factor == "confidence"), None)
    if result is not None and abs(result - b.confidence) >= 0.005:
        # (a decay run as of another moment stores what the factors were then; these are as of now)
        lines.append(f"  note: the stored confidence {b.confidence:.2f} was computed as of another moment"
                     f" (beliefdb decay --now, or recompute): these factors give {result:.2f} now")
    lines.append("history:")
    if not (w.replaced or w.replaced_by or w.conflicts or w.retractions):
        lines.append("  (none)")
    for r in w.retractions:
        what = "this belief" if r.what == "belief" else (
            f"source {r.name}" if r.what == "source" else f"{r.what} of {r.name} v{r.version}")
        lines.append(f"  {what} retracted at {r.retracted_at.isoformat()}" + (f" — {r.reason}" if r.reason else "")
                     + (f"; restored at {r.restored_at.isoformat()}" if r.restored_at else ""))
    for h in w.replaced:
        lines.append(f"  replaced {short(h.old_belief)} \"{h.old_statement}\" ({h.old_value}) at {h.at.isoformat()}"
                     f" — {h.reason}{_in_effect(h, 'this belief')}")
    for h in w.replaced_by:
        lines.append(f"  replaced by {short(h.new_belief)} \"{h.new_statement}\" ({h.new_value}) at"
                     f" {h.at.isoformat()} — {h.reason}{_in_effect(h, short(h.new_belief))}")
    for h in w.conflicts:
        other = h.old_belief if h.new_belief == b.id else h.new_belief
        other_value = h.old_value if h.new_belief == b.id else h.new_value
        lines.append(f"  conflicts with {short(other)} ({other_value}) — {h.reason}{_conflict_in_effect(h, b, other)}")
    lines.append("built on it:")
    if not (w.built_on or w.derived):
        lines.append("  (nothing)")
    for d in w.built_on:
        outcome = (f", outcome {d.outcome['outcome']}" + (f" ({d.outcome['note']})" if d.outcome.get("note") else "")
                   if d.outcome else "")
        lines.append(f"  decision {short(d.decision_id)} \"{d.title}\" [{d.decision_status}{outcome}]")
        lines += [f"    action {short(str(a['id']))} {a['description']} [{a['status']}"
                  + (f", outcome {a['outcome']['outcome']}" if a.get("outcome") else "") + "]" for a in d.actions]
    lines += [f"  belief {short(x.belief_id)} \"{x.statement}\" [{x.status}] derived from it"
              + ("" if x.live else " (its reason is lost)")
              + (f" ({x.provenance}, not production history)" if x.provenance != "production" else "")
              for x in w.derived]
    return "\n".join(lines)


@for_terminal
def audit(result: AuditResult) -> str:
    if result.ok:
        return f"audit chain ok: {result.events} events, every link verifies"
    # (past the last event: events cut off the end, an audit trigger off, a row no event records)
    where = (f"first broken link at event {result.first_broken} (of {result.events})"
             if result.first_broken is None or result.first_broken <= result.events
             else f"after its last event (event {result.events})" if result.events else "it has no event")
    return f"audit chain BROKEN: {where}" + (f": {result.problem}" if result.problem else "")


@for_terminal
def decisions(rows: Iterable[Decision]) -> str:
    """Each decision with its reasons: the beliefs one reason needs together, and whether it is lost."""
    lines = []
    for d in rows:
        lines.append(f"{short(d.id)}  [{d.status}{'' if d.holds else ', no support'}]  {d.title}")
        for r in d.reasons:
            beliefs = " and ".join(f"{short(b['id'])} \"{b['statement']}\""
                                   + ("" if b["status"] in ("current", "conflicting") else f" [{b['status']}]")
                                   for b in r["beliefs"])
            lines.append(f"          {'because' if r['live'] else 'lost reason'}: {beliefs}")
        if d.forgotten_reasons:
            lines.append(f"          {d.forgotten_reasons} reason{'' if d.forgotten_reasons == 1 else 's'} forgotten"
                         " (what it cited was erased, rule 14)")
    return "\n".join(lines) if lines else "(no decisions)"


@for_terminal
def actions(rows: Iterable[Action]) -> str:
    lines = [f"{short(a.id)}  [{a.status}]  {a.description}  (decision {short(a.decision_id)})" for a in rows]
    return "\n".join(lines) if lines else "(no actions)"


def retraction_json(c: Changes) -> dict[str, Any]:
    """A retraction's change report (or its preview's) as every door answers it: the report and its
    ``fingerprint``, which an apply takes back (``expect``) to change only what the preview showed."""
    return {**jsonable(c), "fingerprint": c.fingerprint()}


def forgotten_json(f: Forgotten) -> dict[str, Any]:
    """What forgetting took away (or its preview, would take away) as every door answers it: the report
    and its ``fingerprint``, which an apply takes back (``expect``) to forget only what the preview showed."""
    return {**jsonable(f), "fingerprint": f.fingerprint()}


@for_terminal
def derived(r: DerivedBelief) -> str:
    """``derive``'s line: the belief and its status (and its world when that is not production history),
    and why its embedding waits if it does."""
    world = f" ({r.provenance}, not production history)" if r.provenance != "production" else ""
    return (f"belief {r.id} [{r.status}]{world}"
            + (f"\n{not_embedded(r.embedding_deferred)}" if r.embedding_deferred else ""))


def _by_kind(ids: list[UUID], kinds: Mapping[UUID, str]) -> str:
    """How many of each kind: ``kinds`` names beliefs, decisions and actions; any other node is a quote."""
    counts = Counter(kinds.get(i, "quote") for i in ids)
    return ", ".join(f"{counts[k]} {k}{'s' if counts[k] != 1 else ''}"
                     for k in ("belief", "decision", "action", "quote") if counts[k])


def change_kinds(c: Changes, labels: Callable[[Sequence[UUID]], Iterable[NodeLabel]]) -> dict[UUID, str]:
    """The beliefs, decisions and actions a change report names, by kind, as :func:`changes` counts them
    (its other nodes are quotes): ``labels`` names them (``BeliefDB.labels``), asked only when it names any."""
    ids = [*c.stopped_current, *c.became_current, *c.stopped_holding, *c.started_holding]
    return {n.id: n.kind for n in labels(ids)} if ids else {}


@for_terminal
def changes(c: Changes, *, preview: bool = False, kinds: Mapping[UUID, str] | None = None) -> str:
    """A change report; ``preview``: the same report, said of what would happen. With ``kinds`` (the
    beliefs, decisions and actions among its nodes, as ``BeliefDB.labels`` names them) each count says
    how many of each kind it is, the other nodes being quotes."""
    if c.proposed:
        head = (f"the source belongs to {c.owner}: "
                + ("this would be proposed to them; if they approve it:" if preview else
                   f"proposed to them as review item {c.review_item}; nothing changed until they approve it"))
        if not preview:
            return head
    else:
        head = "preview (nothing written):" if preview else ""
    lines = [head] if head else []

    def line(did: str, would: str, ids: list[UUID], *, mixed: bool = True) -> str:
        return (f"{would if preview else did}: {len(ids)}"
                + (f" ({_by_kind(ids, kinds)})" if mixed and kinds is not None and ids else "")
                + ("  " + shorts(ids) if ids else ""))

    lines += [
        line("stopped being current", "would stop being current", c.stopped_current),
        line("current again", "would be current again", c.became_current),
        line("stopped holding", "would stop holding", c.stopped_holding),
        line("holding again", "would hold again", c.started_holding),
        line("decisions flagged", "decisions that would be flagged", c.flagged, mixed=False),
        line("actions held", "actions that would be held", c.held, mixed=False),
    ]
    for s in c.survives:
        by = "; ".join(" + ".join(short(x) for x in group) for group in s.by)
        lines.append(f"decision {short(s.decision)} {'would stay' if preview else 'stays'} standing, supported by {by}")
    return "\n".join(lines)


@for_terminal
def review_resolution(result: ReviewResolution) -> str:
    line = f"{result.kind} {result.node or result.source_id}: {result.status}"
    if result.correction:  # (what it changed, as correct --apply says it)
        line += "\n" + "\n".join(approved_correction(result.correction))
    done = result.applied
    if done and result.kind == "version_proposed":  # an ingest report
        line += (f"\n  version {done.get('version')} of '{done.get('source')}' applied:"
                 f" {len(done.get('accepted') or [])} accepted, {len(done.get('superseded') or [])} superseded,"
                 f" {len(done.get('unsupported') or [])} lost their support, flagged {len(done.get('flagged') or [])}"
                 f" decision(s), held {len(done.get('held') or [])} action(s)")
    elif done and result.kind == "conflict":
        line += f"\n  {done['winner']} won: it supersedes {done['loser']}"
    elif result.kind == "conflict" and result.status == "rejected":
        line += ("\n  both stay conflicting (rule 8 of docs/rules.md): to settle them later, correct one"
                 " (beliefdb correct ID --preview) or retract the source of one")
    elif done:  # a retraction's change report
        line += (f"\n  retraction applied: {len(done.get('stopped_current') or [])} stopped being current,"
                 f" {len(done.get('became_current') or [])} current again, flagged {len(done.get('flagged') or [])}"
                 f" decision(s), held {len(done.get('held') or [])} action(s)")
    if result.embedding_deferred:
        line += "\n" + not_embedded(result.embedding_deferred)
    return line


@for_terminal
def review_items(rows: Iterable[ReviewItem], *, paged: bool = False) -> str:
    """The review queue, an item a line, each ending with who may resolve it (``[owner: alice]``, a conflict's
    ``[owners: alice, bob]``); ``paged``: a page after an item (none left: no more, not an empty queue)."""
    # (a conflict names its other belief too: the items of a three-way tie, one per pair, read alike)
    lines = [f"{short(r.id)}  {r.kind:<19} {short(r.node or r.source_id or '')}  {r.subject or ''}  "
             + (f"vs {short(r.other_node)}  {r.other_subject or ''}  " if r.other_node is not None else "")
             + f"— {r.reason}"
             + (f"; {HOLDS_AGAIN}" if r.kind == "decision_flagged" and r.node_holds else "")
             # (who may resolve it, rule 17: the JSON's owners)
             + (f"  [owner{'s' if len(r.owners) > 1 else ''}: {', '.join(r.owners)}]" if r.owners else "  [no owner]")
             for r in rows]
    return "\n".join(lines) if lines else "(no more review items)" if paged else "(review queue is empty)"
