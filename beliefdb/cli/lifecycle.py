"""Commands for the belief lifecycle: decay, recompute, expire, outcome, forget. They parse and print;
the rules are SQL (beliefdb.decay, beliefdb.expire, beliefdb.record_outcome, beliefdb.forget)."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer

from beliefdb import render
from beliefdb.cli.common import (
    DECISIONS,
    MEMORY,
    REPLAYED,
    TRUTH,
    IdempotencyKey,
    Json,
    Memory,
    errors,
    parse_time,
    usage,
    with_memory,
)
from beliefdb.models import ConfidenceReport, PendingMention
from beliefdb.render.terminal import cleaned
from beliefdb.vocabulary import Outcome


def _counts(r: ConfidenceReport) -> str:
    return (("preview (nothing written): " if r.preview else "")
            + f"{r.beliefs} belief(s) as of {r.now.isoformat()}: {r.changed} changed ({r.lowered} lowered,"
            f" {r.raised} raised); {r.became_low} became low confidence, {r.recovered} recovered;"
            f" {r.low_confidence} under {r.threshold:.2f} now")


@with_memory()
def decay(
    now: Annotated[str | None, typer.Option(
        help="Apply the half-lives as of this ISO 8601 moment (default: now). Written only by a login granted"
             " beliefdb_clock; any login may --preview it.")]
        = None,
    preview: Annotated[bool, typer.Option("--preview", help="Show what would change; write nothing.")] = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Apply confidence half-lives: beliefs fade without new evidence; under the threshold they are low
    confidence (demoted in retrieval, never deleted). Derived beliefs follow in the same run.
    Schedulers can call: select beliefdb.decay()."""
    moment = parse_time(now, as_json, "--now")
    with errors(as_json), memory.open() as bdb:
        result = bdb.decay(now=moment, preview=preview)
    typer.echo(render.to_json(result) if as_json else _counts(result))


