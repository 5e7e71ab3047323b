-- Frozen at revision 0009: a belief's self row in beliefdb.adjacency says whether the belief
-- supersedes, is superseded by or is tied with another one (related), so the closure walk looks up
-- the relations of those beliefs alone. The key includes the column, for index-only scans.
-- Never edit: change tables through a new revision, and sql/10_tables.sql with it.
-- The triggers that keep the column right are in sql/20_integrity.sql (re-applied).

alter table beliefdb.adjacency
    drop constraint adjacency_check,
    drop constraint adjacency_pkey,
    add column related boolean;

update beliefdb.adjacency x
   set related = exists (select from beliefdb.relation r
                          where r.workspace_id = x.workspace_id and r.from_belief = x.node
                            and r.kind in ('supersedes', 'conflicts_with'))
              or exists (select from beliefdb.relation r
                          where r.workspace_id = x.workspace_id and r.to_belief = x.node
                            and r.kind in ('supersedes', 'conflicts_with'))
 where x.entry = 'self';

alter table beliefdb.adjacency
    add constraint adjacency_pkey primary key (workspace_id, node, entry, justification)
        include (consequent, unmet, kind, holds, current, retracted, related),
    add constraint adjacency_check check (case entry
               when 'self' then justification = node and kind is not null and holds is not null
                                and current is not null and retracted is not null and related is not null
               when 'out' then consequent is not null and unmet is null and related is null
                               and (kind is null) = (holds is null) and (kind is null) = (current is null)
                               and (kind is null) = (retracted is null)
               else unmet is not null and related is null
           end);
