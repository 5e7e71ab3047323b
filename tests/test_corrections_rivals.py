"""Rule 8 holds after a correction (docs/rules.md, rules 6-8): the replacement of a corrected belief is
settled against the belief's rivals like any new belief, on a database that holds nothing else (the
corrections of tests/test_corrections.py start from its world)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from test_corrections import Su, revision, weighted_su

import beliefdb


@pytest.fixture
def su(postgresql: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    return weighted_su(postgresql, bdb)


def test_a_correction_is_settled_against_the_rivals_of_its_belief(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Rule 8 holds after every change. X and Y tie (same authority and valid-time start, values 7
    and 3 days); correcting X to 14 days supersedes X, and the replacement must then be settled
    against Y like any new belief: either one supersedes the other, or they tie with a conflict
    item. Two live beliefs with different values and no relation between them must not remain."""
    when = "2024-01-01T00:00:00+00:00"
    x = bdb.remember("7 days", "return_policy", "window", "7 days", "within 7 days", source="desk-a",
                     text="Returns within 7 days.", authority="user", valid_from=when).accepted[0].id
    y = bdb.remember("3 days", "return_policy", "window", "3 days", "within 3 days", source="desk-b",
                     text="Returns within 3 days.", authority="user", valid_from=when).accepted[0].id
    assert {frozenset((i.node, i.other_node)) for i in bdb.review_items()} == {frozenset((x, y))}
    result = bdb.apply_correction(x, "Returns within 14 days.", reviewer="rita", value="14 days",
                                  expect_revision=revision(bdb, x))
    live = {b.id: b for b in bdb.beliefs(subject="return_policy", attribute="window")}
    assert x not in live and result.replacement in live
    related = {frozenset(r) for r in su.all("select from_belief, to_belief from beliefdb.relation"
                                            " where kind = 'conflicts_with' and workspace_id = %s", (su.ws,))}
    open_conflicts = {frozenset((i.node, i.other_node)) for i in bdb.review_items() if i.kind == "conflict"}
    for a in live.values():
        for b in live.values():
            if a.id != b.id and a.value != b.value:
                pair = frozenset((a.id, b.id))
                assert pair in related and pair in open_conflicts, (a.value, a.status, b.value, b.status)
