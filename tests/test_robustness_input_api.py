"""Bad input never crashes beliefdb or loses work (issue 22), beyond the command line: moments out of
range in the library, text PostgreSQL cannot store and moments out of range over HTTP and MCP (each
a 400 or a tool error naming the argument, never a 500 or a generic error), all with unchanged row
counts in every table of schema beliefdb; and fuzz tests of the claims reader and the evidence gate
against obvious references. Its tests that use a database start from one ingested document (policy.md),
cloned from a template that holds it; those on an empty database are in tests/test_robustness_input_library.py."""

from __future__ import annotations

import json
import re
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from conftest import SEEDS, seeded_proc
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client
from pytest_postgresql import factories
from test_robustness_input import DOC, row_counts

import beliefdb
from beliefdb import api, errors, inputs
from beliefdb.interfaces.mcp import build
from beliefdb.models import IngestReport
from beliefdb.store.ingest import parse_claims
from beliefdb.text.extractor import Candidate
from beliefdb.text.gate import Located, gate, locate

pytestmark = pytest.mark.robustness

PLUS_14, MINUS_14 = timezone(timedelta(hours=14)), timezone(timedelta(hours=-14))
#: moments Python or psycopg cannot read back in some time zone
OUT_OF_RANGE = {"year-1-utc": datetime(1, 1, 1, tzinfo=UTC), "bc-in-utc": datetime(1, 1, 1, 12, tzinfo=PLUS_14),
                "year-10000-in-utc": datetime(9999, 12, 31, 23, tzinfo=MINUS_14), "naive-min": datetime.min,
                "naive-max": datetime.max}


def _ingest_the_seed(url: str) -> str:
    """policy.md ingested; the id of its first belief, as the ingest reported it."""
    with tempfile.TemporaryDirectory() as folder, beliefdb.connect(url) as bdb:
        path = Path(folder) / "policy.md"
        path.write_text(DOC, encoding="utf-8")
        report = bdb.ingest(path, embed=False)[0]
    assert isinstance(report, IngestReport)
    return str(report.accepted[0].id)


# the tests of this module that use a database start from policy.md: each clones it from a template that holds it
policy_proc = seeded_proc(_ingest_the_seed)
postgresql = factories.postgresql("policy_proc")


@pytest.fixture
def seeded(postgresql: psycopg.Connection[Any]) -> str:
    """A belief, so that reads have something to read; its id."""
    return str(SEEDS[postgresql.info.dbname])


# --- the library ---------------------------------------------------------------------------------


@pytest.mark.parametrize("moment", list(OUT_OF_RANGE))
def test_a_library_moment_out_of_range_is_invalid_input_naming_it(moment: str, bdb: beliefdb.BeliefDB, db_url: str,
                                                                  seeded: str) -> None:
    at = OUT_OF_RANGE[moment]
    before = row_counts(db_url)
    for name, call in [("as_of", lambda: bdb.beliefs(as_of=at)), ("as_of", lambda: bdb.why(seeded, as_of=at)),
                       ("as_of", lambda: bdb.ask("how many days?", as_of=at)),
                       ("as_of", lambda: bdb.answers(as_of=at)), ("now", lambda: bdb.decay(now=at)),
                       ("now", lambda: bdb.decay(now=at, preview=True))]:
        with pytest.raises(errors.InvalidInput, match=rf"^{name}: .* is out of range \(give a moment from 0001-01-02"):
            call()
    assert row_counts(db_url) == before
    edge = datetime(9999, 12, 30, 23, 59, tzinfo=UTC)  # the last minute accepted reads back
    assert [b.id for b in bdb.beliefs(as_of=edge)] == [b.id for b in bdb.beliefs()]


WRONG_TYPES: dict[str, tuple[dict[str, Any], str]] = {
    # a scope is conditions by name: dict() read a list ["EU"] as {"E": "U"} and stored that, unsaid
    "scope-list": ({"scope": ["EU"]}, r"^scope= must be a mapping of names to text values"),
    "scope-text": ({"scope": "region=EU"}, r"^scope= must be a mapping of names to text values"),
    "scope-number": ({"scope": {"region": 1}}, r"^scope= must be a mapping of names to text values"),
    # the fields of a belief and its evidence are text: an AttributeError ('int' has no 'strip') before
    "statement": ({"statement": 5}, r"^'statement' must be a string, not int$"),
    "value": ({"value": 2}, r"^'value' must be a string, not int$"),
    "quote": ({"quote": None}, r"^'quote' must be a string, not NoneType$"),
    "source": ({"source": 1042}, r"^'source' must be a string, not int$"),
    "text": ({"text": b"Returns"}, r"^'text' must be a string, not bytes$"),
}


