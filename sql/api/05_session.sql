-- beliefdb: what a session is: its clock, the workspace it is bound to, the principal acting in it
-- (docs/rules.md).
-- The application role calls them, and so do the tables' column defaults (schema/10_tables.sql):
-- they are created before the tables.

-- The clock every default and rule reads; tests and as-of tooling set beliefdb.now. Any session
-- may set it and read; a write while it is set is refused unless the login is a member of
-- beliefdb_clock (internal/28_audit.sql, BD010), so the clock itself stays one setting read.
-- A bulk ingest (api/57_bulk.sql) records each document of its transaction at the moment it came
-- to it (beliefdb.batch_clock), as it would have been one by one, so that rule 8 orders them the same
-- way. Any session can set that setting: it counts only while a batch runs (this session's
-- temporary table beliefdb_audit_batch exists and belongs to the acting role, the owner, as
-- beliefdb._audit_batch asks; the batch sets the setting itself after its lock, before each
-- document), and within this transaction's own span (from its start to the real time now). A
-- writer is dated when it took its workspace's write lock (beliefdb._lock_workspace sets
-- beliefdb.locked_at at every lock, from the owner's record of the transaction's first one, so a
-- value a caller set is replaced): dated from the start of its transaction, a writer that waited for
-- the lock recorded its rows before those of the writer it waited for, and an as-of question between
-- the two saw the later text as in force before the earlier one.
-- What an expiry changes is dated when the valid time ended (rule 16): while beliefdb processes the
-- beliefs that expired at one moment (beliefdb._process_expiries), the clock is that moment. The
-- setting beliefdb.expiry_clock only says to look: the moment is the one this session's temporary
-- table beliefdb_expiry_clock holds while it does so, and counts only while that table belongs to the
-- acting role (the owner, whose rights beliefdb's functions run with), which the application role
-- can neither make nor write: setting it dates nothing.
-- plpgsql, not SQL: a SQL function with a sub-select and its own search_path is never inlined and
-- runs through the SQL-function executor at every call (~10 µs), and every column default of every
-- row written calls it; this body costs a fourth of that and gives the same moment.
create or replace function beliefdb.clock() returns timestamptz
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_at timestamptz;
begin
    if coalesce(current_setting('beliefdb.expiry_clock', true), '') <> '' and exists (
            select from pg_catalog.pg_class c
             where c.oid = pg_catalog.to_regclass('pg_temp.beliefdb_expiry_clock') and c.relpersistence = 't'
               and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)) then
        -- (a statement of its own: it is planned only once the table exists)
        v_at := (select e.at from pg_temp.beliefdb_expiry_clock e limit 1);
        if v_at is not null then
            return v_at;
        end if;
    end if;
    v_at := nullif(current_setting('beliefdb.now', true), '')::timestamptz;
    if v_at is not null then
        return v_at;
    end if;
    v_at := nullif(current_setting('beliefdb.batch_clock', true), '')::timestamptz;
    if v_at between now() and clock_timestamp() and exists (
            select from pg_catalog.pg_class c
             where c.oid = pg_catalog.to_regclass('pg_temp.beliefdb_audit_batch') and c.relpersistence = 't'
               and c.relowner = (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)) then
        return v_at;
    end if;
    v_at := nullif(current_setting('beliefdb.locked_at', true), '')::timestamptz;
    if v_at between now() and clock_timestamp() then
        return v_at;
    end if;
    return now();
end
$$;
comment on function beliefdb.clock() is 'Current time (a writer''s: when it took the workspace lock; a bulk ingest''s: when it came to the document; while expiries are processed, when they ended), or the beliefdb.now setting when a test or tool fixed it (writing with it fixed needs beliefdb_clock)';

