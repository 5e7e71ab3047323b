"""A bulk ingest's report as text: the totals, then in aggregate what plain ingest says of each document
(superseded, unsupported, flagged, held, conflicts, current again, rejected by reason, warnings, skipped
sentences), naming the documents; the texts only proposed to their owners; why embedding waits."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from beliefdb.models import BulkReport, IngestReport
from beliefdb.models.bulk import reason_kind
from beliefdb.render.ids import short
from beliefdb.render.ingest import SKIPPED_SHOWN, shorten
from beliefdb.render.terminal import for_terminal

#: the documents proposed to their owners that the text output names (``--json`` lists them all)
PROPOSED_SHOWN = 5
#: the documents a total names (``--json`` has each document's report)
NAMED = 3
#: the rejection reasons and warnings the text output shows (``--json`` lists them all)
SHOWN = 5


@for_terminal
def bulk_summary(report: BulkReport) -> str:
    """The totals of a bulk ingest, then the texts it only proposed to their sources' owners (rule 17 of
    docs/rules.md), what the new versions did to what was stored, what they did not store and why, and why
    embedding waits, if it does."""
    line = (f"{report.documents} document(s) in {report.batches} batch(es): {report.new_versions} new version(s),"
            f" {report.accepted} new belief(s), {report.corroborated} corroborated, {report.rejected} rejected"
            f" ({report.seconds:.1f} s, {report.beliefs_per_s:,.0f} beliefs/s)"
            + (f"; {len(report.failed)} refused, nothing of them stored (below)" if report.failed else ""))
    lines = [line, *_proposed(report.reports), *_changes(report), *_rejected(report.reports),
             *_warnings(report.reports), *_skipped(report.reports)]
    lines += [f"hint: {h}" for h in dict.fromkeys(r.hint for r in report.reports if r.hint)]
    if report.embedding_deferred:
        lines.append(f"note: embedding deferred: {report.embedding_deferred}")
    if report.statistics_deferred:
        lines.append(f"note: planner statistics not gathered: {report.statistics_deferred}")
    return "\n".join(lines)


def _proposed(reports: list[IngestReport]) -> list[str]:
    proposed = [r for r in reports if r.proposed]
    if not proposed:
        return []
    whose = "its owner" if len(proposed) == 1 else "their owners"
    lines = [f"{len(proposed)} proposed to {whose}: nothing changes until they approve"]
    lines += [f"  {r.path or r.source}: proposed to {r.owner}, who owns source '{r.source}'"
              f" (beliefdb review approve {short(r.review_item or '')} --as {r.owner})"
              for r in proposed[:PROPOSED_SHOWN]]
    if len(proposed) > PROPOSED_SHOWN:
        lines.append(f"  … and {len(proposed) - PROPOSED_SHOWN} more (--json lists them all)")
    return lines


def _named(reports: Sequence[IngestReport]) -> str:
    """The documents (by source name), the first ``NAMED`` of them."""
    names = list(dict.fromkeys(r.source for r in reports))
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    return ", ".join(names[:NAMED]) + more


#: what plain ingest lists of each document, totalled: its mark, how many a report has, and what they are
_CHANGES: list[tuple[str, Callable[[IngestReport], int], str]] = [
    ("⇢", lambda r: len(r.superseded), "belief(s) superseded"),
    ("-", lambda r: len(r.unsupported), "belief(s) lost their support: no version in force quotes them"),
    ("!", lambda r: len(r.flagged), "decision(s) lost their last support: need review, beliefdb review list"),
    ("‖", lambda r: len(r.held), "action(s) held: their decision needs review"),
    ("!", lambda r: len(r.conflicts), "conflict(s) a person must choose in: beliefdb review list"),
    ("↺", lambda r: len(r.current_again), "current again (belief(s), or what rests on them)"),
]


def _changes(report: BulkReport) -> list[str]:
    lines = []
    for mark, count, what in _CHANGES:
        those = [r for r in report.reports if count(r)]
        if those:
            lines.append(f"{mark} {sum(count(r) for r in those)} {what} ({_named(those)})")
    return lines


def _rejected(reports: list[IngestReport]) -> list[str]:
    by_reason: dict[str, list[IngestReport]] = {}
    for r in reports:
        for x in r.rejected:
            by_reason.setdefault(reason_kind(x.reason), []).append(r)
    ordered = sorted(by_reason.items(), key=lambda item: -len(item[1]))
    lines = [f"✗ {len(those)} rejected: {reason} ({_named(those)})" for reason, those in ordered[:SHOWN]]
    if len(ordered) > SHOWN:
        lines.append(f"✗ … and {len(ordered) - SHOWN} more reason(s) (--json lists every rejection)")
    return lines


def _warnings(reports: list[IngestReport]) -> list[str]:
    warned = [(r, w) for r in reports for w in r.warnings]
    if not warned:
        return []
    lines = [f"⚠ {len(warned)} warning(s):"]
    lines += [f"  {r.source} [{w.start}, {w.end}) {w.kind}: {w.message}" for r, w in warned[:SHOWN]]
    if len(warned) > SHOWN:
        lines.append(f"  … and {len(warned) - SHOWN} more (--json lists them all)")
    return lines


def _skipped(reports: list[IngestReport]) -> list[str]:
    skipped = [(r, s) for r in reports for s in r.skipped]
    if not skipped:
        return []
    documents = len({id(r) for r, _ in skipped})
    lines = [f"{len(skipped)} sentence(s) in {documents} document(s) produced no belief:"]
    # (a sentence forgotten before in its source has no quote: its words are not shown)
    lines += [f"  · {r.source} [{s.start}, {s.end}) {s.reason}: \"{shorten(s.quote)}\" ({s.detail})" if s.quote
              else f"  · {r.source} [{s.start}, {s.end}) {s.reason} ({s.detail})" for r, s in skipped[:SKIPPED_SHOWN]]
    if len(skipped) > SKIPPED_SHOWN:
        lines.append(f"  … and {len(skipped) - SKIPPED_SHOWN} more (--json lists them all)")
    return lines
