-- The pieces of the script `beliefdb scale citus --sql` writes (beliefdb/scale/citus_sql.py), one named
-- block each, in the format of beliefdb/db/queries.sql. {name} fields are filled with psycopg.sql
-- (identifiers, literals, and the catalog's own deparsed text); a block's final ';' is dropped by the
-- parser and put back by the writer.

-- header --
-- The script's first lines: what it is, how to run it, the trigger setting on every node, the transaction

-- beliefdb on Citus: distribute a migrated beliefdb schema by workspace (docs/scale-out.md).
-- Written by `beliefdb scale citus --sql` from the catalog of a migrated database ({summary}).
-- Run it once, as a superuser, with psql on the coordinator of a Citus >= 11.1.3 cluster whose nodes run
-- the same PostgreSQL with pgvector and pg_trgm installed, right after `beliefdb migrate` there:
--     psql -v ON_ERROR_STOP=1 -f citus.sql "$COORDINATOR_URL"
\set ON_ERROR_STOP on

-- beliefdb keeps derived rows and the audit chain with triggers: Citus (>= 11.0) allows triggers on
-- distributed tables only with citus.enable_unsafe_triggers, on every node (ALTER SYSTEM: no transaction).
alter system set citus.enable_unsafe_triggers = on;
select pg_reload_conf();
select run_command_on_workers('alter system set citus.enable_unsafe_triggers = on');
select run_command_on_workers('select pg_reload_conf()');

begin;
-- create_distributed_function in a transaction needs sequential mode
set local citus.multi_shard_modify_mode to 'sequential';
set local citus.enable_unsafe_triggers to on;

-- bind --
-- The wrappers' schema, and the function that binds a routed call's workspace

-- the wrappers' schema, and the binding of a routed call
create schema if not exists beliefdb_citus;
comment on schema beliefdb_citus is
    'beliefdb on Citus: the workspace-routed wrappers of beliefdb''s functions (docs/scale-out.md)';
grant usage on schema beliefdb_citus to beliefdb_app;

-- Bind the workspace a routed call acts in, for this transaction: a call delegated to a worker finds
-- no session setting there. A session bound to another workspace is refused.
create or replace function beliefdb_citus._bind(p_workspace_id uuid) returns void
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_bound text := nullif(pg_catalog.current_setting('beliefdb.workspace_id', true), '');
begin
    if p_workspace_id is null then
        raise exception 'a routed call needs the workspace id as its first argument' using errcode = 'BD003';
    end if;
    if v_bound is not null and v_bound::uuid <> p_workspace_id then
        raise exception 'this session is bound to workspace %, not %', v_bound, p_workspace_id using errcode = 'BD005';
    end if;
    perform pg_catalog.set_config('beliefdb.workspace_id', p_workspace_id::text, true);
end
$$;
comment on function beliefdb_citus._bind(uuid) is
    'Bind a routed call''s workspace for the transaction; refuse one other than the session''s';

-- set_null_key --
-- A foreign key ON DELETE SET NULL re-created ON DELETE NO ACTION, and the trigger that nulls first
alter table {table} drop constraint {name};
alter table {table} add constraint {name} {definition};
create or replace function {function}() returns trigger
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    update {table} r set {assignments}
     where {matches};
    return old;
end
$$;
comment on function {function}() is {comment};
create trigger {name} before delete on {referenced} for each row execute function {function}();

-- policy --
-- A row-level security policy re-created with the expressions given (no subquery)
drop policy {name} on {table};
create policy {name} on {table} as {kind} for {command} to {roles}{clauses};

-- create_workspace --
-- The trigger on the workspace table replaced by a function that starts a workspace's audit chain

-- The workspace table is a reference table: a trigger on it fires on every node's copy, and the
-- audit chain it starts lives on one node. Creating a workspace is this function's, on the coordinator.
drop trigger workspace_audit on beliefdb.workspace;
create or replace function beliefdb_citus.create_workspace(p_name text) returns beliefdb.workspace
language plpgsql security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_workspace beliefdb.workspace;
begin
    insert into beliefdb.workspace (name) values (p_name) returning * into v_workspace;
    -- what the trigger beliefdb.audit_workspace_created did: the chain starts with a genesis event
    insert into beliefdb.audit_head (workspace_id, seq, hash)
    values (v_workspace.id, 0, beliefdb.audit_genesis());
    perform beliefdb._audit_append(v_workspace.id, 'workspace.insert',
                                   pg_catalog.jsonb_build_object('name', v_workspace.name));
    return v_workspace;
end
$$;
comment on function beliefdb_citus.create_workspace(text) is
    'Create a workspace and start its audit chain (on Citus, instead of the trigger workspace_audit)';
revoke insert on beliefdb.workspace from beliefdb_app;
revoke insert (name) on beliefdb.workspace from beliefdb_app;

-- wrapper --
-- A routed wrapper: binds the workspace it is given, then runs the call of the original (run_*)
create or replace function {function}({arguments}) returns {result}
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb_citus._bind(p_workspace_id);
    {run}
end
$$;
comment on function {signature} is {comment};
revoke execute on function {signature} from public;

-- run_void --
-- A wrapper's call of an original that returns nothing
perform {call};

-- run_set --
-- A wrapper's call of an original that returns a set or a table
return query select * from {call};

-- run_out --
-- A wrapper's call of an original with OUT arguments
select * into {outs} from {call};
    return;

-- run_value --
-- A wrapper's call of an original that returns one value
return {call};

-- grant --
-- The application role may call a function
grant execute on function {signature} to beliefdb_app;

-- reference_table --
-- A table without a workspace: one copy on every node
select create_reference_table({table});

-- anchor_table --
-- The first table of workspace rows: a new colocation group
select create_distributed_table({table}, 'workspace_id', colocate_with => 'none', shard_count => {shard_count});

-- distributed_table --
-- A table of workspace rows, in the anchor's colocation group
select create_distributed_table({table}, 'workspace_id', colocate_with => {anchor});

-- propagate_function --
-- A function created on every node, routed nowhere
select create_distributed_function({signature});

-- route_function --
-- A wrapper routed by its workspace argument to the node of the anchor's shard for it
select create_distributed_function({signature}, 'p_workspace_id', colocate_with => {anchor}, force_delegation => true);