-- The workspace this session is bound to (row-level security reads it). A login made by beliefdb
-- agent create is bound to one workspace (beliefdb.agent_login): its sessions get that workspace,
-- and a beliefdb.workspace_id setting naming another is refused, so such a client cannot re-bind
-- itself by setting it. Every other session (the schema owner's: the CLI, the library, the servers,
-- which set role beliefdb_app after binding) is bound by the setting. session_user, unlike
-- current_user, is the login and no set role changes it. plpgsql: the body reads a table created
-- after this file (schema/10_tables.sql); with its owner's rights, since the application role may
-- not read that table.
create or replace function beliefdb.current_workspace_id() returns uuid
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_setting uuid;
    v_bound uuid[];
    v_made_in name;
    v_copy_of name;
begin
    -- (one cast, in a block that catches only its failure: a setting that is no uuid is said in words,
    -- not "invalid input syntax for type uuid", from every view and function; a regular expression
    -- checking it first cost more than the block, 6 µs a call against under 1)
    begin
        v_setting := nullif(pg_catalog.current_setting('beliefdb.workspace_id', true), '')::uuid;
    exception when invalid_text_representation then
        raise exception 'beliefdb.workspace_id is not a workspace id: %',
            pg_catalog.quote_literal(pg_catalog.current_setting('beliefdb.workspace_id', true))
            using errcode = 'BD003',
                  hint = 'set it to a workspace''s id (select id, name from beliefdb.workspace), or reset it';
    end;
    -- with the owner's rights current_user is the owner: a session it logged in (the usual case) skips the lookup
    if session_user = current_user then
        return v_setting;
    end if;
    select pg_catalog.array_agg(a.workspace_id), pg_catalog.min(a.made_in::text) into v_bound, v_made_in
      from beliefdb.agent_login a
     where a.role_name = session_user::text;
    if v_bound is null then
        -- roles are the cluster's: an agent's login made in another database is bound to nothing here
        if pg_catalog.shobj_description(session_user::text::regrole, 'pg_authid') like 'beliefdb agent login%' then
            raise exception 'login % is an agent of another database (beliefdb agent create): it has no workspace here',
                session_user using errcode = '42501';
        end if;
        return v_setting;
    end if;
    if pg_catalog.cardinality(v_bound) > 1 then
        raise exception 'login % is bound to more than one workspace: drop it and create it again', session_user
            using errcode = '42501';
    end if;
    -- a copy of another database of this server (its dump restored, or made from it as a template) holds
    -- that database's bindings, while their roles are the cluster's: the original's agents are not
    -- this one's (a database renamed or dropped since is no other: the role is this one's then)
    if v_made_in is distinct from pg_catalog.current_database() then
        select d.datname into v_copy_of from pg_catalog.pg_database d where d.datname = v_made_in;
    end if;
    if v_copy_of is not null then
        raise exception 'login % is an agent of database %, and this database is a copy of it: make this one''s own agents (beliefdb agent create), and remove the copied binding (beliefdb agent drop %)',
            session_user, v_copy_of, session_user using errcode = '42501';
    end if;
    if v_setting <> v_bound[1] then
        raise exception 'login % is bound to workspace %: it cannot act in another (beliefdb.workspace_id is %)',
            session_user, coalesce((select pg_catalog.quote_literal(w.name) from beliefdb.workspace w
                                     where w.id = v_bound[1]), v_bound[1]::text), v_setting
            using errcode = '42501';
    end if;
    return v_bound[1];
end
$$;
comment on function beliefdb.current_workspace_id() is 'Workspace of this session: the one its login is bound to (beliefdb.agent_login), else the beliefdb.workspace_id setting';

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

-- Bind this session to a workspace by name, as the CLI and the library do: for a DBA in psql
-- (then `set role beliefdb_app` to see what the application sees). Only a session logged in as
-- the schema's owner (or a member of it) may choose; an agent's login (beliefdb agent create, its
-- role commented so) is bound by what it is, and a login made by hand binds by the setting itself.
create or replace function beliefdb.use_workspace(p_name text) returns uuid
language plpgsql volatile
set search_path = pg_catalog, pg_temp
as $$
declare
    v_id uuid;
