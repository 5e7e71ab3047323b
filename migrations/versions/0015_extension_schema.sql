-- Revision 0015: beliefdb's own extensions leave schema beliefdb (issue 19).
-- Never edit once released: change tables through a new revision, and sql/10_tables.sql with it.

-- Up to revision 0014 beliefdb created pgvector and pg_trgm in schema beliefdb, so \df beliefdb.*
-- listed their functions among its own. Those in schema beliefdb are beliefdb's (it created them,
-- or a DBA moved them there as it asked): they move to beliefdb_ext, where a new database gets them
-- (sql/schema/02_extensions.sql). Columns, indexes and operator classes name them by oid and follow.
-- An extension installed in any other schema is a team's, and is left as it is.
do $$
declare
    v_ext record;
    v_function regprocedure;
begin
    for v_ext in select e.oid, e.extname from pg_catalog.pg_extension e
                  where e.extname in ('vector', 'pg_trgm') and e.extnamespace = 'beliefdb'::regnamespace
                  order by e.extname loop
        create schema if not exists beliefdb_ext;
        comment on schema beliefdb_ext is 'The extensions beliefdb created because the database had none (vector, pg_trgm); theirs, not beliefdb''s';
        execute pg_catalog.format('alter extension %I set schema beliefdb_ext', v_ext.extname);
        -- in schema beliefdb their functions were revoked from public with beliefdb's own and granted
        -- to beliefdb_app (sql/api/80_privileges.sql): back to what create extension gives them,
        -- executable by everyone, as in a new database
        for v_function in select d.objid::regprocedure from pg_catalog.pg_depend d
                           where d.classid = 'pg_catalog.pg_proc'::regclass and d.refobjid = v_ext.oid
                             and d.deptype = 'e' loop
            execute pg_catalog.format('grant execute on function %s to public', v_function);
            execute pg_catalog.format('revoke execute on function %s from beliefdb_app', v_function);
        end loop;
    end loop;
end
$$;

-- The revisions after this one name the extensions where they now are (as sql/schema/02_extensions.sql).
select pg_catalog.set_config('search_path',
                             'pg_catalog, ' || pg_catalog.string_agg(distinct pg_catalog.quote_ident(n.nspname), ', ')
                             || ', pg_temp', false) as search_path
  from pg_catalog.pg_extension e
  join pg_catalog.pg_namespace n on n.oid = e.extnamespace
 where e.extname in ('vector', 'pg_trgm');
