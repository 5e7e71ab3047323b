-- beliefdb: stored confidence, recomputed from its factors (docs/rules.md, rule 9).
-- After api/48_confidence.sql: these bodies call what it defines (confidence_factors,
-- floored_product), and the body of a language sql function is checked when it is created.

-- The confidence of a set of beliefs at once, each exactly what beliefdb.confidence_factors gives
-- as its last row (the same expressions, in the same types), but computed for the whole set by one
-- statement: a join per factor over every belief instead of one call per belief (issue 20: a bulk
-- batch of 10,000 new beliefs spent 20 s in those calls, 1.5 ms each under load). The beliefs are
-- named by id (= any) in every table, so no plan reads the workspace. A belief that does not exist
-- has no row.
create or replace function beliefdb._confidences(p_workspace_id uuid, p_beliefs uuid[])
returns table (belief_id uuid, confidence real)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with belief as materialized (
        select b.id, b.confidence_kind, b.status, b.kind, b.recorded_at
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id and b.id = any(p_beliefs)
    ),
    -- (the evidence, fragments, versions and justifications of the beliefs each by its key, from the
    -- beliefs out, lateral behind offset 0: joined, the plan read the workspace's every evidence
    -- row, fragment and justification for a bulk batch, 3 s at a million beliefs)
    support as materialized (
        select e.belief_id, e.fragment_id, e.created_at
          from belief b
         cross join lateral (select e.belief_id, e.fragment_id, e.created_at
                               from beliefdb.evidence e
                              where e.workspace_id = p_workspace_id and e.belief_id = b.id and e.role = 'supports'
                             offset 0) as e
    ),
    -- recency (confidence_factors: recency)
    verified as (
        select s.belief_id, max(s.created_at) as at from support s group by s.belief_id
    ),
    recency as (
        select b.id, power(0.5, least(v.age_days / h.days, 30))::real as weight
          from belief b
          left join verified w on w.belief_id = b.id
          cross join lateral (
                select greatest(0, floor(extract(epoch from beliefdb.clock() - coalesce(w.at, b.recorded_at))
                                         / 86400))::integer as age_days
          ) v
          join beliefdb.confidence_half_life h on h.kind = b.kind
         where b.confidence_kind <> 'derived'
    ),
    -- each belief's distinct sources that are not retracted (confidence_factors: sources)
    sources as (
        select distinct s.belief_id, w.id, w.name, w.authority, w.weight
          from support s
         cross join lateral (select f.source_version_id
                               from beliefdb.fragment f
                              where f.workspace_id = p_workspace_id and f.id = s.fragment_id
                             offset 0) as f
         cross join lateral (select src.id, src.name, src.authority, p.weight
                               from beliefdb.source_version v
                               join beliefdb.source src on src.workspace_id = v.workspace_id and src.id = v.source_id
                               join beliefdb.confidence_policy p on p.factor = 'authority' and p.key = src.authority::text
                              where v.workspace_id = p_workspace_id and v.id = f.source_version_id
                                and src.retracted_at is null
                             offset 0) as w
    ),
    noisy_or as materialized (
        select s.belief_id, beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)) order by s.id)) as product
          from sources s
         group by s.belief_id
    ),
    base as (
        select b.id, b.status,
               case b.confidence_kind
                   when 'human_correction' then
                       (select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'correction' and p.key = 'human_correction')
                   when 'derived' then d.product
                   when 'agent_asserted' then
                       case when n.belief_id is not null then 1 - n.product
                            else (select p.weight from beliefdb.confidence_policy p
                                   where p.factor = 'trace' and p.key = 'memory') end
                   else 1 - coalesce(n.product, 1)
               end::real as weight
          from belief b
          left join noisy_or n on n.belief_id = b.id
          -- a derived belief's product of what it derives from, each belief's own rows by their keys
          -- (a grouping joined to the beliefs was read again for each of them when few were expected:
          -- 238 beliefs 150 ms in a retraction's preview on a 1M workspace)
          left join lateral (
                select beliefdb.floored_product(sum(ln(greatest(a.confidence, 1e-9)) order by a.antecedent)) as product
                  from (select j.id
                          from beliefdb.justification j
                         where j.workspace_id = p_workspace_id and j.consequent = b.id
                           and b.confidence_kind = 'derived'
                        offset 0) as j
                 cross join lateral (select a.antecedent, ab.confidence
                                       from beliefdb.justification_antecedent a
                                       join beliefdb.belief ab on ab.workspace_id = a.workspace_id and ab.id = a.antecedent
                                      where a.workspace_id = p_workspace_id and a.justification_id = j.id
                                        and a.edge_kind = 'derives'
                                     offset 0) as a
          ) d on true
    )
    select b.id,
           (coalesce(b.weight, 0)
            * coalesce((select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'conflict' and p.key = 'open' and b.status = 'conflicting'), 1)
            * coalesce(r.weight, 1))::real
      from base b
      left join recency r on r.id = b.id
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
