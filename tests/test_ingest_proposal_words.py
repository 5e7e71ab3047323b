"""What an ingest of another principal's source says (rule 17): its preview names no review item it cannot
promise (the dry run's item is rolled back, and the real ingest makes another), only one that is open
already; and the text output says what the JSON says."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli

import beliefdb

DELIVERY = "Deliveries to Porto take three days.\nThe delivery fee is 5 euros.\n"
DELIVERY2 = "Deliveries to Porto take two days.\nThe delivery fee is 5 euros.\n"


def test_a_preview_of_a_proposal_names_no_review_item_it_cannot_promise(cli: Cli, tmp_path: Path,
                                                                       alice: beliefdb.BeliefDB) -> None:
    path = tmp_path / "delivery.md"
    path.write_text(DELIVERY, encoding="utf-8")
    assert cli("ingest", str(path), "--as", "alice").exit_code == 0
    path.write_text(DELIVERY2, encoding="utf-8")
    text = cli("ingest", str(path), "--as", "bob", "--preview")
    assert text.exit_code == 0, text.output
    assert "would open a review item for alice to approve" in text.output
    assert "review approve" not in text.output and "approve review item" not in text.output
    shown = json.loads(cli("ingest", str(path), "--as", "bob", "--preview", "--json").stdout)
    assert (shown["proposed"], shown["owner"], shown["review_item"], shown["changes"]["review_item"]) == (
        True, "alice", None, None)
    assert "would open a review item for alice to approve" in shown["note"]
    assert [i.kind for i in alice.review_items()] == []
    # once proposed, the item is open: a preview of the same proposal is that item, and may name it
    made = json.loads(cli("ingest", str(path), "--as", "bob", "--json").stdout)
    (item,) = alice.review_items()
    assert made["review_item"] == str(item.id)
    again = json.loads(cli("ingest", str(path), "--as", "bob", "--preview", "--json").stdout)
    assert (again["review_item"], again["changes"]["review_item"]) == (str(item.id), str(item.id))
    assert f"beliefdb review approve {str(item.id)[:8]} --as alice" in cli(
        "ingest", str(path), "--as", "bob", "--preview").output
