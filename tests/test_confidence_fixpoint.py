"""Confidence is right in one pass (rule 9): decay and recompute reach the fixpoint over derived
beliefs in one run, and an agent's memory has an explained confidence."""

from __future__ import annotations

from datetime import datetime

import pytest
from conftest import url_at

import beliefdb
from beliefdb.store import lifecycle


def stored(db: beliefdb.BeliefDB) -> dict[object, float]:
    return {b.id: b.confidence for b in db.beliefs(include_all=True)}


def test_one_decay_run_reaches_the_fixpoint_over_derived_levels(db_url: str) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as db:
        (base,) = db.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
        one = db.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
        two = db.derive("Late holiday returns cost 10%", "late_holiday_return", "fee", "10%", [one.id])
        three = db.derive("Late holiday returns of sale items cost 10%", "late_sale_return", "fee", "10%", [two.id])
        before = stored(db)
        assert before[three.id] == pytest.approx(before[base.id])
    with beliefdb.connect(url_at(db_url, "2027-01-01T00:00:00Z")) as db:
        report = lifecycle.decay(db.database)
        after = stored(db)
        # a year on, the policy faded (half-life 90 days); every level derived from it follows in the same run
        recency = {f.factor: f.weight for f in db.why(base.id).confidence}["recency"]
        assert recency < 0.1 and after[base.id] == pytest.approx(before[base.id] * recency, rel=1e-3)
        assert after[one.id] == after[two.id] == after[three.id] == pytest.approx(after[base.id])
        assert report.changed == 4
        # and why agrees with the stored value, factor by factor
        factors = {f.factor: f.weight for f in db.why(three.id).confidence}
        assert factors["confidence"] == pytest.approx(after[three.id]) == pytest.approx(factors["derived"])
        # a second run has nothing left to do
        assert lifecycle.decay(db.database).changed == 0


def test_recompute_reaches_the_fixpoint_too(bdb: beliefdb.BeliefDB, postgresql: object) -> None:
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    (base,) = bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
    one = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
    two = bdb.derive("Late holiday returns cost 10%", "late_holiday_return", "fee", "10%", [one.id])
    postgresql.execute("update beliefdb.confidence_policy set weight = 0.6 where factor = 'authority' "
                       "and key = 'official'")
    postgresql.commit()
    try:
        lifecycle.recompute(bdb.database)
        after = stored(bdb)
        assert after[base.id] == pytest.approx(0.6) and after[two.id] == pytest.approx(0.6)
    finally:
        postgresql.execute("update beliefdb.confidence_policy set weight = 0.9 where factor = 'authority' "
                           "and key = 'official'")
        postgresql.commit()


def test_an_agents_memory_has_an_explained_confidence(bdb: beliefdb.BeliefDB) -> None:
    with bdb.record_run(task="remember the traveller", agent="travel") as run:
        said = run.step("user_input", {"text": "I fly from SFO"})
        wrote = run.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", said)])
        memory = run.memory(wrote, "user:42", "home_airport", "SFO", kind="preference")
    why = bdb.why(memory)
    factors = {f.factor: (f.weight, f.detail) for f in why.confidence}
    assert why.belief.confidence == pytest.approx(0.5)
    assert factors["agent_memory"][0] == pytest.approx(0.5) and "trace/memory" in factors["agent_memory"][1]
    assert factors["confidence"][0] == pytest.approx(0.5)
    answer = bdb.ask("what is the home airport of user 42?", min_confidence=0.1)
    assert [a.belief.id for a in answer.beliefs] == [memory]


def per_belief_and_set_based(conn: object, ws: object, moment: str) -> list[tuple[object, float, float]]:
    """Every belief of the workspace: confidence_factors' result, one call per belief, and
    _confidences' for the whole workspace in one statement."""
    import psycopg

    assert isinstance(conn, psycopg.Connection)
    conn.execute("select set_config('beliefdb.now', %s, false)", (moment,))
    rows = conn.execute("""
        select b.id, f.weight, c.confidence
          from beliefdb.belief b
          cross join lateral (select cf.weight from beliefdb.confidence_factors(b.workspace_id, b.id) cf
                               where cf.factor = 'confidence') f
          left join beliefdb._confidences(%(ws)s, array(select x.id from beliefdb.belief x
                                                         where x.workspace_id = %(ws)s)) c on c.belief_id = b.id
         where b.workspace_id = %(ws)s""", {"ws": ws}).fetchall()
    conn.commit()
    return rows