@pytest.mark.parametrize("case", list(WRONG_TYPES))
def test_remember_refuses_a_field_of_the_wrong_type_naming_it(case: str, bdb: beliefdb.BeliefDB, db_url: str,
                                                              seeded: str) -> None:
    changed, said = WRONG_TYPES[case]
    with_text = {"statement": "Returns take 7 days.", "subject": "returns", "attribute": "window",
                 "value": "7 days", "quote": "Returns", "source": "chat-1", "text": "Returns: 7 days."}
    in_force = with_text | {"source": "policy.md", "text": None}  # the quote against the source in force
    before = row_counts(db_url)
    for call in (with_text, in_force) if "text" not in changed else (with_text,):
        args = call | changed
        with pytest.raises(errors.InvalidInput, match=said):
            bdb.remember(args.pop("statement"), args.pop("subject"), args.pop("attribute"), args.pop("value"),
                         args.pop("quote"), **args)
    assert row_counts(db_url) == before


def test_ask_refuses_a_scope_that_is_not_conditions_by_name(bdb: beliefdb.BeliefDB, seeded: str) -> None:
    """ask(scope=["EU"]) asked for the scope {"E": "U"}, and said ok."""
    for scope in (["EU"], "EU", {"region": 1}, {1: "EU"}):
        with pytest.raises(errors.InvalidInput, match=r"^scope= must be a mapping of names to text values"):
            bdb.ask("how many days?", scope=scope)  # type: ignore[arg-type]
    assert bdb.ask("how many days?", scope={"region": "EU"}).status == "ok"


def test_one_id_where_a_list_of_ids_is_taken_is_refused_naming_the_argument(bdb: beliefdb.BeliefDB, db_url: str,
                                                                           seeded: str) -> None:
    """An id handed alone where a list of them is taken (``because=item.value["belief_id"]``, the string an
    adapter gives) was read as a list of its characters: "belief id prefix 7 is too short"; a UUID alone
    raised TypeError ('UUID' object is not iterable)."""
    from uuid import UUID

    run = bdb.record_step("user_input", {"text": "refund?"}, task="refund").run
    before = row_counts(db_url)
    for name, call in [("because", lambda ref: bdb.decide("Refund", because=ref)),
                       ("because", lambda ref: bdb.decide_in_run(run, "Refund", because=ref)),
                       ("all_of", lambda ref: bdb.decide("Refund", all_of=[ref])),
                       ("all_of", lambda ref: bdb.decide_in_run(run, "Refund", all_of=[ref])),
                       ("sources", lambda ref: bdb.derive("Late fee 10%", "late", "fee", "10%", ref)),
                       ("faulty", lambda ref: bdb.repair_plan(ref)), ("faulty", lambda ref: bdb.repair_apply(ref))]:
        for ref in (seeded, UUID(seeded)):
            with pytest.raises(errors.InvalidInput, match=rf"^{name}= takes a list of ids"):
                call(ref)
    with pytest.raises(errors.InvalidInput, match=r"^because= takes a list of ids .*not list"):
        bdb.decide("Refund", because=[[seeded]])  # type: ignore[list-item]
    assert row_counts(db_url) == before
    assert bdb.decide("Refund", because=[seeded]).status == "active"


def test_an_empty_all_of_group_is_refused_naming_it(bdb: beliefdb.BeliefDB, db_url: str, seeded: str) -> None:
    """An all_of group naming no belief was dropped: ``decide("x", all_of=[[]])`` recorded a decision without
    any reason, needing review, where the SQL refuses an empty reason and the CLI an empty --all-of."""
    run = bdb.record_step("user_input", {"text": "refund?"}, task="refund").run
    before = row_counts(db_url)
    for call in (lambda groups: bdb.decide("Refund", all_of=groups),
                 lambda groups: bdb.decide_in_run(run, "Refund", all_of=groups)):
        for groups, n in (([[]], 1), ([[seeded], ()], 2)):
            with pytest.raises(errors.InvalidInput, match=rf"^all_of= takes groups of at least one belief each: group"
                                                          rf" {n} is empty"):
                call(groups)
    assert row_counts(db_url) == before
    assert bdb.decide("Refund", all_of=[[seeded]]).status == "active"


