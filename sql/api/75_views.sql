-- beliefdb: views for DBAs and for the library. All are security_invoker, so row-level security
-- applies to whoever queries them: the application role reads the bound workspace, and is told
-- when none is bound (beliefdb.workspace_bound); a superuser or the tables' owner reads every
-- workspace. Each row carries its workspace's name, last (views grow only at the end).
-- Rules cited as "rule N" are those of docs/rules.md.

-- Each supporting or other piece of evidence with its quote, offsets and source.
create or replace view beliefdb.belief_evidence with (security_invoker = true) as
select e.workspace_id,
       e.belief_id,
       b.statement,
       e.role,
       e.quote,
       f.id as fragment_id,
       f.start_offset,
       f.end_offset,
       s.id as source_id,
       s.name as source,
       s.origin_type,
       s.authority,
       s.provenance,
       v.id as source_version_id,
       v.version,
       v.label as version_label,
       encode(v.sha256, 'hex') as version_sha256,
       v.recorded_at as version_recorded_at,
       beliefdb.in_force(v.workspace_id, v.id) as in_force,
       e.created_at,
       f.speaker,
       f.spoken_at,
       w.name as workspace
  from beliefdb.evidence e
  join beliefdb.workspace w on w.id = e.workspace_id
  join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
  join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
  join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
  join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
 where beliefdb.workspace_bound();
comment on view beliefdb.belief_evidence is 'Evidence of each belief: exact quote, offsets, source, version, whether that version is in force, and the speaker and time of a conversation''s turn';

