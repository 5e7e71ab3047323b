-- Frozen at revision 0036: when nodes, sources and source versions were retracted and restored, for
-- as-of questions. Never edit: change functions in sql/ (re-applied after every upgrade).

-- When each node, source and source version was retracted, and when it was restored: retracted_at
-- says only what is retracted now, and as-of questions ask what was retracted then (rule 16).
-- Derived: a trigger (internal/38_decisions.sql) opens a period when retracted_at is set and closes
-- it when it is cleared (revision 0036; retractions undone before it left no period).
create table beliefdb.retraction_period (
    workspace_id uuid not null,
    id uuid not null default pg_catalog.gen_random_uuid(),
    node_id uuid,
    source_id uuid,
    source_version_id uuid,
    retracted_at timestamptz not null,
    reason text,
    restored_at timestamptz,
    primary key (workspace_id, id),
    check (num_nonnulls(node_id, source_id, source_version_id) = 1),
    foreign key (workspace_id, node_id) references beliefdb.node (workspace_id, id) on delete cascade,
    foreign key (workspace_id, source_id) references beliefdb.source (workspace_id, id) on delete cascade,
    foreign key (workspace_id, source_version_id) references beliefdb.source_version (workspace_id, id)
        on delete cascade
);
comment on table beliefdb.retraction_period is 'Derived: when a node, source or source version was retracted (and why) and restored (what as-of questions read)';
create index retraction_period_node on beliefdb.retraction_period (workspace_id, node_id, retracted_at)
    where node_id is not null;
create index retraction_period_source on beliefdb.retraction_period (workspace_id, source_id, retracted_at)
    where source_id is not null;
create index retraction_period_version on beliefdb.retraction_period (workspace_id, source_version_id, retracted_at)
    where source_version_id is not null;

-- what is retracted now, from when it was retracted (an undone retraction left no trace to read)
insert into beliefdb.retraction_period (workspace_id, node_id, retracted_at, reason)
select n.workspace_id, n.id, n.retracted_at, n.retraction_reason from beliefdb.node n where n.retracted_at is not null;
insert into beliefdb.retraction_period (workspace_id, source_id, retracted_at, reason)
select s.workspace_id, s.id, s.retracted_at, s.retraction_reason from beliefdb.source s where s.retracted_at is not null;
insert into beliefdb.retraction_period (workspace_id, source_version_id, retracted_at, reason)
select v.workspace_id, v.id, v.retracted_at, v.retraction_reason from beliefdb.source_version v where v.retracted_at is not null;
