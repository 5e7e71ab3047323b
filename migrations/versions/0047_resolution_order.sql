-- Frozen at revision 0047: review items are numbered in the order they were resolved, and repairs of
-- what earlier releases left in a database (docs/dba.md, "Upgrading to revision 0047").
-- Never edit: change functions in sql/ (re-applied after every upgrade).
-- (Written against the tables alone: the functions and triggers here are the release's the database
-- was migrated with, or none, before sql/ is applied again after the revisions.)

-- 1. The order of resolutions: a review item resolved takes the next number of its workspace
-- (review_item.resolved_seq, taken under the workspace's write lock by the trigger of
-- internal/40_review.sql), so that of the items resolved in one transaction (one resolved_at) the last
-- is known. Those resolved before are numbered in the order decision_status_at read them until now:
-- resolved_at, then created_at, then id. (A derived number, as a column's default would be: the row
-- audit's triggers on review_item are off for it, or its event named every resolved item of the
-- workspace and hashed all their text at once.)
alter table beliefdb.review_item add column resolved_seq bigint;
do $numbering$
declare
    v_triggers name[] := array(select t.tgname from pg_catalog.pg_trigger t
                                where t.tgrelid = 'beliefdb.review_item'::regclass and not t.tgisinternal
                                  and t.tgenabled = 'O');
    v_trigger name;
begin
    foreach v_trigger in array v_triggers loop
        execute pg_catalog.format('alter table beliefdb.review_item disable trigger %I', v_trigger);
    end loop;
    update beliefdb.review_item r
       set resolved_seq = o.n
      from (select i.workspace_id, i.id,
                   pg_catalog.row_number() over (partition by i.workspace_id
                                                 order by i.resolved_at, i.created_at, i.id) as n
              from beliefdb.review_item i
             where i.resolved_at is not null) o
     where o.workspace_id = r.workspace_id and o.id = r.id;
    foreach v_trigger in array v_triggers loop
        execute pg_catalog.format('alter table beliefdb.review_item enable trigger %I', v_trigger);
    end loop;
end
$numbering$;
alter table beliefdb.review_item
    add constraint review_item_resolved_seq_check check ((resolved_at is null) = (resolved_seq is null));
create unique index review_item_resolution on beliefdb.review_item (workspace_id, resolved_seq)
    where resolved_seq is not null;

-- 2. A workspace's audit head behind its chain's last event: a session that changed the setting
-- _audit_append keeps its place in left the head of a large transaction behind at the commit, and every
-- later append of the workspace failed on a duplicate key. The head goes to the chain's last event, as
-- the commit trigger (beliefdb.audit_head_at_commit) now does (before the statements below append).
update beliefdb.audit_head h
   set seq = e.seq, hash = e.hash
  from beliefdb.audit_head w
  cross join lateral (select ev.seq, ev.hash from beliefdb.audit_event ev
                       where ev.workspace_id = w.workspace_id
                       order by ev.seq desc limit 1) e
 where w.workspace_id = h.workspace_id and h.seq < e.seq;

-- What follows is beliefdb's own doing: the audit events its statements append name the principal
-- beliefdb, as the review items beliefdb closes name it (resolved_by).
select pg_catalog.set_config('beliefdb.principal', 'beliefdb', true);

-- 3. Actions still to be carried out (scheduled, or held) on a rejected decision: rejecting a decision
-- once cancelled only its held actions, not those a person had released meanwhile (rule 4 of
-- docs/rules.md). They are cancelled, and their open review items rejected with the decision, as
-- beliefdb.review_resolve rejecting a decision does now (the same statements, and so the same audit
-- events: action.update, review_item.update); the items take the workspace's next resolution numbers.
update beliefdb.action a
   set status = 'cancelled'
  from beliefdb.decision d
 where d.workspace_id = a.workspace_id and d.id = a.decision_id and d.status = 'rejected'
   and a.status in ('scheduled', 'held');
update beliefdb.review_item r
   set status = 'rejected', resolved_at = pg_catalog.now(), resolved_by = 'beliefdb',
       note = 'resolved with decision ' || o.decision_id, resolved_seq = o.seq
  from (select i.workspace_id, i.id, a.decision_id,
               coalesce((select max(x.resolved_seq) from beliefdb.review_item x
                          where x.workspace_id = i.workspace_id), 0)
               + pg_catalog.row_number() over (partition by i.workspace_id order by i.created_at, i.id) as seq
          from beliefdb.review_item i
          join beliefdb.action a on a.workspace_id = i.workspace_id and a.id = i.node
          join beliefdb.decision d on d.workspace_id = a.workspace_id and d.id = a.decision_id
         where i.kind = 'action_held' and i.status = 'open' and d.status = 'rejected') o
 where o.workspace_id = r.workspace_id and o.id = r.id;

select pg_catalog.set_config('beliefdb.principal', '', true);

-- 4. Decisions recorded on a fixture or synthetic belief before decide refused them (rule 15) keep
-- their reasons and their status: nothing the review model has says "rests on test data" (a flag is a
-- decision that lost its last support, and would hold its actions). act refuses to carry them out
-- (BD002); the view beliefdb.fixture_decisions lists them for their owners. Said here, as a warning (a
-- script of migrate --sql shows warnings only), when there are any.
do $fixtures$
declare
    v_decisions bigint;
begin
    select count(distinct (j.workspace_id, j.consequent)) into v_decisions
      from beliefdb.justification j
      join beliefdb.decision d on d.workspace_id = j.workspace_id and d.id = j.consequent
      join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
      join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.antecedent
     where b.provenance <> 'production';
    if v_decisions > 0 then
        raise warning 'beliefdb: decisions that cite fixture or synthetic beliefs (recorded before decide refused them): %; nothing may carry them out, and select * from beliefdb.fixture_decisions lists them', v_decisions;
    end if;
end
$fixtures$;
