"""An ingest's report as text: what was stored, superseded, skipped and why, per document."""

from __future__ import annotations

from beliefdb.inputs import utc_day
from beliefdb.models import CurrentAgain, IngestFailure, IngestReport
from beliefdb.render.ids import short
from beliefdb.render.terminal import for_terminal


@for_terminal
def ingest_report(result: IngestReport | IngestFailure) -> str:
    if isinstance(result, IngestFailure):
        return f"✗ {result.path}: {result.message}"
    preview = "preview (nothing written): " if result.preview else ""
    if result.proposed:
        head = f"{preview}{result.path or result.source}: proposed to {result.owner}, who owns source '{result.source}'"
        if result.review_item is None:  # a preview's: the item the ingest would open has no id yet
            return f"{head}\n  nothing changes: the ingest would open a review item for {result.owner} to approve"
        return "\n".join([
            head, f"  nothing changes until they approve review item {result.review_item}"
                  f" (beliefdb review approve {short(result.review_item)} --as {result.owner})"])
    head = f"{preview}{result.path or result.source}: source '{result.source}' version {result.version}"
    if not result.new_version:
        head += f" ({result.note or 'unchanged'})"
    elif result.note:
        head += f" ({result.note})"
    lines = [head]
    if result.new_version:
        lines.append(f"  {result.fragments} fragment(s)")
    lines += _capped([line for a in result.accepted for line in (
        f"  + {short(a.id)} {a.subject} / {a.attribute} = {a.value}"
        + (f"   (stored expired: its valid time ended {utc_day(a.ended)})" if a.ended else ""),
        f"      quote [{a.start}, {a.end}): \"{a.quote}\"")], "new belief(s)", per=2)
    lines += _capped([f"  ≡ {short(c.id)} corroborated by [{c.start}, {c.end}): \"{c.quote}\""
                      for c in result.corroborated], "corroborated")
    lines += _capped([f"  = {short(same.id)} already recorded from this evidence (whatever became of it since)"
                      for same in result.unchanged if same.id not in result.reverified],  # (listed below)
                     "already recorded")
    again = {c.id for c in result.current_again}
    lines += _capped([f"  ↻ {short(b)} re-verified{' and current again' if b in again else ''}: the new text repeats"
                      " its quote" for b in result.reverified], "re-verified")
    for kept in result.reread:
        lines.append(f"  ! {short(kept.id)} {kept.subject} / {kept.attribute} is kept by its quote, which now"
                     f" reads as {kept.now_subject} / {kept.now_attribute} ({short(kept.now)}): both are current;"
                     f" if the renamed heading or label changed what the line is about, retract or correct"
                     f" {short(kept.id)}")
    lines += _capped([f"  ⇢ {short(s.old)} superseded by {short(s.new)}" for s in result.superseded], "superseded")
    lines += _capped([f"  ! conflict between {short(k.a)} and {short(k.b)}: {k.reason}" for k in result.conflicts],
                     "conflicts")
    lines += _capped([f"  - {short(u)} lost its support: no version in force quotes it" for u in result.unsupported],
                     "unsupported")
    for d in result.flagged:
        lines.append(f"  ! decision {short(d)} lost its last support: needs review")
    for held in result.held:
        lines.append(f"  ‖ action {short(held)} held: its decision needs review")
    new = {a.id for a in result.accepted} | set(result.reverified)
    lines += [_current_again(c) for c in sorted(result.current_again, key=lambda c: _KINDS.get(c.kind, len(_KINDS)))
              if c.id not in new]
    lines += _capped([f"  ✗ rejected \"{r.quote}\": {r.reason}" for r in result.rejected], "rejected")
    lines += _skipped_lines(result)
    if result.embedding_deferred:
        lines.append(not_embedded(result.embedding_deferred))
    return "\n".join(lines)


#: the lines of one kind a report lists before counting the rest (a file of 60,000 lines listed 120,000)
LISTED = 200


def _capped(lines: list[str], what: str, *, per: int = 1) -> list[str]:
    """The first :data:`LISTED` items' lines (``per`` lines an item), then how many more there are."""
    more = (len(lines) - LISTED * per) // per
    return lines if more <= 0 else [*lines[:LISTED * per], f"  … and {more:,} more {what} (--json lists them all)"]


def not_embedded(why: str) -> str:
    """The line that says a write's new beliefs wait for their embeddings (``embedding_deferred``), and why;
    and that ``beliefdb embed`` does it later, unless the reason says so already (a failure after the commit:
    "embed the rest with 'beliefdb embed'", ``store.vectors.embed_ids``)."""
    if "beliefdb embed" in why:
        return f"  (not embedded yet: {why})"
    return f"  (not embedded yet: {why}; beliefdb embed does it later)"


#: the order the report lists what is current again in: beliefs, then what rests on them
_KINDS = {"belief": 0, "decision": 1, "action": 2}


def _current_again(c: CurrentAgain) -> str:
    """The line for what an ingest made current again, saying why for its kind: a belief that held
    all along, because what superseded it stopped holding; a decision or action, because it holds
    again (its status, needs_review or held, stays until it is reviewed)."""
    if c.kind == "belief":
        why = "what it rests on holds again" if c.started_holding else "what superseded it stopped holding"
        return f"  ↺ {short(c.id)} current again: {why}"
    if c.kind == "decision":
        still = " (still needs review: beliefdb review list)" if c.status == "needs_review" else ""
        return f"  ↺ decision {short(c.id)} holds again: what it rests on is current again{still}"
    if c.kind == "action":
        still = " (still held: its decision needs review)" if c.status == "held" else ""
        return f"  ↺ action {short(c.id)} holds again: its decision holds again{still}"
    return f"  ↺ {c.kind} {short(c.id)} holds again"


#: skipped sentences the text output shows (``--json`` lists them all)
SKIPPED_SHOWN = 5


def shorten(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _skipped_lines(result: IngestReport) -> list[str]:
    lines = [f"  ⚠ {w.kind} [{w.start}, {w.end}): {w.message}" for w in result.warnings]
    if result.skipped:
        lines.append(f"  {len(result.skipped)} sentence(s) produced no belief:")
        lines += [f"    · [{s.start}, {s.end}) {s.reason}: \"{shorten(s.quote)}\" ({s.detail})" if s.quote
                  else f"    · [{s.start}, {s.end}) {s.reason} ({s.detail})" for s in result.skipped[:SKIPPED_SHOWN]]
        if len(result.skipped) > SKIPPED_SHOWN:
            lines.append(f"    … and {len(result.skipped) - SKIPPED_SHOWN} more (--json lists them all)")
    if result.hint:
        lines.append(f"  hint: {result.hint}")
    return lines
