-- Revision 0004: belief lifecycle (issue 6): confidence half-lives per kind, and what actually
-- happened after decisions and actions.
-- Never edit once released: change tables through a new revision, and sql/10_tables.sql with it.

-- Half-life of confidence per belief kind, in days since the belief was last verified.
create table beliefdb.confidence_half_life (
    kind text primary key
        check (kind in ('fact', 'rule', 'policy', 'preference', 'procedure', 'event', 'observation', 'other')),
    days real not null check (days > 0),
    description text not null default ''
);
comment on table beliefdb.confidence_half_life is 'Half-life of confidence per belief kind (days since last verified), editable by a DBA';

-- What actually happened after a decision or an action.
create table beliefdb.outcome (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    node uuid not null,
    outcome text not null check (outcome in ('succeeded', 'failed', 'rolled_back', 'disputed')),
    note text,
    recorded_by text not null default beliefdb.current_principal(),
    recorded_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, id),
    foreign key (workspace_id, node) references beliefdb.node (workspace_id, id) on delete cascade
);
comment on table beliefdb.outcome is 'What actually happened after a decision or action: succeeded, failed, rolled back or disputed; the latest counts';

create index outcome_node on beliefdb.outcome (workspace_id, node, recorded_at);
