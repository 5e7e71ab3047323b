"""A correction, and ask's unextracted text, read what they touch, not the workspace around it.

``workspace_id`` has no planner statistics (tenants must not shape each other's plans), so the planner
guesses 0.5 % of a table for any workspace. Joined to an unnested array, that guess made a hash of the
whole workspace look cheap: every correction whose closure held a supersession hashed all of the
workspace's nodes, and every correction read all of its decisions to find the actions to hold (31 ms
of backend CPU a correction in a 100,000-node workspace, 8 ms with the lookups by key). These tests
run the statements with auto_explain and count the rows each scan returned.
"""

from __future__ import annotations

from typing import Any

import psycopg
from plans import capture_plans, collect_plans, rows_read

import beliefdb
from beliefdb.db.queries import Q

DOCUMENTS = 30
LINES = 50  # 1,500 filler beliefs, ~3,000 nodes with their fragments
# what one statement of a correction may read of a table: the closure here is a handful of nodes
BUDGET = 300


def filler(bdb: beliefdb.BeliefDB) -> None:
    docs = [(f"catalogue-{d}.md", "".join(f"Item {d}-{i} price: {d * 100 + i} EUR.\n" for i in range(LINES)))
            for d in range(DOCUMENTS)]
    bdb.bulk_ingest(*docs, embed=False)


def statement_plans(db_url: str, bdb: beliefdb.BeliefDB, query: Any, params: Any, *, app: bool = True,
                    result: list[Any] | None = None, settings: tuple[str, ...] = ()) -> list[Any]:
    """The plans, with the rows each node returned, of ``query`` and every statement nested in it, run
    as the application role (``app``; else as the test's superuser, for an internal function) in one
    rolled-back transaction; the query's first row goes to ``result``."""
    plans: list[Any] = []
    with psycopg.connect(db_url) as conn:
        capture_plans(conn, plans, seqscan=True, analyze=True)
        for setting in settings:
            conn.execute(f"set {setting} = off")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (bdb.database.principal or "",))
        if app:
            conn.execute("set role beliefdb_app")
        row = conn.execute(query, params).fetchone()
        if result is not None:
            result.append(row)
        conn.rollback()
    return plans


def widest(plans: list[Any], table: str) -> tuple[int, str]:
    """The most rows of ``table`` one statement scanned, and that statement."""
    return max(((rows_read(p["Plan"], table, filtered=True), " ".join(p["Query Text"].split())[:120]) for p in plans),
               default=(0, ""))


def test_a_correction_next_to_a_supersession_reads_its_closure_only(bdb: beliefdb.BeliefDB, db_url: str,
                                                                    postgresql: psycopg.Connection[Any]) -> None:
    filler(bdb)
    bdb.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.", source="old.md",
                 text="The desk opens at 9.")
    winner = bdb.remember("The desk opens at 10.", "desk", "opens", "10", "The desk opens at 10.",
                          source="new.md", text="The desk opens at 10.").accepted[0].id
    decision = bdb.decide("Staff the desk from 10", because=[winner]).id
    other = bdb.remember("The lift is open.", "lift", "status", "open", "The lift is open.", source="lift.md",
                         text="The lift is open.").accepted[0].id
    for i in range(BUDGET + 20):  # decisions outside the closure: an active workspace has many
        bdb.decide(f"Use the lift, shift {i}", because=[other])
    bdb.act(decision, "Roster the 10 o'clock shift")
    assert [b.value for b in bdb.beliefs(subject="desk")] == ["10"]  # the supersession is in effect
    postgresql.execute("analyze")  # what autovacuum does to a workspace this size
    postgresql.commit()
    nodes = postgresql.execute("select count(*) from beliefdb.node").fetchone()
    assert nodes is not None and nodes[0] > 3_000

    revision = bdb.preview_correction(winner, "The desk opens at 11.", value="11").revision
    plans = statement_plans(db_url, bdb, "select beliefdb.apply_correction(%s::text, %s, '11', 'reviewer', "
                                         "'wrong hour', %s, null)", (winner, "The desk opens at 11.", revision))
    assert any("v_sup_of" in p["Query Text"] for p in plans)  # the supersession was looked up
    for table in ("node", "decision", "action", "belief", "justification"):
        rows, query = widest(plans, table)
        assert rows < BUDGET, (table, rows, query)

    # and the correction itself, committed, did what it says
    applied = bdb.apply_correction(winner, "The desk opens at 11.", value="11", reviewer="reviewer",
                                   expect_revision=revision)
    assert applied.replacement is not None and not applied.proposed, applied
    assert applied.flagged == [decision], applied
    assert [b.value for b in bdb.beliefs(subject="desk")] == ["11"]
    assert [d.status for d in bdb.decisions() if d.id == decision] == ["needs_review"]