@with_memory()
def recompute(
    preview: Annotated[bool, typer.Option("--preview", help="Show what would change; write nothing.")] = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Recompute every confidence after a DBA changed beliefdb.confidence_policy or confidence_half_life."""
    with errors(as_json), memory.open() as bdb:
        result = bdb.recompute(preview=preview)
    typer.echo(render.to_json(result) if as_json else _counts(result))


@with_memory()
def expire(
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Process beliefs whose valid time has ended: they stop being current (status expired) and what
    rested on them is re-evaluated: decisions that lose their last support are flagged, their actions
    held. Every command does this before it reads; schedulers can call: select beliefdb.expire()."""
    with errors(as_json), memory.open() as bdb:
        result = bdb.expire()
    if as_json:
        typer.echo(render.to_json(result))
        return
    typer.echo(f"expired: {result.expired} belief(s) as of {result.now.isoformat()}"
               + (": " + ", ".join(render.short(x) for x in result.beliefs) if result.beliefs else "")
               + f"; {len(result.changes.flagged)} decision(s) flagged, {len(result.changes.held)} action(s) held")


@with_memory()
def outcome(
    node: Annotated[str, typer.Argument(help="Decision or action id (or unique prefix).")],
    result: Annotated[Outcome, typer.Argument(help="What happened.")],
    note: Annotated[str | None, typer.Option(help="A note for the record.")] = None,
    idempotency_key: IdempotencyKey = None,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Record what actually happened after a decision or action (audited); 'why' shows it. With
    --idempotency-key, the same node, outcome and note again are that outcome, recorded once."""
    with errors(as_json), memory.open() as bdb:
        recorded = bdb.record_outcome(node, result.value, note=note, idempotency_key=idempotency_key)
    typer.echo(render.to_json(recorded) if as_json
               else f"{recorded.kind} {recorded.node}: {recorded.outcome}"
                    + (f" (action {recorded.status})" if recorded.status else "")
                    + (REPLAYED if recorded.already_applied else ""))


#: how many places a forget's text report lists where a forgotten name is still typed (--json: all)
MENTIONS_SHOWN = 20
#: how many distinct hints a listing prints (one per kind of entry and owner: whose call it is)
HINTS_SHOWN = 6


@with_memory()
def forget(
    source: Annotated[str | None, typer.Option(help="Forget this source: its text, versions, fragments.")] = None,
    subject: Annotated[str | None, typer.Option(
        help="Forget every belief about this subject, and every conversation turn said by a speaker of that name"
             " (Maya López for maya_lopez); a person's name is taken for their subject (Maya López: maya_lopez)"
             " when no belief has the name itself as its subject.")] = None,
    belief: Annotated[str | None, typer.Option(help="Forget this belief (id or unique prefix).")] = None,
    preview: Annotated[bool, typer.Option("--preview", help="Say exactly what would be forgotten; write nothing.")]
        = False,
    expect: Annotated[str | None, typer.Option(
        help="The fingerprint a --preview showed: forget only that (else nothing is forgotten). Required to"
             " forget.")] = None,
    mask_mentions: Annotated[bool, typer.Option(
        "--mask-mentions", help="With --subject: mask the name too where other speakers and documents wrote it in"
                                " the stored source texts (listed either way); give it to --preview as well.")] = False,
    *, memory: Memory,
    as_json: Json = False,
) -> None:
    """Forget completely: text, fragments, evidence, embeddings, every belief left without support
    and every belief whose every quote lay in what is forgotten.
    Forgetting a subject or a belief also masks its quotes in the source texts (offsets of other
    evidence stay valid). Decisions that lose their last support are flagged; the audit chain keeps
    only hashes; planner statistics are gathered again. Forgetting a subject lists where its name is still
    written: typed by people, and in stored source texts outside what was forgotten (another speaker's turn), which
    --mask-mentions masks too.

    It cannot be undone: run it with --preview, then again with --expect and the fingerprint the preview
    printed, which forgets exactly what it showed."""
    if len([x for x in (source, subject, belief) if x is not None]) != 1:
        usage("forget exactly one of --source, --subject or --belief")
    if mask_mentions and subject is None:
        usage("--mask-mentions goes with --subject (a person's name), not --source or --belief")
    if preview and expect is not None:
        usage("--expect goes with the apply, not with --preview (a preview changes nothing)")
    if not preview and expect is None:
        usage("forget cannot be undone: run it with --preview first, then again with --expect FINGERPRINT, the"
              " fingerprint the preview printed (--preview --json: its \"fingerprint\")")
    with errors(as_json), memory.open() as bdb:
        result = bdb.forget(source=source, subject=subject, belief=belief, preview=preview, expect=expect,
                            mask_mentions=mask_mentions)
        # (what goes, by kind: named while it is still there to name)
        kinds = render.change_kinds(result.changes, bdb.labels) if result.preview and not as_json else {}
    if as_json:
        typer.echo(render.to_json(render.forgotten_json(result)))
        return
    fingerprint = result.fingerprint()  # (of what was forgotten: the text shown below is made harmless)
    result = cleaned(result)
    head = "would forget" if result.preview else "forgot"
    flagged = result.would_flag if result.preview else result.flagged
    would = "would be " if result.preview else ""
    typer.echo(f"{head}: {result.versions} source version(s), {result.fragments} fragment(s),"
               f" {result.beliefs} belief(s), {result.evidence} evidence, {result.embeddings} embedding(s),"
               f" {result.redacted} span(s) of source text masked (quotes, turns, names), {result.jobs} job(s) and"
               f" {result.proposals} proposal(s) masked or cleared"
               + (f", {result.labels_masked} speaker label(s) masked" if result.labels_masked else "") + ";"
               f" {len(flagged)} decision(s) {would}flagged, {len(result.held)} action(s) {would}held"
               + (f"\nfingerprint: {fingerprint} (forget --expect with it forgets only this)"
                  if result.preview else ""))
    if gone := result.changes.stopped_holding:
        # (named: a belief whose quote overlaps a forgotten one goes with it, rule 14 of docs/rules.md; the count
        # alone did not say which)
        counts = Counter(kinds.get(x, "quote") for x in gone) if kinds else None
        typer.echo(f"{'would stop' if result.preview else 'stopped'} holding ({len(gone)}"
                   + (": " + ", ".join(f"{n} {k}(s)" for k, n in sorted(counts.items())) if counts else "")
                   + "): " + render.shorts(gone))
    if result.mentions:
        shown = ", ".join(f"{m.kind} {m.id} ({m.field}, {m.owner})" for m in result.mentions[:MENTIONS_SHOWN])
        more = result.mentions_total - MENTIONS_SHOWN
        typer.echo(f"still named where forget leaves it, typed by people or said of others ({result.mentions_total}):"
                   f" {shown}"
                   + (f", and {more} more ({_json_lists(len(result.mentions), result.mentions_total)})"
                      if more > 0 else ""))
        # (the first hint of each kind and owner: what to do, and whose call it is, differ by both)
        hints: dict[tuple[str, str | None], str] = {}
        for m in result.mentions:
            hints.setdefault((m.kind, m.owner), m.hint)
        for (kind, _), hint in list(hints.items())[:HINTS_SHOWN]:
            typer.echo(f"hint ({kind}): {hint}")
    if result.text_mentions:
        # (with mask_mentions, masked where this principal may change the text; another's listed as theirs)
        masked = any(t.masked for t in result.text_mentions)
        head = (("would mask" if result.preview else "masked") + " the name where others wrote it in stored source"
                if masked else "still named in stored source text, outside what was forgotten")
        if masked and not all(t.masked for t in result.text_mentions):
            # (counted where it masks: the rest, others' texts, is listed as written)
            mine = [t for t in result.text_mentions if t.masked]
            listed = (f" of the first {len(result.text_mentions)} listed"
                      if result.text_mentions_total > len(result.text_mentions) else "")
            typer.echo(f"{head} text you may change ({sum(t.count for t in mine)} time(s) in {len(mine)} version(s)"
                       f"{listed}); left as written in {len(result.text_mentions) - len(mine)} version(s) others own:")
        else:
            typer.echo(f"{head} ({result.text_mentions_count} time(s) in {result.text_mentions_total} version(s)):")
        _listed([f"{t.source} v{t.version} ({t.count}x): {t.excerpt}"
                 + (f"  (not masked: {t.owner}'s)" if masked and not t.masked else "") for t in result.text_mentions],
                result.text_mentions_total, "version(s)")
        for hint in list(dict.fromkeys(t.hint for t in result.text_mentions))[:HINTS_SHOWN]:
            typer.echo(f"hint (text): {hint}")
    if result.speaker_mentions:
        masked = any(s.masked for s in result.speaker_mentions)
        head = (("would mask" if result.preview else "masked") + " the name in the labels of speakers"
                if masked else "speakers whose label names this person, their turns left as their words")
        typer.echo(f"{head} ({result.speaker_mentions_total}, in {result.speaker_mentions_count} turn(s)):")
        _listed([f"{s.speaker} ({s.turns} turn(s) in {_some(s.sources)})"
                 + ("  (not masked: others' sources)" if masked and not s.masked else "")
                 for s in result.speaker_mentions], result.speaker_mentions_total, "speaker(s)")
        for hint in list(dict.fromkeys(s.hint for s in result.speaker_mentions))[:HINTS_SHOWN]:
            typer.echo(f"hint (speaker): {hint}")
    if result.kept:
        typer.echo(f"left in sources others own, theirs to change ({result.kept_count} time(s) in"
                   f" {result.kept_total} place(s)):")
        _listed([f"{k.source} v{k.version} ({k.owner}'s, {k.count} {k.what}(s))" for k in result.kept],
                result.kept_total, "place(s)")
        for hint in list(dict.fromkeys(k.hint for k in result.kept))[:HINTS_SHOWN]:
            typer.echo(f"hint (kept): {hint}")
    if result.pending_mentions:
        typer.echo(f"still named in texts waiting to be stored ({result.pending_mentions_count} time(s) in"
                   f" {result.pending_mentions_total} text(s)):")
        _listed([_pending_line(p) for p in result.pending_mentions], result.pending_mentions_total, "text(s)")
        # (the first hint of each kind of waiting text, masked or not: what happens differs)
        waiting: dict[tuple[str, str, bool, str | None], str] = {}
        for p in result.pending_mentions:
            waiting.setdefault((p.kind, p.field, p.masked, p.owner), p.hint)
        for (kind, _, _, _), hint in list(waiting.items())[:HINTS_SHOWN]:
            typer.echo(f"hint ({kind}): {hint}")


def _some(names: list[str], shown: int = 5) -> str:
    """The first names of a list, then how many more (a speaker may talk in thousands of sources)."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _listed(lines: list[str], total: int, noun: str) -> None:
    """The first lines of a listing the report capped, then how many more there are."""
    for line in lines[:MENTIONS_SHOWN]:
        typer.echo(f"  {line}")
    more = total - MENTIONS_SHOWN
    if more > 0:
        typer.echo(f"  and {more} more {noun} ({_json_lists(len(lines), total)})")


def _pending_line(p: PendingMention) -> str:
    what = f"queued job {p.id}" if p.kind == "queued" else f"proposed {p.field} {p.id}"
    done = ", masked" if p.masked else ""
    # (a proposed correction is of a belief, not of a source; a proposed version whose source is gone has neither)
    where = (p.source if p.source is not None else f"a belief of {p.owner}'s" if p.field in ("statement", "value")
             and p.owner is not None else "a source no longer stored")
    labels = f", {p.speakers} speaker label(s)" if p.speakers else ""
    shown = p.excerpt if p.excerpt is not None else f"(not shown: {p.by}'s text, not stored yet)"
    return f"{what} ({where}, {p.status}{done}, {p.count}x{labels}): {shown}"


def _json_lists(listed: int, total: int) -> str:
    # (the report lists the first 100 of each; the counts are of all)
    return "--json lists them all" if listed >= total else f"--json lists the first {listed}"


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel=TRUTH)(decay)
    app.command(rich_help_panel=TRUTH)(recompute)
    app.command(rich_help_panel=TRUTH)(expire)
    app.command(rich_help_panel=DECISIONS)(outcome)
    app.command(rich_help_panel=MEMORY)(forget)
