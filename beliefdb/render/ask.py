"""How ``ask`` answers look: the JSON contract for scripts and agents, and text for people."""

from __future__ import annotations

from typing import Any

from beliefdb.inputs import utc_day
from beliefdb.models import Answer, AskResult, FragmentHit, Replaced
from beliefdb.models.retrieval import BELIEFS_AFTER_TEXT, ask_parts
from beliefdb.render import evidence_json, jsonable, short, valid_time
from beliefdb.render.pictures.labels import version_label
from beliefdb.render.terminal import for_terminal
from beliefdb.text.excerpts import excerpt


def _belief(a: Answer) -> dict[str, Any]:
    b = a.belief
    return {
        "id": str(b.id), "statement": b.statement, "subject": b.subject, "attribute": b.attribute, "value": b.value,
        "kind": b.kind, "status": b.status, "confidence": round(b.confidence, 4),
        "confidence_kind": b.confidence_kind, "low_confidence": a.low_confidence, "scope": b.scope,
        "valid_time": jsonable(b.valid_time), "recorded_at": jsonable(b.recorded_at), "provenance": a.provenance,
        "evidence": [evidence_json(e) for e in a.evidence],
        "warnings": a.warnings, "conflicts": jsonable(a.conflicts), "replaced": jsonable(a.replaced),
        "matched_by": a.matched_by, "score": round(a.score, 6),
        "similarity": round(a.similarity, 4) if a.similarity is not None else None,
        "history": [_replaced(h) for h in a.history],
    }


def _replaced(h: Replaced) -> dict[str, Any]:
    """A value the belief replaced: history, never current (its status says superseded)."""
    b = h.belief
    return {"id": str(b.id), "statement": b.statement, "subject": b.subject, "attribute": b.attribute,
            "value": b.value, "status": b.status, "valid_time": jsonable(b.valid_time),
            "replaced_by": str(h.replaced_by), "replaced_by_value": h.replaced_by_value,
            "replaced_on": jsonable(h.replaced_on), "steps": h.steps,
            "evidence": [evidence_json(e) for e in h.evidence]}


def _fragment(f: FragmentHit) -> dict[str, Any]:
    return {"kind": f.kind, "fragment_id": str(f.fragment_id), "text": f.text, "source": f.source,
            "version": f.version, "version_label": f.version_label, "start": f.start_offset, "end": f.end_offset,
            "recorded_at": jsonable(f.recorded_at), "speaker": f.speaker, "spoken_at": jsonable(f.spoken_at),
            "authority": f.authority, "provenance": f.provenance, "score": round(f.score, 6)}


def ask_json(r: AskResult) -> dict[str, Any]:
    out: dict[str, Any] = {"status": r.status, "question": r.question,
                           "as_of": r.as_of.isoformat() if r.as_of else None,
                           "beliefs": [_belief(a) for a in r.beliefs], "context": r.context,
                           "fragments": [_fragment(f) for f in r.fragments], "fragments_after": r.fragments_after}
    if r.degraded:
        out["degraded"] = r.degraded
    if r.reason:
        out["reason"] = r.reason
    if r.error:
        out["error"] = r.error
    if r.hint:
        out["hint"] = r.hint
    return out


#: the longest quote or fragment ``ask`` gives a model whole (MCP): a pasted page a turn quotes fills its context
FOR_MODEL: int = 2000


def for_model(out: dict[str, Any], limit: int = FOR_MODEL) -> dict[str, Any]:
    """``ask``'s JSON (:func:`ask_json`) for a model's context: a quote or fragment text over ``limit``
    characters shown by the part that matters (:func:`~beliefdb.text.excerpts.excerpt`: the sentence the
    belief states, or the text's start) and marked ``"cut": true``; ``why`` and ``source_excerpts`` give it
    whole. A top-20 answer beside two pasted pages was 2.4 MB."""
    def cut(item: dict[str, Any], key: str, statement: str) -> None:
        if len(item[key]) > limit:
            item[key], item["cut"] = excerpt(item[key], statement, limit), True

    for b in out["beliefs"]:
        for e in b["evidence"]:
            cut(e, "quote", b["statement"])
        for h in b["history"]:
            for e in h["evidence"]:
                cut(e, "quote", h["statement"])
    for f in out["fragments"]:
        cut(f, "text", "")
    return out


