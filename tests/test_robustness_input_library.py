"""Bad input never crashes beliefdb or loses work (issue 22), in the library on an empty database: a
valid time given as a datetime or text, a lone surrogate, a blank source name, an ``expect`` that is no
fingerprint and one text where a list is taken (the other cases, on a
database holding a document, are in tests/test_robustness_input_api.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from test_robustness_input import DOC, row_counts

import beliefdb
from beliefdb import errors

pytestmark = pytest.mark.robustness


def test_remember_takes_its_valid_time_as_a_datetime_or_text_and_names_a_bad_one(bdb: beliefdb.BeliefDB,
                                                                                  db_url: str) -> None:
    """A datetime (the type every other moment of the library takes) crashed deep in psycopg's JSON dump
    with a TypeError, and bad text went to PostgreSQL's cast."""
    text = "The promo code SPRING gives 20% off until March."
    until = datetime(2026, 3, 1, tzinfo=UTC)
    report = bdb.remember("SPRING gives 20% off.", "promo_spring", "discount", "20%", "20% off", source="promo.md",
                          text=text, valid_from=datetime(2026, 1, 1), valid_to=until)  # (naive: local time)
    (belief,) = bdb.beliefs(include_all=True)
    assert belief.id == report.accepted[0].id and belief.valid_time.upper == until
    assert belief.valid_time.lower == datetime(2026, 1, 1).astimezone()
    before = row_counts(db_url)
    for bad, said in [("next week", r"^valid_to: not an ISO 8601 timestamp: 'next week'$"),
                      (20260301, r"^valid_to: must be a datetime or an ISO 8601 timestamp string$"),
                      (datetime.max, r"^valid_to: .* is out of range")]:
        with pytest.raises(errors.InvalidInput, match=said):
            bdb.remember("SPRING gives 20% off.", "promo_spring", "discount", "20%", "20% off", source="promo.md",
                         valid_to=bad)  # type: ignore[arg-type]
    assert row_counts(db_url) == before


def test_a_lone_surrogate_in_a_library_argument_is_invalid_input(bdb: beliefdb.BeliefDB) -> None:
    # psycopg cannot encode it; the library says so in one line instead of raising UnicodeEncodeError
    with pytest.raises(errors.InvalidInput, match="not valid UTF-8"):
        bdb.decide("refund \udcff")


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_a_blank_source_name_is_invalid_input(name: str, bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """A source needs a name one can see and give again: blanks only are refused as an empty name is
    (the code before stored a source named '   ' from ingest_text, remember and submit)."""
    quote = "Returns are accepted within 7 days of delivery."
    before = row_counts(db_url)
    for call in (lambda: bdb.ingest_text(DOC, source=name),
                 lambda: bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", quote,
                                      source=name, text=DOC),
                 lambda: bdb.submit(text=DOC, source=name)):
        with pytest.raises(errors.InvalidInput, match="a source name is required"):
            call()
    assert row_counts(db_url) == before


