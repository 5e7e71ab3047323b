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
                         -- while the reviewer's text supports it (beliefdb.correction_supports: its
                         -- quote is among the belief's quotes in force, read below), else what does
                         -- support it, as an extracted belief (confidence_factors: belief)
                         when 'human_correction' then
                             case when g.by_correction
                                  then (select p.weight from beliefdb.confidence_policy p
                                         where p.factor = 'correction' and p.key = 'human_correction')
                                  else 1 - coalesce(g.product, 1) end
                         when 'derived' then d.product
                         -- an agent's memory while a step that wrote it holds (confidence_factors;
                         -- beliefdb.written_by_step, written out: a function
                         -- called once a belief is not inlined, and a recompute of 5,000 beliefs, 2,000
                         -- of them memories, took 0.75 s instead of 0.15 s) with no quoted source
                         when 'agent_asserted' then
                             case when g.sources > 0 then 1 - g.product
                                  when exists (
                                       select from beliefdb.justification j
                                         join beliefdb.justification_antecedent a
                                           on a.workspace_id = j.workspace_id and a.justification_id = j.id
                                         join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                                        where j.workspace_id = p_workspace_id and j.consequent = g.id
                                          and n.kind = 'step' and n.holds)
                                  then (select p.weight from beliefdb.confidence_policy p
                                         where p.factor = 'trace' and p.key = 'memory')
                                  else 0 end
                         else 1 - coalesce(g.product, 1)
                     end::real, 0)
            * coalesce((select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'conflict' and p.key = 'open' and g.status = 'conflicting'), 1)
            -- recency since the belief was last verified (confidence_factors: recency)
            * coalesce(case when g.confidence_kind <> 'derived' then
                           power(0.5, least(v.age_days / h.days, 30))::real end, 1))::real
      from (
            -- each belief's distinct sources whose quotes still support it (a fragment not retracted,
            -- of a version in force), noisy-or (confidence_factors: sources), and when it was last
            -- verified; sources whose versions in force are the same text count once, with the weight of
            -- the strongest, in the order of the first id among them, as confidence_factors' sources do
            select x.id, x.confidence_kind, x.status, x.kind, x.recorded_at, max(x.at) as at,
                   count(x.source) as sources, coalesce(bool_or(x.by_correction), false) as by_correction,
                   -- (the filter is needed: greatest ignores a null, so evidence of no source that
                   -- counts, one no longer in force or retracted, would count as a source of weight 1)
                   beliefdb.floored_product(sum(ln(greatest(1 - x.weight, 1e-9)) order by x.source)
                                                filter (where x.source is not null)) as product
              from (select b.id, b.confidence_kind, b.status, b.kind, b.recorded_at, min(w.id::text)::uuid as source,
                           max(w.weight) as weight,
                           -- (verified by a quote that still supports it only)
                           max(e.created_at) filter (where w.id is not null) as at,
                           -- (a correction's replacement: whether the reviewer's quote is one of those)
                           bool_or(w.id is not null and e.fragment_id = c.fragment_id) as by_correction
                      -- (each belief by its key, from the distinct ids: as `= any` in the where clause,
                      -- the plan took the workspace for 0.5 % of the table, having no statistics on
                      -- workspace_id, and read all 55,100 beliefs of a 100,000-node workspace through
                      -- another index to find the 250 of a source's retraction)
                      from (select distinct x.id from unnest(p_beliefs) as x (id)) as u
                     cross join lateral (select b.id, b.confidence_kind, b.status, b.kind, b.recorded_at
                                           from beliefdb.belief b
                                          where b.workspace_id = p_workspace_id and b.id = u.id
                                         offset 0) as b
                      left join lateral (select c.fragment_id
                                           from beliefdb.correction c
                                          where c.workspace_id = p_workspace_id and c.replacement_belief_id = b.id
                                            and b.confidence_kind = 'human_correction'
                                         offset 0) as c on true
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
                                           join beliefdb.node n on n.workspace_id = f.workspace_id and n.id = f.id
                                          where f.workspace_id = p_workspace_id and f.id = e.fragment_id
                                            and n.retracted_at is null
                                         offset 0) as f on true
                      left join lateral (select src.id, p.weight, v.sha256
                                           from beliefdb.source_version v
                                           join beliefdb.source src
                                             on src.workspace_id = v.workspace_id and src.id = v.source_id
                                           join beliefdb.confidence_policy p
                                             on p.factor = 'authority' and p.key = src.authority::text
                                          where v.workspace_id = p_workspace_id and v.id = f.source_version_id
                                            -- in force (beliefdb.supporting_quotes' test, for a set of
                                            -- beliefs: one probe of the source's later versions, not a
                                            -- call per belief)
                                            and src.retracted_at is null and v.retracted_at is null
                                            and not exists (select from beliefdb.source_version later
                                                             where later.workspace_id = v.workspace_id
                                                               and later.source_id = v.source_id
                                                               and later.version > v.version
                                                               and later.retracted_at is null)
                                         offset 0) as w on true
                     group by b.id, b.confidence_kind, b.status, b.kind, b.recorded_at, w.sha256) as x
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

