-- Revision 0002: agent traces and rollback repair (issue 5).
-- Never edit once released: change tables through a new revision, and sql/10_tables.sql with it.

-- What became of a recorded step after a repair, and which step a replayed one re-runs.
alter table beliefdb.step
    add column status text not null default 'recorded'
        check (status in ('recorded', 'invalidated', 'replay_pending', 'replayed')),
    add column replay_of uuid,
    add foreign key (workspace_id, replay_of) references beliefdb.step (workspace_id, id) on delete set null (replay_of);
comment on table beliefdb.step is 'One step of an agent run: user input, memory read, claim, plan, tool call, observation, answer, memory write; status says what a repair made of it';

-- Trace edges that are not reasons: pure time order, and a step deleting a memory.
create table beliefdb.trace_edge (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    from_node uuid not null,
    to_node uuid not null,
    kind text not null check (kind in ('follows', 'deletes')),
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, from_node, to_node, kind),
    foreign key (workspace_id, from_node) references beliefdb.node (workspace_id, id) on delete cascade,
    foreign key (workspace_id, to_node) references beliefdb.node (workspace_id, id) on delete cascade
);
comment on table beliefdb.trace_edge is 'Trace edges that never propagate holding: follows (time order) and deletes (a step removed a memory)';

create index trace_edge_to_node on beliefdb.trace_edge (workspace_id, to_node);

-- A rollback repair: the faulty memories, the plan computed for them, and when it was replayed.
create table beliefdb.repair (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    id uuid not null default pg_catalog.gen_random_uuid(),
    faulty uuid[] not null,
    independent_evidence boolean not null default true,
    plan jsonb not null,
    created_at timestamptz not null default beliefdb.clock(),
    created_by text not null default beliefdb.current_principal(),
    replayed_at timestamptz,
    primary key (workspace_id, id),
    foreign key (workspace_id) references beliefdb.workspace (id) on delete cascade
);
comment on table beliefdb.repair is 'An applied rollback repair: faulty memories, the plan carried out, and its replay';
