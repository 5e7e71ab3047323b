-- beliefdb: stored confidence, recomputed from its factors (docs/rules.md, rule 9).
-- After api/48_confidence.sql: these language sql bodies call beliefdb.confidence_factors, and
-- the body of a language sql function is checked when it is created.

-- Recompute stored confidence for a set of beliefs from their factors; returns the beliefs whose
-- stored confidence changed.
create or replace function beliefdb._refresh_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns uuid[]
language sql
set search_path = pg_catalog, pg_temp
as $$
    with updated as (
        update beliefdb.belief b
           set confidence = least(1, greatest(0, f.weight))
          from unnest(p_beliefs) as t (id)
          cross join lateral (select cf.weight from beliefdb.confidence_factors(p_workspace_id, t.id) cf
                               where cf.factor = 'confidence') f
         where b.workspace_id = p_workspace_id and b.id = t.id
           and b.confidence is distinct from least(1, greatest(0, f.weight))
        returning b.id
    )
    select coalesce(array_agg(u.id), '{}') from updated u
$$;
comment on function beliefdb._refresh_confidence(uuid, uuid[]) is 'Store the computed confidence of beliefs; returns those whose confidence changed';

-- The same, returning how many changed.
create or replace function beliefdb._recompute_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns integer
language sql
set search_path = pg_catalog, pg_temp
as $$
    select cardinality(beliefdb._refresh_confidence(p_workspace_id, p_beliefs))
$$;
comment on function beliefdb._recompute_confidence(uuid, uuid[]) is 'Store the computed confidence of beliefs; returns how many changed';
