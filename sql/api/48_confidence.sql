-- beliefdb: confidence, explained factor by factor (docs/rules.md, rule 9).
-- Before internal/49_confidence.sql, which stores what beliefdb.confidence_factors computes: the
-- body of a language sql function is checked when it is created, so what it calls must exist.

-- A product given as the sum of its factors' logarithms, none below 1e-9: a long product would
-- leave the range of real (and of exp) and fail the statement instead of being small. Strict: no
-- factors (a null sum), no product.
create or replace function beliefdb.floored_product(p_log_sum double precision) returns double precision
language sql immutable strict
set search_path = pg_catalog, pg_temp
as $$
    select exp(greatest(p_log_sum, ln(1e-9)))
$$;
comment on function beliefdb.floored_product(double precision) is 'exp of a sum of logarithms, at least 1e-9; null for no factors';

-- The quotes that still support a belief (rules 2 and 5): its evidence whose fragment is not
-- retracted, of a version in force (neither it nor its source retracted, no later version that is
-- not). A quote a new version dropped, or whose fragment, version or source was retracted, supports
-- nothing: it is no source of the belief's rule 8 rank (beliefdb._belief_rank) nor of its confidence
-- (beliefdb.confidence_factors; beliefdb._confidences reads the same for a set of beliefs at once).
-- Reads only; granted, as confidence_factors, which calls it, is.
-- (The in-force test is beliefdb.in_force's, written out: a plpgsql call a quote, planned apart, would
-- not be joined.)
create or replace function beliefdb.supporting_quotes(p_workspace_id uuid, p_belief_id uuid)
returns table (evidence_at timestamptz, source_id uuid, source_name text, authority beliefdb.authority,
               origin_type beliefdb.origin_type, version_id uuid, version_recorded_at timestamptz,
               start_offset integer, speaker text)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select e.created_at, s.id, s.name, s.authority, s.origin_type, v.id, v.recorded_at, f.start_offset, f.speaker
      from beliefdb.evidence e
      join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
      join beliefdb.node n on n.workspace_id = f.workspace_id and n.id = f.id
      join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id and e.role = 'supports'
       and n.retracted_at is null
       and s.retracted_at is null and v.retracted_at is null
       and not exists (select from beliefdb.source_version later
                        where later.workspace_id = v.workspace_id and later.source_id = v.source_id
                          and later.version > v.version and later.retracted_at is null)
$$;
comment on function beliefdb.supporting_quotes(uuid, uuid) is 'The quotes that still support a belief (fragment not retracted, version in force): when each was added, its source and version, where it lies';

-- Whether the reviewer's text of the correction that made a belief (rule 6: its one fragment) still
-- supports it (rule 2: the fragment not retracted, of a version in force), now or, given p_at, then
-- (retracted then: beliefdb.retraction_period; in force then: beliefdb.in_force_at). A correction's
-- weight (confidence_policy correction/human_correction) counts only while it does (rule 9); without
-- it the replacement's confidence is what still supports it. The one test of that for the live
-- confidence (confidence_factors, beliefdb._confidences) and the one as of a moment
-- (confidence_factors_at). False for a belief no correction made. Reads only; granted, as
-- confidence_factors, which calls it, is. (plpgsql: in_force_at is defined after this file.)
create or replace function beliefdb.correction_supports(p_workspace_id uuid, p_belief_id uuid,
                                                        p_at timestamptz default null)
returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return exists (
        select from beliefdb.correction c
          join beliefdb.fragment f on f.workspace_id = c.workspace_id and f.id = c.fragment_id
          join beliefdb.node n on n.workspace_id = f.workspace_id and n.id = f.id
         where c.workspace_id = p_workspace_id and c.replacement_belief_id = p_belief_id
           and case when p_at is null
                    then n.retracted_at is null and beliefdb.in_force(f.workspace_id, f.source_version_id)
                    -- (the test of a quote held_at writes out: change them together)
                    else c.created_at <= p_at
                         and not exists (select from beliefdb.retraction_period r
                                          where r.workspace_id = f.workspace_id and r.node_id = f.id
                                            and r.retracted_at <= p_at
                                            and (r.restored_at is null or r.restored_at > p_at))
                         and beliefdb.in_force_at(f.workspace_id, f.source_version_id, p_at)
               end);
