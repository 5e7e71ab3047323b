"""What a framework's item or document carries of a belief, the same for every adapter: JSON values
only, evidence spelt as everywhere (``start``/``end`` offsets of the quote in its source version)."""

from __future__ import annotations

from typing import Any

from beliefdb.api import Answer

__all__ = ["answer_fields"]


def answer_fields(answer: Answer) -> dict[str, Any]:
    """An answer (of ``ask`` or ``answers``) as a JSON object: the belief, its best evidence (a version
    in force first; ``quote``, ``source`` and the rest are None when it has no quoted source), its
    confidence and the warnings ``ask`` gives (open conflict, replaced, low confidence, provenance)."""
    belief = answer.belief
    best = answer.evidence[0] if answer.evidence else None
    return {
        "statement": belief.statement,
        "subject": belief.subject,
        "attribute": belief.attribute,
        "value": belief.value,
        "kind": belief.kind,
        "scope": dict(belief.scope),
        "quote": best.quote if best else None,
        "source": best.source if best else None,
        "version": best.version if best else None,
        "start": best.start_offset if best else None,
        "end": best.end_offset if best else None,
        "authority": best.authority if best else None,
        "confidence": belief.confidence,
        "confidence_kind": belief.confidence_kind,
        "warnings": list(answer.warnings),
        "belief_id": str(belief.id),
        "status": belief.status,
        "provenance": answer.provenance,
    }
