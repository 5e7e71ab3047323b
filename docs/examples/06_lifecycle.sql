-- Belief lifecycle (rules 9 and 14): confidence fades without new evidence, outcomes are
-- recorded, forgetting leaves nothing behind. Continues the story.
\ir 01_story.sql

-- the half-lives of the recency factor and the low-confidence threshold (global, set by a DBA)
select kind, days, description from beliefdb.confidence_half_life order by days, kind;
select factor, key, weight, description from beliefdb.confidence_policy order by factor, weight desc;

-- the same 15-day policy today and 200 days later (beliefdb.now moves this session's clock only)
select factor, weight from beliefdb.confidence_factors(beliefdb.current_workspace_id(), :'b15');
set beliefdb.now = '2027-06-19T09:00:00Z';
select factor, detail, weight from beliefdb.confidence_factors(beliefdb.current_workspace_id(), :'b15');
reset beliefdb.now;

-- what 200 days without new evidence would do to the stored confidences: preview, then apply
select * from beliefdb.decay('2027-06-19T09:00:00Z', p_preview => true);
select lowered from beliefdb.decay('2027-06-19T09:00:00Z');
select value, round(confidence::numeric, 3) as confidence from beliefdb.belief order by value;
-- back to today: decay is a pure function of evidence, weights and the clock
set beliefdb.now = '2026-12-01T09:00:00Z';
select raised from beliefdb.decay();
select value, round(confidence::numeric, 3) as confidence from beliefdb.belief order by value;
-- after a DBA changed a weight, the same function recomputes (audited as recompute)
select changed from beliefdb.decay(null, 'recompute');

-- what happened after a decision: a log, the latest counts
select outcome from beliefdb.record_outcome(:'d2', 'succeeded', 'forecast matched');
set beliefdb.now = '2026-12-02T09:00:00Z';
select outcome from beliefdb.record_outcome(:'d2', 'disputed', 'finance asks again');
select outcome, by, note from beliefdb.latest_outcome(beliefdb.current_workspace_id(), :'d2');
select beliefdb.record_outcome(:'b15', 'succeeded');

-- forgetting a source: the preview says what would go (and which decisions would be flagged)
select beliefs, evidence, versions, cardinality(would_flag) as would_flag
  from beliefdb.forget('source', 'orders/1042.txt', p_preview => true);
select count(*) as sources from beliefdb.source;
select cardinality(flagged) as flagged from beliefdb.forget('source', 'orders/1042.txt');
select name from beliefdb.source order by name;
select title, status from beliefdb.decision order by title;
-- nothing in the chain names it any more, and the chain still verifies
select count(*) as events_naming_it from beliefdb.audit_event where payload::text like '%orders/1042%';
select ok, first_broken from beliefdb.audit_verify();
