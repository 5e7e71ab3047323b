"""A value too long for an index is refused in the caller's words: the HTTP API answered "index row size
6032 exceeds btree version 4 maximum 2704 for index "belief_subject_attribute" (hint: ... Consider a
function index of an MD5 hash of the value ...)", the index's name and a DBA's advice (a user trial)."""

from __future__ import annotations

import random
import string

import pytest

import beliefdb
from beliefdb import errors


def test_a_subject_too_long_to_index_is_named(bdb: beliefdb.BeliefDB) -> None:
    subject = "".join(random.Random(1).choices(string.ascii_letters, k=6000))
    with pytest.raises(errors.InvalidInput) as refused:
        bdb.remember("s", subject, "a", "v", "q", source="s.md", text="q\n")
    said = refused.value.message
    assert said.startswith("too large: the subject and attribute is too long to be stored"), said
    assert "MD5" not in said and "belief_subject_attribute" not in said and "\n" not in said


def test_a_key_too_long_to_index_says_what_it_may_be(bdb: beliefdb.BeliefDB) -> None:
    (belief,) = bdb.remember("Returns within 7 days.", "policy", "window", "7 days", "Returns within 7 days",
                             source="p.md", text="Returns within 7 days.\n").accepted
    key = "".join(random.Random(2).choices(string.ascii_letters, k=12000))
    with pytest.raises(errors.InvalidInput) as refused:
        bdb.decide("Refuse it", because=[belief.id], idempotency_key=key)
    assert refused.value.message.startswith("too large: "), refused.value.message
    assert "idempotency key" in refused.value.message and "index row" not in refused.value.message
    assert bdb.decisions() == []