-- Of a set of beliefs, those whose confidence computed from their factors now (beliefdb._confidences,
-- one statement for the set) differs from the stored one (o_ids), that confidence (o_new, clamped to
-- [0, 1]) and those of them it raises (o_raised): a read, what decay and the refresh below write.
create or replace function beliefdb._confidence_moves(p_workspace_id uuid, p_beliefs uuid[],
                                                     out o_ids uuid[], out o_new real[], out o_raised uuid[])
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(c.belief_id), '{}'), coalesce(array_agg(least(1, greatest(0, c.confidence))), '{}'),
           coalesce(array_agg(c.belief_id) filter (where b.confidence is null
                                                      or least(1, greatest(0, c.confidence)) > b.confidence), '{}')
      from beliefdb._confidences(p_workspace_id, p_beliefs) c
      join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = c.belief_id
     where b.id = any(p_beliefs)
       and b.confidence is distinct from least(1, greatest(0, c.confidence))
$$;
comment on function beliefdb._confidence_moves(uuid, uuid[]) is 'Of a set of beliefs, those whose computed confidence differs from the stored one, that confidence, and those it raises';

-- Recompute stored confidence for a set of beliefs from their factors (beliefdb._confidences, one
-- statement for the set, or confidence_factors for a handful: the same values); returns the beliefs
-- whose stored confidence changed (o_moved), and those of them whose confidence rose (o_raised).
-- What moved is found first (a read) and written only when there is any: an update that changes
-- nothing still costs its statement triggers.
create or replace function beliefdb._refresh_confidence_moves(p_workspace_id uuid, p_beliefs uuid[],
                                                             out o_moved uuid[], out o_raised uuid[])
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[] := '{}';
    v_new real[] := '{}';
    v_raised uuid[] := '{}';
    v_id uuid;
    v_stored real;
    v_computed real;
begin
    o_moved := '{}';
    o_raised := '{}';
    if cardinality(p_beliefs) = 0 then
        return;
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
                if v_stored is null or v_computed > v_stored then
                    v_raised := v_raised || v_id;
                end if;
            end if;
        end loop;
    else
        select m.o_ids, m.o_new, m.o_raised into v_ids, v_new, v_raised
          from beliefdb._confidence_moves(p_workspace_id, p_beliefs) m;
    end if;
    if cardinality(v_ids) = 0 then
        return;
    end if;
    update beliefdb.belief b
       set confidence = u.confidence
      from unnest(v_ids, v_new) as u (id, confidence)
     where b.workspace_id = p_workspace_id and b.id = u.id
       and b.id = any(v_ids);
    o_moved := v_ids;
    o_raised := v_raised;
