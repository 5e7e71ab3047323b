"""The return-policy story through the library API, end to end."""

from __future__ import annotations

from typing import Any

import beliefdb
from beliefdb.models import IngestReport


def test_story_supersedes_seven_days_with_fifteen(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", "# Return policy\n\nReturns are accepted within 7 days of delivery.\n")
    first = bdb.ingest(doc, authority="official")[0]
    assert isinstance(first, IngestReport)
    (seven,) = first.accepted
    assert (seven.subject, seven.attribute, seven.value) == ("return_policy", "window", "7 days")
    assert doc.read_text()[seven.start:seven.end] == "Returns are accepted within 7 days of delivery."

    doc.write_text("# Return policy\n\nReturns are accepted within 15 days of delivery.\n", encoding="utf-8")
    second = bdb.ingest(doc)[0]
    assert isinstance(second, IngestReport)
    assert second.new_version and second.version == 2
    (fifteen,) = second.accepted
    assert [(s.old, s.new) for s in second.superseded] == [(seven.id, fifteen.id)]

    current = bdb.beliefs(subject="return_policy", attribute="window")
    assert [b.value for b in current] == ["15 days"]
    statuses = {b.value: b.status for b in bdb.beliefs(subject="return_policy", include_all=True)}
    assert statuses == {"7 days": "superseded", "15 days": "current"}
    why = bdb.why(fifteen.id)
    assert [e.quote for e in why.evidence] == ["Returns are accepted within 15 days of delivery."]
    assert [h.old_belief for h in why.replaced] == [seven.id]
    assert bdb.audit_verify().ok
