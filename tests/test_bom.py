"""A leading byte order mark is no part of a document (issue: the library kept it, the CLI stripped it): a
text given as a string is stored as the same bytes read from a file are, without it, its offsets counted
from after it."""

from __future__ import annotations

import beliefdb

DOC = "\ufeffWarranty: 2 years\n"


def _read(report: beliefdb.IngestReport) -> list[tuple[str, str, str, int, int]]:
    return [(a.attribute, a.value, a.quote, a.start, a.end) for a in report.accepted]


def test_ingest_text_bulk_ingest_and_remember_drop_a_leading_bom(bdb: beliefdb.BeliefDB) -> None:
    preview = bdb.ingest_text(DOC, source="b.md", embed=False, preview=True)
    assert _read(preview) == [("warranty", "2 years", "Warranty: 2 years", 0, 17)] and preview.skipped == []
    stored = bdb.ingest_text(DOC, source="b.md", embed=False)
    assert _read(stored) == _read(preview)
    assert bdb.ingest_text(DOC.removeprefix("\ufeff"), source="b.md", embed=False).new_version is False
    bulk = bdb.bulk_ingest(("b3.md", DOC), embed=False)
    assert [_read(r) for r in bulk.reports] == [_read(preview)]
    said = bdb.remember("w", "b4", "warranty", "2 years", "Warranty: 2 years", source="b4.md", text=DOC)
    assert [(a.start, a.end) for a in said.accepted] == [(0, 17)]
    # a BOM further in is text, as it is in a file
    inner = bdb.ingest_text("Note: x\n\ufeffWarranty: 2 years\n", source="c.md", embed=False, preview=True)
    assert [a.quote for a in inner.accepted] == ["Note: x"]
