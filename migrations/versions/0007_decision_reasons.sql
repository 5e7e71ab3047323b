-- Frozen at revision 0007: a decision carries its reasons, so impact lists what a surviving
-- decision still rests on from the decision row it reads anyway.
-- Never edit: change tables through a new revision, and sql/10_tables.sql with it.
-- The triggers that keep the column right are in sql/20_integrity.sql (re-applied).

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