def test_one_id_where_a_list_of_whole_ids_is_read_is_refused_naming_the_argument(bdb: beliefdb.BeliefDB,
                                                                                  seeded: str) -> None:
    """``answers(ids=...)`` and ``labels(...)`` given one id read it as a list of its characters and
    failed in the database ("invalid input syntax for type uuid: "a""); an element that is no id too."""
    from uuid import UUID

    for call in (lambda ids: bdb.answers(ids=ids), lambda ids: bdb.labels(ids)):
        for one in (seeded, UUID(seeded)):
            with pytest.raises(errors.InvalidInput, match=r"^ids= takes a list of ids, not one"):
                call(one)
        with pytest.raises(errors.InvalidInput, match=r"^ids= takes whole ids: 'seven' is not one"):
            call([seeded, "seven"])
    assert [a.belief.id for a in bdb.answers(ids=[seeded])] == [UUID(seeded)]
    assert [n.id for n in bdb.labels([UUID(seeded)])] == [UUID(seeded)]


# --- HTTP: a 400 naming what is wrong ------------------------------------------------------------


@pytest.fixture
def token(db_url: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api.create_token('default', 'alice', url=db_url).token}"}


def _raw(body: str) -> bytes:
    """A JSON body as a client may send it: "\\ud800" escapes a lone surrogate (json.dumps would write it so)."""
    return body.encode("ascii")


HTTP_BAD: dict[str, tuple[str, str, Any, list[str]]] = {
    "beliefs-as-of-bc-in-utc": ("GET", "/beliefs", {"as_of": "0001-01-01T12:00:00+14:00"}, ["as_of", "range"]),
    "beliefs-as-of-year-10000": ("GET", "/beliefs", {"as_of": "9999-12-31T23:00:00-14:00"}, ["as_of", "range"]),
    "why-as-of-year-1": ("GET", "/beliefs/{belief}", {"as_of": "0001-01-01T00:00:00Z"}, ["as_of", "range"]),
    "ask-as-of": ("POST", "/ask", {"question": "days?", "as_of": "0001-01-01T00:00:00+01:00"}, ["as_of", "range"]),
    "remember-valid-from": ("POST", "/beliefs", {"statement": "s", "subject": "s", "attribute": "a", "value": "v",
                                                 "quote": "Returns", "source": "policy.md",
                                                 "valid_from": "0001-01-01T00:00:00+14:00"}, ["valid_from"]),
    "ask-question-lone-surrogate": ("POST", "/ask", _raw('{"question": "days\\ud800?"}'), ["question", "UTF-8"]),
    "decide-title-lone-surrogate": ("POST", "/decisions", _raw('{"title": "\\udcff"}'), ["title", "UTF-8"]),
    "ingest-source-lone-surrogate": ("POST", "/sources", _raw('{"source": "\\udcff.md", "text": "The fee is 1."}'),
                                     ["source", "UTF-8"]),
    "scope-key-lone-surrogate": ("POST", "/ask", _raw('{"question": "q", "scope": {"\\ud800": "x"}}'),
                                 ["scope", "UTF-8"]),
    "step-payload-lone-surrogate": ("POST", "/steps", _raw('{"kind": "plan", "payload": {"a": ["\\udfff"]}}'),
                                    ["payload", "UTF-8"]),
    "remember-nul": ("POST", "/beliefs", _raw('{"statement": "s\\u0000", "subject": "s", "attribute": "a",'
                                              ' "value": "v", "quote": "Returns", "source": "policy.md"}'),
                     ["statement", "NUL"]),
}


@pytest.mark.parametrize("name", list(HTTP_BAD))
def test_http_bad_input_is_a_400_naming_it(name: str, http_client: TestClient, token: dict[str, str],
                                           db_url: str, seeded: str) -> None:
    method, path, body, words = HTTP_BAD[name]
    before = row_counts(db_url)
    url = path.replace("{belief}", seeded)
    if method == "GET":
        response = http_client.get(url, params=body, headers=token)
    elif isinstance(body, bytes):
        response = http_client.post(url, content=body, headers=token | {"Content-Type": "application/json"})
    else:
        response = http_client.post(url, json=body, headers=token)
    assert response.status_code == 400, response.text
    error = response.json()
    assert set(error) == {"error", "message"} and error["error"] == "invalid_input", error
    for word in words:
        assert word in error["message"], (word, error)
    assert row_counts(db_url) == before


# --- MCP: a tool error naming the argument -------------------------------------------------------

