"""``beliefdb._occurrences``: every span of a text where one of some quotes occurs, overlapping occurrences
included, quote by quote in the order given, each quote's in the order of the text. What forget masks in a
source's text (rule 14), so a property test against the obvious Python: each start where the quote matches.
(Its cost: docs/benchmarks.md, "Forgetting a quote repeated".)"""

from __future__ import annotations

from typing import Any

import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def reference(text: str, quotes: list[str]) -> list[tuple[int, int]]:
    return [(i, i + len(q)) for q in quotes if q for i in range(len(text) - len(q) + 1) if text.startswith(q, i)]


def occurrences(conn: psycopg.Connection[Any], text: str, quotes: list[str]) -> list[tuple[int, int]]:
    (spans,) = conn.execute("select array(select array[lower(o), upper(o)]"
                            " from unnest(beliefdb._occurrences(%s, %s)) o)", (text, quotes)).fetchone()
    return [(a, b) for a, b in spans]


alphabet = st.sampled_from("ab █é\n")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet, max_size=40), quotes=st.lists(st.text(alphabet, max_size=4), max_size=3))
def test_every_occurrence_is_found_as_the_reference_finds_it(postgresql: psycopg.Connection[Any], text: str,
                                                            quotes: list[str]) -> None:
    assert occurrences(postgresql, text, quotes) == reference(text, quotes), (text, quotes)