end
$$;
comment on function beliefdb._refresh_confidence_moves(uuid, uuid[]) is 'Store the computed confidence of beliefs; returns those whose confidence changed, and those of them whose confidence rose';

-- The same, returning the beliefs whose stored confidence changed.
create or replace function beliefdb._refresh_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns uuid[]
language sql
set search_path = pg_catalog, pg_temp
as $$
    select r.o_moved from beliefdb._refresh_confidence_moves(p_workspace_id, p_beliefs) r
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

-- The beliefs derived from these (each one once): one probe of (workspace_id, antecedent) per belief,
-- since over "= any" the custom plan of the first calls took a skip scan of the whole key (377 ms a
-- bulk batch, 0.7 ms so).
create or replace function beliefdb._derived_from(p_workspace_id uuid, p_beliefs uuid[]) returns uuid[]
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select coalesce(array_agg(distinct a.consequent), '{}')
      from unnest(p_beliefs) as m (id)
      cross join lateral (select x.consequent
                            from beliefdb.justification_antecedent x
                           where x.workspace_id = p_workspace_id and x.antecedent = m.id
                             and x.edge_kind = 'derives'
                          offset 0) a
$$;
comment on function beliefdb._derived_from(uuid, uuid[]) is 'The beliefs derived from these, each once';