def test_an_expect_that_is_no_fingerprint_is_refused_naming_it(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """``forget(..., expect=p.fingerprint)`` (the method, not called) or a number was StalePreview, as if what
    the preview showed had changed: what is wrong with the call is said before anything is looked up."""
    bdb.ingest_text("Owner: Alice", source="chat-5", embed=False)
    forgetting, retracting = bdb.forget(source="chat-5", preview=True), bdb.preview_retract(source="chat-5")
    before = row_counts(db_url)
    for bad, said in [(forgetting.fingerprint, r"not a method: call it, fingerprint\(\)"), (5, "not int"),
                      ("  ", "not a blank one")]:
        with pytest.raises(errors.InvalidInput, match=rf"^expect= takes the fingerprint a preview gave .*{said}"):
            bdb.forget(source="chat-5", expect=bad)  # type: ignore[arg-type]
        with pytest.raises(errors.InvalidInput, match=rf"^expect= takes the fingerprint a preview gave .*{said}"):
            bdb.retract(source="chat-5", reason="wrong", expect=bad)  # type: ignore[arg-type]
    assert row_counts(db_url) == before
    assert bdb.retract(source="chat-5", reason="wrong", expect=retracting.fingerprint()).stopped_holding
    assert bdb.forget(source="chat-5", preview=True).fingerprint() != forgetting.fingerprint()


def test_one_text_where_a_list_is_taken_is_refused_naming_the_argument(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """``source_excerpts("chat-5")`` was read as a list of its characters ("invalid input syntax for type uuid:
    "c""), as were record_step's ``supports`` and newest's ``subjects`` (an empty page); one (edge, node) pair
    as ``inputs`` was a ValueError, and a list given to impact as one of its ids was looked for."""
    report = bdb.ingest_text("Owner: Alice", source="chat-5", embed=False)
    fragment = bdb.why(report.accepted[0].id).evidence[0].fragment_id
    before = row_counts(db_url)
    for call, said in [(lambda: bdb.source_excerpts("chat-5"), r"^fragments= takes a list of ids, not one str"),
                       (lambda: bdb.source_excerpts(fragment), r"^fragments= takes a list of ids, not one UUID"),
                       (lambda: bdb.source_excerpts(["chat-5"]), r"^fragments= takes whole ids: 'chat-5' is not one"),
                       (lambda: bdb.record_step("observation", {}, task="t", supports=str(fragment)),
                        r"^supports= takes a list of ids, not one str"),
                       (lambda: bdb.record_step("observation", {}, task="t", inputs=("reads", str(fragment))),
                        r"^inputs= takes a list of \(edge, node\) pairs, each a pair, not str"),
                       (lambda: bdb.newest(subjects="chat_5"), r"^subjects= takes a list of subjects, each a str"),
                       (lambda: bdb.impact(["chat-5"]), r"^impact takes ids .* each a str or a UUID, not list")]:
        with pytest.raises(errors.InvalidInput, match=said):
            call()  # type: ignore[no-untyped-call]
    assert row_counts(db_url) == before
    assert [e.fragment_id for e in bdb.source_excerpts([fragment])] == [fragment]


def test_an_argument_of_the_wrong_type_is_invalid_input_naming_it(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """A number, bytes or None where a method takes text (an agent's JSON, a caller's slip) raised whatever
    Python met deep inside: ``ask(5)`` an AttributeError ('int' object has no attribute 'strip'),
    ``beliefs(subject=5)`` a TypeError from unicodedata, ``ingest_text(b"...")`` a TypeError from re, none of
    them a BeliefDBError a caller could catch, while ``remember`` named its field. Each is InvalidInput naming
    the argument, said before anything is read or written."""
    report = bdb.ingest_text("Owner: Alice", source="chat-5", embed=False)
    belief = report.accepted[0].id
    before = row_counts(db_url)
    calls = [(lambda: bdb.ask(5), "question", "int"),
             (lambda: bdb.ask(None), "question", "NoneType"),
             (lambda: bdb.ingest_text(b"Owner: Bob", source="chat-6"), "text", "bytes"),
             (lambda: bdb.ingest_text("Owner: Bob", source=6), "source", "int"),
             (lambda: bdb.submit(text=["Owner: Bob"], source="chat-6"), "text", "list"),
             (lambda: bdb.beliefs(subject=5), "subject", "int"),
             (lambda: bdb.answers(subject=b"chat"), "subject", "bytes"),
             (lambda: bdb.subjects(under=1.5), "under", "float"),
             (lambda: bdb.retract_attribute(5, "owner", reason="wrong"), "subject", "int"),
             (lambda: bdb.retract(belief=belief, reason=None), "reason", "NoneType"),
             (lambda: bdb.decide(5, because=[belief]), "title", "int"),
             (lambda: bdb.create_workspace(5), "name", "int"),
             (lambda: bdb.why(5), "belief", "int")]
    for call, name, kind in calls:
        with pytest.raises(errors.InvalidInput, match=rf"^{name}= .*not {kind}"):
            call()  # type: ignore[no-untyped-call]
    assert row_counts(db_url) == before
    assert bdb.why(belief).belief.id == belief and bdb.ask("who owns it?").status in ("ok", "no_match")


def test_opening_memory_with_an_argument_of_the_wrong_type_is_invalid_input_naming_it(db_url: str) -> None:
    """``connect(workspace=5)`` was an AttributeError ('int' object has no attribute 'strip'), ``url=5`` and
    ``principal=5`` too, ``home=5`` a TypeError from pathlib, ``max_size="4"`` a TypeError from a comparison,
    and ``max_size=2.5`` opened a memory: each is InvalidInput naming the argument, from connect, BeliefDB and
    aconnect alike, before any connection is opened."""
    import asyncio

    calls: list[tuple[dict[str, Any], str, str]] = [
        ({"url": db_url, "workspace": 5}, "workspace", "int"), ({"url": 5}, "url", "int"),
        ({"url": db_url, "principal": 5}, "principal", "int"), ({"home": 5}, "home", "int"),
        ({"url": db_url, "max_size": "4"}, "max_size", "str"), ({"url": db_url, "max_size": 2.5}, "max_size", "float"),
        ({"url": db_url, "max_size": True}, "max_size", "bool")]
    for kwargs, name, kind in calls:
        for opening in (beliefdb.connect, beliefdb.BeliefDB):
            with pytest.raises(errors.InvalidInput, match=rf"^{name}= .*not {kind}$"):
                opening(**kwargs)
        with pytest.raises(errors.InvalidInput, match=rf"^{name}= .*not {kind}$"):
            asyncio.run(beliefdb.aconnect(**kwargs))


class _OtherUUID:
    """An id of another library's UUID type (uuid_utils' uuid7()): no uuid.UUID, its text a UUID."""

    def __init__(self, value: object) -> None:
        self.value = str(value)

    def __str__(self) -> str:
        return self.value


def test_what_stands_for_an_id_or_a_whole_number_is_taken_as_before(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """The type checks refused what worked before them (a review): an id of uuid_utils' UUID type, which
    uuid7() makes, and numpy's int64 as max_size. A limit of the wrong type for workspaces() is InvalidInput."""
    import numpy as np

    (belief,) = bdb.ingest_text("Owner: Bob", source="chat-7").accepted
    assert bdb.why(_OtherUUID(belief.id)).belief.id == belief.id  # type: ignore[arg-type]
    with beliefdb.connect(db_url, max_size=np.int64(2)) as db:  # type: ignore[arg-type]
        assert db.why(belief.id).belief.id == belief.id
    for limit, kind in (("3", "str"), (True, "bool"), (2.5, "float")):
        with pytest.raises(errors.InvalidInput, match=rf"^limit=.* must be an integer, not {kind}$"):
            bdb.workspaces(limit=limit)  # type: ignore[arg-type]
