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
-- id), a source version by its id, or any node by its id or a unique prefix (resolve_node). A whole id
-- names what has that id before a source of that name.
create or replace function beliefdb.resolve_target(p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_id uuid;
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
    -- (the subtransaction of an exception block, only when the quick answers found nothing)
    begin
        return beliefdb.resolve_node(p_ref);
    exception when sqlstate 'BD004' then
        raise exception 'no node, source or source version is named %', p_ref using errcode = 'BD004';
    end;
end
$$;
comment on function beliefdb.resolve_target(text) is 'Resolve a source name (or id), a source version id, or a node id or unique id prefix in the bound workspace (a whole id names what has it before a source of that name)';
