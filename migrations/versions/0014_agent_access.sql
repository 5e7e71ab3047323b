-- Frozen at revision 0014: bearer tokens of the HTTP and MCP servers, and the result type of a
-- decision recorded in a run. Never edit: change tables through a new revision, and
-- sql/schema/10_tables.sql with it. Row-level security and the policy (sql/api/80_privileges.sql),
-- the audit triggers (sql/internal/28_audit.sql), beliefdb.authenticate and beliefdb.decide_in_run
-- (sql/api/62_agent_access.sql) are re-applied.

-- Bearer tokens of the HTTP and MCP servers (revision 0014): each binds one principal to one
-- workspace, so a client over the network can neither claim another principal nor re-bind itself
-- to another workspace. Only the SHA-256 of the secret is stored; the secret is shown once. Made,
-- listed and revoked by the schema owner; the application role only asks beliefdb.authenticate.
create table beliefdb.api_token (
    workspace_id uuid not null references beliefdb.workspace (id) on delete cascade,
    id uuid not null default pg_catalog.gen_random_uuid(),
    token_sha256 bytea not null check (pg_catalog.length(token_sha256) = 32),
    principal text not null check (principal ~ '^[A-Za-z0-9][A-Za-z0-9_.@:+-]{0,127}$'),
    read_only boolean not null default false,
    created_at timestamptz not null default pg_catalog.now(),
    revoked_at timestamptz,
    primary key (workspace_id, id)
);
comment on table beliefdb.api_token is 'Bearer tokens of the servers: the SHA-256 of a secret shown once, the principal and workspace it binds, read-only or not, revoked or not';

create index api_token_sha256 on beliefdb.api_token (token_sha256);
alter table beliefdb.api_token alter column workspace_id set statistics 0;

-- A citation a decision of a run could not keep, and why (decide_in_run, rule 19).
create type beliefdb.refusal as (belief text, reason text);
comment on type beliefdb.refusal is 'A citation a decision of a run could not keep (not read in the run, or no longer current), and why';

-- A decision recorded in a run, with the citations it could not keep (decide_in_run, rule 19).
create type beliefdb.run_decision as (id uuid, status text, run uuid, refused beliefdb.refusal[]);
comment on type beliefdb.run_decision is 'A decision recorded in a run: its id and status, the run, and the citations refused';
