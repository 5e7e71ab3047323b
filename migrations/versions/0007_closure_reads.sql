-- Frozen at revision 0007: what impact reads, where it reads it. Each node reached by a closure
-- walk costs one index descent (beliefdb.adjacency), and a surviving decision's live reasons come
-- with the decision row it reads anyway (decision.reasons).
-- Never edit: change tables through a new revision, and sql/10_tables.sql with it.
-- The triggers that keep both right are in sql/20_integrity.sql (re-applied).

-- {justification id: [antecedent ids, sorted]}
alter table beliefdb.decision add column reasons jsonb not null default '{}';
update beliefdb.decision d
   set reasons = r.reasons
  from (select j.workspace_id, j.consequent, jsonb_object_agg(j.id, a.antecedents) as reasons
          from beliefdb.justification j
          join (select x.workspace_id, x.justification_id, jsonb_agg(x.antecedent order by x.antecedent) as antecedents
                  from beliefdb.justification_antecedent x
                 group by x.workspace_id, x.justification_id) a
            on a.workspace_id = j.workspace_id and a.justification_id = j.id
         group by j.workspace_id, j.consequent) r
 where d.workspace_id = r.workspace_id and d.id = r.consequent;

-- a node's standing, edges out and justifications, side by side
create type beliefdb.adjacency_entry as enum ('self', 'out', 'in');
comment on type beliefdb.adjacency_entry is 'What a row of beliefdb.adjacency says of its node: self, an edge out, a justification in';

create table beliefdb.adjacency (
    workspace_id uuid not null,
    node uuid not null,
    entry beliefdb.adjacency_entry not null,
    justification uuid not null,
    consequent uuid,
    unmet integer,
    kind beliefdb.node_kind,
    holds boolean,
    current boolean,
    retracted boolean,
    constraint adjacency_pkey primary key (workspace_id, node, entry, justification)
        include (consequent, unmet, kind, holds, current, retracted),
    check (case entry
               when 'self' then justification = node and kind is not null and holds is not null
                                and current is not null and retracted is not null
               when 'out' then consequent is not null
               else unmet is not null
           end)
);
comment on table beliefdb.adjacency is 'Derived: each node''s standing, edges out and justifications in one index, for the closure walk';

-- in index order: the index fills its pages as a fresh build would
insert into beliefdb.adjacency (workspace_id, node, entry, justification, consequent, unmet, kind, holds, current,
                                retracted)
select n.workspace_id, n.id, 'self'::beliefdb.adjacency_entry, n.id, null::uuid, null::integer, n.kind, n.holds,
       n.current, n.retracted_at is not null
  from beliefdb.node n
union all
select a.workspace_id, a.antecedent, 'out', a.justification_id, a.consequent, null, null, null, null, null
  from beliefdb.justification_antecedent a
union all
select j.workspace_id, j.consequent, 'in', j.id, null, j.unmet, null, null, null, null
  from beliefdb.justification j
order by 1, 2, 3, 4;