MCP_BAD: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "ask-question-lone-surrogate": ("ask", {"question": "days\ud800?"}, ["question", "UTF-8"]),
    "remember-quote-lone-surrogate": ("remember", {"statement": "s", "subject": "s", "attribute": "a", "value": "v",
                                                   "quote": "Returns\udcff", "source": "policy.md"},
                                      ["quote", "UTF-8"]),
    "decide-title-nul": ("decide", {"title": "Refuse\x00"}, ["title", "NUL"]),
    "ingest-text-lone-surrogate": ("ingest_text", {"source": "a.md", "text": "The fee is \udcff."}, ["text"]),
    "record-step-payload-lone-surrogate": ("record_step", {"kind": "plan", "payload": {"k": ["\ud800"]}},
                                           ["payload"]),
    "ask-as-of-year-1": ("ask", {"question": "days?", "as_of": "0001-01-01T00:00:00Z"}, ["as_of", "0001-01-02"]),
    "why-as-of-bc-in-utc": ("why", {"belief": "{belief}", "as_of": "0001-01-01T12:00:00+14:00"}, ["as_of"]),
    "beliefs-as-of-year-10000": ("beliefs", {"as_of": "9999-12-31T23:00:00-14:00"}, ["as_of", "9999-12-30"]),
    "beliefs-as-of-not-iso": ("beliefs", {"as_of": "last tuesday"}, ["as_of", "last tuesday"]),
}


@pytest.mark.parametrize("name", list(MCP_BAD))
def test_mcp_bad_input_is_a_tool_error_naming_it(name: str, bdb: beliefdb.BeliefDB, db_url: str,
                                                 seeded: str) -> None:
    tool, arguments, words = MCP_BAD[name]
    arguments = {k: v.replace("{belief}", seeded) if isinstance(v, str) else v for k, v in arguments.items()}
    before = row_counts(db_url)

    async def call() -> Any:
        async with Client(build(local=bdb)) as client:
            return await client.call_tool(tool, arguments)

    result = anyio.run(call)
    assert result.is_error, result
    error = json.loads(result.content[0].text)
    assert error["error"] == "invalid_input", error
    for word in words:
        assert word in error["message"], (word, error)
    assert row_counts(db_url) == before