-- Beliefs that are true now: current or conflicting, within their valid time.
create or replace view beliefdb.current_beliefs with (security_invoker = true) as
select b.workspace_id,
       b.id,
       b.statement,
       b.subject,
       b.attribute,
       b.value,
       b.kind,
       b.scope,
       b.valid_time,
       b.confidence,
       b.confidence_kind,
       b.status,
       b.revision,
       b.owner,
       b.recorded_at,
       (select count(*) from beliefdb.evidence e
         where e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports') as evidence_count,
       b.provenance,
       w.name as workspace
  from beliefdb.belief b
  join beliefdb.workspace w on w.id = b.workspace_id
 where b.status in ('current', 'conflicting')
   -- the clock read once, not once per row (a call costs ~9 µs: 1.8 s over 200,000 beliefs)
   and b.valid_time @> (select beliefdb.clock())
   and beliefdb.workspace_bound();
comment on view beliefdb.current_beliefs is 'Beliefs that hold now and are not superseded, within their valid time, in every world (filter provenance = ''production'' for real history)';

-- Supersession history: which belief replaced which, when and why, and until when; and the
-- conflicts (rule 8's ties, and the losers another principal owns), with when and how each was settled.
-- (before settled_by, workspace came after ended: a view's columns cannot be put in another order in
-- place, and every view ends with workspace)
do $$
begin
    if pg_catalog.to_regclass('beliefdb.belief_history') is not null
       and not exists (select from pg_catalog.pg_attribute a
                        where a.attrelid = pg_catalog.to_regclass('beliefdb.belief_history')
                          and a.attname = 'settled_by') then
        drop view beliefdb.belief_history;
    end if;
end
$$;

create or replace view beliefdb.belief_history with (security_invoker = true) as
select r.workspace_id,
       r.from_belief as new_belief,
       n.statement as new_statement,
       n.value as new_value,
       r.to_belief as old_belief,
       o.statement as old_statement,
       o.value as old_value,
       o.subject,
       o.attribute,
       r.kind,
       r.reason,
       r.created_at as at,
       -- a supersession that no longer applies (its superseder stopped holding and rule 8 settled
       -- the pair again) stays here with the moment it ended; a conflict, with the moment a
       -- supersession between its two beliefs settled it (a review's winner, or rule 8 later)
       coalesce(r.ended_at, s.created_at) as ended,
       -- a settled conflict: the belief that won it, and the reason of that supersession ("conflict
       -- resolved by alice", a review's; or rule 8's); null for a supersession and an open conflict
       s.from_belief as winner,
       s.reason as settled_by,
       w.name as workspace
  from beliefdb.relation r
  join beliefdb.workspace w on w.id = r.workspace_id
  join beliefdb.belief n on n.workspace_id = r.workspace_id and n.id = r.from_belief
  join beliefdb.belief o on o.workspace_id = r.workspace_id and o.id = r.to_belief
  left join lateral (select x.from_belief, x.reason, x.created_at
                       from beliefdb.relation x
                      where r.kind = 'conflicts_with'
                        and x.workspace_id = r.workspace_id and x.kind = 'supersedes'
                        and ((x.from_belief = r.from_belief and x.to_belief = r.to_belief)
                             or (x.from_belief = r.to_belief and x.to_belief = r.from_belief))
                        and x.created_at >= r.created_at
                      order by x.created_at, x.id
                      limit 1) s on true
 where r.kind in ('supersedes', 'conflicts_with')
   and beliefdb.workspace_bound();
comment on view beliefdb.belief_history is 'Supersessions and conflicts between beliefs, newest and oldest side by side; ended: when a supersession stopped applying, or a supersession between a conflict''s two beliefs settled it (winner, settled_by)';

-- Holding status of every node: holds (rule 2) and current (rule 3).
create or replace view beliefdb.holding with (security_invoker = true) as
select n.workspace_id,
       n.id,
       n.kind,
       n.holds,
       n.current,
       n.retracted_at,
       n.retraction_reason,
       w.name as workspace
  from beliefdb.node n
  join beliefdb.workspace w on w.id = n.workspace_id
 where beliefdb.workspace_bound();
comment on view beliefdb.holding is 'Whether each node holds (least fixpoint from the premises) and is current';

-- Each decision's reasons: every justification with its antecedents, live or lost.
create or replace view beliefdb.decision_support with (security_invoker = true) as
select d.workspace_id,
       d.id as decision,
       d.title,
       d.status,
       j.id as justification,
       array_agg(a.antecedent order by a.antecedent) as antecedents,
       bool_and(h.current) as live,
       w.name as workspace
  from beliefdb.decision d
  join beliefdb.workspace w on w.id = d.workspace_id
  join beliefdb.justification j on j.workspace_id = d.workspace_id and j.consequent = d.id
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.holding h on h.workspace_id = a.workspace_id and h.id = a.antecedent
 where beliefdb.workspace_bound()
 group by d.workspace_id, d.id, d.title, d.status, j.id, w.name;
comment on view beliefdb.decision_support is 'Each decision''s justifications, their antecedents, and whether each is still live';

-- Open review items, durable until a person approves or rejects them.
-- (before node_holds, workspace was its column after source_id: a view's columns cannot be put in
-- another order in place, and every view ends with workspace)
do $$
begin
    if pg_catalog.to_regclass('beliefdb.review_queue') is not null
       and not exists (select from pg_catalog.pg_attribute a
                          join pg_catalog.pg_attribute w on w.attrelid = a.attrelid and w.attname = 'workspace'
                        where a.attrelid = pg_catalog.to_regclass('beliefdb.review_queue')
                          and a.attname = 'node_holds' and a.attnum < w.attnum) then
        drop view beliefdb.review_queue;
    end if;
end
$$;

create or replace view beliefdb.review_queue with (security_invoker = true) as
select r.workspace_id,
       r.id,
       r.kind,
       r.node,
       r.other_node,
       coalesce(d.title, a.description, b.statement, s.name) as subject,
       r.reason,
       r.created_at,
       r.proposed_by,
       -- (without the lines a forget masked in it: the owner's later texts', beliefdb._forgotten_lines)
       r.proposal - 'forgotten_lines' as proposal,
       r.source_id,
       -- whether the node it is about holds now (a flagged decision whose support came back holds
       -- again: its item stays open until a person resolves it, rule 4); null for an item of a source
       n.holds as node_holds,
       w.name as workspace
  from beliefdb.review_item r
  join beliefdb.workspace w on w.id = r.workspace_id
  left join beliefdb.node n on n.workspace_id = r.workspace_id and n.id = r.node
  left join beliefdb.decision d on d.workspace_id = r.workspace_id and d.id = r.node
  left join beliefdb.action a on a.workspace_id = r.workspace_id and a.id = r.node
  left join beliefdb.belief b on b.workspace_id = r.workspace_id and b.id = r.node
  left join beliefdb.source s on s.workspace_id = r.workspace_id and s.id = r.source_id
 where r.status = 'open'
   and beliefdb.workspace_bound();
comment on view beliefdb.review_queue is 'Open review items: flagged decisions, held actions, unresolved conflicts, proposed corrections, versions and retractions (node_holds: whether the node it is about holds now)';

-- Decisions recorded on a fixture or synthetic belief before decide refused them (rule 15): one row
-- per such belief a reason of the decision cites. Nothing may carry them out (act refuses, BD002); the
-- upgrade to revision 0047 left them, their reasons and their status as they were (docs/dba.md,
-- "Upgrading to revision 0047"), for their owners to reject or decide again on production history.
create or replace view beliefdb.fixture_decisions with (security_invoker = true) as
select d.workspace_id,
       d.id as decision,
       d.title,
       d.status,
       d.owner,
       j.id as justification,
       b.id as belief,
       b.provenance,
       w.name as workspace
  from beliefdb.decision d
  join beliefdb.workspace w on w.id = d.workspace_id
  join beliefdb.justification j on j.workspace_id = d.workspace_id and j.consequent = d.id
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.antecedent
 where b.provenance <> 'production'
   and beliefdb.workspace_bound();
comment on view beliefdb.fixture_decisions is 'Decisions recorded on a fixture or synthetic belief before decide refused them (rule 15), one row per such belief cited: nothing may carry them out';
