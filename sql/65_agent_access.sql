-- beliefdb: how agents reach it over the network. The HTTP and MCP servers take the principal and
-- the workspace from a bearer token (beliefdb.api_token), never from the request.

-- Tokens are the schema owner's: the application role may not read or write them, not even their
-- hashes; row-level security keeps the rule of every workspace table all the same.
alter table beliefdb.api_token enable row level security;
drop policy if exists workspace_isolation on beliefdb.api_token;
create policy workspace_isolation on beliefdb.api_token to beliefdb_app
    using (workspace_id = (select beliefdb.current_workspace_id()))
    with check (workspace_id = (select beliefdb.current_workspace_id()));

-- Making and revoking tokens is appended to the workspace's audit chain (rule 12), as every change
-- of workspace rows is: the token's id and a hash of the row, never its hash of the secret.
do $$
declare
    v_op text;
begin
    foreach v_op in array array['insert', 'update', 'delete'] loop
        execute pg_catalog.format(
            'create or replace trigger %I after %s on beliefdb.api_token referencing %s table as changed_rows '
            'for each statement execute function beliefdb.audit_rows(''id'')',
            'api_token_audit_' || v_op, v_op, case v_op when 'delete' then 'old' else 'new' end);
    end loop;
end
$$;

-- Who a bearer token speaks for: the principal and workspace of the token whose secret hashes to
-- p_token_sha256, unless it was revoked; no row for anything else. It runs before a workspace is
-- bound (the server binds the one it returns), so it reads with its owner's rights, and it
-- returns nothing a caller could use without holding the secret.
create or replace function beliefdb.authenticate(p_token_sha256 bytea)
returns table (token_id uuid, workspace_id uuid, workspace text, principal text, read_only boolean)
language sql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
    select t.id, t.workspace_id, w.name, t.principal, t.read_only
      from beliefdb.api_token t
      join beliefdb.workspace w on w.id = t.workspace_id
     where t.token_sha256 = p_token_sha256 and t.revoked_at is null
$$;
comment on function beliefdb.authenticate(bytea) is 'The principal and workspace a bearer token (by the SHA-256 of its secret) speaks for, unless revoked';

-- Functions are not public (60_privileges.sql, which ran before this file); the allow-list of the
-- application role, one line each.
revoke execute on function beliefdb.authenticate(bytea) from public;
grant execute on function beliefdb.authenticate(bytea) to beliefdb_app;