begin
    if not exists (select from pg_catalog.pg_namespace n
                    where n.nspname = 'beliefdb' and pg_catalog.pg_has_role(session_user, n.nspowner, 'member')) then
        if pg_catalog.shobj_description(session_user::text::regrole, 'pg_authid') like 'beliefdb agent login%' then
            raise exception 'only a session of the schema''s owner may choose its workspace; % is bound by its login', session_user
                using errcode = 'BD005';
        end if;
        raise exception 'only a session of the schema''s owner may choose its workspace by name; % binds by the setting beliefdb.workspace_id', session_user
            using errcode = 'BD005',
                  hint = pg_catalog.format('select set_config(''beliefdb.workspace_id'', (select id::text from beliefdb.workspace '
                                           'where name = %L), false)', p_name);
    end if;
    select w.id into v_id from beliefdb.workspace w where w.name = p_name;
    if v_id is null then
        raise exception 'unknown workspace %', pg_catalog.quote_literal(p_name)
            using errcode = 'BD003', hint = 'select name from beliefdb.workspace';
    end if;
    perform pg_catalog.set_config('beliefdb.workspace_id', v_id::text, false);
    return v_id;
end
$$;
comment on function beliefdb.use_workspace(text) is 'Bind this session to the named workspace (sessions of the schema''s owner); returns its id';