-- Store the confidence of a set of beliefs (beliefdb._refresh_confidence) and of every belief derived
-- from one whose confidence moved, at any depth: a derived belief reads what it derives from as
-- stored, so it is computed after all of those are final, once, and only when one of them moved.
-- Round by round from what moved (as before) a belief reached at several depths was computed at
-- each: a hub source's retraction at 100,000 nodes computed 37,940 confidences for 21,291 beliefs.
-- Here what the moved beliefs reach by derivation is walked first (one probe of (workspace_id,
-- antecedent) a belief, as the rounds made for those that moved), numbered, and computed in
-- topological order (Kahn's): a round takes the beliefs all of whose antecedents reached are done,
-- and computes those of them that derive from one that moved, until none is left to compute. The
-- bookkeeping is per belief and per edge, in integer arrays (a set operation over the whole walk at
-- each round cost more than the computations it saved).
-- A derived belief at the product's floor (1e-9, no open conflict) whose antecedents only fell
-- stays there (its product of what is stored can only fall, and is floored; every writer of a
-- confidence propagates it, so a derived one is what its antecedents give), and is not computed: a
-- hub's retraction at 1M nodes reaches ~59,000 of those, which the rounds computed, each unchanged.
-- Nor does the walk go on past one (walking every derivation of a hub cost more than the rounds).
-- The order only saves work; what makes the result right is that a belief derived from one that
-- moved is computed after it. When one at the floor does move (an antecedent rose: a restore), or
-- beliefs derive from each other in a cycle (never ready), what derives from it, or what is left,
-- is computed round by round from there afterwards, as before (at most 20 rounds).
-- Returns how many confidences it stored.
create or replace function beliefdb._propagate_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_moved uuid[];
    v_raised uuid[];
begin
    if cardinality(p_beliefs) = 0 then
        return 0;
    end if;
    select r.o_moved, r.o_raised into v_moved, v_raised
      from beliefdb._refresh_confidence_moves(p_workspace_id, p_beliefs) r;
    return cardinality(v_moved) + beliefdb._propagate_confidence_from(p_workspace_id, v_moved, v_raised);
end
$$;
comment on function beliefdb._propagate_confidence(uuid, uuid[]) is 'Store the computed confidence of beliefs and of what derives from those that moved, each once, in derivation order; returns how many it stored';

-- What _propagate_confidence does once the given beliefs are stored: the beliefs derived from those
-- whose confidence moved (p_moved; p_raised: those of them that rose), at any depth, each computed
-- once after what it derives from. decay stores its beliefs itself (with its clock at the moment it
-- decays to, then written with the session's own: a derived belief's confidence, the product of what
-- it derives from, reads no clock, so what derives from them is computed here with either). Returns
-- how many confidences it stored (those given not counted).
create or replace function beliefdb._propagate_confidence_from(p_workspace_id uuid, p_moved uuid[], p_raised uuid[])
returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_floor real := beliefdb.floored_product(-1000)::real;  -- a derived belief's confidence at the floor
    v_moved uuid[] := p_moved;
    v_raised uuid[] := p_raised;
    v_count integer := 0;
    v_seen uuid[];
    v_frontier uuid[];
    v_expanded uuid[];
    v_flat uuid[] := '{}';  -- seen at the floor
    v_step_from uuid[];
    v_step_to uuid[];
    v_from uuid[] := '{}';
    v_to uuid[] := '{}';
    v_ids uuid[];           -- the beliefs reached, numbered 1..n
    v_out integer[];        -- the edges between them by antecedent's number: consequents' numbers
    v_start integer[];      -- node i's edges out are v_out[v_start[i] .. v_start[i + 1] - 1]
    v_waits integer[];      -- antecedents reached not done yet, per node
    v_dirty boolean[];      -- derives from a belief that moved
    v_rose boolean[];       -- derives from a belief whose confidence rose
    v_at_floor boolean[];   -- at the floor when seen
    v_walked boolean[];     -- its edges out were read
    v_pending integer;      -- dirty and not done yet
    v_ready integer[];
    v_compute uuid[];
    v_next integer[];
    v_moved_at integer[];
    v_late uuid[] := '{}';
    v_i integer;
    v_k integer;
    v_c integer;
    v_round integer;
begin
    if cardinality(v_moved) = 0 then
        return 0;
    end if;
    -- the derivation edges out of what moved and out of what that reaches above the floor, once each
    -- (a belief that moved may be derived from another that did: it is reached, and computed again).
    -- What derives from a belief is a belief, and it need not be in propagate's working set: the
    -- walk of stored supports leaves out what rests on the belief by another justification.
    v_seen := v_moved;
    v_frontier := v_moved;
    v_expanded := v_moved;
    while cardinality(v_frontier) > 0 loop
        -- one probe of (workspace_id, antecedent) per belief: over "= any" the custom plan of the
        -- first calls took a skip scan of the whole key (377 ms a bulk batch, 0.7 ms so)
        select coalesce(array_agg(m.id), '{}'), coalesce(array_agg(a.consequent), '{}')
          into v_step_from, v_step_to
          from unnest(v_frontier) as m (id)
          cross join lateral (select distinct x.consequent
                                from beliefdb.justification_antecedent x
                               where x.workspace_id = p_workspace_id and x.antecedent = m.id
                                 and x.edge_kind = 'derives'
                              offset 0) a;
        v_from := v_from || v_step_from;
        v_to := v_to || v_step_to;
        v_frontier := array(select c.id from unnest(v_step_to) as c (id)
                            except
                            select w.id from unnest(v_seen) as w (id));
        v_seen := v_seen || v_frontier;
        -- each new one by its key: at the floor, or walked on from
        select coalesce(array_agg(f.id) filter (where b.flat), '{}'),
               coalesce(array_agg(f.id) filter (where not b.flat), '{}')
          into v_step_from, v_frontier
          from unnest(v_frontier) as f (id)
          cross join lateral (select b.confidence_kind = 'derived' and b.status <> 'conflicting'
                                     and b.confidence = v_floor as flat
                                from beliefdb.belief b
                               where b.workspace_id = p_workspace_id and b.id = f.id
                              offset 0) b;
        v_flat := v_flat || v_step_from;
        v_expanded := v_expanded || v_frontier;
    end loop;
    if cardinality(v_to) = 0 then
        return v_count;
    end if;
    -- number what was reached; its edges by antecedent; what each waits for; what is dirty, what
    -- derives from one that rose, what is at the floor, what was walked on from
    v_ids := array(select distinct c.id from unnest(v_to) as c (id));
    with n as (select x.id, x.i::integer as i from unnest(v_ids) with ordinality as x (id, i)),
    e as (select na.i as a, nc.i as c
            from unnest(v_from, v_to) as e (a, c)
            join n na on na.id = e.a
            join n nc on nc.id = e.c)
    select array(select e.c from e order by e.a),
           array(select 1 + coalesce(sum(k.edges) over (order by k.i rows between unbounded preceding and 1 preceding), 0)
                   from (select g.i, count(e.a) as edges
                           from generate_series(1, cardinality(v_ids) + 1) as g (i)
                           left join e on e.a = g.i
                          group by g.i) as k
                  order by k.i),
           array(select count(e.c)::integer
                   from n left join e on e.c = n.i
                  group by n.i order by n.i),
           array(select d.c is not null
                   from n left join (select distinct d.c
                                       from unnest(v_from, v_to) as d (a, c)
                                       join unnest(v_moved) as m (id) on m.id = d.a) as d on d.c = n.id
                  order by n.i),
           array(select d.c is not null
                   from n left join (select distinct d.c
                                       from unnest(v_from, v_to) as d (a, c)
                                       join unnest(v_raised) as m (id) on m.id = d.a) as d on d.c = n.id
                  order by n.i),
           array(select f.id is not null
                   from n left join unnest(v_flat) as f (id) on f.id = n.id
                  order by n.i),
           array(select w.id is not null
                   from n left join unnest(v_expanded) as w (id) on w.id = n.id
                  order by n.i)
      into v_out, v_start, v_waits, v_dirty, v_rose, v_at_floor, v_walked;
    v_pending := (select count(*) from unnest(v_dirty) as d (dirty) where d.dirty);
    v_ready := array(select w.i::integer from unnest(v_waits) with ordinality as w (n, i) where w.n = 0);
    while v_pending > 0 and cardinality(v_ready) > 0 loop
        v_pending := v_pending - (select count(*)::integer from unnest(v_ready) as r (i) where v_dirty[r.i]);
        v_compute := array(select v_ids[r.i] from unnest(v_ready) as r (i)
                            where v_dirty[r.i] and (v_rose[r.i] or not v_at_floor[r.i]));
        select r.o_moved, r.o_raised into v_moved, v_raised
          from beliefdb._refresh_confidence_moves(p_workspace_id, v_compute) r;
        v_count := v_count + cardinality(v_moved);
        v_moved_at := case when cardinality(v_moved) = 0 then '{}' else array(
            select r.i from unnest(v_ready) as r (i) join unnest(v_moved) as m (id) on m.id = v_ids[r.i]) end;
        foreach v_i in array v_moved_at loop
            if not v_walked[v_i] then
                v_late := v_late || v_ids[v_i];
            end if;
            for v_k in v_start[v_i] .. v_start[v_i + 1] - 1 loop
                v_c := v_out[v_k];
                if not v_dirty[v_c] then
                    v_dirty[v_c] := true;
                    v_pending := v_pending + 1;
                end if;
            end loop;
        end loop;
        v_moved_at := case when cardinality(v_raised) = 0 then '{}' else array(
            select r.i from unnest(v_ready) as r (i) join unnest(v_raised) as m (id) on m.id = v_ids[r.i]) end;
        foreach v_i in array v_moved_at loop
            for v_k in v_start[v_i] .. v_start[v_i + 1] - 1 loop
                v_rose[v_out[v_k]] := true;
            end loop;
        end loop;
        v_next := '{}';
        foreach v_i in array v_ready loop
            for v_k in v_start[v_i] .. v_start[v_i + 1] - 1 loop
                v_c := v_out[v_k];
                v_waits[v_c] := v_waits[v_c] - 1;
                if v_waits[v_c] = 0 then
                    v_next := v_next || v_c;
                end if;
            end loop;
        end loop;
        v_ready := v_next;
    end loop;
    if v_pending = 0 and cardinality(v_late) = 0 then
        return v_count;
    end if;
    -- round by round from there: what is left to compute (a cycle), and what derives from a belief
    -- at the floor that moved
    v_moved := array(select v_ids[d.i] from unnest(v_dirty) with ordinality as d (dirty, i)
                      where d.dirty and v_waits[d.i] > 0
                     union
                     select unnest(beliefdb._derived_from(p_workspace_id, v_late)));
    for v_round in 1..20 loop
        exit when cardinality(v_moved) = 0;
        v_moved := beliefdb._refresh_confidence(p_workspace_id, v_moved);
        v_count := v_count + cardinality(v_moved);
        v_moved := beliefdb._derived_from(p_workspace_id, v_moved);
    end loop;
    return v_count;
end
$$;
comment on function beliefdb._propagate_confidence_from(uuid, uuid[], uuid[]) is 'Store the computed confidence of what derives from beliefs whose confidence moved, each once, in derivation order; returns how many it stored';

-- What decay does once its arguments are checked: every confidence of the bound workspace computed as
-- of p_now (null: the clock) and written, what derives from those that moved after them, one audit
-- event named p_action; its report (confidence_report's fields but preview).
create or replace function beliefdb._decay(p_now timestamptz, p_action text) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_clock text := coalesce(current_setting('beliefdb.now', true), '');
    v_at text;
    v_now timestamptz;
    v_low real := coalesce((select p.weight from beliefdb.confidence_policy p
                             where p.factor = 'retrieval' and p.key = 'low_confidence'), 0.3);
    v_old_ids uuid[];
    v_old real[];
    v_ids uuid[];
    v_new real[];
    v_raised uuid[];
    v_result jsonb;
begin
    perform beliefdb.lock_workspace();
    v_at := coalesce(p_now::text, v_clock);
    select coalesce(array_agg(b.id), '{}'), coalesce(array_agg(b.confidence), '{}') into v_old_ids, v_old
      from beliefdb.belief b where b.workspace_id = v_ws;
    -- every belief, as of the moment (one statement for the set, beliefdb._confidences: a call of
    -- confidence_factors per belief took 40 s for the 55,000 beliefs of a 100,000-node workspace)
    perform set_config('beliefdb.now', v_at, true);
    v_now := beliefdb.clock();
    select m.o_ids, m.o_new, m.o_raised into v_ids, v_new, v_raised
      from beliefdb._confidence_moves(v_ws, v_old_ids) m;
    perform set_config('beliefdb.now', v_clock, true);
    if cardinality(v_ids) > 0 then
        update beliefdb.belief b
           set confidence = c.new
          from unnest(v_ids, v_new) as c (id, new)
         where b.workspace_id = v_ws and b.id = c.id;
        -- then what derives from those that moved, each once after what it derives from, at any depth
        -- (as propagate does: beliefdb._propagate_confidence); a derived belief's confidence reads no
        -- clock, so the session's own is back
        perform beliefdb._propagate_confidence_from(v_ws, v_ids, v_raised);
    end if;
    with compared as (
        select o.old, b.confidence as new
          from unnest(v_old_ids, v_old) as o (id, old)
          join beliefdb.belief b on b.workspace_id = v_ws and b.id = o.id
    )
    select jsonb_build_object(
        'now', v_now,
        'beliefs', count(*),
        'changed', count(*) filter (where c.new is distinct from c.old),
        'lowered', count(*) filter (where c.new < c.old),
        'raised', count(*) filter (where c.new > c.old),
        'became_low', count(*) filter (where c.old >= v_low and c.new < v_low),
        'recovered', count(*) filter (where c.old < v_low and c.new >= v_low),
        'low_confidence', count(*) filter (where c.new < v_low),
        'threshold', v_low)
      into v_result
      from compared c;
    perform beliefdb._audit(p_action, v_result);
    return v_result;
end
$$;
comment on function beliefdb._decay(timestamptz, text) is 'Internal: decay''s work once its arguments are checked: confidences as of a moment written, one audit event';
