-- beliefdb: schema and the application role.
-- Everything beliefdb creates lives in schema beliefdb; nothing goes to public.
-- Run by every migration, and alone by beliefdb db roles and db restore (beliefdb.migrate.create_roles):
-- a refusal's hint names the command to run again, the setting beliefdb.again (unset: beliefdb migrate).

-- A user who may not create schemas in this database is told who grants it (the database's owner).
do $$
begin
    create schema if not exists beliefdb;
exception when insufficient_privilege then
    raise exception 'beliefdb creates its schema beliefdb, and % may not create a schema in database %', current_user, pg_catalog.current_database()
        using errcode = 'insufficient_privilege',
              hint = pg_catalog.format('the database''s owner runs "grant create on database %I to %I", then %s again',
                                       pg_catalog.current_database(), current_user,
                                       coalesce(nullif(pg_catalog.current_setting('beliefdb.again', true), ''), 'beliefdb migrate'));
end
$$;

comment on schema beliefdb is 'beliefdb: beliefs, their exact evidence, and what was built on them';

-- The role the CLI and the library act as. It owns nothing and is subject to row-level security.
-- A login without createrole gets what a superuser must run first (docs/dba.md, Migrations).
do $$
begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'beliefdb_app') then
        create role beliefdb_app nologin;
    end if;
exception when insufficient_privilege then
    raise exception 'beliefdb needs the roles beliefdb_app, beliefdb_clock, beliefdb_eraser and beliefdb_reader, and % may not create them', current_user
        using errcode = 'insufficient_privilege',
              hint = pg_catalog.format('a superuser runs "create role beliefdb_app nologin; create role beliefdb_clock nologin; '
                                       'create role beliefdb_eraser nologin; create role beliefdb_reader nologin; '
                                       'grant beliefdb_app, beliefdb_clock to %I" once, '
                                       'then %s again', current_user,
                                       coalesce(nullif(pg_catalog.current_setting('beliefdb.again', true), ''), 'beliefdb migrate'));
end
$$;

-- Two rights a login is granted by membership, never by being the application role:
-- beliefdb_clock: a session may fix its clock (beliefdb.now) and still write, so what it writes is
--   dated then (tests, as-of tooling, docs/examples). Anyone else's write with a fixed clock is
--   refused (clock_not_allowed, internal/28_audit.sql): no agent rewrites what was believed when.
--   Superusers count as members of every role.
-- beliefdb_eraser: a data-protection officer's right to forget anything of its workspace, whoever
--   owns it (internal/42_forgetting.sql). Only an explicit grant counts: a superuser is no eraser
--   by being one, since the library's sessions log in as the schema's owner for every principal.
-- And a role of its own, for a login that must read and never write (an auditor in psql):
-- beliefdb_reader: select on the workspace tables and views, under the same row-level security as
--   beliefdb_app, and execute on the API functions that only read (api/80_privileges.sql, its own
--   allow-list); no write, directly or through a function. A member binds a workspace by the
--   setting beliefdb.workspace_id, as any login made by hand.
do $$
declare
    v_missing text;
begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'beliefdb_clock') then
        create role beliefdb_clock nologin;
    end if;
    if not exists (select from pg_catalog.pg_roles where rolname = 'beliefdb_eraser') then
        create role beliefdb_eraser nologin;
    end if;
    if not exists (select from pg_catalog.pg_roles where rolname = 'beliefdb_reader') then
        create role beliefdb_reader nologin;
    end if;
exception when insufficient_privilege then
    -- (the hint creates only the missing ones: an installation of an earlier release lacks beliefdb_reader alone)
    select pg_catalog.string_agg(pg_catalog.format('create role %s nologin', r.name), '; ' order by r.n) into v_missing
      from unnest(array['beliefdb_clock', 'beliefdb_eraser', 'beliefdb_reader']) with ordinality r (name, n)
     where not exists (select from pg_catalog.pg_roles a where a.rolname = r.name);
    raise exception 'beliefdb needs the roles beliefdb_clock, beliefdb_eraser and beliefdb_reader, and % may not create them', current_user
        using errcode = 'insufficient_privilege',
              hint = pg_catalog.format('a superuser runs "%s; grant beliefdb_clock to %I" once, then %s again',
                                       coalesce(v_missing, 'create role beliefdb_reader nologin'), current_user,
                                       coalesce(nullif(pg_catalog.current_setting('beliefdb.again', true), ''), 'beliefdb migrate'));
end
$$;

-- The migrating user may switch to the application role (set role beliefdb_app), and fix the
-- clock as the test suite and docs/examples do (it owns the schema: it could write any date anyway).
-- From PostgreSQL 16 on, a role made by a non-superuser with createrole (the first migration's, above)
-- is granted to its maker with the admin option alone: a membership without set, so the grant is
-- still made.
do $$
declare
    v_switch text := case when pg_catalog.current_setting('server_version_num')::integer >= 160000
                          then 'set' else 'member' end;
begin
    if not pg_catalog.pg_has_role(current_user, 'beliefdb_app', v_switch) then
        execute pg_catalog.format('grant beliefdb_app to %I', current_user);
    end if;
    if not pg_catalog.pg_has_role(current_user, 'beliefdb_clock', 'member') then
        execute pg_catalog.format('grant beliefdb_clock to %I', current_user);
    end if;
exception when insufficient_privilege then
    raise exception 'the user who migrates is a member of beliefdb_app and beliefdb_clock, and % is not and may not grant them', current_user
        using errcode = 'insufficient_privilege',
              hint = pg_catalog.format('a superuser runs "grant beliefdb_app, beliefdb_clock to %I" once, then %s again',
                                       current_user,
                                       coalesce(nullif(pg_catalog.current_setting('beliefdb.again', true), ''), 'beliefdb migrate'));
end
$$;