def test_the_set_based_confidence_is_confidence_factors_result_for_every_kind(
        db_url: str, postgresql: object) -> None:
    """beliefdb._confidences computes a set of beliefs at once (what propagate stores); for each it
    gives exactly (not approximately) the last row of confidence_factors: one source, three
    corroborating sources of different authority, a retracted one, a correction, derived levels,
    an open conflict, an agent's memory, and recency a year on."""
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    moment = "2026-01-01T00:00:00Z"
    with beliefdb.connect(url_at(db_url, moment)) as db:
        fee = "The restocking fee is 10%.\n"
        (base,) = db.ingest_text(fee, source="fees.md", authority="official").accepted
        db.ingest_text("From the price list.\n" + fee, source="fees-list.md", authority="user")
        db.ingest_text("From the wiki.\n" + fee, source="fees-wiki.md", authority="unverified")
        (lone,) = db.ingest_text("The shipping fee is 5%.\n", source="ship.md", authority="internal").accepted
        (gone,) = db.ingest_text("The handling fee is 2%.\n", source="handling.md", authority="user").accepted
        db.retract(source="handling.md", reason="test")
        one = db.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id, lone.id])
        db.derive("Late holiday returns cost 10%", "late_holiday_return", "fee", "10%", [one.id])
        # a tie: same authority, no valid time, the same subject and attribute (an open conflict)
        (tied,) = db.remember("colour is red", "widget", "colour", "red", "colour is red", source="a.md",
                              text="Note. colour is red", authority="user").accepted
        db.remember("colour is blue", "widget", "colour", "blue", "colour is blue", source="b.md",
                    text="Note. colour is blue", authority="user")
        revision = next(b.revision for b in db.beliefs(include_all=True) if b.id == lone.id)
        db.apply_correction(lone.id, "The shipping fee is 6%.", reviewer="reviewer", expect_revision=revision,
                            value="6%")
        with db.record_run(task="remember the traveller", agent="travel") as run:
            said = run.step("user_input", {"text": "I fly from SFO"})
            wrote = run.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", said)])
            run.memory(wrote, "user:42", "home_airport", "SFO", kind="preference")
        statuses = {b.status for b in db.beliefs(include_all=True)}
        assert statuses == {"current", "conflicting", "superseded", "unsupported"}, statuses
        assert gone.id and tied.id
    row = postgresql.execute("select workspace_id from beliefdb.belief where id = %s", (base.id,)).fetchone()
    assert row is not None
    ws = row[0]
    kinds = {r[0] for r in postgresql.execute(
        "select confidence_kind from beliefdb.belief where workspace_id = %s", (ws,)).fetchall()}
    assert kinds == {"extracted", "derived", "human_correction", "agent_asserted"}
    sources = postgresql.execute("select count(*) from beliefdb.evidence where workspace_id = %s and belief_id = %s",
                                 (ws, base.id)).fetchone()
    assert sources == (3,)
    postgresql.commit()
    for moment_then in (moment, "2027-01-01T00:00:00Z"):
        rows = per_belief_and_set_based(postgresql, ws, moment_then)
        assert len(rows) >= 9
        assert [r for r in rows if r[1] != r[2]] == [], moment_then
    # a belief that does not exist has no row; an empty set, none
    none = postgresql.execute("select count(*) from beliefdb._confidences(%s, array[gen_random_uuid()])",
                              (ws,)).fetchone()
    empty = postgresql.execute("select count(*) from beliefdb._confidences(%s, '{}')", (ws,)).fetchone()
    assert none == (0,) and empty == (0,)


def test_a_sources_new_authority_moves_the_confidence_of_what_rests_on_it(bdb: beliefdb.BeliefDB) -> None:
    text = "The restocking fee is 10%.\n"
    (base,) = bdb.ingest_text(text, source="fees.md", authority="official").accepted
    one = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
    before = stored(bdb)
    # the same text, the source now a user's word: its belief and what is derived from it follow at once
    bdb.ingest_text(text, source="fees.md", authority="user")
    after = stored(bdb)
    factors = {f.factor: f.weight for f in bdb.why(base.id).confidence}
    assert after[base.id] == pytest.approx(factors["confidence"]) and after[base.id] < before[base.id]
    assert after[one.id] == pytest.approx(after[base.id])


