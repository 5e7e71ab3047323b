-- beliefdb: the targets of a retraction or an impact (docs/rules.md, rule 5): node, source and
-- source-version ids expanded to node ids, and a name or id prefix a person gives resolved.
-- Retraction (internal/38_decisions.sql), a new version in force (internal/36_claims.sql) and
-- beliefdb.impact (api/55_impact.sql) read them.

-- Sources expand to their fragments; everything else is a node id. (plpgsql, not sql: the
-- statement is planned once per session, not at every call.) The versions named and those of the
-- sources named are looked up apart, each by its index: one condition "source or id" on
-- source_version can use neither, and read every version of the workspace (150,000 at 10M nodes).
create or replace function beliefdb.expand_targets(p_workspace_id uuid, p_ids uuid[]) returns uuid[]
language plpgsql stable
set search_path = pg_catalog, pg_temp
set plan_cache_mode = force_generic_plan
as $$
begin
    return (
        select coalesce(array_agg(distinct x.id), '{}')
          from (
            select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = any(p_ids)
            union all
            select f.id
              from (select v.id
                      from beliefdb.source_version v
                     where v.workspace_id = p_workspace_id and v.source_id = any(p_ids)
                    union
                    select v.id
                      from beliefdb.source_version v
                     where v.workspace_id = p_workspace_id and v.id = any(p_ids)) v
              join beliefdb.fragment f on f.workspace_id = p_workspace_id and f.source_version_id = v.id
          ) x);
end
$$;
comment on function beliefdb.expand_targets(uuid, uuid[]) is 'Node ids for a list of node, source and source-version ids';

-- What a retraction or an impact names, from what a person calls it: a source by its name (or its
-- id), a source version by its id, or any node by its id or a unique prefix (resolve_node); a prefix
-- of at least 4 hex digits names a source or a source version too, unique among them and the nodes
-- (BD006 when it begins more than one). A whole id names what has that id before a source of that name.
create or replace function beliefdb.resolve_target(p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_hex text;
    v_id uuid;
    v_others uuid[] := '{}';
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    if v_ref = '' then  -- (no reference at all: bad input, as resolve_node says it, not a name naming nothing)
        raise exception 'no node, source or source version given: give an id or at least 4 characters of one, or a source''s name'
            using errcode = 'BD005';
    end if;
    if v_ref ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' then
        -- a whole id, the usual reference: what has that id, then a source of that name (ids are the
        -- database's, names anyone's: a source named with a belief's id must not stand for the belief);
        -- beliefdb.impact looks whole node ids up first too, in one statement for all its references
        select coalesce((select s.id from beliefdb.source s where s.workspace_id = v_ws and s.id = v_ref::uuid),
                        (select v.id from beliefdb.source_version v where v.workspace_id = v_ws and v.id = v_ref::uuid),
                        (select n.id from beliefdb.node n where n.workspace_id = v_ws and n.id = v_ref::uuid),
                        (select s.id from beliefdb.source s where s.workspace_id = v_ws and s.name = p_ref))
          into v_id;
    else
        select s.id into v_id from beliefdb.source s where s.workspace_id = v_ws and s.name = p_ref;
    end if;
    if v_id is not null then
        return v_id;
    elsif v_ref !~ '^[0-9a-f-]+$' then  -- (no id nor the start of one: a name, naming nothing)
        raise exception 'no node, source or source version is named %', p_ref using errcode = 'BD004';
    end if;
    -- a prefix of at least 4 hex digits may begin a source's or a source version's id as well as a
    -- node's (the pictures show a source's short id): it names one of them, unique among them all
    v_hex := replace(v_ref, '-', '');
    if v_ref ~ '^[0-9a-f-]{4,36}$' and length(v_hex) >= 4
       and v_ref = left(rpad(v_hex, 32, '0')::uuid::text, length(v_ref)) then
        v_others := array(select x.id
                            from (select s.id from beliefdb.source s
                                   where s.workspace_id = v_ws
                                     and s.id between rpad(v_hex, 32, '0')::uuid and rpad(v_hex, 32, 'f')::uuid
                                  union all
                                  select v.id from beliefdb.source_version v
                                   where v.workspace_id = v_ws
                                     and v.id between rpad(v_hex, 32, '0')::uuid and rpad(v_hex, 32, 'f')::uuid) x
                           limit 2);
    end if;
    -- (the subtransaction of an exception block, only when the quick answers found nothing)
    begin
        v_id := beliefdb.resolve_node(p_ref);
    exception when sqlstate 'BD004' then
        if cardinality(v_others) = 1 then
            return v_others[1];
        elsif cardinality(v_others) > 1 then
            raise exception 'id prefix % is ambiguous: it begins the ids of several sources or source versions; give more characters of the id', p_ref
                using errcode = 'BD006';
        end if;
        raise exception 'no node, source or source version is named %', p_ref using errcode = 'BD004';
    end;
    if cardinality(v_others) > 0 then
        raise exception 'id prefix % is ambiguous: it begins the id of a node and of a source or source version; give more characters of the id', p_ref
            using errcode = 'BD006';
    end if;
    return v_id;
end
$$;
comment on function beliefdb.resolve_target(text) is 'Resolve a source name (or id), a source version id, or a node, source or source version id or unique id prefix in the bound workspace (a whole id names what has it before a source of that name)';

-- A source by its name, or one version of it by its number, as retract names them (--source, --version):
-- the source's id, or that version's, which beliefdb.impact takes (impact --source NAME --version N,
-- where a version's id was the only way to name it). BD004 for an unknown source, or a version it does
-- not have, naming those it has (beliefdb._retraction_targets, as retract says it). Owner rights, for
-- retract's internals, confined to the bound workspace.
create or replace function beliefdb.resolve_source(p_name text, p_version integer default null) returns uuid
language plpgsql stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_id uuid := beliefdb._retraction_target(v_ws, 'source', p_name);
begin
    if v_id is null then
        raise exception 'unknown source %', coalesce(pg_catalog.quote_literal(p_name), 'null') using errcode = 'BD004';
    elsif p_version is null then
        return v_id;
    end if;
    return (beliefdb._retraction_targets(v_ws, 'version', v_id, p_version))[1];
end
$$;
comment on function beliefdb.resolve_source(text, integer) is 'Resolve a source by its name, or one version of it by number, in the bound workspace (as retract names them)';