# --- fuzz: the claims reader ---------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
KEYS = ["statement", "subject", "attribute", "value", "quote", "kind", "scope", "start", "end", "valid_from"]
json_values = st.recursive(st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats(allow_nan=False)
                           | st.text(max_size=12), lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
claim_like = st.fixed_dictionaries({}, optional={k: st.one_of(st.text(max_size=12), json_values) for k in KEYS})
valid_claim = st.fixed_dictionaries(
    {k: st.text(min_size=1, max_size=10) for k in KEYS[:5]},
    optional={"kind": st.sampled_from(["fact", "policy", "rumour"]),
              "scope": st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
              "start": st.integers(-1, 40), "end": st.integers(-1, 40),
              "valid_from": st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01", "0001-01-01", "soon"])})
line = st.one_of(
    valid_claim.map(lambda d: json.dumps(d, ensure_ascii=False)),
    valid_claim.map(json.dumps),
    claim_like.map(lambda d: json.dumps(d, ensure_ascii=False)),
    claim_like.map(json.dumps),  # ASCII, with \\u escapes: lone surrogates and NUL come this way
    st.text(max_size=40),
    st.sampled_from(["", "   ", "\x00", "{", "[" * 5000, '{"start": ' + "9" * 5000 + "}", "\ufeff{}",
                     '{"statement": "a\u2028b", "subject": "s", "attribute": "a", "value": "", "quote": "q\u0085"}']),
)
claims_files = st.one_of(
    st.binary(max_size=300),
    st.tuples(st.lists(line, max_size=6), st.sampled_from(["\n", "\r\n"]),
              st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"])).map(
        lambda t: t[1].join(t[0]).encode(t[2], "surrogatepass" if t[2].startswith("utf") else "replace")),
)


@FUZZ
@given(data=claims_files)
def test_the_claims_reader_parses_or_names_a_line(data: bytes) -> None:
    """Any bytes: claims that can all be stored, or one InvalidInput line naming a line of the file."""
    try:
        claims = parse_claims(data, "claims.jsonl")
    except errors.InvalidInput as exc:
        assert "\n" not in exc.message, exc.message
        found = re.match(r"claims\.jsonl line (\d+): \S", exc.message)
        assert found, exc.message
        assert 1 <= int(found[1]) <= data.count(b"\n") + 1, exc.message
        return
    text = data.decode("utf-8").removeprefix("\ufeff")
    assert len(claims) == sum(1 for x in text.split("\n") if x.strip()), claims  # one claim per line, none lost
    for c in claims:
        strings = [c.statement, c.subject, c.attribute, c.value, c.quote, c.kind, *c.scope, *c.scope.values()]
        assert all(isinstance(s, str) and inputs.unstorable(s) is None for s in strings), c
        assert c.start is None or c.end is None or 0 <= c.start < c.end, c


# --- fuzz: the evidence gate against a reference -------------------------------------------------

# letters, whitespace, a composed and a decomposed é, zero-width and line-separating characters
ALPHABET = ["a", "b", "7", " ", "\n", "\t", "\u00e9", "e\u0301", "\u200b", "\u2028", "\ufeff", "A"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)
offsets = st.none() | st.integers(-3, 40) | st.integers(2**31, 2**65)


def reference(text: str, quote: str, start: int | None, end: int | None) -> tuple[int, int] | None:
    """Where the gate must accept ``quote``: exactly there in ``text``, or at its first occurrence when
    no offsets are given; nowhere when it is blank."""
    if not quote.strip():
        return None
    if start is None and end is None:
        return (text.index(quote), text.index(quote) + len(quote)) if quote in text else None
    if start is None or end is None or not 0 <= start < end <= len(text):
        return None
    return (start, end) if text[start:end] == quote else None


@FUZZ
@given(data=st.data(), text=texts)
def test_the_gate_accepts_a_quote_only_where_it_stands(data: st.DataObject, text: str) -> None:
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, len(text)))
    exact = text[i:j]
    quote = data.draw(st.one_of(st.just(exact), texts, st.just(exact.replace("\u00e9", "e\u0301")),
                                st.just("\u200b".join(exact)), st.just(exact.upper()), st.just(exact.strip())))
    start, end = data.draw(st.one_of(st.just((None, None)), st.just((i, j)), st.tuples(offsets, offsets)))
    candidate = Candidate(statement="s", subject="s", attribute="a", value="v", quote=quote, start=start, end=end)
    try:
        result = locate(text, candidate)
    except errors.BeliefDBError:
        return
    expected = reference(text, quote, start, end)
    if expected is None:
        assert isinstance(result, str) and result, result
    else:
        assert isinstance(result, Located) and (result.start, result.end) == expected, (result, expected)
        assert text[result.start:result.end] == quote
    located, rejected = gate(text, [candidate, candidate])
    assert len(located) + len(rejected) == 2  # none dropped


@pytest.mark.parametrize(("field", "blank"), [("statement", ""), ("subject", ""), ("subject", "   "),
                                              ("attribute", ""), ("attribute", "\t")])
@pytest.mark.parametrize("with_text", [False, True])
def test_remember_with_a_blank_statement_subject_or_attribute_is_invalid_input_naming_it(
        field: str, blank: str, with_text: bool, bdb: beliefdb.BeliefDB, db_url: str, seeded: str) -> None:
    """As a claims file's line is refused (``'subject' must be a non-empty string``), so is a blank
    field given to remember: InvalidInput naming it, nothing written. The code before: the database's
    check constraint as an integrity_violation ('violates check constraint "belief_subject_check"'),
    and a subject or attribute of blanks only stored as a belief."""
    quote = "Returns are accepted within 7 days of delivery."
    fields = {"statement": "Returns within 7 days", "subject": "return_policy", "attribute": "window"} | {field: blank}
    before = row_counts(db_url)
    with pytest.raises(errors.InvalidInput, match=f"'{field}' must be a non-empty string"):
        bdb.remember(fields["statement"], fields["subject"], fields["attribute"], "7 days", quote,
                     source="notes.md" if with_text else "policy.md", text=quote if with_text else None)
    assert row_counts(db_url) == before


def test_a_nul_character_in_a_library_argument_is_invalid_input(bdb: beliefdb.BeliefDB, db_url: str,
                                                               seeded: str) -> None:
    """PostgreSQL text holds no NUL: psycopg refuses to send it, and nothing was sent. That is the
    caller's input, invalid_input in one line, as a lone surrogate is (the code before: the base
    BeliefDBError, code 'error', as if beliefdb had failed)."""
    before = row_counts(db_url)
    for call in (lambda: bdb.ingest_text("Returns within 7 days.\x00", source="nul.md"),
                 lambda: bdb.decide("refund \x00", because=[seeded]),
                 lambda: bdb.ask("returns\x00")):
        with pytest.raises(errors.InvalidInput, match="NUL"):
            call()
    assert row_counts(db_url) == before

