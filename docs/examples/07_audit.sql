-- The audit chain (rule 12): every change appends a link to its workspace's SHA-256 chain.
\ir 01_story.sql

select ok, events > 0 as has_events, first_broken from beliefdb.audit_verify();
select action, count(*) from beliefdb.audit_event group by action order by action;

-- every workspace, as a DBA (the owner bypasses row-level security)
reset role;
select w.name, v.ok, v.first_broken from beliefdb.workspace w cross join lateral beliefdb.audit_verify(w.id) v order by w.name;

-- recompute the links by hand
select bool_and(prev_ok) as prev_ok, bool_and(payload_ok) as payload_ok, bool_and(link_ok) as link_ok
  from (select prev_hash = coalesce(lag(hash) over (order by seq), beliefdb.audit_genesis()) as prev_ok,
               payload is null or payload_hash = beliefdb.audit_payload_hash(payload) as payload_ok,
               hash = beliefdb.audit_link_hash(prev_hash, workspace_id, seq, at, principal, action, payload_hash) as link_ok
          from beliefdb.audit_event
         where workspace_id = beliefdb.current_workspace_id()) x;

-- redaction keeps the chain verifiable; tampering shows at the first broken link (rolled back)
begin;
update beliefdb.audit_event set payload = null
 where workspace_id = beliefdb.current_workspace_id() and action = 'ingest';
select ok, first_broken from beliefdb.audit_verify();
update beliefdb.audit_event set action = 'ingest (edited)'
 where workspace_id = beliefdb.current_workspace_id() and seq = 3;
select ok, first_broken, problem from beliefdb.audit_verify();
rollback;

-- a hand-written change is an event like any other, and its links hold; but beliefdb deletes evidence
-- only with its belief, fragment or justification, so verify finds the belief left resting on a quote
-- with no evidence row, and names the event (rolled back)
begin;
delete from beliefdb.evidence
 where workspace_id = beliefdb.current_workspace_id()
   and belief_id = (select id from beliefdb.belief
                     where workspace_id = beliefdb.current_workspace_id() and value = '7 days');
select seq, action, principal from beliefdb.audit_event
 where workspace_id = beliefdb.current_workspace_id() order by seq desc limit 1;
select ok, first_broken = (select max(seq) from beliefdb.audit_event
                            where workspace_id = beliefdb.current_workspace_id()) as at_that_event,
       problem like '%with no evidence row%' as no_evidence_row
  from beliefdb.audit_verify();
select b.statement, b.status
  from beliefdb.belief b
  join beliefdb.justification j on j.workspace_id = b.workspace_id and j.consequent = b.id
  join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
  join beliefdb.fragment f on f.workspace_id = a.workspace_id and f.id = a.antecedent
 where not exists (select from beliefdb.evidence e
                    where e.workspace_id = j.workspace_id and e.justification_id = j.id);
rollback;

-- with an audit trigger off, a change leaves no event: verify says so while it is off, and once it is
-- on again finds the belief that no longer says what it was stored saying (rolled back)
begin;
alter table beliefdb.belief disable trigger belief_audit_update;
update beliefdb.belief set value = '30 days'
 where workspace_id = beliefdb.current_workspace_id() and value = '7 days';
select ok, first_broken, problem from beliefdb.audit_verify();
select t.tgrelid::regclass as "table", t.tgname as "trigger", t.tgenabled
  from pg_catalog.pg_trigger t
 where t.tgfoid::regproc::text like 'beliefdb.\_audit\_rows\_%' and t.tgenabled <> 'O';
alter table beliefdb.belief enable trigger belief_audit_update;
select ok, problem like '%does not say what it said when it was stored%no event records the change%' as found
  from beliefdb.audit_verify();
rollback;

-- beliefdb_app cannot touch the chain
set role beliefdb_app;
delete from beliefdb.audit_event;
select ok from beliefdb.audit_verify();

-- the stored fixpoint is right: evaluate the whole workspace and compare (one transaction, as
-- the DBA: the evaluation's temporary table belongs to the functions' owner)
reset role;
begin;
select beliefdb.evaluate(beliefdb.current_workspace_id(), array(select id from beliefdb.node)) as rounds;
select count(*) as nodes, count(*) filter (where e.holds is distinct from n.holds) as holds_differ
  from pg_temp.beliefdb_evaluation e
  join beliefdb.node n on n.workspace_id = beliefdb.current_workspace_id() and n.id = e.id;
commit;
-- and storing it again changes nothing
select jsonb_array_length(p -> 'stopped_holding') + jsonb_array_length(p -> 'started_holding') as changed
  from beliefdb.propagate(beliefdb.current_workspace_id(), array(select id from beliefdb.node)) p;

-- the derived rows, rewritten from the rows they repeat (after a bulk load with triggers off);
-- on a consistent workspace no decision's reasons change
reset role;
select beliefdb.rebuild_adjacency(w.id) > 0 as adjacency_rewritten,
       beliefdb.refresh_decision_reasons(w.id, array(select d.id from beliefdb.decision d where d.workspace_id = w.id)) as reasons_changed
  from beliefdb.workspace w where w.name = 'default';

-- a copy of the head kept outside the database (its seq and hash): later changes (and a migration
-- after a restore) move the head on, so compare the event at the seq you kept, not the head
select seq as kept_seq, encode(hash, 'hex') as kept_hash from beliefdb.audit_head
 where workspace_id = beliefdb.current_workspace_id() \gset
select status from beliefdb.decide('Review the refund forecast', '[]'::jsonb);
select h.seq > :kept_seq as head_moved_on, encode(h.hash, 'hex') = :'kept_hash' as head_is_kept,
       encode(e.hash, 'hex') = :'kept_hash' as kept_event_is_kept, v.ok
  from beliefdb.audit_head h
  join beliefdb.audit_event e on e.workspace_id = h.workspace_id and e.seq = :kept_seq
 cross join beliefdb.audit_verify() v
 where h.workspace_id = beliefdb.current_workspace_id();
