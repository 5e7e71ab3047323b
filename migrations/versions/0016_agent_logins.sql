-- Frozen at revision 0015: per-agent logins bound to a workspace. Never edit: change tables through
-- a new revision, and sql/schema/10_tables.sql with it. Row-level security and the policy
-- (sql/api/80_privileges.sql) and beliefdb.current_workspace_id (sql/api/05_session.sql) are
-- re-applied.

-- Login roles bound to one workspace (revision 0015): for a session logged in as one of them,
-- beliefdb.current_workspace_id is this workspace and a beliefdb.workspace_id setting naming another
-- is refused, so a direct database client cannot re-bind itself. Made and dropped with the role by
-- the schema owner (beliefdb agent create | drop); the application role may not read it. No foreign
-- key to the workspace: deleting the workspace must not delete the binding, which would leave the
-- login free to bind any other; a login bound to a deleted workspace sees and writes nothing.
create table beliefdb.agent_login (
    workspace_id uuid not null,
    role_name text not null check (role_name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
    created_at timestamptz not null default pg_catalog.now(),
    primary key (workspace_id, role_name)
);
comment on table beliefdb.agent_login is 'Login roles made by beliefdb agent create, each bound to the one workspace its sessions act in';

create index agent_login_role on beliefdb.agent_login (role_name);
alter table beliefdb.agent_login alter column workspace_id set statistics 0;
