"""A change report's text names the first ids of each list and counts the rest: the preview of a
60,000-belief source's retraction printed 121,200 ids on each of two lines (a user trial); `--json`
keeps them all."""

from __future__ import annotations

import uuid

from beliefdb import render
from beliefdb.models import Changes


def test_a_change_report_names_twenty_ids_a_line_and_counts_the_rest() -> None:
    ids = [uuid.UUID(int=n << 96) for n in range(1, 26)]
    text = render.changes(Changes(stopped_holding=ids, started_holding=ids[:3], flagged=[], held=[]), preview=True)
    line = next(x for x in text.splitlines() if x.startswith("would stop holding"))
    assert line.count(", ") == 20 and line.endswith(", and 5 more (--json lists them all)"), line
    assert render.short(ids[19]) in line and render.short(ids[20]) not in line
    again = next(x for x in text.splitlines() if x.startswith("would hold again"))
    assert again == "would hold again: 3  " + ", ".join(render.short(x) for x in ids[:3])
    assert render.jsonable(Changes(stopped_holding=ids, started_holding=[], flagged=[], held=[]))[
        "stopped_holding"] == [str(x) for x in ids]


def test_an_ingest_report_lists_two_hundred_of_a_kind_and_counts_the_rest() -> None:
    """A file of 60,000 lines printed 120,000 lines of report (a user trial)."""
    from beliefdb.models import IngestReport
    from beliefdb.models.ingest import Accepted, Superseded

    new = [Accepted(id=uuid.uuid4(), statement=f"Item {n} price: 5 EUR", subject=f"item_{n}", attribute="price",
                    value="5 EUR", quote=f"Item {n} price: 5 EUR", start=n, end=n + 1) for n in range(250)]
    report = IngestReport(source="big.md", version=2, new_version=True, fragments=250, accepted=new,
                          superseded=[Superseded(old=a.id, new=a.id) for a in new[:3]])
    lines = render.ingest_report(report).splitlines()
    assert len([x for x in lines if x.startswith("  + ")]) == 200
    assert "  … and 50 more new belief(s) (--json lists them all)" in lines
    assert len([x for x in lines if x.startswith("  ⇢ ")]) == 3 and not any("more superseded" in x for x in lines)
