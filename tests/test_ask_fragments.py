"""What ``ask`` shows beyond beliefs (issue 20): text no belief was extracted from, labelled as
unextracted text and never presented as a belief (the MCP tool gives the CLI's JSON: test_mcp.py),
only from sources in force (rules 14 and 18 of docs/rules.md: forgotten, retracted and replaced text
never comes back); each context item's valid time, and "replaced ... on DATE" by the valid time;
conflict warnings capped, naming the rival."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import Cli

import beliefdb
from beliefdb import api
from beliefdb.embedders import get_embedder
from beliefdb.models import Turn
from beliefdb.models.retrieval import BELIEFS_AFTER_TEXT
from beliefdb.render.ask import ask_json, ask_text
from beliefdb.store.retrieve import MAX_WARNINGS
from beliefdb.store.vectors import literal

NOTES = ("Can we bring dogs to the office on Fridays?\n"
         "Ugh, the office coffee machine broke again!\n"
         "Invoices are paid within 30 days.\n")


def texts(result: beliefdb.models.AskResult) -> list[str]:
    return [f.text for f in result.fragments]


@pytest.mark.slow
def test_unextracted_text_is_returned_as_fragments_only_while_its_source_is_in_force(
        bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(NOTES, source="team-notes.md", authority="internal")
    assert all("dogs" not in b.statement for b in bdb.beliefs())
    # a question is text too: reachable, labelled, and not a belief
    result = bdb.ask("Are dogs allowed in the office?")
    assert "Can we bring dogs to the office on Fridays?" in texts(result)
    assert all(f.kind == "fragment" and f.source == "team-notes.md" for f in result.fragments)
    assert all("dogs" not in a.belief.statement for a in result.beliefs)
    assert "Unextracted text that matches (not beliefs" in result.context
    assert "Can we bring dogs to the office on Fridays?" in result.context
    # text a belief quotes is that belief's: never a fragment as well
    bdb.remember("Invoices are paid within 30 days.", "invoices", "payment_term", "30 days",
                 "Invoices are paid within 30 days.", source="team-notes.md")
    assert "Invoices are paid within 30 days." not in texts(bdb.ask("When are invoices paid?"))
    # a new version without the line: the old text is not in force
    bdb.ingest_text(NOTES.replace("Can we bring dogs to the office on Fridays?\n", ""), source="team-notes.md")
    assert all("dogs" not in t for t in texts(bdb.ask("Are dogs allowed in the office?")))
    assert "Ugh, the office coffee machine broke again!" in texts(bdb.ask("office coffee machine"))
    bdb.retract(source="team-notes.md", reason="wrong file")
    assert texts(bdb.ask("office coffee machine")) == []


@pytest.mark.slow
def test_forgotten_and_fixture_text_is_not_returned(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Can we bring dogs to the office?\n", source="fixture-notes.md", label="fixture")
    assert texts(bdb.ask("dogs in the office")) == []
    assert texts(bdb.ask("dogs in the office", include_fixtures=True)) == ["Can we bring dogs to the office?"]
    bdb.ingest_text("Can we bring cats to the office?\n", source="cats.md")
    assert texts(bdb.ask("cats in the office")) == ["Can we bring cats to the office?"]
    bdb.forget(source="cats.md")
    assert texts(bdb.ask("cats in the office")) == []


@pytest.mark.slow
def test_a_replaced_value_comes_back_only_as_history_under_its_replacement(bdb: beliefdb.BeliefDB) -> None:
    chat = "Tom lives in Oslo.\nTom lives in Paris.\nTom lives in Berlin now.\n"
    recorded = {}
    for value, day in (("Oslo", "2022-09-01"), ("Paris", "2023-01-10"), ("Berlin", "2023-05-08")):
        line = next(x for x in chat.splitlines() if value in x)
        bdb.remember(line, "tom", "city", value, line, source="chat-7", text=chat if value == "Oslo" else None,
                     valid_from=f"{day}T00:00:00Z")
        recorded[value] = datetime.now(UTC)
    result = bdb.ask("Where does Tom live?")
    assert [a.belief.value for a in result.beliefs] == ["Berlin"]
    assert all("Paris" not in f.text and "Oslo" not in f.text for f in result.fragments)
    # the replaced values, the latest first, each with its own quote and what replaced it when (the valid
    # time of the belief that replaced it, not its recording)
    (berlin,) = result.beliefs
    assert [(h.belief.value, h.belief.status, h.replaced_by_value, h.replaced_on.date().isoformat(), h.steps)
            for h in berlin.history] == [("Paris", "superseded", "Berlin", "2023-05-08", 1),
                                         ("Oslo", "superseded", "Paris", "2023-01-10", 2)]
    assert [h.evidence[0].quote for h in berlin.history] == ["Tom lives in Paris.", "Tom lives in Oslo."]
    assert any(w.startswith("replaced 'Paris'") and w.endswith("on 2023-05-08") for w in berlin.warnings)
    # in the context: items of their own after the current belief, labelled as history, never as current
    assert numbers(result.context) == [1, 2, 3]
    current, paris, oslo = re.split(r"^\d\. ", result.context, flags=re.M)[1:]
    assert current.startswith("Tom lives in Berlin now.") and "valid from 2023-05-08" in current
    assert paris.startswith("history, not current (item 1 holds now): Tom lives in Paris.")
    assert "until 2023-05-08, replaced by 'Berlin'" in paris and 'quote: "Tom lives in Paris."' in paris
    assert oslo.startswith("history, not current (item 1 holds now)") and "(itself replaced since)" in oslo
    # the same in the text output and in the JSON (what HTTP and MCP give)
    shown = ask_text(result)
    assert shown.index("1. Tom lives in Berlin now.") < shown.index("2. (history, not current: 1. holds now)")
    (row,) = ask_json(result)["beliefs"]
    assert [(h["value"], h["status"], h["replaced_by_value"], h["steps"]) for h in row["history"]] == [
        ("Paris", "superseded", "Berlin", 1), ("Oslo", "superseded", "Paris", 2)]
    assert row["history"][0]["evidence"][0]["quote"] == "Tom lives in Paris."
    # as of a moment before the last change was recorded, that moment's value is current and only what came
    # before it is history
    then = bdb.ask("Where does Tom live?", as_of=recorded["Paris"])
    assert [(a.belief.value, [h.belief.value for h in a.history]) for a in then.beliefs] == [("Paris", ["Oslo"])]
    # a value retracted since was never true: no history
    bdb.retract(belief=berlin.history[0].belief.id, reason="misheard")
    assert "Paris" not in [h.belief.value for a in bdb.ask("Where does Tom live?").beliefs for h in a.history]


@pytest.mark.slow
def test_conflict_warnings_are_capped_and_name_the_rival(bdb: beliefdb.BeliefDB) -> None:
    long_tail = " because the whole team said so in a very long message that goes on and on" * 4
    n = MAX_WARNINGS + 4
    for i in range(n):
        statement = f"The standup meeting starts at {9 + i} o'clock{long_tail}."
        bdb.remember(statement, "standup", "start", f"{9 + i} o'clock{long_tail}", statement,
                     source=f"chat-{i}", text=statement, authority="user", valid_from="2026-01-01T00:00:00Z")
    plain_line = max(len(a.belief.statement) for a in bdb.ask("When does the standup start?").beliefs)
    result = bdb.ask("When does the standup start?", k=5)
    assert len(result.beliefs) == 5 and all(a.belief.status == "conflicting" for a in result.beliefs)
    for a in result.beliefs:
        conflicts = [w for w in a.warnings if w.startswith("open conflict")]
        assert len(a.conflicts) == n - 1 and len(conflicts) == MAX_WARNINGS
        assert f"and {n - 1 - MAX_WARNINGS} more open conflicts" in a.warnings[MAX_WARNINGS]
        # the rival by its short id and its statement cut short, not the whole utterance
        assert all(w.startswith("open conflict with [") and len(w) < 120 for w in conflicts)
        assert all(str(c["belief"])[:8] in " ".join(conflicts) for c in a.conflicts[:MAX_WARNINGS])
    # each item: its statement, its source and quote, at most MAX_WARNINGS + 1 short warning lines
    assert len(result.context) <= 5 * (3 * plain_line + 300 + (MAX_WARNINGS + 1) * 130)


@pytest.mark.slow
def test_fragments_in_text_json_and_http(cli: Cli, db_url: str, http_client: Any, tmp_path: Any) -> None:
    doc = tmp_path / "team-notes.md"
    doc.write_text(NOTES, encoding="utf-8")
    cli.json("ingest", str(doc))
    out = cli.json("ask", "Are dogs allowed in the office?")
    assert out["status"] == "no_match" and out["beliefs"] == []
    (hit,) = [f for f in out["fragments"] if "dogs" in f["text"]]
    assert hit["kind"] == "fragment" and hit["source"] == "team-notes.md"
    assert NOTES[hit["start"]:hit["end"]] == hit["text"]
    assert "Unextracted text" in out["context"]
    text = cli("ask", "Are dogs allowed in the office?").stdout
    assert text.startswith("no match: no current belief") and "unextracted text that matches" in text
    assert '"Can we bring dogs to the office on Fridays?"' in text
    token = api.create_token("default", "rita", read_only=True, url=db_url).token
    over_http = http_client.post("/ask", json={"question": "Are dogs allowed in the office?"},
                                 headers={"Authorization": f"Bearer {token}"})
    assert over_http.status_code == 200 and over_http.json()["fragments"] == out["fragments"]


def numbers(context: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\. ", context, re.M)]


@pytest.mark.slow
def test_one_numbering_and_text_matches_before_vector_only_beliefs(bdb: beliefdb.BeliefDB,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_EMBED_MIN_SIMILARITY", "0.5")  # a loose neighbour counts as a vector match
    bdb.remember("Maya drinks rooibos every morning.", "maya", "drink", "rooibos",
                 "Maya drinks rooibos every morning.", source="chat-1", text="Maya drinks rooibos every morning.")
    bdb.ingest_text("Is there any green tea left in the kitchen?\n", source="kitchen.md")
    result = bdb.ask("green tea in the kitchen", k=3)
    # the belief shares no word with the question: a vector neighbour only
    assert [a.matched_by for a in result.beliefs] == [["vector"]]
    assert texts(result) == ["Is there any green tea left in the kitchen?"]
    # the text the question's words match is shown first, the vector neighbour after it, one numbering
    assert result.fragments_after == 0
    assert numbers(result.context) == [1, 2]
    first, second = re.split(r"^2\. ", result.context, flags=re.M)
    assert "green tea left in the kitchen" in first and "rooibos" not in first
    assert second.startswith("Maya drinks rooibos")
    assert ask_json(result)["fragments_after"] == 0
    # the belief after the unextracted text is not shown as part of it: a line says what it is, in the
    # context and in the text output (which printed it under "unextracted text ... (not beliefs ...)")
    assert first.rstrip().splitlines()[-1] == BELIEFS_AFTER_TEXT
    printed = ask_text(result)
    assert re.search(r"^1\. ~ .*\n" + re.escape(BELIEFS_AFTER_TEXT.lower()) + r"\n2\. Maya drinks rooibos", printed,
                     flags=re.M), printed


@pytest.mark.slow
def test_beliefs_the_words_match_stay_before_fragments(bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("The kitchen tea is green tea.", "kitchen", "tea", "green tea", "The kitchen tea is green tea.",
                 source="chat-1", text="The kitchen tea is green tea.")
    bdb.ingest_text("Is there any green tea left in the kitchen?\n", source="kitchen.md")
    result = bdb.ask("green tea in the kitchen", k=3)
    assert "text" in result.beliefs[0].matched_by and result.fragments_after == 1
    assert numbers(result.context) == list(range(1, 1 + len(result.beliefs) + len(result.fragments)))
    assert result.context.index("The kitchen tea is green tea.") < result.context.index("any green tea left")


@pytest.mark.slow
def test_of_equally_matching_turns_the_later_comes_first(bdb: beliefdb.BeliefDB) -> None:
    turns = [beliefdb.models.Turn("Ana", "Trip idea: Vietnam, in the summer?", datetime(2023, 2, 1, tzinfo=UTC)),
             beliefdb.models.Turn("Ben", "Trip idea: Norway, in the summer?", datetime(2023, 5, 1, tzinfo=UTC)),
             beliefdb.models.Turn("Ana", "Trip idea: Sicily, in the summer?", datetime(2023, 3, 1, tzinfo=UTC))]
    bdb.ingest_conversation(turns, source="chat-trips")
    result = bdb.ask("trip idea for the summer", k=5)
    assert [f.text.split()[2] for f in result.fragments] == ["Norway,", "Sicily,", "Vietnam,"]


@pytest.mark.slow
def test_a_belief_matched_by_its_subject_name_alone_does_not_hold_back_the_text(bdb: beliefdb.BeliefDB) -> None:
    facts = [("works_at", "Acme"), ("lives_in", "Ghent"), ("plan", "annual plan")]
    said = [f"Fact {i} is {value}." for i, (_, value) in enumerate(facts)]
    bdb.ingest_conversation([beliefdb.models.Turn("Maya", line) for line in said], source="chat-maya",
                            extractor="none")
    for line, (attribute, value) in zip(said, facts, strict=True):
        bdb.remember(f"Maya: {line}", "maya", attribute, value, line, source="chat-maya")
    bdb.ingest_conversation([beliefdb.models.Turn("Remy", "Did the puppy get a name yet?")], source="chat-puppy")
    result = bdb.ask("What is the name of Maya's puppy?", k=3)
    # every belief about Maya, each said by her, matches by her name, none by the question's other words
    # (a document's subject names no speaker: its word is a name where the question writes it as one,
    # test_ask_ranking.py)
    assert len(result.beliefs) == 3 and all("name" in a.matched_by or "text" in a.matched_by for a in result.beliefs)
    assert texts(result) == ["Did the puppy get a name yet?"] and result.fragments_after == 0
    assert result.context.split("\n1. ")[1].startswith('"Did the puppy get a name yet?"')


@pytest.mark.slow
def test_a_turn_that_shares_only_a_name_with_the_question_is_no_match(bdb: beliefdb.BeliefDB) -> None:
    day = datetime(2023, 4, 30, 9, 0, tzinfo=UTC)
    bdb.ingest_conversation([
        Turn("Maya", "How is work treating you?", day),
        Turn("Remy", "Fine! I work on cabinets all week, my hands are sore.", day),
        Turn("Maya", "Sure, as long as there's nothing with shellfish, I'm allergic.", day),
        Turn("Maya", "My sister Lena is visiting next week.", day),
        Turn("Remy", "Hi Maya! Good to hear from you.", day),
    ], source="chat-1", extractor="none", embed=False)
    # the greeting shares only Maya's name with the question: as a belief matched by its subject's
    # name alone, it answers nothing, and the turn that says it does comes first
    assert texts(bdb.ask("What is Maya allergic to?")) == [
        "Sure, as long as there's nothing with shellfish, I'm allergic."]
    # a turn said by the person the question names comes before one of the other speaker's that
    # shares the same words with it
    assert texts(bdb.ask("What does Remy do for work?")) == [
        "Fine! I work on cabinets all week, my hands are sore.", "How is work treating you?"]
    # a name that is no speaker of the conversation is a word like any other
    assert texts(bdb.ask("Who is Lena?")) == ["My sister Lena is visiting next week."]
    # a document has no speakers: its line that shares only a name with the question matches
    bdb.ingest_text("Maya signed the lease.\n", source="notes.md", extractor="none")
    assert "Maya signed the lease." in texts(bdb.ask("What did Maya do?"))


@pytest.mark.slow
def test_beliefs_the_question_words_match_come_before_those_found_by_vector_or_name_alone(
        bdb: beliefdb.BeliefDB) -> None:
    day = datetime(2024, 1, 5, 10, 0, tzinfo=UTC)
    bdb.ingest_conversation([
        Turn("Ana", "Hi Bo! I just moved to Lisbon.", day),
        Turn("Ana", "I work as a data engineer now. My daughter is 5.", day),
        Turn("Ana", "Big news: I moved to Porto last week.", datetime(2024, 6, 1, 9, 0, tzinfo=UTC)),
    ], source="chat-ana")
    # the job's statement is the closest to the question's vector, and every belief names Ana; only
    # where she lives shares a word with the question ("news", in "Big news: I moved to Porto"), so it
    # comes first although no unextracted text is shown between them
    # (the premise: recall alone, by vector and names, ranks another belief first; "Where does Ana
    # live?" no longer shows it, since recall itself puts the belief whose attribute a question names
    # first among those its searches rank alike: test_retrieval.py)
    question = "Tell me about Ana's news"
    embedder = get_embedder()
    with bdb.database.transaction() as c:
        # (in recall's own order: each row's attribute by a subquery, no join to reorder them)
        recalled = c.execute("select (select b.attribute from beliefdb.belief b where b.id = r.belief_id)"
                             " from beliefdb.recall(%s, %s::beliefdb_ext.vector, %s, 5) r",
                             (question, literal(embedder.query(question)), embedder.model)).fetchall()
    assert recalled[0] != ("lives_in",) and ("lives_in",) in recalled
    result = bdb.ask(question)
    assert result.fragments == []
    assert [a.belief.attribute for a in result.beliefs][:1] == ["lives_in"]
    assert {a.belief.attribute for a in result.beliefs} >= {"lives_in", "job"}
    assert result.beliefs[0].belief.value == "Porto"


def ivo(bdb: beliefdb.BeliefDB) -> dict[str, Any]:
    bdb.ingest_conversation([Turn("Ivo", "I live in Lisbon.", datetime(2024, 1, 1, tzinfo=UTC)),
                             Turn("Ivo", "I moved to Porto.", datetime(2024, 2, 1, tzinfo=UTC)),
                             Turn("Ivo", "I moved to Faro.", datetime(2024, 3, 1, tzinfo=UTC))], source="ivo-chat")
    return {b.value: b for b in bdb.beliefs(subject="ivo", include_all=True)}


def replaced(result: beliefdb.models.AskResult) -> tuple[list[str], list[str], str]:
    """The values the answer shows as replaced: its history, its warnings, and the context."""
    (answer,) = result.beliefs
    return ([h.belief.value for h in answer.history], [w for w in answer.warnings if w.startswith("replaced")],
            result.context)


@pytest.mark.parametrize("retract", ["belief", "turn"])
def test_a_value_whose_belief_or_turn_was_retracted_is_not_shown_as_replaced(bdb: beliefdb.BeliefDB,
                                                                           retract: str) -> None:
    values = ivo(bdb)
    history, warnings, _ = replaced(bdb.ask("Where does Ivo live?"))
    assert history == ["Porto", "Lisbon"] and len(warnings) == 1 and "'Porto'" in warnings[0]
    if retract == "belief":
        bdb.retract(belief=values["Porto"].id, reason="never said")
    else:
        (turn,) = bdb.why(values["Porto"].id).evidence
        bdb.retract(fragment=str(turn.fragment_id), reason="never said")
    result = bdb.ask("Where does Ivo live?")
    history, warnings, context = replaced(result)
    assert [a.belief.value for a in result.beliefs] == ["Faro"]
    # a value that was never true (retracted, or resting on retracted words) is no history of Faro's
    assert "Porto" not in history and not any("Porto" in w for w in warnings) and "Porto" not in context
    # what was true before it still is
    assert "Lisbon" in history


def test_a_value_from_a_retracted_source_is_not_shown_as_replaced(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("The refund window is 7 days.", source="s1.md")
    bdb.ingest_text("The refund window is 15 days.", source="s2.md")
    history, warnings, _ = replaced(bdb.ask("What is the refund window?"))
    assert history == ["7 days"] and len(warnings) == 1
    before = datetime.now(UTC)
    bdb.retract(source="s1.md", reason="forged")
    history, warnings, context = replaced(bdb.ask("What is the refund window?"))
    assert history == [] and warnings == [] and "7 days" not in context
    # as of a moment before the retraction, it was history of the answer then
    history, warnings, _ = replaced(bdb.ask("What is the refund window?", as_of=before))
    assert history == ["7 days"] and len(warnings) == 1


def test_a_value_a_documents_new_version_replaced_stays_history_as_of_any_later_moment(
        bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("The refund window is 7 days.", source="policy.md")
    bdb.ingest_text("The refund window is 15 days.", source="policy.md")
    later = datetime.now(UTC)
    # its version is not in force since, but it was true until then: history now and as of then
    for as_of in (None, later):
        history, warnings, _ = replaced(bdb.ask("What is the refund window?", as_of=as_of))
        assert history == ["7 days"] and len(warnings) == 1 and "'7 days'" in warnings[0]


@pytest.mark.slow
def test_text_a_belief_quotes_in_part_never_comes_back_as_unextracted_text(bdb: beliefdb.BeliefDB) -> None:
    """A quote cut inside a sentence (remember, a claims file, the LLM extractor) or across two is its
    belief's evidence: the sentences it lies in are not unextracted text, while the belief is current
    (the same words twice, once as "no belief was extracted from it") nor after it stopped being (its
    old value back as text): rule 11 of docs/rules.md."""
    text = ("Returns are accepted within 30 days of delivery.\nShipping to Norway takes 5\n"
            "business days. Gift cards never expire.\n")
    first = bdb.remember("Returns are accepted within 30 days.", "return_policy", "window", "30 days", "30 days",
                         source="policy.md", text=text)
    bdb.remember("Shipping to Norway takes 5 business days.", "shipping_norway", "duration", "5 business days",
                 "5\nbusiness days", source="policy.md")
    for question in ("how many days are returns accepted?", "how many business days does shipping to Norway take?"):
        assert texts(bdb.ask(question)) == []
    assert texts(bdb.ask("do gift cards expire?")) == ["Gift cards never expire."]
    bdb.retract(belief=first.accepted[0].id, reason="wrong window")
    result = bdb.ask("how many days are returns accepted?")
    assert texts(result) == [] and "30 days" not in result.context


def test_the_context_says_its_days_are_utc_days(bdb: beliefdb.BeliefDB) -> None:
    """A valid time given with an offset is stored as that instant; the context names its day in UTC and says
    so (an agent in Kolkata read "valid from 2024-05-31" for the 2024-06-01 its user typed, with no word that
    the day was UTC's)."""
    bdb.remember("Tom lives in Pune.", "tom", "city", "Pune", "Tom lives in Pune.", source="chat/1",
                 text="Tom lives in Pune.", valid_from="2024-06-01T02:00:00+05:30")
    result = bdb.ask("Where does Tom live?")
    header, *_ = result.context.splitlines()
    assert "Days are UTC days." in header, header
    assert "valid from 2024-05-31" in result.context, result.context


def test_a_day_with_no_utc_day_before_it_is_named_as_written() -> None:
    """The first hours of year 1 east of UTC have no UTC day (datetime stops at year 1): named as written,
    not an OverflowError failing the whole ask."""
    from beliefdb.inputs import utc_day

    assert utc_day("0001-01-01T02:00:00+05:30") == "0001-01-01"
    assert utc_day("2024-06-01T02:00:00+05:30") == "2024-05-31" and utc_day("infinity") == "infinity"


def test_an_as_of_answer_says_its_current_item_held_then_not_now(bdb: beliefdb.BeliefDB) -> None:
    """Asked as of a past moment, the history under a belief said "(history, not current: 1. holds now)" and
    "(item 1 holds now)" in the context an agent reads, of a belief that held then and was replaced since:
    an as-of answer says it held then."""
    chat = "Tom lives in Oslo.\nTom lives in Paris.\nTom lives in Berlin.\n"
    bdb.remember("Tom lives in Oslo.", "tom", "city", "Oslo", "Tom lives in Oslo.", source="chat-7", text=chat,
                 valid_from="2022-09-01T00:00:00Z")
    bdb.remember("Tom lives in Paris.", "tom", "city", "Paris", "Tom lives in Paris.", source="chat-7",
                 valid_from="2023-01-10T00:00:00Z")
    then = datetime.now(UTC)
    bdb.remember("Tom lives in Berlin.", "tom", "city", "Berlin", "Tom lives in Berlin.", source="chat-7",
                 valid_from="2023-05-08T00:00:00Z")
    result = bdb.ask("Where does Tom live?", as_of=then)
    assert [a.belief.value for a in result.beliefs] == ["Paris"]
    assert [h.belief.value for h in result.beliefs[0].history] == ["Oslo"]
    assert "(item 1 held then): Tom lives in Oslo." in result.context, result.context
    assert "holds now" not in result.context
    shown = ask_text(result)
    assert "2. (history, not current: 1. held then) Tom lives in Oslo." in shown, shown
    assert "holds now" not in shown
    # asked now, it holds now
    assert "(item 1 holds now)" in bdb.ask("Where does Tom live?").context


def test_a_value_replaced_several_times_is_one_warning_naming_each(bdb: beliefdb.BeliefDB) -> None:
    # said in two turns, Porto is two beliefs (one per turn's valid time), both replaced by Faro
    for day, text in ((1, "I live in Porto."), (2, "I live in Porto."), (3, "I moved to Faro.")):
        bdb.remember_turn("chat-ana", "ana", text, time=datetime(2025, 1, day, tzinfo=UTC))
    (answer,) = [a for a in bdb.ask("Where does ana live?").beliefs if a.belief.value == "Faro"]
    ported = [w for w in answer.warnings if w.startswith("replaced")]
    assert len(ported) == 1 and ported[0].startswith("replaced 'Porto' (")
    replaced = [b for b in bdb.beliefs(include_all=True) if b.value == "Porto"]
    assert len(replaced) == 2 and all(b.status == "superseded" and str(b.id)[:8] in ported[0] for b in replaced)
