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