def test_asks_unextracted_text_reads_the_fragments_it_returns(bdb: beliefdb.BeliefDB, db_url: str,
                                                              postgresql: psycopg.Connection[Any]) -> None:
    """The fragments recall_fragments finds are joined to their rows by key: joined by id alone (the
    primary key begins with workspace_id), every fragment of the workspace was read at every ask
    that fell back to text (15,050 at 100k nodes, 150,000 at 1M)."""
    docs = [(f"diary-{d}.md", "".join(f"Remember to water plant number {d}-{i} on day {i}.\n" for i in range(LINES)))
            for d in range(DOCUMENTS)]
    bdb.bulk_ingest(*docs, embed=False)
    postgresql.execute("analyze")
    postgresql.commit()
    fragments = postgresql.execute("select count(*) from beliefdb.fragment").fetchone()
    assert fragments is not None and fragments[0] >= DOCUMENTS * LINES
    answer = bdb.ask("when do I water plant number 7-3?")
    assert any("plant number 7-3 " in f.text for f in answer.fragments), answer.fragments

    plans = statement_plans(db_url, bdb, Q.recall_fragments, {"q": "when do I water plant number 7-3?", "k": 5,
                                                              "as_of": None, "fixtures": False})
    # the rows of what the function found (it reads the fragments the question's words match, by design)
    (joined,) = [p for p in plans if p["Query Text"].lstrip().startswith("select f.id as fragment_id")]
    read = rows_read(joined["Plan"], "fragment", filtered=True)
    assert read <= 5, read


def test_an_ingest_report_reads_what_became_current_by_key(bdb: beliefdb.BeliefDB, db_url: str,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    """What became current again is read by its key: joined, the plan read the key of every node of
    the workspace (100,184 rows at a second version of a document in a 100,000-node workspace)."""
    filler(bdb)
    back = bdb.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.", source="old.md",
                        text="The desk opens at 9.").accepted[0].id
    postgresql.execute("analyze")
    postgresql.commit()
    result: list[Any] = []
    plans = statement_plans(db_url, bdb, "select beliefdb._ingest_report(%s, '{}', jsonb_build_object("
                                         "'became_current', jsonb_build_array(%s::text)))",
                            (bdb.database.workspace_id, back), app=False, result=result)
    (row,) = result
    assert row is not None and [x["id"] for x in row[0]["current_again"]] == [str(back)]
    rows, query = widest(plans, "node")
    assert rows < BUDGET, (rows, query)


def test_the_product_views_page_reads_the_newest_beliefs_only(bdb: beliefdb.BeliefDB, db_url: str,
                                                              postgresql: psycopg.Connection[Any]) -> None:
    """The page of newest beliefs reads them in order from an index (belief_recent, revision 0045):
    before, it read and sorted every production belief of the workspace (550,000 at 1M nodes, 240 ms).
    (At a test's 1,600 beliefs reading them all and sorting is as cheap as the index: scans that read
    a whole workspace are turned off here, so that the plan shows which index the large one takes.)"""
    filler(bdb)
    postgresql.execute("analyze")
    postgresql.commit()
    result: list[Any] = []
    plans = statement_plans(db_url, bdb, Q.workspace_beliefs,
                            {"subject": None, "status": None, "since": None, "until": None, "offset": 0,
                             "limit": 11, "count_limit": 100}, result=result,
                            settings=("enable_seqscan", "enable_bitmapscan"))
    assert result[0] is not None and result[0][1] == 100  # counted up to its bound
    (page,) = [p for p in plans if "with passing as not materialized" in p["Query Text"]]
    read = rows_read(page["Plan"], "belief", filtered=True)
    assert read <= 11 + 100, read


