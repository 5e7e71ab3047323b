-- Frozen at revision 0030: an adjacency out row says whether its consequent is a decision (issue 21).
-- Never edit: change tables through a new revision, and sql/schema/10_tables.sql with it.

-- impact asks, of what rests outside the support walk on a node that stops holding, which are
-- decisions that still hold (they may lose a reason): it looked up the self row of every such
-- node to find the few decisions among them. With the consequent's being a decision on the out
-- row it already reads (a node's kind never changes), it looks up the decisions alone. The key is
-- dropped first, so the backfill writes the rows without index entries, and built again once, in
-- memory a gigabyte at a time for this transaction only (as revision 0028). Each step only if
-- missing (a test stands in for this revision before the upgrade reaches it).
set local maintenance_work_mem = '1GB';
alter table beliefdb.adjacency drop constraint if exists adjacency_pkey,
                               drop constraint if exists adjacency_check,
                               add column if not exists into_decision boolean;
update beliefdb.adjacency x
   set into_decision = n.kind = 'decision'
  from beliefdb.node n
 where x.entry = 'out' and x.into_decision is null and n.workspace_id = x.workspace_id and n.id = x.consequent;
alter table beliefdb.adjacency
    add constraint adjacency_pkey primary key (workspace_id, node, entry, justification)
        include (consequent, unmet, kind, holds, current, retracted, related, support, into_decision),
    add constraint adjacency_check check (case entry
               when 'self' then justification = node and kind is not null and holds is not null
                                and current is not null and retracted is not null and related is not null
                                and into_decision is null
               when 'out' then consequent is not null and unmet is null and related is null
                               and (kind is null) = (holds is null) and (kind is null) = (current is null)
                               and (kind is null) = (retracted is null) and into_decision is not null
               else unmet is not null and related is null and into_decision is null
           end);
-- what an out row says of its consequent now comes from one probe (beliefdb._edge_facts)
drop function if exists beliefdb._is_support(uuid, uuid, uuid);