def test_remembering_with_text_keeps_an_existing_sources_authority_and_origin(bdb: beliefdb.BeliefDB,
                                                                             postgresql: object) -> None:
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    text = "The refund window is 30 days."
    (window,) = bdb.ingest_text(text, source="policy.md", authority="official").accepted
    before = stored(bdb)[window.id]
    report = bdb.remember("Shipping is free.", "shipping", "cost", "free", "Shipping is free.", source="policy.md",
                          text=f"{text}\nShipping is free.")
    assert len(report.accepted) == 1 and report.new_version
    # the defaults (a user's conversation) are a new source's: an official document stays one
    assert postgresql.execute("select origin_type::text, authority::text from beliefdb.source").fetchall() == [
        ("document", "official")]
    assert stored(bdb)[window.id] == before
    # a new source gets them
    bdb.remember("Maya lives in Berlin.", "maya", "lives_in", "Berlin", "I live in Berlin", source="chat-9",
                 text="Maya: I live in Berlin")
    assert postgresql.execute("select origin_type::text, authority::text from beliefdb.source where name = 'chat-9'"
                              ).fetchall() == [("conversation", "user")]


def test_a_retraction_moves_the_confidence_of_every_derived_level(bdb: beliefdb.BeliefDB, postgresql: object) -> None:
    """Retracting one of two sources of a belief lowers its confidence, and that of every belief derived
    from it, at any depth (propagate computed them round by round, 20 rounds at most, so a chain of 24
    derived levels kept its old confidence below the 20th), and of a belief reached at two depths."""
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    fee = "The restocking fee is 10%.\n"
    (base,) = bdb.ingest_text(fee, source="fees.md", authority="official").accepted
    bdb.ingest_text("From the price list.\n" + fee, source="fees-list.md", authority="user")
    chain = [bdb.derive("Late returns cost 10% (level 1)", "late_return_1", "fee", "10%", [base.id]).id]
    for level in range(2, 25):
        chain.append(bdb.derive(f"Late returns cost 10% (level {level})", f"late_return_{level}", "fee", "10%",
                                [chain[-1]]).id)
    both = bdb.derive("Late returns cost 10% (two levels)", "late_return_both", "fee", "10%", [chain[0], chain[4]]).id
    before = stored(bdb)
    bdb.retract(source="fees-list.md", reason="wrong")
    after = stored(bdb)
    assert after[base.id] < before[base.id]
    unmoved = [n for n, b in enumerate([*chain, both], 1) if after[b] >= before[b]]
    assert unmoved == []  # (the levels below the 20th, before)
    # each exactly what confidence_factors computes from what is stored
    row = postgresql.execute("select workspace_id from beliefdb.belief where id = %s", (base.id,)).fetchone()
    assert row is not None
    wrong = postgresql.execute(
        "select b.id from beliefdb.belief b"
        " cross join lateral (select cf.weight from beliefdb.confidence_factors(b.workspace_id, b.id) cf"
        "                      where cf.factor = 'confidence') f"
        " where b.workspace_id = %s and b.confidence is distinct from least(1, greatest(0, f.weight))",
        (row[0],)).fetchall()
    postgresql.commit()
    assert wrong == []


def test_a_restore_raises_a_belief_off_the_floor_and_what_derives_from_it(bdb: beliefdb.BeliefDB,
                                                                          postgresql: object) -> None:
    """A derived belief at the product's floor (1e-9) that a restore raises moves what derives from it
    too (propagate does not walk on past beliefs at the floor, which a retraction cannot move)."""
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    weak = [bdb.remember(f"rate {i} is low", f"rate_{i}", "level", "low", f"rate {i} is low", source=f"weak-{i}.md",
                         text=f"Note. rate {i} is low", authority="unverified").accepted[0].id for i in range(17)]
    (base,) = bdb.ingest_text("The base fee is 5%.\n", source="base.md", authority="official").accepted
    above = bdb.derive("The fee is low", "fee", "level", "low", [*weak, base.id]).id  # 0.3 ** 17 * 0.9
    after = bdb.derive("The late fee is low", "late_fee", "level", "low", [above]).id
    floor = stored(bdb)
    assert 1e-9 < floor[above] == floor[after] < 1.5e-9
    bdb.retract(source="base.md", reason="test")
    retracted = stored(bdb)
    assert retracted[above] == retracted[after] == pytest.approx(1e-9)
    bdb.retract(source="base.md", reason="test", undo=True)
    restored = stored(bdb)
    assert restored[above] == restored[after] == floor[above]


