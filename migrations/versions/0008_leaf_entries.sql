-- Frozen at revision 0008: an out row of beliefdb.adjacency into a leaf (a node that is not a
-- belief, has one justification, of one antecedent, and no edge out: an action, a decision on one
-- belief nothing carries out) also carries the leaf's standing, so the closure walk learns all of
-- the leaf from the edge that reaches it and never reads the leaf's own rows.
-- Never edit: change tables through a new revision, and sql/10_tables.sql with it.
-- The triggers that keep the columns right are in sql/20_integrity.sql (re-applied).

alter table beliefdb.adjacency drop constraint adjacency_check;

update beliefdb.adjacency x
   set kind = l.kind, holds = l.holds, current = l.current, retracted = l.retracted
  from (select j.workspace_id, j.id, n.kind, n.holds, n.current, n.retracted_at is not null as retracted
          from beliefdb.justification j
          join beliefdb.node n on n.workspace_id = j.workspace_id and n.id = j.consequent
         where n.kind <> 'belief'
           and not exists (select from beliefdb.justification o
                            where o.workspace_id = j.workspace_id and o.consequent = j.consequent and o.id <> j.id)
           and not exists (select from beliefdb.justification_antecedent o
                            where o.workspace_id = j.workspace_id and o.antecedent = j.consequent)
           and (select count(*) from beliefdb.justification_antecedent o
                 where o.workspace_id = j.workspace_id and o.justification_id = j.id) = 1) l
 where x.entry = 'out' and x.workspace_id = l.workspace_id and x.justification = l.id;

alter table beliefdb.adjacency add constraint adjacency_check check (case entry
               when 'self' then justification = node and kind is not null and holds is not null
                                and current is not null and retracted is not null
               when 'out' then consequent is not null and unmet is null
                               and (kind is null) = (holds is null) and (kind is null) = (current is null)
                               and (kind is null) = (retracted is null)
               else unmet is not null
           end);