-- Whether this session may see the workspace p_id in the directory (beliefdb.workspace, under
-- row-level security, api/80_privileges.sql): an agent's login (beliefdb agent create) sees only the
-- workspace it is bound to, the one it may act in, and one made in another database sees none here;
-- every other session (the schema owner's, which chooses its workspace by name) sees every one.
create or replace function beliefdb.workspace_visible(p_id uuid) returns boolean
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (plpgsql, as current_workspace_id: this file applies before the tables it reads are made)
    if session_user = current_user then
        return true;  -- the owner's session: no lookup
    end if;
    if exists (select from beliefdb.agent_login a where a.role_name = session_user::text) then
        return exists (select from beliefdb.agent_login a where a.role_name = session_user::text and a.workspace_id = p_id);
    end if;
    -- an agent's login made in another database is bound to nothing here: it sees none
    return coalesce(pg_catalog.shobj_description((select r.oid from pg_catalog.pg_roles r where r.rolname = session_user),
                                                 'pg_authid'), '') not like 'beliefdb agent login%';
end
$$;
comment on function beliefdb.workspace_visible(uuid) is 'Whether this session sees the workspace in the directory: an agent''s login only its own, other sessions every one';

-- Whether this session may read a job submitted by this principal (the select policy of beliefdb.job,
-- api/80_privileges.sql): its payload holds a document not stored yet, which is its submitter's to
-- read, an eraser's (beliefdb_eraser, who forgets what it names) and the schema owner's sessions'
-- (the workers, the servers, the trusted CLI); an agent's login reads its own jobs only. A function,
-- not the expressions in the policy: Citus refuses a policy with a subquery (docs/scale-out.md).
create or replace function beliefdb.job_readable(p_submitted_by text) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_submitted_by = beliefdb.current_principal()
           or pg_catalog.pg_has_role(session_user, 'beliefdb_eraser', 'member')
           or pg_catalog.pg_has_role(session_user, (select n.nspowner from pg_catalog.pg_namespace n
                                                     where n.nspname = 'beliefdb'), 'member')
$$;
comment on function beliefdb.job_readable(text) is 'Whether this session reads a job of this submitter: its own, an eraser''s or the schema owner''s session every one';

-- Whether this session may create the workspace p_id (the insert policy of the directory,
-- api/80_privileges.sql): one it would see (workspace_visible). An agent's login acts in its own
-- workspace only, and a plain insert made one (with its audit chain) it then could not see: it is
-- refused in words, where the policy alone would say "new row violates row-level security policy".
-- A policy, not a trigger: the directory is a reference table on Citus (docs/scale-out.md).
create or replace function beliefdb.workspace_creatable(p_id uuid, p_name text) returns boolean
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    if beliefdb.workspace_visible(p_id) then
        return true;
    end if;
    raise exception 'login % acts in % only: it cannot create workspace %', session_user,
        coalesce((select 'workspace ' || pg_catalog.string_agg(pg_catalog.quote_literal(w.name), ', ')
                    from beliefdb.agent_login a join beliefdb.workspace w on w.id = a.workspace_id
                   where a.role_name = session_user::text), 'another database'),
        pg_catalog.quote_literal(p_name)
        using errcode = '42501';
end
$$;
comment on function beliefdb.workspace_creatable(uuid, text) is 'Whether this session may create this workspace: one it would see (an agent''s login: none), refused in words';

-- What binds a workspace, the hint of every "no workspace is bound" (BD003): use_workspace in a
-- session of the schema's owner, the setting in any other login's (an agent's login is bound by what it
-- is, and never asks).
create or replace function beliefdb.workspace_hint() returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case when exists (select from pg_catalog.pg_namespace n
                              where n.nspname = 'beliefdb'
                                and pg_catalog.pg_has_role(session_user, n.nspowner, 'member'))
                then 'bind one first: in psql, select beliefdb.use_workspace(''name''); the CLI (-w NAME) and '
                     'the library (workspace=) bind one for you'
                else 'bind one first: in psql, select set_config(''beliefdb.workspace_id'', (select id::text from '
                     'beliefdb.workspace where name = ''name''), false); the CLI (-w NAME) and the library '
                     '(workspace=) bind one for you' end
$$;
comment on function beliefdb.workspace_hint() is 'What binds a workspace in this session: the hint of no workspace is bound (BD003)';

-- What the workspace views (api/75_views.sql) ask first: a session subject to row-level security
-- with no workspace bound would see no rows and could not tell why, so it is told.
create or replace function beliefdb.workspace_bound() returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if beliefdb.current_workspace_id() is not null then
        return true;
    end if;
    -- a reader that row-level security does not filter reads every workspace, each row named
    if exists (select from pg_catalog.pg_roles r where r.rolname = current_user and (r.rolsuper or r.rolbypassrls))
       or exists (select from pg_catalog.pg_class c
                   where c.oid = 'beliefdb.belief'::regclass and pg_catalog.pg_has_role(current_user, c.relowner, 'usage')) then
        return true;
    end if;
    raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
end
$$;
comment on function beliefdb.workspace_bound() is 'True when a workspace is bound or the reader sees every workspace; otherwise raises unknown_workspace';

-- Whether this session writes nothing, so that a read takes the path that writes nothing
-- (beliefdb.expire_before_read processes no expiry; impact answers on what is stored): a read-only
-- transaction (a hot standby, default_transaction_read_only), where every write is refused, or a role
-- that may not take the workspace's write lock, which every write takes first (a login granted
-- beliefdb_reader and not beliefdb_app: it executes no writing function). The schema owner's sessions,
-- beliefdb_app's and a superuser's may take it. As the caller: current_user is who asks. (The lock's
-- function is found in the catalog by name: this file applies before api/50_audit.sql creates it.)
create or replace function beliefdb.read_only_session() returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select pg_catalog.current_setting('transaction_read_only') = 'on'
           or not exists (select from pg_catalog.pg_proc p
                           where p.pronamespace = 'beliefdb'::regnamespace and p.proname = 'lock_workspace'
                             and pg_catalog.has_function_privilege(p.oid, 'execute'))
$$;
comment on function beliefdb.read_only_session() is 'Whether this session writes nothing: a read-only transaction (a standby), or a role that may not take the write lock (beliefdb_reader)';
