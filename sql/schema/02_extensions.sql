-- beliefdb: the extensions it needs, pgvector (vector) and pg_trgm, wherever they are installed.
-- A team's own installation is used where it is (public, a managed service's extensions schema,
-- any schema): beliefdb never moves, updates, drops or re-grants an extension it did not create.
-- One that is missing is created in beliefdb_ext, a schema of its own (not beliefdb: \df beliefdb.*
-- lists beliefdb's functions only). A migration applies this file before its revisions (which name
-- the extensions' types and operators too) and again in its turn.

do $$
declare
    v_name text;
    v_version text;
    v_schema text;
begin
    foreach v_name in array array['vector', 'pg_trgm'] loop
        continue when exists (select from pg_catalog.pg_extension e where e.extname = v_name);
        if not exists (select from pg_catalog.pg_available_extensions a where a.name = v_name) then
            raise exception 'beliefdb needs the extension %, which this PostgreSQL server does not have', v_name
                using errcode = 'object_not_in_prerequisite_state',
                      hint = case v_name when 'vector' then 'install pgvector 0.8.0 or later on the database server'
                                         else 'install PostgreSQL''s contrib modules on the database server' end
                             || ', then beliefdb migrate again';
        end if;
        create schema if not exists beliefdb_ext;
        comment on schema beliefdb_ext is 'The extensions beliefdb created because the database had none (vector, pg_trgm); theirs, not beliefdb''s';
        begin
            execute pg_catalog.format('create extension %I with schema beliefdb_ext', v_name);
        exception when insufficient_privilege then
            -- pg_trgm is trusted (the database's owner may create it); vector is not (a superuser)
            raise exception 'beliefdb needs the extension %, and % may not create it', v_name, current_user
                using errcode = 'object_not_in_prerequisite_state',
                      hint = pg_catalog.format('a superuser runs "create extension %s" once, in any schema (beliefdb '
                                               'uses it where it is), or ask your provider to enable %s; then beliefdb '
                                               'migrate again', v_name, case v_name when 'vector' then 'pgvector' else v_name end);
        end;
    end loop;

    -- recall sets hnsw.iterative_scan (pgvector 0.8.0)
    select e.extversion, e.extnamespace::regnamespace::text into v_version, v_schema
      from pg_catalog.pg_extension e where e.extname = 'vector';
    if pg_catalog.string_to_array(pg_catalog.substring(v_version, '^[0-9.]*[0-9]'), '.')::integer[]
       operator(pg_catalog.<) '{0,8,0}'::integer[] then
        raise exception 'extension vector % is installed in schema %; beliefdb needs pgvector 0.8.0 or later', v_version, v_schema
            using errcode = 'object_not_in_prerequisite_state',
                  hint = 'its owner updates it (alter extension vector update, with pgvector 0.8.0 or later on the server); '
                         'beliefdb never updates an extension it did not create';
    end if;

    -- the migration names their types, operators and operator classes through its search path, which
    -- passes over a schema the migrating user may not use: say so, not "type vector does not exist"
    for v_name, v_schema in
        select e.extname, e.extnamespace::regnamespace::text from pg_catalog.pg_extension e
         where e.extname in ('vector', 'pg_trgm') and not pg_catalog.has_schema_privilege(e.extnamespace, 'usage')
         order by e.extname desc
    loop
        raise exception 'beliefdb uses the extension % where it is, in schema %, and % may not use that schema', v_name, v_schema, current_user
            using errcode = 'object_not_in_prerequisite_state',
                  hint = pg_catalog.format('the schema''s owner runs "grant usage on schema %s to %I", then beliefdb migrate again',
                                           v_schema, current_user);
    end loop;
end
$$;

-- From here on, this session names the extensions' types, operators and functions unqualified:
-- its search path is pg_catalog, the schemas they live in, pg_temp. The functions that use them
-- take that path as theirs (set search_path from current: beliefdb.recall and
-- beliefdb.ensure_vector_index); every other function keeps pg_catalog, pg_temp. (In a block, so
-- that it returns no rows: a script of beliefdb migrate --sql run with psql printed the path.)
do $$
begin
    perform pg_catalog.set_config('search_path',
                                  'pg_catalog, ' || pg_catalog.string_agg(distinct pg_catalog.quote_ident(n.nspname), ', ')
                                  || ', pg_temp', false)
       from pg_catalog.pg_extension e
       join pg_catalog.pg_namespace n on n.oid = e.extnamespace
      where e.extname in ('vector', 'pg_trgm');
end
$$;
