"""A NUL character in what ``remember`` sends (a claim's fields travel as JSON) is refused with the words
every other NUL gets ("PostgreSQL text fields cannot contain NUL (0x00) bytes"), not PostgreSQL's
"unsupported Unicode escape sequence"; nothing is written."""

from __future__ import annotations

import pytest

import beliefdb
from beliefdb import errors


def test_a_nul_in_a_remembered_claim_is_said_as_elsewhere(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput) as refused:
        bdb.remember("The plan\x00 is annual.", "maya", "plan", "annual", "annual", source="chat-1",
                     text="We use the annual plan.")
    assert refused.value.message == "PostgreSQL text fields cannot contain NUL (0x00) bytes"
    with pytest.raises(errors.InvalidInput) as plain:
        bdb.beliefs(subject="ma\x00ya")
    assert plain.value.message == refused.value.message
    assert bdb.beliefs(include_all=True) == []
