-- beliefdb: stored confidence, recomputed from its factors (docs/rules.md, rule 9).
-- After api/48_confidence.sql: these bodies call what it defines (confidence_factors,
-- floored_product), and the body of a language sql function is checked when it is created.

-- The confidence of a set of beliefs at once, each exactly what beliefdb.confidence_factors gives
-- as its last row (the same expressions, in the same types), but computed for the whole set by one
-- statement instead of one call per belief (issue 20: a bulk batch of 10,000 new beliefs spent 20 s
-- in those calls, 1.5 ms each under load). Every row is read from the beliefs out by its keys,
-- lateral behind offset 0 (joined, the plan read the workspace's every evidence row, fragment and
-- justification for a bulk batch, 3 s at a million beliefs), and grouped, never joined to a grouping
-- of the set: planned for the one belief a parameter's `= any` lets the planner expect, such a join
-- read the grouping again for every belief (2,000 corroborations of a second document: 8 minutes).
-- A belief that does not exist has no row.
create or replace function beliefdb._confidences(p_workspace_id uuid, p_beliefs uuid[])
returns table (belief_id uuid, confidence real)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select g.id,
           (coalesce(case g.confidence_kind
                         when 'human_correction' then
                             (select p.weight from beliefdb.confidence_policy p
                               where p.factor = 'correction' and p.key = 'human_correction')
                         when 'derived' then d.product
                         when 'agent_asserted' then
                             case when g.sources > 0 then 1 - g.product
                                  else (select p.weight from beliefdb.confidence_policy p
                                         where p.factor = 'trace' and p.key = 'memory') end
                         else 1 - coalesce(g.product, 1)
                     end::real, 0)
            * coalesce((select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'conflict' and p.key = 'open' and g.status = 'conflicting'), 1)
            -- recency since the belief was last verified (confidence_factors: recency)
            * coalesce(case when g.confidence_kind <> 'derived' then
                           power(0.5, least(v.age_days / h.days, 30))::real end, 1))::real
      from (
            -- each belief's distinct sources that are not retracted, noisy-or (confidence_factors:
            -- sources), and when it was last verified
            select x.id, x.confidence_kind, x.status, x.kind, x.recorded_at, max(x.at) as at,
                   count(x.source) as sources,
                   -- (the filter is needed: greatest ignores a null, so evidence of no source that
                   -- counts, a retracted one's, would count as a source of weight 1)
                   beliefdb.floored_product(sum(ln(greatest(1 - x.weight, 1e-9)) order by x.source)
                                                filter (where x.source is not null)) as product
              from (select b.id, b.confidence_kind, b.status, b.kind, b.recorded_at, w.id as source, w.weight,
                           max(e.created_at) as at
                      -- (each belief by its key, from the distinct ids: as `= any` in the where clause,
                      -- the plan took the workspace for 0.5 % of the table, having no statistics on
                      -- workspace_id, and read all 55,100 beliefs of a 100,000-node workspace through
                      -- another index to find the 250 of a source's retraction)
                      from (select distinct x.id from unnest(p_beliefs) as x (id)) as u
                     cross join lateral (select b.id, b.confidence_kind, b.status, b.kind, b.recorded_at
                                           from beliefdb.belief b
                                          where b.workspace_id = p_workspace_id and b.id = u.id
                                         offset 0) as b
                      left join lateral (select e.fragment_id, e.created_at
                                           from beliefdb.evidence e
                                          where e.workspace_id = p_workspace_id and e.belief_id = b.id
                                            and e.role = 'supports'
                                            -- (a derived belief's confidence reads neither its sources
                                            -- nor when they last verified it: one probe less each)
                                            and b.confidence_kind <> 'derived'
                                         offset 0) as e on true
                      left join lateral (select f.source_version_id
                                           from beliefdb.fragment f
                                          where f.workspace_id = p_workspace_id and f.id = e.fragment_id
                                         offset 0) as f on true
                      left join lateral (select src.id, p.weight
                                           from beliefdb.source_version v
                                           join beliefdb.source src
                                             on src.workspace_id = v.workspace_id and src.id = v.source_id
                                           join beliefdb.confidence_policy p
                                             on p.factor = 'authority' and p.key = src.authority::text
                                          where v.workspace_id = p_workspace_id and v.id = f.source_version_id
                                            and src.retracted_at is null
                                         offset 0) as w on true
                     group by b.id, b.confidence_kind, b.status, b.kind, b.recorded_at, w.id, w.weight) as x
             group by x.id, x.confidence_kind, x.status, x.kind, x.recorded_at
      ) as g
      -- a derived belief's product of what it derives from
      left join lateral (
            select beliefdb.floored_product(sum(ln(greatest(a.confidence, 1e-9)) order by a.antecedent)) as product
              from (select j.id
                      from beliefdb.justification j
                     where j.workspace_id = p_workspace_id and j.consequent = g.id
                       and g.confidence_kind = 'derived'
                    offset 0) as j
             cross join lateral (select a.antecedent, ab.confidence
                                   from beliefdb.justification_antecedent a
                                   join beliefdb.belief ab on ab.workspace_id = a.workspace_id and ab.id = a.antecedent
                                  where a.workspace_id = p_workspace_id and a.justification_id = j.id
                                    and a.edge_kind = 'derives'
                                 offset 0) as a
      ) d on true
      cross join lateral (
            select greatest(0, floor(extract(epoch from beliefdb.clock() - coalesce(g.at, g.recorded_at))
                                     / 86400))::integer as age_days
      ) v
      left join beliefdb.confidence_half_life h on h.kind = g.kind
$$;
comment on function beliefdb._confidences(uuid, uuid[]) is 'The computed confidence of a set of beliefs in one statement (confidence_factors'' last row for each)';

-- Recompute stored confidence for a set of beliefs from their factors (beliefdb._confidences, one
-- statement for the set, or confidence_factors for a handful: the same values); returns the beliefs
-- whose stored confidence changed. What moved is found
-- first (a read) and written only when there is any: an update that changes nothing still costs
-- its statement triggers.
create or replace function beliefdb._refresh_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[] := '{}';
    v_new real[] := '{}';
    v_id uuid;
    v_stored real;
    v_computed real;
begin
    if cardinality(p_beliefs) = 0 then
        return '{}';
    end if;
    if cardinality(p_beliefs) <= 4 then
        -- a handful (a correction's): one call each, whose plans the session keeps; the set-based
        -- statement is planned at every call (7 ms under load, more than it saves for so few). One
        -- belief at a time, by its key: a statement over the array was planned again at every call too
        foreach v_id in array array(select distinct x.id from unnest(p_beliefs) as x (id)) loop
            select b.confidence into v_stored
              from beliefdb.belief b
             where b.workspace_id = p_workspace_id and b.id = v_id;
            continue when not found;
            select least(1, greatest(0, cf.weight)) into v_computed
              from beliefdb.confidence_factors(p_workspace_id, v_id) cf
             where cf.factor = 'confidence';
            if found and v_stored is distinct from v_computed then
                v_ids := v_ids || v_id;
                v_new := v_new || v_computed;
            end if;
        end loop;
    else
        select coalesce(array_agg(c.belief_id), '{}'), coalesce(array_agg(least(1, greatest(0, c.confidence))), '{}')
          into v_ids, v_new
          from beliefdb._confidences(p_workspace_id, p_beliefs) c
          join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = c.belief_id
         where b.id = any(p_beliefs)
           and b.confidence is distinct from least(1, greatest(0, c.confidence));
    end if;
    if cardinality(v_ids) = 0 then
        return '{}';
    end if;
    update beliefdb.belief b
       set confidence = u.confidence
      from unnest(v_ids, v_new) as u (id, confidence)
     where b.workspace_id = p_workspace_id and b.id = u.id
       and b.id = any(v_ids);
    return v_ids;
end
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
