"""What an ingest of another principal's source says (rule 17): its preview names no review item it cannot
promise (the dry run's item is rolled back, and the real ingest makes another), only one that is open
already; and the text output says what the JSON says."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli

import beliefdb

DELIVERY = "The delivery fee is 5 euros.\nReturns are accepted within 30 days of delivery.\n"
DELIVERY2 = "The delivery fee is 7 euros.\nReturns are accepted within 30 days of delivery.\n"
RETURNS = "Returns are accepted within 30 days of delivery.\n"


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


def test_a_bulk_ingest_says_what_it_proposed_to_an_owner(cli: Cli, tmp_path: Path, alice: beliefdb.BeliefDB) -> None:
    """--bulk's text said "0 new version(s)" of a text it proposed; its JSON said proposed: true."""
    path = tmp_path / "delivery.md"
    path.write_text(DELIVERY, encoding="utf-8")
    assert cli("ingest", str(path), "--as", "alice").exit_code == 0
    path.write_text(DELIVERY2, encoding="utf-8")
    result = cli("ingest", str(path), "--bulk", "--as", "bob")
    assert result.exit_code == 0, result.output
    (item,) = alice.review_items()
    assert "1 proposed to its owner: nothing changes until they approve" in result.output
    assert (f"{path}: proposed to alice, who owns source 'delivery.md'"
            f" (beliefdb review approve {str(item.id)[:8]} --as alice)") in result.output


def test_a_belief_re_verified_and_current_again_says_both(cli: Cli, tmp_path: Path) -> None:
    """A version back at an earlier text re-verifies a belief that stopped holding: it is current again too
    (the JSON's current_again lists it), and the text says so, in the preview as in the ingest."""
    path = tmp_path / "delivery.md"
    path.write_text(DELIVERY, encoding="utf-8")
    first = json.loads(cli("ingest", str(path), "--json").stdout)
    (five,) = [a["id"] for a in first["accepted"] if a["value"] == "5 euros"]
    said = f"↻ {five[:8]} re-verified and current again: the new text repeats its quote"
    path.write_text(RETURNS, encoding="utf-8")
    assert cli("ingest", str(path)).exit_code == 0
    path.write_text(DELIVERY, encoding="utf-8")
    preview = json.loads(cli("ingest", str(path), "--preview", "--json").stdout)
    assert five in preview["reverified"] and five in [c["id"] for c in preview["current_again"]]
    assert said in cli("ingest", str(path), "--preview").output
    assert said in cli("ingest", str(path)).output


def test_new_text_of_a_retracted_source_says_it_is_history(cli: Cli, tmp_path: Path) -> None:
    """Its beliefs are stored unsupported, as history: the text said only "+ accepted"."""
    path = tmp_path / "delivery.md"
    path.write_text(DELIVERY, encoding="utf-8")
    assert cli("ingest", str(path)).exit_code == 0
    assert cli("retract", "--source", "delivery.md", "--reason", "withdrawn").exit_code == 0
    path.write_text(DELIVERY2, encoding="utf-8")
    expected = ("delivery.md is retracted: this version is kept as history and its beliefs are unsupported;"
                " undo the source's retraction to bring them in force")
    preview = cli("ingest", str(path), "--preview")
    assert expected in preview.output, preview.output
    shown = json.loads(cli("ingest", str(path), "--json").stdout)
    assert shown["new_version"] and shown["note"] == expected
    (seven,) = [a["id"] for a in shown["accepted"] if a["value"] == "7 euros"]
    assert [b["status"] for b in json.loads(cli("beliefs", "--all", "--json").stdout) if b["id"] == seven] == [
        "unsupported"]