def confidences_md5(conn: object, ws: object, moment: str | None = None) -> tuple[str, str]:
    """The md5 of every belief's stored confidence, and of every belief's confidence computed from its factors
    with what is stored (beliefdb._confidences, the clock at ``moment``): equal when each belief is what its
    factors give, the fixpoint."""
    import psycopg

    assert isinstance(conn, psycopg.Connection)
    if moment is not None:
        conn.execute("select set_config('beliefdb.now', %s, false)", (moment,))
    row = conn.execute("""
        select md5(string_agg(b.id::text || '=' || b.confidence::text, ',' order by b.id)),
               md5(string_agg(b.id::text || '=' || least(1, greatest(0, c.confidence))::real::text, ','
                              order by b.id))
          from beliefdb.belief b
          join beliefdb._confidences(%(ws)s, array(select x.id from beliefdb.belief x where x.workspace_id = %(ws)s)) c
            on c.belief_id = b.id
         where b.workspace_id = %(ws)s""", {"ws": ws}).fetchone()
    conn.execute("select set_config('beliefdb.now', '', false)")
    conn.commit()
    assert row is not None
    return row[0], row[1]


@pytest.mark.parametrize("action", ["decay", "recompute"])
def test_decay_and_recompute_reach_the_fixpoint_below_twenty_derived_levels(
        db_url: str, postgresql: object, action: str) -> None:
    """One run of decay (as of a moment, by a login that may not fix the clock) or recompute (after a policy
    change) stores every belief's confidence as its factors give it from what is stored (the same md5) on a
    graph of several kinds, sources, an open conflict and a chain of 30 derived levels with a belief derived
    from two of its levels: round by round, 20 rounds at most, left the levels below the 21st as they were."""
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as db:
        fee = "The restocking fee is 10%.\n"
        (base,) = db.ingest_text(fee, source="fees.md", authority="official").accepted
        db.ingest_text("From the price list.\n" + fee, source="fees-list.md", authority="user")
        (rule,) = db.remember("Refunds take 5 days.", "refund", "delay", "5 days", "Refunds take 5 days.",
                              source="refunds.md", text="Refunds take 5 days.", authority="internal",
                              kind="rule").accepted
        (tied,) = db.remember("colour is red", "widget", "colour", "red", "colour is red", source="a.md",
                              text="Note. colour is red", authority="user", kind="preference").accepted
        db.remember("colour is blue", "widget", "colour", "blue", "colour is blue", source="b.md",
                    text="Note. colour is blue", authority="user", kind="preference")
        chain = [db.derive("Late returns cost 10% (level 1)", "late_return_1", "fee", "10%", [base.id, rule.id]).id]
        for level in range(2, 31):
            chain.append(db.derive(f"Late returns cost 10% (level {level})", f"late_return_{level}", "fee", "10%",
                                   [chain[-1]]).id)
        both = db.derive("Late red returns", "late_red_return", "fee", "10%", [chain[3], chain[24], tied.id]).id
        last = db.derive("Late red returns, last", "late_red_last", "fee", "10%", [both, chain[-1]]).id
    row = postgresql.execute("select workspace_id from beliefdb.belief where id = %s", (base.id,)).fetchone()
    assert row is not None
    ws = row[0]
    postgresql.commit()
    before = {r[0]: r[1] for r in postgresql.execute("select id, confidence from beliefdb.belief").fetchall()}
    postgresql.commit()
    # decay as of a year on (with the real clock: what it writes is dated now); recompute then
    moment = "2027-01-01T00:00:00+00:00" if action == "decay" else "2026-01-01T00:00:00+00:00"
    if action == "decay":
        with beliefdb.connect(db_url) as db:
            report = lifecycle.decay(db.database, now=datetime.fromisoformat(moment))
    else:
        postgresql.execute("update beliefdb.confidence_policy set weight = 0.6 where factor = 'authority' "
                           "and key = 'official'")
        postgresql.commit()
        with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as db:
            report = lifecycle.recompute(db.database)
    try:
        after = {r[0]: r[1] for r in postgresql.execute("select id, confidence from beliefdb.belief").fetchall()}
        postgresql.commit()
        stored_md5, fixpoint_md5 = confidences_md5(postgresql, ws, moment)
        assert stored_md5 == fixpoint_md5
        unmoved = [n for n, b in enumerate([*chain, both, last], 1) if not after[b] < before[b]]
        assert unmoved == []
        assert report.changed == len([b for b in after if after[b] != before[b]])
        # the fixpoint: a second run has nothing left to do
        with beliefdb.connect(db_url if action == "decay" else url_at(db_url, moment)) as db:
            again = (lifecycle.decay(db.database, now=datetime.fromisoformat(moment)) if action == "decay"
                     else lifecycle.recompute(db.database))
        assert again.changed == 0
    finally:
        postgresql.execute("update beliefdb.confidence_policy set weight = 0.9 where factor = 'authority' "
                           "and key = 'official'")
        postgresql.commit()
