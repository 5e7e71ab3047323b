-- beliefdb: schema and the application role.
-- Everything beliefdb creates lives in schema beliefdb; nothing goes to public.

create schema if not exists beliefdb;
comment on schema beliefdb is 'beliefdb: beliefs, their exact evidence, and what was built on them';

-- The role the CLI and the library act as. It owns nothing and is subject to row-level security.
do $$
begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'beliefdb_app') then
        create role beliefdb_app nologin;
    end if;
end
$$;

-- The migrating user may switch to the application role (set role beliefdb_app).
do $$
begin
    if not pg_catalog.pg_has_role(current_user, 'beliefdb_app', 'member') then
        execute pg_catalog.format('grant beliefdb_app to %I', current_user);
    end if;
end
$$;

-- The clock every default and rule reads; tests and as-of tooling set beliefdb.now.
create or replace function beliefdb.clock() returns timestamptz
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(nullif(current_setting('beliefdb.now', true), '')::timestamptz, now())
$$;
comment on function beliefdb.clock() is 'Current time, or the beliefdb.now setting when a test or tool fixed it';

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
