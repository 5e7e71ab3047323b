"""No reference at all is bad input, not a name that names nothing: a blank ref to impact or a retraction
is 400 invalid_input (it became 404 not_found with "no node, source or source version is named " when a
ref that is no id started to be read as a name)."""

from __future__ import annotations

import pytest

import beliefdb
from beliefdb import errors


@pytest.mark.parametrize("ref", ["", " "])
def test_a_blank_reference_is_invalid_input(bdb: beliefdb.BeliefDB, ref: str) -> None:
    with pytest.raises(errors.InvalidInput, match="no node, source or source version given"):
        bdb.impact(ref)
    with pytest.raises(errors.InvalidInput, match="no node, source or source version given"):
        bdb.retract(fragment=ref, reason="wrong")
