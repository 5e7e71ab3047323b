"""Ask's fallback to unextracted text (``beliefdb.recall_fragments``) reads each fragment's stored
words (``fragment.search``, revision 0024) through the GIN index ``fragment_search``, instead of
parsing every matching fragment's text at query time; the stored words follow the text, also when
forgetting masks a quote in it (rule 14 of docs/rules.md)."""

from __future__ import annotations

import json
import re
from typing import Any

import psycopg
import pytest
from plans import capture_plans, rows_read

import beliefdb
from beliefdb.models import Turn

# (more than 1,000 lines: the fragments of a smaller workspace are read by their workspace, not through
# the index every workspace shares, test_retrieval_neighbours)
NOTES = "".join(f"Note {i}: the office coffee machine on floor {i} broke again!\n" for i in range(1100)) + \
    "Can we bring dogs to the office on Fridays?\n"


def fragment_rows(db_url: str, workspace_id: str, question: str, plans: list[dict[str, Any]],
                  analyze: bool = False) -> list[str]:
    """recall_fragments as the application role; the plans of its statements appended to ``plans``
    (with the rows each node read, when ``analyze``)."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        capture_plans(conn, plans)
        if analyze:
            conn.execute("set auto_explain.log_analyze = on")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("set role beliefdb_app")
        rows = conn.execute("select f.text from beliefdb.recall_fragments(%s, 3) r "
                            "join beliefdb.fragment f on f.id = r.fragment_id order by r.text_rank",
                            (question,)).fetchall()
        return [text for (text,) in rows]


@pytest.mark.slow
def test_the_fallback_reads_the_stored_words_through_their_index(db_url: str, bdb: beliefdb.BeliefDB,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(NOTES, source="team-notes.md", embed=False)
    postgresql.execute("analyze beliefdb.fragment")
    plans: list[dict[str, Any]] = []
    texts = fragment_rows(db_url, bdb.database.workspace_id, "Are dogs allowed in the office?", plans)
    assert texts == ["Can we bring dogs to the office on Fridays?"]
    [search] = [json.dumps(p["Plan"]) for p in plans if "recall_fragments" not in p["Query Text"]
                and "f0.search @@" in p["Query Text"]]
    assert "fragment_search" in search
    # no fragment's words are computed at query time: the stored column is read (a turn's speaker's
    # name, a word or two, is the only text made into words there)
    made = re.findall(r"to_tsvector\([^()]*\)", search)
    assert search.count("to_tsvector(") == len(made) and all(m.endswith(".speaker)") for m in made), made


@pytest.mark.slow
def test_the_names_of_a_conversation_are_read_a_speaker_at_a_time(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    # a long conversation between two people: its speakers are found by the index on them, a probe a
    # speaker, not by reading each of its turns
    turns = [Turn("Maya" if i % 2 else "Remy", f"Turn {i}: the weather on the coast was fine.") for i in range(400)]
    turns.append(Turn("Remy", "Hi Maya! Good to hear from you."))
    turns.append(Turn("Maya", "Sure, nothing with shellfish, I'm allergic."))
    bdb.ingest_conversation(turns, source="chat-long", extractor="none", embed=False)
    plans: list[dict[str, Any]] = []
    texts = fragment_rows(db_url, bdb.database.workspace_id, "What is Maya allergic to?", plans, analyze=True)
    assert texts == ["Sure, nothing with shellfish, I'm allergic."]
    [search] = [json.dumps(p["Plan"]) for p in plans if "recall_fragments" not in p["Query Text"]
                and "f0.search @@" in p["Query Text"]]
    assert "fragment_speaker" in search
    # the turns read for the names: a few rows, not the conversation's 402
    speaker_rows = [n for n in _nodes(json.loads(search)) if n.get("Index Name") == "fragment_speaker"]
    assert speaker_rows and sum(n["Actual Rows"] * n["Actual Loops"] for n in speaker_rows) <= 10


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan, *(n for child in plan.get("Plans", []) for n in _nodes(child))]


@pytest.mark.slow
def test_the_stored_words_are_those_of_the_text_also_after_a_redaction(bdb: beliefdb.BeliefDB,
                                                                       postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text("Dana Whitfield's badge code is 4471.\nThe office opens at 8am.\n", source="badge.md")
    bdb.remember("Dana Whitfield's badge code is 4471.", "dana_whitfield", "badge_code", "4471",
                 "Dana Whitfield's badge code is 4471.", source="badge.md")
    bdb.forget(subject="dana_whitfield")
    stale = postgresql.execute("""
        select f.text from beliefdb.fragment f
         where f.search is distinct from pg_catalog.to_tsvector('pg_catalog.english'::regconfig, f.text)
                                         || pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, f.text)
            or f.search @@ 'whitfield'::tsquery""").fetchall()
    assert stale == []
    masked = postgresql.execute("select count(*) from beliefdb.fragment where text like '%█%'").fetchone()
    assert masked is not None and masked[0] > 0


@pytest.mark.slow
def test_fragments_beliefs_quote_do_not_crowd_out_one_no_belief_quotes(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    # 250 extracted lines that match the question better than the one line nothing was extracted from:
    # the fallback ranks only fragments it may return (it ranked all, kept the best 160, then dropped
    # the quoted ones, and so returned nothing here)
    bdb.ingest_text("".join(f"Trip {i}: Rome on day {i}\n" for i in range(250)), source="trips.md")
    bdb.ingest_text("honestly the trip was long and nobody slept", source="chat.md")
    assert len(bdb.beliefs(limit=1000)) == 250
    assert fragment_rows(db_url, bdb.database.workspace_id, "how was the trip to Rome", []) == [
        "honestly the trip was long and nobody slept"]


@pytest.mark.slow
def test_the_fallback_looks_up_only_its_candidates_sources(db_url: str, bdb: beliefdb.BeliefDB,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    # 150 documents: the ranked candidates drive the checks of their sources (in force, production),
    # each looked up by its key, not every version of the workspace read and joined to them (the
    # planner, which cannot see a workspace's size inside the function, did that: 14 s at 15,000)
    # (in one bulk call: stored as ingest stores each, in a fraction of the time)
    bdb.bulk_ingest(*[(f"doc{i}.md", f"Rule {i}: keep form {i}\nWho archived the corpus of form {i}?")
                      for i in range(150)])
    assert postgresql.execute("select (select count(*) from beliefdb.source_version),"
                              " (select count(*) from beliefdb.fragment)").fetchone() == (150, 300)
    postgresql.execute("analyze")
    postgresql.commit()
    plans: list[dict[str, Any]] = []
    texts = fragment_rows(db_url, bdb.database.workspace_id, "where is the corpus archived", plans, analyze=True)
    assert len(texts) == 3 and all("corpus" in t for t in texts)
    [final] = [p["Plan"] for p in plans if "p_candidates * 4" in p["Query Text"]]
    assert 0 < rows_read(final, "source_version") <= 160 and rows_read(final, "fragment") <= 160 + 1000