def _fragments_text(r: AskResult, n: int = 0) -> list[str]:
    """The fragments, numbered on from ``n`` (one numbering with the beliefs, where they are shown)."""
    if not r.fragments:
        return []
    lines = ["unextracted text that matches (not beliefs: nothing checked it against the truth rules):"]
    for i, f in enumerate(r.fragments, start=n + 1):
        said = f"{f.speaker}, " if f.speaker else ""
        when = f"said {utc_day(f.spoken_at)}" if f.spoken_at else f"recorded {utc_day(f.recorded_at)}"
        label = f" ({more})" if (more := version_label(f.version, f.version_label)) else ""
        lines.append(f"{i}. ~ \"{f.text}\" — {said}{when}; {f.source} v{f.version}{label}, "
                     f"chars {f.start_offset}-{f.end_offset}")
    return lines


def _history_text(n: int, current: int, h: Replaced, then: bool) -> list[str]:
    b = h.belief
    held = "held then" if then else "holds now"  # (an answer as of a moment: the belief held then)
    lines = [f"{n}. (history, not current: {current}. {held}) {b.statement}   [{short(b.id)}]",
             f"   {b.subject}.{b.attribute} = {b.value}   until {utc_day(h.replaced_on)}, replaced by "
             f"{h.replaced_by_value!r} [{short(h.replaced_by)}]" + (" (itself replaced since)" if h.steps > 1 else "")]
    for e in h.evidence[:1]:
        label = f" ({more})" if (more := version_label(e.version, e.version_label)) else ""
        lines.append(f"   \"{excerpt(e.quote, b.statement)}\" — {e.source} v{e.version}{label}, "
                     f"chars {e.start_offset}-{e.end_offset}")
    return lines


@for_terminal
def ask_text(r: AskResult) -> str:
    if r.status == "memory_unavailable":
        return f"memory unavailable: {r.reason} (this is not 'no history': memory could not be asked)"
    if r.status == "no_match":
        when = f" as of {r.as_of.isoformat()}" if r.as_of else ""
        return "\n".join([f"no match: no current belief{when} answers {r.question!r}"]
                         + ([f"({r.hint})"] if r.hint else [])
                         + ([f"(weaker search: {r.degraded})"] if r.degraded else []) + _fragments_text(r))
    lines = []
    if r.degraded:
        lines.append(f"(weaker search: {r.degraded})")
    n = 0
    for a in ask_parts(r.beliefs, bool(r.fragments), r.fragments_after):
        if isinstance(a, str):
            if a == "fragments":
                lines += _fragments_text(r, n)
                n += len(r.fragments)
            else:
                lines.append(BELIEFS_AFTER_TEXT.lower())
            continue
        n += 1
        b = a.belief
        lines.append(f"{n}. {b.statement}   [{short(b.id)}]")
        stated = b.valid_time.lower is not None or b.valid_time.upper is not None
        lines.append(f"   {b.subject}.{b.attribute} = {b.value}   confidence {b.confidence:.2f} ({b.confidence_kind})"
                     + (f"   valid {valid_time(b.valid_time)}" if stated else ""))
        for e in a.evidence[:1]:
            label = f" ({more})" if (more := version_label(e.version, e.version_label)) else ""
            lines.append(f"   \"{excerpt(e.quote, b.statement)}\" — {e.source} v{e.version}{label}, "
                         f"chars {e.start_offset}-{e.end_offset}")
        if b.scope:
            lines.append("   applies when: " + ", ".join(f"{k}={v}" for k, v in sorted(b.scope.items())))
        lines += [f"   ⚠ {w}" for w in a.warnings]
        current = n
        for h in a.history:
            n += 1
            lines += _history_text(n, current, h, r.as_of is not None)
    return "\n".join(lines)