end
$$;
comment on function beliefdb.correction_supports(uuid, uuid, timestamptz) is 'Whether the reviewer''s text of the correction that made a belief still supports it (now, or at a moment): only then its correction weight counts';

-- Whether a belief is an agent's memory: written by a step of a recorded run (beliefdb.record_trace,
-- rule 10), which is a reason of it (a justification with the step among its antecedents), whatever
-- became of the step (what a repair takes: beliefdb.resolve_memory). Only such a belief with no quoted
-- source has the memory weight (confidence_policy trace/memory, rule 9), and only while such a step
-- holds (p_holding, which confidence_factors asks: a memory whose step no longer holds weighs as what
-- else supports it);
-- an ingested claim marked agent_asserted whose quotes support it no more has none. Used by
-- confidence_factors and beliefdb._confidences (confidence_factors_at asks, as of a moment, whether a
-- step that wrote it held then: beliefdb.node_held_at). Reads only; granted, as confidence_factors,
-- which calls it, is.
-- (the signature before a step that holds could be asked for)
drop function if exists beliefdb.written_by_step(uuid, uuid);
create or replace function beliefdb.written_by_step(p_workspace_id uuid, p_belief_id uuid,
                                                    p_holding boolean default false)
returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select exists (
        select from beliefdb.justification j
          join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
          join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
         where j.workspace_id = p_workspace_id and j.consequent = p_belief_id and n.kind = 'step'
           and (n.holds or not p_holding))
$$;
comment on function beliefdb.written_by_step(uuid, uuid, boolean) is 'Whether a belief is an agent''s memory, written by a step of a recorded run (with p_holding: by one that holds now, which its memory weight asks)';

