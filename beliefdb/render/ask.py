"""How ``ask`` answers look: the JSON contract for scripts and agents, and text for people."""

from __future__ import annotations

from typing import Any

from beliefdb.models import Answer, AskResult
from beliefdb.render import evidence_json, jsonable, short


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
    }


def ask_json(r: AskResult) -> dict[str, Any]:
    out: dict[str, Any] = {"status": r.status, "question": r.question,
                           "as_of": r.as_of.isoformat() if r.as_of else None,
                           "beliefs": [_belief(a) for a in r.beliefs], "context": r.context}
    if r.degraded:
        out["degraded"] = r.degraded
    if r.reason:
        out["reason"] = r.reason
    return out


def ask_text(r: AskResult) -> str:
    if r.status == "memory_unavailable":
        return f"memory unavailable: {r.reason} (this is not 'no history': memory could not be asked)"
    if r.status == "no_match":
        when = f" as of {r.as_of.isoformat()}" if r.as_of else ""
        return f"no match: no current belief{when} answers {r.question!r}" + (
            f"\n(weaker search: {r.degraded})" if r.degraded else "")
    lines = []
    if r.degraded:
        lines.append(f"(weaker search: {r.degraded})")
    for n, a in enumerate(r.beliefs, start=1):
        b = a.belief
        lines.append(f"{n}. {b.statement}   [{short(b.id)}]")
        lines.append(f"   {b.subject}.{b.attribute} = {b.value}   confidence {b.confidence:.2f} ({b.confidence_kind})")
        for e in a.evidence[:1]:
            label = f" ({e.version_label})" if e.version_label else ""
            lines.append(f"   \"{e.quote}\" — {e.source} v{e.version}{label}, chars {e.start_offset}-{e.end_offset}")
        if b.scope:
            lines.append("   applies when: " + ", ".join(f"{k}={v}" for k, v in sorted(b.scope.items())))
        lines += [f"   ⚠ {w}" for w in a.warnings]
    return "\n".join(lines)
