-- Frozen at revision 0005: what the holding fixpoint reads, carried where it reads it.
-- Never edit: change tables through a new revision, and sql/10_tables.sql with it.
-- The triggers that keep both columns right are in sql/20_integrity.sql (re-applied).

-- how many antecedents of a justification are not current
alter table beliefdb.justification add column unmet integer not null default 0;
update beliefdb.justification j
   set unmet = x.n
  from (select a.workspace_id, a.justification_id, count(*) as n
          from beliefdb.justification_antecedent a
          join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
         where not n.current
         group by a.workspace_id, a.justification_id) x
 where j.workspace_id = x.workspace_id and j.id = x.justification_id;

-- the consequent of an antecedent's justification
alter table beliefdb.justification_antecedent add column consequent uuid;
update beliefdb.justification_antecedent a
   set consequent = j.consequent
  from beliefdb.justification j
 where j.workspace_id = a.workspace_id and j.id = a.justification_id;
alter table beliefdb.justification_antecedent alter column consequent set not null;

-- both lookups of a closure evaluation become index-only scans
drop index beliefdb.justification_consequent;
create index justification_consequent on beliefdb.justification (workspace_id, consequent) include (id, unmet);
drop index beliefdb.justification_antecedent_antecedent;
create index justification_antecedent_antecedent on beliefdb.justification_antecedent (workspace_id, antecedent)
    include (justification_id, consequent);
