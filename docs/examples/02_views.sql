-- The views a DBA reads, on the state the story leaves (all are security_invoker: row-level
-- security applies to whoever queries them; here the session is beliefdb_app, workspace bound).
\ir 01_story.sql

-- beliefdb.current_beliefs: status current or conflicting, valid now, with the evidence count
select statement, value, status, confidence, confidence_kind, evidence_count
  from beliefdb.current_beliefs order by statement;

-- beliefdb.belief_evidence: each quote with its offsets, source, version and whether it is in force
select quote, start_offset, end_offset, source, version, version_label, authority, in_force
  from beliefdb.belief_evidence order by source, version;

-- the evidence gate, checked by hand: every quote is the version text at its offsets
select bool_and(e.quote = substr(v.content, e.start_offset + 1, e.end_offset - e.start_offset)) as quotes_match
  from beliefdb.belief_evidence e
  join beliefdb.source_version v on v.workspace_id = e.workspace_id and v.id = e.source_version_id;

-- beliefdb.belief_history: supersessions and conflicts, newer and older side by side
select subject, attribute, old_value, new_value, kind, reason, at
  from beliefdb.belief_history order by at;

-- beliefdb.holding: every node's stored holds and current
select h.kind, h.holds, h.current, coalesce(b.statement, d.title, a.description, f.text) as what
  from beliefdb.holding h
  left join beliefdb.belief b on b.workspace_id = h.workspace_id and b.id = h.id
  left join beliefdb.decision d on d.workspace_id = h.workspace_id and d.id = h.id
  left join beliefdb.action a on a.workspace_id = h.workspace_id and a.id = h.id
  left join beliefdb.fragment f on f.workspace_id = h.workspace_id and f.id = h.id
 order by h.kind, what;

-- beliefdb.decision_support: one row per reason of each decision; it holds while one is live
select title, status, (select string_agg(b.value, ', ') from beliefdb.belief b where b.id = any (antecedents)) as rests_on, live
  from beliefdb.decision_support order by title, live;

-- beliefdb.review_queue: what a person must look at
select kind, subject, reason from beliefdb.review_queue order by kind;

-- what was believed just after v3.2 was recorded (the story moved the clock a day on for v3.3)
select statement, status from beliefdb.beliefs_as_of('2026-11-30T12:00:00Z') order by statement;
-- and the refusal with its email, before v3.3 and now (from their review items)
select d.title, beliefdb.decision_status_at(d, '2026-11-30T12:00:00Z') as before_v33,
       beliefdb.decision_status_at(d, beliefdb.clock()) as now,
       beliefdb.action_status_at(a, '2026-11-30T12:00:00Z') as email_before, beliefdb.action_status_at(a, beliefdb.clock()) as email_now
  from beliefdb.decision d join beliefdb.action a on a.decision_id = d.id;

-- a belief by a unique prefix of its id (4 hex digits at least)
select beliefdb.resolve_belief(left(:'b15', 8)) = :'b15'::uuid as resolved;

-- why the 15-day belief has its confidence, and the derived belief's
select * from beliefdb.confidence_factors(beliefdb.current_workspace_id(), :'b15');
select factor, weight from beliefdb.confidence_factors(beliefdb.current_workspace_id(),
       (select id from beliefdb.belief where attribute = 'refundable'))
 order by factor = 'derived_from' desc, weight, factor desc;

-- the dry run on the 7-day belief now reports nothing: it is no longer current
select count(*) as effects from beliefdb.impact(array[:'b7']);
-- the final-sale belief is now the forecast's last live reason
select kind, effect, coalesce(detail ->> 'title', '') as what
  from beliefdb.impact(array[:'sale']) order by effect, kind;