def test_a_page_of_the_review_queue_reads_that_page(bdb: beliefdb.BeliefDB, db_url: str,
                                                    postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb.review_items reads its page's items in order (review_item_queue, revision 0045) and what
    each names by its key: through the review_queue view it joined every open item, decision, action
    and source of the workspace first (15,000 open items: a page of 100 in 700-1,000 ms)."""
    gone = bdb.remember("The lift is open.", "lift", "status", "open", "The lift is open.", source="lift.md",
                        text="The lift is open.").accepted[0].id
    for i in range(BUDGET + 20):
        bdb.decide(f"Use the lift, shift {i}", because=[gone])
    bdb.retract(belief=gone, reason="the lift is closed")  # every decision flagged: one open item each
    postgresql.execute("analyze")
    postgresql.commit()
    result: list[Any] = []
    plans = statement_plans(db_url, bdb, "select count(*) from beliefdb.review_items(10, null)", (), result=result)
    assert result == [(10,)]
    for table in ("review_item", "decision"):
        rows, query = widest(plans, table)
        assert rows <= 20, (table, rows, query)
    assert [i.kind for i in bdb.review_items(limit=3)] == ["decision_flagged"] * 3


def test_a_forget_preview_gathers_no_statistics_the_rollback_discards(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """A forget gathers the planner statistics of the tables that held the text again (pg_statistic keeps
    nothing forgotten); its preview is the same forget, rolled back, and gathered them too, for nothing:
    ANALYZE read a sample of 13 tables (0.5-1.2 s of a preview at 100,000-1,000,000 nodes, under the
    workspace's write lock) and the rollback discarded what it found. The preview's report is the forget's."""
    bdb.remember("Maya's badge code is 4471.", "maya", "badge_code", "4471", "badge code is 4471",
                 source="badge.md", text="Maya's badge code is 4471.\n")
    bdb.decide("Give Maya a new badge")
    seen: list[Any] = []
    preview = statement_plans(db_url, bdb, "select to_jsonb(r) from beliefdb.forget('subject', 'maya', true, %s) r",
                              (["Maya"],), result=seen)
    done: list[Any] = []
    applied = statement_plans(db_url, bdb, "select to_jsonb(r) from beliefdb.forget('subject', 'maya', false, %s) r",
                              (["Maya"],), result=done)
    analyses = [" ".join(p["Query Text"].split())[:80] for p in preview if "_analyze_text_tables" in p["Query Text"]]
    assert analyses == [], analyses
    assert any("_analyze_text_tables" in p["Query Text"] for p in applied)
    # the same report, but for the preview flag (the changes' ids are the same nodes, rolled back)
    report, forgotten = seen[0][0], done[0][0]
    assert report.pop("preview") is True and forgotten.pop("preview") is False
    assert (report["beliefs"], report["mentions"]) == (1, forgotten["mentions"]) and report == forgotten


def test_a_forget_checked_against_its_preview_finds_the_mentions_once(db_url: str, bdb: beliefdb.BeliefDB,
                                                                      monkeypatch: Any) -> None:
    """``forget(expect=...)`` takes the preview again under the workspace's write lock and compares its
    fingerprint, which does not count the mentions (where people typed the name): the statement that
    finds them reads every decision, action, belief and node of the workspace (2.6 s at 1,000,000
    nodes), and ran twice under the lock. It runs once, in the forget; both reports still list them (the
    forget's: what spared the check's search is undone before the forget runs)."""
    bdb.remember("Maya's badge code is 4471.", "maya", "badge_code", "4471", "badge code is 4471",
                 source="badge.md", text="Maya's badge code is 4471.\n")
    decision = bdb.decide("Give Maya a new badge").id
    monkeypatch.setenv("PGOPTIONS", "-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0"
                       " -c auto_explain.log_nested_statements=on -c auto_explain.log_level=notice"
                       " -c auto_explain.log_format=json")
    plans: list[Any] = []
    with beliefdb.BeliefDB(db_url, max_size=1) as db:
        with db.database.transaction() as conn:
            conn.add_notice_handler(collect_plans(plans))
        preview = db.forget(subject="maya", preview=True)
        plans.clear()
        done = db.forget(subject="maya", expect=preview.fingerprint())
    # (and the search of the stored source texts, beliefdb._text_mentions, once too)
    searches = [p for p in plans if "with pattern as" in p["Query Text"] and "), named as (" not in p["Query Text"]]
    assert len(searches) == 1, [" ".join(p["Query Text"].split())[:80] for p in searches]
    in_text = [p for p in plans if "), named as (" in p["Query Text"]]
    assert len(in_text) == 1, [" ".join(p["Query Text"].split())[:80] for p in in_text]
    assert [(m.kind, m.id) for m in done.mentions] == [(m.kind, m.id) for m in preview.mentions] == [
        ("decision", decision)]


def test_the_review_queue_is_counted_in_its_index(bdb: beliefdb.BeliefDB, db_url: str,
                                                  postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb.review_count counts the open items in review_item_queue; resolved ones are not counted."""
    gone = bdb.remember("The lift is open.", "lift", "status", "open", "The lift is open.", source="lift.md",
                        text="The lift is open.").accepted[0].id
    for i in range(30):
        bdb.decide(f"Use the lift, shift {i}", because=[gone])
    bdb.retract(belief=gone, reason="the lift is closed")
    bdb.resolve_review(bdb.review_items(limit=1)[0].id, "rejected")
    postgresql.execute("analyze")
    postgresql.commit()
    assert bdb.review_count() == len(bdb.review_items()) == 29
    result: list[Any] = []
    plans = statement_plans(db_url, bdb, "select beliefdb.review_count()", (), result=result,
                            settings=("enable_seqscan", "enable_bitmapscan"))
    assert result == [(29,)]

    def scans(plan: dict[str, Any]) -> list[tuple[str, str]]:
        here = [(plan["Node Type"], plan.get("Index Name", ""))] if plan.get("Relation Name") == "review_item" else []
        return here + [s for p in plan.get("Plans", []) for s in scans(p)]

    found = [s for p in plans for s in scans(p["Plan"])]
    assert found and all(index == "review_item_queue" for _, index in found), found
