-- Frozen at revision 0028: the adjacency's primary key carries adjacency.support (issue 21). Never
-- edit: change tables through a new revision, and sql/schema/10_tables.sql with it.

-- What a retraction takes down is walked from it by the out rows that carry a support; with the
-- flag in the primary key's included columns, one probe per node reached reads every row the walk
-- needs of it (its standing, its justifications, the edges out of it and which carry a support),
-- where the partial index adjacency_support of revision 0022 took a second descent per node. That
-- index, read by nothing else, goes first (its disk space with it); then the key is rebuilt in one
-- statement (the whole index written again: minutes at 68M rows, under an exclusive lock of the
-- adjacency), its sort in memory a gigabyte at a time for this transaction only (the default 64 MB
-- makes a large workspace's build merge many more runs from disk).
set local maintenance_work_mem = '1GB';
drop index if exists beliefdb.adjacency_support;
alter table beliefdb.adjacency
    drop constraint adjacency_pkey,
    add constraint adjacency_pkey primary key (workspace_id, node, entry, justification)
        include (consequent, unmet, kind, holds, current, retracted, related, support);
