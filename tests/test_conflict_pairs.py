"""A three-way tie (rule 8): three equal-authority claims of one subject and attribute, valid from the
same moment, are in conflict pairwise, a review item for each pair. A person must tell the items apart
to approve the right one, and once they chose, ``why`` must not say the conflicts are still in effect.
From a user trial: ``review list`` printed two items of the pair identically (only --json named the
other belief), and ``why`` of the winner listed each resolved conflict as "ended": null,
"in_effect": true, though the belief was current and its confidence had no conflict factor."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Cli
from test_cli_truth import belief_status, remember

import beliefdb

SINCE = "2025-03-01T00:00:00+00:00"
YEARS = (3, 5, 7)
PERSON = "postgres"  # (the principal of the test database's user: no --as given)


@pytest.fixture
def tie(bdb: beliefdb.BeliefDB) -> dict[int, str]:
    """Three tied beliefs, by their number of years."""
    return {n: remember(bdb, f"warranty-{n}.md", f"Warranty is {n} years.", "warranty", "length", f"{n} years",
                        authority="user", valid_from=SINCE) for n in YEARS}


def items_by_pair(cli: Cli) -> dict[frozenset[str], dict[str, Any]]:
    items = cli.json("review", "list")
    assert {i["kind"] for i in items} == {"conflict"}
    return {frozenset((i["node"], i["other_node"])): i for i in items}


def conflict_line(text: str, other: str) -> str:
    (line,) = [x for x in text.splitlines() if x.startswith(f"  conflicts with {other[:8]} ")]
    return line


def test_review_list_names_both_beliefs_of_each_conflict(cli: Cli, tie: dict[int, str]) -> None:
    items = items_by_pair(cli)
    assert set(items) == {frozenset((tie[a], tie[b])) for a, b in ((3, 5), (3, 7), (5, 7))}
    lines = cli("review", "list").stdout.splitlines()
    assert len(lines) == len(set(lines)) == 3, "two items of the tie printed alike"
    value = {tie[n]: f"warranty length is {n} years" for n in YEARS}
    for pair, item in items.items():
        (line,) = [x for x in lines if x.startswith(item["id"][:8])]
        one, other = item["node"], item["other_node"]
        assert f"{one[:8]}  {value[one]}  vs {other[:8]}  {value[other]}  — " in line, line
        assert pair == {one, other}


def test_why_says_a_conflict_a_person_resolved_is_no_longer_in_effect(cli: Cli, tie: dict[int, str]) -> None:
    three, five, seven = tie[3], tie[5], tie[7]
    before = cli.json("why", five)
    assert before["belief"]["status"] == "conflicting"
    assert sorted((h["ended"], h["in_effect"]) for h in before["conflicts"]) == [(None, True), (None, True)]
    assert "conflict" in {f["factor"] for f in before["confidence"]}

    items = items_by_pair(cli)
    cli("review", "approve", items[frozenset((three, five))]["id"], "--winner", five)
    cli("review", "approve", items[frozenset((five, seven))]["id"], "--winner", five)
    assert belief_status(cli, five) == "current"
    assert belief_status(cli, three) == belief_status(cli, seven) == "superseded"
    assert cli.json("review", "list") == []  # (the 3 and the 7: settled, neither current)

    why = cli.json("why", five)
    assert "conflict" not in {f["factor"] for f in why["confidence"]}
    conflicts = {h["old_belief"] if h["new_belief"] == five else h["new_belief"]: h for h in why["conflicts"]}
    assert set(conflicts) == {three, seven}
    for other in (three, seven):
        h = conflicts[other]
        replaced = [r for r in why["replaced"] if r["old_belief"] == other]
        assert len(replaced) == 1
        assert (h["in_effect"], h["ended"], h["winner"]) == (False, replaced[0]["at"], five)
        assert h["settled_by"] == f"conflict resolved by {PERSON}"
    text = cli("why", five).stdout
    for other in (three, seven):
        assert conflict_line(text, other).endswith(
            f"— rule 8: equal authority and recency; settled at {conflicts[other]['ended']} (this belief won,"
            f" conflict resolved by {PERSON}), no longer in effect")

    # the loser's side says who won; its conflict with the 7 (the other loser) is over with neither current
    loser = cli.json("why", three)
    (with_five,) = [h for h in loser["conflicts"] if five in (h["new_belief"], h["old_belief"])]
    (with_seven,) = [h for h in loser["conflicts"] if seven in (h["new_belief"], h["old_belief"])]
    assert (with_five["in_effect"], with_five["winner"]) == (False, five)
    assert (with_seven["in_effect"], with_seven["ended"], with_seven["winner"]) == (False, None, None)
    text = cli("why", three).stdout
    assert f"({five[:8]} won, conflict resolved by {PERSON}), no longer in effect" in conflict_line(text, five)
    assert conflict_line(text, seven).endswith("; not in effect: this belief is not current")

    # as of a moment before the resolution, the conflicts were in effect then
    then = cli.json("why", five, "--as-of", max(h["at"] for h in before["conflicts"]))
    assert [(h["ended"], h["in_effect"], h["winner"]) for h in then["conflicts"]] == [(None, True, None)] * 2