-- Confidence of a belief, factor by factor (truth rule 9, first part). Extracted beliefs:
-- each independent source whose quote still supports it (rule 2) contributes its authority weight
-- (noisy-or). A reviewer's
-- correction: the correction policy's weight, while the reviewer's text supports it (else as extracted,
-- beliefdb.correction_supports). A derived belief: the product of what it was
-- derived from. An open conflict multiplies. The last row is the result. (The sources' terms are
-- summed in the order of their ids, as beliefdb._confidences sums them for a set of beliefs: a sum
-- of floats depends on its order.)
create or replace function beliefdb.confidence_factors(p_workspace_id uuid, p_belief_id uuid)
returns table (factor text, detail text, weight real)
language sql stable
set search_path = pg_catalog, pg_temp
-- one belief by its key: planned once per session, not at every call (twice in each correction)
set plan_cache_mode = force_generic_plan
as $$
    with belief as (
        -- a correction whose reviewer's text no longer supports it is weighed as what does support
        -- it (rule 9, beliefdb.correction_supports): its sources in force, none when nothing does;
        -- so is a claim marked agent_asserted that no step wrote (beliefdb.written_by_step): only
        -- an agent's memory has the memory weight, while a step that wrote it holds
        select case when b.confidence_kind = 'human_correction'
                         and not beliefdb.correction_supports(p_workspace_id, p_belief_id)
                         or b.confidence_kind = 'agent_asserted'
                            and not beliefdb.written_by_step(p_workspace_id, p_belief_id, true)
                    then 'extracted' else b.confidence_kind end as confidence_kind,
               b.status, b.kind, b.recorded_at
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id and b.id = p_belief_id
    ),
    -- the quotes that still support it (rules 2 and 5): only they verify it and are its sources
    supporting as (
        select q.evidence_at as created_at, q.source_id as id, q.source_name as name, q.authority, q.version_id
          from beliefdb.supporting_quotes(p_workspace_id, p_belief_id) q
    ),
    -- recency: whole days since last verified (the newest quote that still supports it, else
    -- recording), halved every half-life of the belief's kind, 30 times at most (about 1e-9: 150
    -- halvings leave the range of real); a derived belief ages through its antecedents
    recency as (
        select h.days as half_life, v.age_days, power(0.5, least(v.age_days / h.days, 30))::real as weight
          from belief b
          cross join lateral (
                select greatest(0, floor(extract(epoch from beliefdb.clock() - coalesce(
                           (select max(x.created_at) from supporting x), b.recorded_at)) / 86400))::integer
                       as age_days
          ) v
          join beliefdb.confidence_half_life h on h.kind = b.kind
         where b.confidence_kind <> 'derived'
    ),
    -- the sources of those quotes, each once; sources whose versions in force are the same text (the
    -- same bytes under two names: a copy) are one source, of the strongest authority among them (rule
    -- 5: a copy is no independent evidence), named with its copies
    each_source as (
        select distinct x.id, x.name, x.authority, p.weight, v.sha256
          from supporting x
          join beliefdb.source_version v on v.workspace_id = p_workspace_id and v.id = x.version_id
          join beliefdb.confidence_policy p on p.factor = 'authority' and p.key = x.authority::text
    ),
    sources as (
        select distinct on (e.sha256) e.id, e.name, e.authority, e.weight,
               array(select c.name from each_source c where c.sha256 = e.sha256 and c.id <> e.id order by c.name)
                   as copies,
               -- (the copies' terms are summed in the order of the first id among them, as
               -- beliefdb._confidences sums them: a sum of floats depends on its order)
               (select min(c.id::text)::uuid from each_source c where c.sha256 = e.sha256) as key
          from each_source e
         order by e.sha256, e.weight desc, e.id
    ),
    antecedents as (
        select a.antecedent, ab.confidence
          from beliefdb.justification j
          join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
          join beliefdb.belief ab on ab.workspace_id = a.workspace_id and ab.id = a.antecedent
         where j.workspace_id = p_workspace_id and j.consequent = p_belief_id and a.edge_kind = 'derives'
    ),
    base as (
        select case b.confidence_kind
                   when 'human_correction' then
                       (select p.weight from beliefdb.confidence_policy p
                         where p.factor = 'correction' and p.key = 'human_correction')
                   when 'derived' then
                       (select beliefdb.floored_product(sum(ln(greatest(a.confidence, 1e-9)) order by a.antecedent)) from antecedents a)
                   -- an agent's memory (written by a step of a run) with no quoted evidence
                   when 'agent_asserted' then
                       case when exists (select from sources)
                            then (select 1 - beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)) order by s.key))
                                    from sources s)
                            else (select p.weight from beliefdb.confidence_policy p
                                   where p.factor = 'trace' and p.key = 'memory') end
                   else (select 1 - coalesce(beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)) order by s.key)), 1)
                           from sources s)
               end::real as weight,
               b.confidence_kind
          from belief b
    ),
    conflict as (
        select p.weight
          from belief b
          join beliefdb.confidence_policy p on p.factor = 'conflict' and p.key = 'open'
         where b.status = 'conflicting'
    )
    select 'authority', s.authority::text || ' source ' || s.name
                        || case when cardinality(s.copies) > 0
                                then ' (the same text as ' || array_to_string(s.copies, ', ') || ': one source)'
                                else '' end, s.weight::real
      from sources s, base
     where base.confidence_kind in ('extracted', 'agent_asserted')
    union all
    select 'independent_sources',
           (select count(*) from sources)::text || ' independent source(s), combined as 1 - prod(1 - w)', base.weight
      from base
     where base.confidence_kind = 'extracted'
        or (base.confidence_kind = 'agent_asserted' and exists (select from sources))
    union all
    select 'agent_memory', 'written by an agent''s step, with no quoted evidence (confidence_policy trace/memory)',
           base.weight
      from base
     where base.confidence_kind = 'agent_asserted' and not exists (select from sources)
    union all
    select 'correction', 'a reviewer''s correction (confidence_policy correction/human_correction)', base.weight
      from base
     where base.confidence_kind = 'human_correction'
    union all
    select 'derived_from', 'belief ' || a.antecedent::text, a.confidence::real
      from antecedents a, base
     where base.confidence_kind = 'derived'
    union all
    select 'derived', 'product of what it was derived from', base.weight
      from base
     where base.confidence_kind = 'derived'
    union all
    select 'conflict', 'open conflict with an equal rival (multiplier)', k.weight::real from conflict k
    union all
    select 'recency', r.age_days || ' day(s) since last verified, half-life ' || r.half_life || ' days (multiplier)',
           r.weight
      from recency r
    union all
    select 'confidence', 'result', (coalesce(base.weight, 0) * coalesce((select k.weight from conflict k), 1)
                                    * coalesce((select r.weight from recency r), 1))::real
      from base
$$;
comment on function beliefdb.confidence_factors(uuid, uuid) is 'The factors of a belief''s confidence and the result (last row)';
