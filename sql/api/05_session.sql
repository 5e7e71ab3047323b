-- beliefdb: what a session is: its clock, the workspace it is bound to, the principal acting in it.
-- The application role calls them, and so do the tables' column defaults (schema/10_tables.sql):
-- they are created before the tables.

-- The clock every default and rule reads; tests and as-of tooling set beliefdb.now. Any session
-- may set it and read; a write while it is set is refused unless the login is a member of
-- beliefdb_clock (internal/28_audit.sql, BD010), so the clock itself stays one setting read.
create or replace function beliefdb.clock() returns timestamptz
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(nullif(current_setting('beliefdb.now', true), '')::timestamptz, now())
$$;
comment on function beliefdb.clock() is 'Current time, or the beliefdb.now setting when a test or tool fixed it (writing with it fixed needs beliefdb_clock)';

-- The workspace this session is bound to (row-level security reads it).
create or replace function beliefdb.current_workspace_id() returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select nullif(current_setting('beliefdb.workspace_id', true), '')::uuid
$$;
comment on function beliefdb.current_workspace_id() is 'Workspace bound to this session by the beliefdb.workspace_id setting';

-- Who is acting: stamped by the session, never read from a payload. A session logged in as
-- the schema's owner (the CLI and the library, which then set role beliefdb_app) names its
-- principal with the beliefdb.principal setting; any other login (one role per agent, granted
-- beliefdb_app) is its own principal and cannot claim another's name.
create or replace function beliefdb.current_principal() returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when pg_catalog.pg_has_role(session_user, n.nspowner, 'member')
                then coalesce(nullif(pg_catalog.current_setting('beliefdb.principal', true), ''), session_user::text)
                else session_user::text end
      from pg_catalog.pg_namespace n
     where n.nspname = 'beliefdb'
$$;
comment on function beliefdb.current_principal() is 'Principal acting in this session: the login role, or the beliefdb.principal setting of an owner''s session';
