-- What the Citus plan (beliefdb/scale/citus.py) reads of a migrated database's catalog, one named
-- statement per block in the format of beliefdb/db/queries.sql (parsed by beliefdb.db.queries.parse).
-- Names are read with search_path = pg_catalog (catalog_search_path), so every expression the
-- catalog deparses names beliefdb's objects schema-qualified.

-- catalog_search_path --
-- Deparse with schema-qualified names (this connection only)
select pg_catalog.set_config('search_path', 'pg_catalog', false);

-- catalog_has_schema --
-- Whether beliefdb was migrated here (its support graph's root table exists)
select pg_catalog.to_regclass('beliefdb.node') is not null as migrated;

-- catalog_tables --
-- Every table of schema beliefdb: whether it holds workspace rows, and whether it has a primary key
select c.relname as name,
       exists (select from pg_catalog.pg_attribute a
                where a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped) as has_workspace,
       exists (select from pg_catalog.pg_constraint k where k.conrelid = c.oid and k.contype = 'p') as has_primary_key
  from pg_catalog.pg_class c
 where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
 order by c.relname;

-- catalog_views --
-- Every view of schema beliefdb
select c.relname as name
  from pg_catalog.pg_class c
 where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('v', 'm')
 order by c.relname;

-- catalog_foreign_keys --
-- Every foreign key of schema beliefdb's tables: columns by name, actions, the columns ON DELETE SET NULL names
select k.conname as name,
       c.relname as "table",
       r.relname as referenced,
       array(select a.attname::text from unnest(k.conkey) with ordinality u (n, i)
               join pg_catalog.pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as columns,
       array(select a.attname::text from unnest(k.confkey) with ordinality u (n, i)
               join pg_catalog.pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i)
           as referenced_columns,
       k.confdeltype::text as on_delete,
       k.confupdtype::text as on_update,
       array(select a.attname::text from unnest(coalesce(k.confdelsetcols, '{}')) with ordinality u (n, i)
               join pg_catalog.pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i)
           as set_null_columns,
       pg_catalog.pg_get_constraintdef(k.oid) as definition
  from pg_catalog.pg_constraint k
  join pg_catalog.pg_class c on c.oid = k.conrelid
  join pg_catalog.pg_class r on r.oid = k.confrelid
 where k.contype = 'f' and c.relnamespace = 'beliefdb'::regnamespace
 order by c.relname, k.conname;

-- catalog_policies --
-- Row-level security policies on schema beliefdb's tables, deparsed, and whether they hold a subquery
select c.relname as "table",
       p.polname as name,
       p.polpermissive as permissive,
       p.polcmd::text as command,
       array(select case when r = 0 then 'public' else pg_catalog.quote_ident(a.rolname) end
               from unnest(p.polroles) r left join pg_catalog.pg_roles a on a.oid = r order by 1) as roles,
       pg_catalog.pg_get_expr(p.polqual, p.polrelid) as using_expression,
       pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid) as check_expression,
       coalesce(p.polqual::text, '') || coalesce(p.polwithcheck::text, '') ~ '\{SUBLINK' as has_subquery
  from pg_catalog.pg_policy p
  join pg_catalog.pg_class c on c.oid = p.polrelid
 where c.relnamespace = 'beliefdb'::regnamespace
 order by c.relname, p.polname;

-- catalog_triggers --
-- The triggers beliefdb created on its tables (not the internal ones of foreign keys)
select c.relname as table_name, t.tgname as name, f.proname as function
  from pg_catalog.pg_trigger t
  join pg_catalog.pg_class c on c.oid = t.tgrelid
  join pg_catalog.pg_proc f on f.oid = t.tgfoid
 where c.relnamespace = 'beliefdb'::regnamespace and not t.tgisinternal
 order by c.relname, t.tgname;

-- catalog_functions --
-- Schema beliefdb's own functions (not its extensions'): signature, result, arguments by mode, body, grant
select p.proname as name,
       pg_catalog.oidvectortypes(p.proargtypes) as identity_types,
       pg_catalog.pg_get_function_arguments(p.oid) as arguments,
       pg_catalog.pg_get_function_result(p.oid) as result,
       p.proretset as returns_set,
       p.prorettype = 'pg_catalog.void'::pg_catalog.regtype as returns_void,
       p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype as is_trigger,
       coalesce(p.proargnames, '{}') as argument_names,
       coalesce(p.proargmodes::text[], array_fill('i'::text, array[p.pronargs])) as argument_modes,
       exists (select from unnest(p.proargtypes) t
                 join pg_catalog.pg_type y on y.oid = t
                 join pg_catalog.pg_class r on r.oid = y.typrelid
                where r.relnamespace = 'beliefdb'::regnamespace and r.relkind in ('r', 'p')) as takes_a_row,
       pg_catalog.has_function_privilege('beliefdb_app', p.oid, 'execute') as granted,
       p.prosrc as body
  from pg_catalog.pg_proc p
 where p.pronamespace = 'beliefdb'::regnamespace and p.prokind = 'f'
   and not exists (select from pg_catalog.pg_depend d
                    where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
 order by p.proname, pg_catalog.oidvectortypes(p.proargtypes);

-- catalog_reserved_words --
-- Key words an identifier must be quoted to be (reserved, or reserved but allowed as a function or type name)
select word from pg_catalog.pg_get_keywords() where catcode in ('R', 'T') order by word;
