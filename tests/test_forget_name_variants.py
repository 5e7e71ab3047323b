"""Forgetting a person lists (and with ``mask_mentions`` masks) where the stored texts still name them
(rule 14 of docs/rules.md), by the names of beliefdb._mention_pattern: the subject, the subject with spaces,
the speakers' names, the name as given. Those names were matched as written, in any letter case only: a
person forgotten as ``maya_lopez`` (or "maya lopez", as an engineer types it) was not found where a ticket
wrote "Maya López"; nor was "Maya López" where a name came with a no-break space (a page pasted from a
browser) or with its accent as a combining mark (a macOS file, NFD). The report listed nothing, and
``--mask-mentions`` left every one. A name is now matched whatever its accents and however its words are
spaced on one line, still as a word of its own."""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest

import beliefdb

MASK = "\u2588"
TICKET = ("The refund policy is 30 days.\n"
          "Escalated by Maya López today.\n"
          "CC: MAYA LÓPEZ.\n"
          "Signed: Maya\u00a0López.\n"
          "From a Mac: Maya Lo\u0301pez.\n"
          "Mayan art; Mayalopez and Maya Lopezz are not her.\n")
NAMED = 4


def two_documents(bdb: beliefdb.BeliefDB) -> None:
    """A belief about maya_lopez that no speaker said (a claim of an order desk's note), and a ticket about
    the refund policy that names her four times, each written differently."""
    bdb.remember("Maya's courier is DHL.", "maya_lopez", "courier", "DHL", "The courier for order B-1 is DHL.",
                 source="order.txt", text="Order desk.\nThe courier for order B-1 is DHL.\n")
    bdb.remember("The refund policy is 30 days.", "refund_policy", "policy", "30 days",
                 "The refund policy is 30 days.", source="ticket.txt", text=TICKET)


@pytest.mark.parametrize("name", ["maya_lopez", "maya lopez", "MAYA LOPEZ", "Maya López"])
def test_the_name_is_found_however_its_accents_and_spaces_are_written(bdb: beliefdb.BeliefDB, name: str) -> None:
    two_documents(bdb)
    preview = bdb.forget(subject=name, preview=True)
    assert [(t.source, t.count) for t in preview.text_mentions] == [("ticket.txt", NAMED)], preview.text_mentions


def test_mask_mentions_masks_every_way_the_name_is_written_and_nothing_else(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    two_documents(bdb)
    preview = bdb.forget(subject="maya lopez", preview=True, mask_mentions=True)
    assert preview.redacted == 1 + NAMED, preview
    bdb.forget(subject="maya lopez", mask_mentions=True, expect=preview.fingerprint())
    row = postgresql.execute("select v.content from beliefdb.source_version v join beliefdb.source s"
                             " on s.id = v.source_id where s.name = 'ticket.txt'").fetchone()
    assert row is not None
    content: str = row[0]
    assert len(content) == len(TICKET)  # offsets kept
    assert "pez" not in content.split("Mayan art")[0] and "PEZ" not in content, content
    assert [len(run) for run in re.findall(f"{MASK}+", content)] == [10, 10, 10, 11], content
    assert content.endswith("Mayan art; Mayalopez and Maya Lopezz are not her.\n"), content
