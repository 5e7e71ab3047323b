"""The SQL API's results that stay jsonb because they are not flat (the ingest report: six lists of
different records; a repair's stored plan), read into the models of :mod:`beliefdb.models`. With
:mod:`beliefdb.db.composites` (the typed results), the one place that turns what SQL returns into
models: the domain modules decode nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from beliefdb.models import (
    Accepted,
    Changes,
    Conflict,
    CorrectionResult,
    Corroborated,
    CurrentAgain,
    IngestReport,
    PlanItem,
    Rejected,
    Reread,
    StillSupported,
    Superseded,
    Unchanged,
)

__all__ = ["changes", "correction", "ingest_report", "plan_items"]


def changes(raw: dict[str, Any]) -> Changes:
    """The change report inside an ingest report (jsonb: beliefdb._changes)."""
    return Changes(
        stopped_holding=[UUID(x) for x in raw.get("stopped_holding") or []],
        started_holding=[UUID(x) for x in raw.get("started_holding") or []],
        stopped_current=[UUID(x) for x in raw.get("stopped_current") or []],
        became_current=[UUID(x) for x in raw.get("became_current") or []],
        flagged=[UUID(x) for x in raw.get("flagged") or []], held=[UUID(x) for x in raw.get("held") or []],
        survives=[StillSupported(decision=UUID(s["decision"]), by=[[UUID(x) for x in group] for group in s["by"]])
                  for s in raw.get("survives") or []],
        proposed=bool(raw.get("proposed")), review_item=UUID(raw["review_item"]) if raw.get("review_item") else None,
        owner=raw.get("owner"))


def correction(raw: dict[str, Any]) -> CorrectionResult:
    """An applied correction as jsonb (beliefdb._apply_correction's report: an approved proposed
    correction, ``ReviewResolution.correction``), typed as ``apply_correction`` returns it."""
    def ids(key: str) -> list[UUID]:
        return [UUID(x) for x in raw.get(key) or []]

    def one(key: str) -> UUID | None:
        return UUID(raw[key]) if raw.get(key) else None

    return CorrectionResult(
        correction=one("correction"), replacement=one("replacement"), superseded=ids("superseded"),
        flagged=ids("flagged"), held=ids("held"), already_applied=bool(raw.get("already_applied")),
        proposed=bool(raw.get("proposed")), review_item=one("review_item"), owner=raw.get("owner"),
        changes=changes(raw["changes"]) if raw.get("changes") else None)


def ingest_report(raw: dict[str, Any], path: str | None) -> IngestReport:
    """The ingest report (jsonb: six lists of different records), typed."""
    return IngestReport(
        source=raw["source"], version=raw["version"], new_version=raw["new_version"],
        fragments=raw["fragments"], path=path,
        accepted=[Accepted(id=UUID(a["id"]), statement=a["statement"], subject=a["subject"],
                           attribute=a["attribute"], value=a["value"], quote=a["quote"],
                           start=a["start"], end=a["end"],
                           ended=datetime.fromisoformat(a["ended"]) if a.get("ended") else None)
                  for a in raw["accepted"]],
        rejected=[Rejected(statement=r["statement"], quote=r["quote"], reason=r["reason"]) for r in raw["rejected"]],
        corroborated=[Corroborated(id=UUID(c["id"]), statement=c["statement"], quote=c["quote"],
                                   start=c["start"], end=c["end"]) for c in raw["corroborated"]],
        unchanged=[Unchanged(id=UUID(u["id"]), statement=u["statement"]) for u in raw["unchanged"]],
        superseded=[Superseded(old=UUID(s["old"]), new=UUID(s["new"])) for s in raw["superseded"]],
        conflicts=[Conflict(a=UUID(c["a"]), b=UUID(c["b"]), **({"reason": c["reason"]} if c.get("reason") else {}))
                   for c in raw["conflicts"]],
        reverified=[UUID(x) for x in raw["reverified"]],
        reread=[Reread(id=UUID(r["id"]), subject=r["subject"], attribute=r["attribute"], value=r["value"],
                       now=UUID(r["now"]), now_subject=r["now_subject"], now_attribute=r["now_attribute"])
                for r in raw.get("reread") or []],
        unsupported=[UUID(x) for x in raw["unsupported"]],
        flagged=[UUID(x) for x in raw["flagged"]],
        held=[UUID(x) for x in raw["held"]],
        current_again=[CurrentAgain(id=UUID(c["id"]), kind=c["kind"], status=c.get("status"),
                                    started_holding=bool(c["started_holding"]))
                       for c in raw.get("current_again") or []],
        changes=changes(raw["changes"]) if raw.get("changes") else None,
        proposed=bool(raw.get("proposed")),
        review_item=UUID(raw["review_item"]) if raw.get("review_item") else None,
        owner=raw.get("owner"), note=raw.get("note"), preview=bool(raw.get("preview")),
        already_applied=bool(raw.get("already_applied")),
    )


def plan_items(raw: list[dict[str, Any]]) -> list[PlanItem]:
    """The items of a plan as a repair keeps it (beliefdb.repair.plan, jsonb)."""
    return [PlanItem(node=UUID(i["node"]), node_kind=i["node_kind"], step_kind=i.get("step_kind"),
                     run_id=UUID(i["run_id"]) if i.get("run_id") else None, seq=i.get("seq"), action=i["action"],
                     reason=i["reason"], saved_by=[UUID(x) for x in i.get("saved_by") or []])
            for i in raw]
