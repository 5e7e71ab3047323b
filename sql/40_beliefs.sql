-- beliefdb: beliefs, evidence, supersession and conflicts (truth rules 1, 3, 8).
-- Python reads files and proposes claims with offsets; everything that decides what is
-- true is here.

-- The fragment at exactly these offsets of a version, created if missing.
create or replace function beliefdb._fragment_at(p_workspace_id uuid, p_source_version_id uuid,
                                                p_start integer, p_end integer) returns uuid
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_id uuid;
begin
    select f.id into v_id
      from beliefdb.fragment f
     where f.workspace_id = p_workspace_id and f.source_version_id = p_source_version_id
       and f.start_offset = p_start and f.end_offset = p_end;
    if v_id is null then
        insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
        select p_workspace_id, p_source_version_id, p_start, p_end, substr(v.content, p_start + 1, p_end - p_start)
          from beliefdb.source_version v
         where v.workspace_id = p_workspace_id and v.id = p_source_version_id
        returning id into v_id;
    end if;
    return v_id;
end
$$;
comment on function beliefdb._fragment_at(uuid, uuid, integer, integer) is 'Find or create the fragment at exact offsets of a source version';

-- Evidence for a belief: the fragment becomes one justification of the belief. False if it existed.
create or replace function beliefdb._add_evidence(p_workspace_id uuid, p_belief_id uuid, p_fragment_id uuid,
                                                 p_role text default 'supports') returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_justification uuid;
begin
    if exists (select from beliefdb.evidence e
                where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id
                  and e.fragment_id = p_fragment_id) then
        return false;
    end if;
    if p_role = 'supports' then
        insert into beliefdb.justification (workspace_id, consequent)
        values (p_workspace_id, p_belief_id)
        returning id into v_justification;
        insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
        values (p_workspace_id, v_justification, p_fragment_id, 'evidence');
    end if;
    insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id)
    select p_workspace_id, p_belief_id, f.id, f.text, p_role, v_justification
      from beliefdb.fragment f
     where f.workspace_id = p_workspace_id and f.id = p_fragment_id;
    return true;
end
$$;
comment on function beliefdb._add_evidence(uuid, uuid, uuid, text) is 'Record that a fragment supports a belief (one justification per piece of evidence)';

-- What rule 8 ranks a belief by: its strongest source, its valid-time start, its latest recorded
-- version; sources and versions that are retracted count for neither.
create or replace function beliefdb._belief_rank(p_workspace_id uuid, p_belief_id uuid,
    out authority beliefdb.authority, out valid_from timestamptz, out recorded timestamptz)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select max(s.authority), lower(b.valid_time), max(v.recorded_at) filter (where s.id is not null)
      from beliefdb.belief b
      left join beliefdb.evidence e
        on e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
      left join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
      left join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      left join beliefdb.source s
        on s.workspace_id = v.workspace_id and s.id = v.source_id and s.retracted_at is null
       and v.retracted_at is null
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     group by b.valid_time
$$;
comment on function beliefdb._belief_rank(uuid, uuid) is 'Rule 8 rank of a belief: authority, valid-time start, latest recorded source version';

-- Rule 8: 1 if belief a beats b, -1 if b beats a, 0 for a tie.
-- Higher authority wins; then the later valid-time start; when either has none, the later
-- recorded source version. Equal on all counts is a tie, never a coin toss.
create or replace function beliefdb._compare_beliefs(p_workspace_id uuid, p_a uuid, p_b uuid) returns integer
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when a.authority is distinct from b.authority then
            case when coalesce(a.authority > b.authority, a.authority is not null) then 1 else -1 end
        when a.valid_from is not null and b.valid_from is not null then sign(extract(epoch from a.valid_from - b.valid_from))::integer
        when a.recorded is distinct from b.recorded then
            case when coalesce(a.recorded > b.recorded, a.recorded is not null) then 1 else -1 end
        else 0
    end
      from beliefdb._belief_rank(p_workspace_id, p_a) a, beliefdb._belief_rank(p_workspace_id, p_b) b
$$;
comment on function beliefdb._compare_beliefs(uuid, uuid, uuid) is 'Rule 8 comparison of two beliefs: 1 a wins, -1 b wins, 0 tie';

-- Rivals of a belief: current beliefs of its world (rule 15) on the same subject, attribute and
-- scope, with another value, whose valid times overlap.
create or replace function beliefdb._rivals(p_workspace_id uuid, p_belief_id uuid) returns setof uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select r.id
      from beliefdb.belief b
      join beliefdb.belief r
        on r.workspace_id = b.workspace_id and r.subject = b.subject and r.attribute = b.attribute
       and r.scope = b.scope and r.value <> b.value and r.valid_time && b.valid_time
       and r.provenance = b.provenance
       and r.status in ('current', 'conflicting') and r.id <> b.id
       and (upper_inf(r.valid_time) or upper(r.valid_time) > beliefdb.clock())
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     order by r.recorded_at, r.id
$$;
comment on function beliefdb._rivals(uuid, uuid) is 'Current beliefs of the same world that contradict a belief: same subject, attribute, scope; other value; overlapping valid time, not ended';

-- Settle a new belief against its rivals by rule 8. Returns {"superseded": [{old,new}], "conflicts": [{a,b,reason}]}.
-- The loser is superseded only when the acting principal owns it; a rival owned by someone
-- else is not overruled but put in conflict, for its owner to settle from the review queue.
create or replace function beliefdb._settle(p_workspace_id uuid, p_belief_id uuid) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_rival uuid;
    v_cmp integer;
    v_loser uuid;
    v_owner text;
    v_reason text;
    v_superseded jsonb := '[]';
    v_conflicts jsonb := '[]';
begin
    -- only a belief that is current can win or tie (it may have just lost to one settled before
    -- it, or its valid time may have ended: rule 16)
    if not exists (select from beliefdb.belief b
                    where b.workspace_id = p_workspace_id and b.id = p_belief_id
                      and b.status in ('current', 'conflicting')
                      and (upper_inf(b.valid_time) or upper(b.valid_time) > beliefdb.clock())) then
        return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
    end if;
    for v_rival in select beliefdb._rivals(p_workspace_id, p_belief_id) loop
        v_cmp := beliefdb._compare_beliefs(p_workspace_id, p_belief_id, v_rival);
        v_loser := case when v_cmp > 0 then v_rival when v_cmp < 0 then p_belief_id end;
        select b.owner into v_owner from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = v_loser;
        if v_loser is not null and v_owner = beliefdb.current_principal() then
            insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
            values (p_workspace_id, case when v_cmp > 0 then p_belief_id else v_rival end, v_loser, 'supersedes',
                    case when v_cmp > 0 then 'rule 8: stronger or more recent'
                         else 'rule 8: rival is stronger or more recent' end);
            update beliefdb.belief set status = 'superseded', revision = revision + 1
             where workspace_id = p_workspace_id and id = v_loser;
            v_superseded := v_superseded || jsonb_build_object(
                'old', v_loser, 'new', case when v_cmp > 0 then p_belief_id else v_rival end);
            exit when v_cmp < 0;
        else
            v_reason := case when v_loser is null then 'equal authority and recency: a person must choose (rule 8)'
                             else pg_catalog.format('rule 8 prefers %s, but %s belongs to %s, who must choose',
                                                    case when v_cmp > 0 then p_belief_id else v_rival end,
                                                    v_loser, v_owner) end;
            -- a conflict opens once; settling the same pair again (a side back in force, new evidence)
            -- only asks the question again if it is not open
            if exists (select from beliefdb.relation r
                        where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
                          and (r.from_belief, r.to_belief) in ((p_belief_id, v_rival), (v_rival, p_belief_id))) then
                insert into beliefdb.review_item (workspace_id, kind, node, other_node, reason)
                select p_workspace_id, 'conflict', p_belief_id, v_rival, v_reason || ', in conflict again'
                 where not exists (select from beliefdb.review_item i
                                    where i.workspace_id = p_workspace_id and i.kind = 'conflict' and i.status = 'open'
                                      and (i.node, i.other_node) in ((p_belief_id, v_rival), (v_rival, p_belief_id)))
                on conflict do nothing;
                continue;
            end if;
            insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
            values (p_workspace_id, p_belief_id, v_rival, 'conflicts_with',
                    case when v_loser is null then 'rule 8: equal authority and recency'
                         else 'rule 8: the loser has another owner' end);
            update beliefdb.belief set status = 'conflicting', revision = revision + 1
             where workspace_id = p_workspace_id and id in (p_belief_id, v_rival) and status <> 'conflicting';
            insert into beliefdb.review_item (workspace_id, kind, node, other_node, reason)
            values (p_workspace_id, 'conflict', p_belief_id, v_rival, v_reason)
            on conflict do nothing;
            v_conflicts := v_conflicts || jsonb_build_object('a', p_belief_id, 'b', v_rival, 'reason', v_reason);
        end if;
    end loop;
    return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
end
$$;
comment on function beliefdb._settle(uuid, uuid) is 'Apply rule 8 between a belief and its rivals: supersede the loser, or mark a tie conflicting';

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

-- Confidence of a belief, factor by factor (truth rule 9, first part). Extracted beliefs:
-- each independent source contributes its authority weight (noisy-or). A reviewer's
-- correction: the correction policy's weight. A derived belief: the product of what it was
-- derived from. An open conflict multiplies. The last row is the result.
create or replace function beliefdb.confidence_factors(p_workspace_id uuid, p_belief_id uuid)
returns table (factor text, detail text, weight real)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    with belief as (
        select b.confidence_kind, b.status, b.kind, b.recorded_at
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id and b.id = p_belief_id
    ),
    -- recency: whole days since last verified (the newest supporting evidence, else recording),
    -- halved every half-life of the belief's kind, 30 times at most (about 1e-9: 150 halvings
    -- leave the range of real); a derived belief ages through its antecedents
    recency as (
        select h.days as half_life, v.age_days, power(0.5, least(v.age_days / h.days, 30))::real as weight
          from belief b
          cross join lateral (
                select greatest(0, floor(extract(epoch from beliefdb.clock() - coalesce(
                           (select max(e.created_at) from beliefdb.evidence e
                             where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id
                               and e.role = 'supports'),
                           b.recorded_at)) / 86400))::integer as age_days
          ) v
          join beliefdb.confidence_half_life h on h.kind = b.kind
         where b.confidence_kind <> 'derived'
    ),
    sources as (
        select distinct s.id, s.name, s.authority, p.weight
          from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
          join beliefdb.confidence_policy p on p.factor = 'authority' and p.key = s.authority::text
         where e.workspace_id = p_workspace_id and e.belief_id = p_belief_id and e.role = 'supports'
           and s.retracted_at is null
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
                       (select beliefdb.floored_product(sum(ln(greatest(a.confidence, 1e-9)))) from antecedents a)
                   -- an agent's memory with no quoted evidence (written by a step of a run)
                   when 'agent_asserted' then
                       case when exists (select from sources)
                            then (select 1 - beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9))))
                                    from sources s)
                            else (select p.weight from beliefdb.confidence_policy p
                                   where p.factor = 'trace' and p.key = 'memory') end
                   else (select 1 - coalesce(beliefdb.floored_product(sum(ln(greatest(1 - s.weight, 1e-9)))), 1)
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
    select 'authority', s.authority::text || ' source ' || s.name, s.weight::real
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

-- Accept gated claims against one source version. Each claim is a JSON object with
-- statement, subject, attribute, value, quote, start, end and optional kind, scope,
-- valid_from, valid_to. Returns the outcome of each claim. A claim is one belief of the source's
-- world (rule 15) with its subject, attribute, value, scope and valid time: the same claim from the
-- same fragment again changes nothing (unchanged, whatever became of the belief since), the same
-- claim elsewhere adds evidence to it (corroborated), anything else is a new belief.
create or replace function beliefdb._add_claims(p_workspace_id uuid, p_source_version_id uuid, p_claims jsonb,
                                               p_rejected jsonb default '[]', p_propagate boolean default true)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_claim jsonb;
    v_content text;
    v_start integer;
    v_end integer;
    v_fragment uuid;
    v_belief uuid;
    v_valid tstzrange;
    v_settled jsonb;
    v_accepted jsonb := '[]';
    v_rejected jsonb := coalesce(p_rejected, '[]');
    v_corroborated jsonb := '[]';
    v_unchanged jsonb := '[]';
    v_superseded jsonb := '[]';
    v_conflicts jsonb := '[]';
    v_touched uuid[] := '{}';
    v_fragments uuid[] := '{}';
    v_world beliefdb.provenance;
    v_in_force boolean := beliefdb.in_force(p_workspace_id, p_source_version_id);
begin
    select v.content, s.provenance into v_content, v_world
      from beliefdb.source_version v
      join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
     where v.workspace_id = p_workspace_id and v.id = p_source_version_id;
    if v_content is null then
        raise exception 'unknown source version %', p_source_version_id using errcode = 'BD004';
    end if;

    for v_claim in select c from jsonb_array_elements(coalesce(p_claims, '[]')) as c loop
        v_start := (v_claim ->> 'start')::integer;
        v_end := (v_claim ->> 'end')::integer;
        -- the gate, again: Python found the offsets, the database checks them
        if v_start is null or v_end is null or v_start < 0 or v_end <= v_start or v_end > length(v_content)
           or substr(v_content, v_start + 1, v_end - v_start) is distinct from v_claim ->> 'quote' then
            v_rejected := v_rejected || jsonb_build_object(
                'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                'reason', 'quote is not the source text at the given offsets');
            continue;
        end if;
        v_valid := tstzrange((v_claim ->> 'valid_from')::timestamptz, (v_claim ->> 'valid_to')::timestamptz, '[)');
        v_fragment := beliefdb._fragment_at(p_workspace_id, p_source_version_id, v_start, v_end);
        v_fragments := v_fragments || v_fragment;

        -- recorded from this very fragment before (an unchanged text again, or a version that
        -- repeats an earlier one): nothing new, whatever became of the belief since (rule 18)
        select b.id into v_belief
          from beliefdb.evidence e
          join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
         where e.workspace_id = p_workspace_id and e.fragment_id = v_fragment
           and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
           and b.value = v_claim ->> 'value' and b.scope = coalesce(v_claim -> 'scope', '{}')
           and b.valid_time = v_valid and b.provenance = v_world
         limit 1;
        if v_belief is not null then
            v_unchanged := v_unchanged || jsonb_build_object('id', v_belief, 'statement', v_claim ->> 'statement');
            v_touched := v_touched || v_belief;
            continue;
        end if;

        -- the same claim, believed now (or expired: it was true for exactly that time)
        select b.id into v_belief
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id
           and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
           and b.value = v_claim ->> 'value'
           and b.scope = coalesce(v_claim -> 'scope', '{}')
           and b.valid_time = v_valid and b.provenance = v_world
           and b.status::text in ('current', 'conflicting', 'expired')
         order by b.recorded_at, b.id
         limit 1;

        if v_belief is not null then
            if beliefdb._add_evidence(p_workspace_id, v_belief, v_fragment) then
                v_corroborated := v_corroborated || jsonb_build_object(
                    'id', v_belief, 'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                    'start', v_start, 'end', v_end);
                -- new support can change the rank: settle again (evidence not in force changes nothing)
                v_settled := case when v_in_force then beliefdb._settle(p_workspace_id, v_belief)
                                  else '{"superseded": [], "conflicts": []}' end;
                v_superseded := v_superseded || (v_settled -> 'superseded');
                v_conflicts := v_conflicts || (v_settled -> 'conflicts');
                v_touched := v_touched
                    || array(select (c ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') c)
                    || array(select (c ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') c)
                    || array(select (c ->> 'new')::uuid from jsonb_array_elements(v_settled -> 'superseded') c);
            else
                v_unchanged := v_unchanged || jsonb_build_object('id', v_belief, 'statement', v_claim ->> 'statement');
            end if;
            v_touched := v_touched || v_belief;
            continue;
        end if;

        insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, scope,
                                     valid_time, recorded_at, provenance, confidence_kind)
        values (p_workspace_id, v_claim ->> 'statement', v_claim ->> 'subject', v_claim ->> 'attribute',
                v_claim ->> 'value', coalesce(v_claim ->> 'kind', 'fact'), coalesce(v_claim -> 'scope', '{}'),
                v_valid, beliefdb.clock(), v_world,
                -- a claim may call itself an agent's assertion; a reviewer's correction or a
                -- derivation comes only from the functions that make those
                case when v_claim ->> 'confidence_kind' = 'agent_asserted' then 'agent_asserted'
                     else 'extracted' end::beliefdb.confidence_kind)
        returning id into v_belief;
        perform beliefdb._add_evidence(p_workspace_id, v_belief, v_fragment);
        v_accepted := v_accepted || jsonb_build_object(
            'id', v_belief, 'statement', v_claim ->> 'statement', 'subject', v_claim ->> 'subject',
            'attribute', v_claim ->> 'attribute', 'value', v_claim ->> 'value',
            'quote', v_claim ->> 'quote', 'start', v_start, 'end', v_end);
        -- a claim of a version that is not in force (a retracted source's new text) is history: it
        -- never held, so it meets no rival
        v_settled := case when v_in_force then beliefdb._settle(p_workspace_id, v_belief)
                          else '{"superseded": [], "conflicts": []}' end;
        v_superseded := v_superseded || (v_settled -> 'superseded');
        v_conflicts := v_conflicts || (v_settled -> 'conflicts');
        v_touched := v_touched || v_belief
            || array(select (c ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') c)
            || array(select (c ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') c);
    end loop;

    return jsonb_build_object('accepted', v_accepted, 'rejected', v_rejected, 'corroborated', v_corroborated,
                              'unchanged', v_unchanged, 'superseded', v_superseded, 'conflicts', v_conflicts,
                              'touched', to_jsonb(v_touched || v_fragments),
                              'changes', case when p_propagate
                                              then beliefdb.propagate(p_workspace_id, v_touched || v_fragments) end);
end
$$;
comment on function beliefdb._add_claims(uuid, uuid, jsonb, jsonb, boolean) is 'Accept gated claims from one source version and propagate (p_rejected: what the caller''s gate already rejected, reported with the rest; p_propagate false: the caller propagates what it touched)';

-- When a new version of a source comes into force, beliefs whose quote it repeats keep their
-- support through a fragment of the new version (rule 2). Returns the re-verified beliefs.
create or replace function beliefdb._carry_forward(p_workspace_id uuid, p_source_version_id uuid) returns uuid[]
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_item record;
    v_carried uuid[] := '{}';
begin
    for v_item in
        select distinct on (e.belief_id, e.quote) e.belief_id, e.quote,
               strpos(nv.content, e.quote) - 1 as start_offset
          from beliefdb.source_version nv
          join beliefdb.source_version ov
            on ov.workspace_id = nv.workspace_id and ov.source_id = nv.source_id and ov.version < nv.version
          join beliefdb.fragment f on f.workspace_id = ov.workspace_id and f.source_version_id = ov.id
          join beliefdb.evidence e
            on e.workspace_id = f.workspace_id and e.fragment_id = f.id and e.role = 'supports'
          join beliefdb.belief b
            on b.workspace_id = e.workspace_id and b.id = e.belief_id
           and b.status <> 'retracted'
         where nv.workspace_id = p_workspace_id and nv.id = p_source_version_id
           and strpos(nv.content, e.quote) > 0
    loop
        perform beliefdb._add_evidence(
            p_workspace_id, v_item.belief_id,
            beliefdb._fragment_at(p_workspace_id, p_source_version_id, v_item.start_offset,
                                 v_item.start_offset + length(v_item.quote)));
        v_carried := v_carried || v_item.belief_id;
    end loop;
    return v_carried;
end
$$;
comment on function beliefdb._carry_forward(uuid, uuid) is 'Re-verify beliefs whose quote a new source version repeats, through a fragment of that version';

-- The report of an ingest: the claims' outcome, what stopped holding as a result (beliefs now
-- unsupported), and the decisions flagged and actions held.
create or replace function beliefdb._ingest_report(p_workspace_id uuid, p_outcome jsonb, p_changes jsonb) returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select (p_outcome - 'changes' - 'touched') || jsonb_build_object(
        'unsupported', coalesce((
            select jsonb_agg(b.id)
              from jsonb_array_elements_text(p_changes -> 'stopped_holding') x
              join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = x::uuid
                                    and b.status = 'unsupported'), '[]'),
        'flagged', coalesce(p_changes -> 'flagged', '[]'),
        'held', coalesce(p_changes -> 'held', '[]'),
        'changes', coalesce(p_changes, beliefdb._empty_changes()))
$$;
comment on function beliefdb._ingest_report(uuid, jsonb, jsonb) is 'Shape an ingest report: outcome of claims, beliefs left unsupported, decisions flagged, actions held';

-- Ingest one text as a version of a named source: one call, one transaction, one report.
-- p_fragments: [{"start", "end"}]; p_claims: see add_claims. A source belongs to the principal
-- that first ingested it (rule 17): anyone else's new text for it (or a change of its authority
-- or label) changes nothing and waits in the review queue for the owner (proposed, review_item,
-- owner). The same bytes as a version the source has are a no-op (rule 18), see ingest_version_core.
create or replace function beliefdb.ingest_version(
    p_source text, p_content text,
    p_origin beliefdb.origin_type default null, p_authority beliefdb.authority default null,
    p_provenance beliefdb.provenance default null, p_label text default null, p_path text default null,
    p_fragments jsonb default '[]', p_claims jsonb default '[]', p_rejected jsonb default '[]'
) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_source beliefdb.source;
    v_text jsonb := jsonb_build_object(
        'content', p_content, 'origin', p_origin, 'authority', p_authority, 'provenance', p_provenance,
        'label', p_label, 'path', p_path, 'fragments', coalesce(p_fragments, '[]'), 'claims', coalesce(p_claims, '[]'),
        'rejected', coalesce(p_rejected, '[]'));
    v_sha bytea := sha256(convert_to(p_content, 'UTF8'));
    v_item uuid;
    v_outcome jsonb;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003';
    end if;
    if p_content is null or p_content = '' then
        raise exception 'source % has empty text', p_source using errcode = 'BD005';
    end if;

    select * into v_source from beliefdb.source s where s.workspace_id = v_ws and s.name = p_source;
    if not found then
        insert into beliefdb.source (workspace_id, name, origin_type, authority, provenance)
        values (v_ws, p_source, coalesce(p_origin, 'document'), coalesce(p_authority, 'internal'),
                coalesce(p_provenance, 'production'))
        returning * into v_source;
    elsif v_source.owner is distinct from beliefdb.current_principal()
          -- (the text in force again, or a retracted text, changes no version: claims may be added)
          and (not exists (select from beliefdb.source_version v
                            where v.workspace_id = v_ws and v.source_id = v_source.id and v.sha256 = v_sha
                              and (v.retracted_at is not null or v_source.retracted_at is not null
                                   or beliefdb.in_force(v_ws, v.id)))
               or (p_origin is not null and p_origin <> v_source.origin_type)
               or (p_authority is not null and p_authority <> v_source.authority)
               or (p_provenance is not null and p_provenance <> v_source.provenance)) then
        -- another principal's source: its owner decides (the same proposal twice is one item)
        select r.id into v_item
          from beliefdb.review_item r
         where r.workspace_id = v_ws and r.kind = 'version_proposed' and r.status = 'open'
           and r.source_id = v_source.id and r.proposed_by = beliefdb.current_principal()
           and r.proposal - 'path' - 'rejected' = v_text - 'path' - 'rejected';
        if v_item is null then
            insert into beliefdb.review_item (workspace_id, kind, source_id, reason, proposed_by, proposal)
            values (v_ws, 'version_proposed', v_source.id,
                    pg_catalog.format('%s proposes a new version of %s (sha256 %s); source owned by %s',
                                      beliefdb.current_principal(), v_source.name, left(encode(v_sha, 'hex'), 12),
                                      v_source.owner),
                    beliefdb.current_principal(), v_text)
            returning id into v_item;
            perform beliefdb.audit('version.propose', jsonb_build_object(
                'item', v_item, 'source', v_source.name, 'sha256', encode(v_sha, 'hex'), 'owner', v_source.owner));
        end if;
        return jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', null, 'version_id', null,
            'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb, 'accepted', '[]'::jsonb,
            'rejected', coalesce(p_rejected, '[]'), 'corroborated', '[]'::jsonb, 'unchanged', '[]'::jsonb,
            'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb, 'unsupported', '[]'::jsonb,
            'flagged', '[]'::jsonb, 'held', '[]'::jsonb, 'changes', beliefdb._empty_changes(),
            'proposed', true, 'review_item', v_item, 'owner', v_source.owner,
            'note', pg_catalog.format('%s belongs to %s: proposed to its owner (review item %s)',
                                      v_source.name, v_source.owner, v_item));
    end if;
    v_outcome := beliefdb._ingest_version_core(v_ws, v_source.id, v_text);
    if (v_outcome ->> 'new_version')::boolean then
        perform beliefdb.audit('ingest', jsonb_build_object(
            'source', v_source.name, 'version', v_outcome -> 'version', 'sha256', encode(v_sha, 'hex'),
            'accepted', jsonb_array_length(v_outcome -> 'accepted'),
            'rejected', jsonb_array_length(v_outcome -> 'rejected'),
            'superseded', v_outcome -> 'superseded', 'conflicts', v_outcome -> 'conflicts'));
    elsif jsonb_array_length(v_outcome -> 'accepted') + jsonb_array_length(v_outcome -> 'corroborated') > 0 then
        perform beliefdb.audit('claims', jsonb_build_object(
            'source', v_source.name, 'version', v_outcome -> 'version',
            'accepted', jsonb_array_length(v_outcome -> 'accepted'),
            'corroborated', jsonb_array_length(v_outcome -> 'corroborated')));
    end if;
    return v_outcome;
end
$$;
comment on function beliefdb.ingest_version(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)
    is 'Store a new version of a source with its fragments and claims, and settle what it changes (another principal''s source: a proposal to its owner)';

-- Store a text (p_text: content, origin, authority, provenance, label, path, fragments, claims,
-- rejected; see ingest_version) as a version of a source the acting principal may change, and
-- settle what it changes. Idempotent by content (rule 18): the text of the version in force again
-- only settles claims not recorded before; the text of a retracted version, or any text of a
-- retracted source, changes nothing and says so (note). The text of an earlier version that is no
-- longer in force (A, then B, then A) is a new version in force: its quotes re-verify the beliefs
-- they supported, so no claim is believed twice. Not audited (the callers do that).
create or replace function beliefdb._ingest_version_core(p_workspace_id uuid, p_source_id uuid, p_text jsonb)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_content text := p_text ->> 'content';
    v_sha bytea := sha256(convert_to(p_text ->> 'content', 'UTF8'));
    v_source beliefdb.source;
    v_in_force beliefdb.source_version;
    v_same beliefdb.source_version;
    v_version_id uuid;
    v_version integer;
    v_fragments integer;
    v_carried uuid[];
    v_changes jsonb;
    v_outcome jsonb;
    v_note text;
begin
    select * into v_source from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = p_source_id;
    if (p_text ->> 'origin' is not null and p_text ->> 'origin' <> v_source.origin_type::text)
       or (p_text ->> 'authority' is not null and p_text ->> 'authority' <> v_source.authority::text)
       or (p_text ->> 'provenance' is not null and p_text ->> 'provenance' <> v_source.provenance::text) then
        -- authority weighs on every belief the source supports: their owners' call
        perform beliefdb._require_owner(p_workspace_id, e.belief_id, 'change the authority or label of a source it rests on')
           from beliefdb.evidence e
           join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
           join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          where e.workspace_id = p_workspace_id and v.source_id = p_source_id;
        -- and a label says which world its beliefs belong to (rule 15): fixed once any rests on it
        if p_text ->> 'provenance' is not null and p_text ->> 'provenance' <> v_source.provenance::text
           and exists (select from beliefdb.evidence e
                         join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                         join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                        where e.workspace_id = p_workspace_id and v.source_id = p_source_id) then
            raise exception 'source % is labelled %: beliefs rest on it in that world, so its label cannot change (ingest the text under another source name)',
                v_source.name, v_source.provenance using errcode = 'BD005';
        end if;
        update beliefdb.source s
           set origin_type = coalesce((p_text ->> 'origin')::beliefdb.origin_type, s.origin_type),
               authority = coalesce((p_text ->> 'authority')::beliefdb.authority, s.authority),
               provenance = coalesce((p_text ->> 'provenance')::beliefdb.provenance, s.provenance)
         where s.workspace_id = p_workspace_id and s.id = p_source_id
        returning * into v_source;
    end if;

    select * into v_in_force
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.retracted_at is null
       and v_source.retracted_at is null
     order by v.version desc
     limit 1;
    select * into v_same
      from beliefdb.source_version v
     where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.sha256 = v_sha
     order by v.version desc
     limit 1;
    if v_same.id is not null and v_same.id is not distinct from v_in_force.id then
        -- the text in force again: claims not recorded before are still settled against it
        v_outcome := beliefdb._add_claims(p_workspace_id, v_same.id, p_text -> 'claims', p_text -> 'rejected');
        return beliefdb._ingest_report(p_workspace_id, v_outcome, v_outcome -> 'changes') || jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', v_same.version,
            'version_id', v_same.id, 'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb,
            'proposed', false,
            'note', pg_catalog.format('unchanged: the same text as version %s, in force', v_same.version));
    elsif v_same.id is not null and (v_source.retracted_at is not null or v_same.retracted_at is not null) then
        v_note := case when v_source.retracted_at is not null
                       then pg_catalog.format('unchanged: the same text as version %s of %s, which is retracted (restore it with retract --undo)',
                                              v_same.version, v_source.name)
                       else pg_catalog.format('unchanged: the same text as version %s, which is retracted (restore it with retract --undo --version %s)',
                                              v_same.version, v_same.version) end;
        return jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', v_same.version, 'version_id', v_same.id,
            'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb, 'accepted', '[]'::jsonb,
            'rejected', coalesce(p_text -> 'rejected', '[]'), 'corroborated', '[]'::jsonb, 'unchanged', '[]'::jsonb,
            'superseded', '[]'::jsonb, 'conflicts', '[]'::jsonb, 'unsupported', '[]'::jsonb,
            'flagged', '[]'::jsonb, 'held', '[]'::jsonb, 'changes', beliefdb._empty_changes(), 'proposed', false,
            'note', v_note);
    end if;

    select coalesce(max(v.version), 0) + 1 into v_version
      from beliefdb.source_version v where v.workspace_id = p_workspace_id and v.source_id = p_source_id;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label, path)
    values (p_workspace_id, p_source_id, v_version, v_content, ''::bytea, p_text ->> 'label', p_text ->> 'path')
    returning id into v_version_id;

    insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
    select p_workspace_id, v_version_id, (f ->> 'start')::integer, (f ->> 'end')::integer,
           substr(v_content, (f ->> 'start')::integer + 1, (f ->> 'end')::integer - (f ->> 'start')::integer)
      from jsonb_array_elements(coalesce(p_text -> 'fragments', '[]')) f
    on conflict do nothing;
    get diagnostics v_fragments = row_count;

    v_carried := beliefdb._carry_forward(p_workspace_id, v_version_id);
    perform beliefdb._settle_source_items(p_workspace_id, array[p_source_id]);
    v_outcome := beliefdb._add_claims(p_workspace_id, v_version_id, p_text -> 'claims', p_text -> 'rejected', false);
    -- one propagation for all of it: the claims, and which version is in force (what moved out of
    -- force is the version in force before this one, its fragments; the new one's came in), so
    -- that what the new version brings back meets its rivals as the new version leaves them
    v_changes := beliefdb.propagate(p_workspace_id,
        array(select jsonb_array_elements_text(v_outcome -> 'touched'))::uuid[]
        || beliefdb.expand_targets(p_workspace_id, array[v_version_id] || array(
            select v.id from beliefdb.source_version v
             where v.workspace_id = p_workspace_id and v.source_id = p_source_id and v.version < v_version
               and v.retracted_at is null
             order by v.version desc limit 1)));

    return beliefdb._ingest_report(p_workspace_id, v_outcome, v_changes) || jsonb_build_object(
        'source', v_source.name, 'source_id', v_source.id, 'version', v_version, 'version_id', v_version_id,
        'new_version', true, 'fragments', v_fragments, 'reverified', to_jsonb(v_carried), 'proposed', false,
        'note', case when v_same.id is not null
                     then pg_catalog.format('the same text as version %s: its beliefs are in force again', v_same.version)
                end);
end
$$;
comment on function beliefdb._ingest_version_core(uuid, uuid, jsonb) is 'Store a text as a version of a source (idempotent by content) and settle what it changes (no owner check, no audit)';

-- What ingesting a text would change, exactly (the ingest runs in a subtransaction that is rolled
-- back): the same report as ingest_version (a proposal, for another principal's source).
create or replace function beliefdb.ingest_preview(
    p_source text, p_content text,
    p_origin beliefdb.origin_type default null, p_authority beliefdb.authority default null,
    p_provenance beliefdb.provenance default null, p_label text default null, p_path text default null,
    p_fragments jsonb default '[]', p_claims jsonb default '[]', p_rejected jsonb default '[]'
) returns jsonb
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._dry_run(
        'select beliefdb.ingest_version($1 ->> ''source'', $1 ->> ''content'', ($1 ->> ''origin'')::beliefdb.origin_type, ($1 ->> ''authority'')::beliefdb.authority, ($1 ->> ''provenance'')::beliefdb.provenance, $1 ->> ''label'', $1 ->> ''path'', $1 -> ''fragments'', $1 -> ''claims'', $1 -> ''rejected'')',
        jsonb_build_object('source', p_source, 'content', p_content, 'origin', p_origin, 'authority', p_authority,
                           'provenance', p_provenance, 'label', p_label, 'path', p_path, 'fragments', p_fragments,
                           'claims', p_claims, 'rejected', p_rejected))
        || jsonb_build_object('preview', true)
$$;
comment on function beliefdb.ingest_preview(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)
    is 'Exactly what ingesting a text would change, computed in a rolled-back subtransaction';

-- Claims against the version of a source in force (for remember() without new text).
create or replace function beliefdb.add_claims_to_source(p_source text, p_claims jsonb, p_rejected jsonb default '[]')
returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_version_id uuid;
    v_outcome jsonb;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    select v.id into v_version_id
      from beliefdb.source s
      join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
     where s.workspace_id = v_ws and s.name = p_source and s.retracted_at is null
     order by v.version desc
     limit 1;
    if v_version_id is null then
        raise exception 'unknown source %', p_source using errcode = 'BD004';
    end if;
    v_outcome := beliefdb._add_claims(v_ws, v_version_id, p_claims, p_rejected);
    perform beliefdb.audit('remember', jsonb_build_object(
        'source', p_source, 'accepted', jsonb_array_length(v_outcome -> 'accepted'),
        'rejected', jsonb_array_length(v_outcome -> 'rejected')));
    return beliefdb._ingest_report(v_ws, v_outcome, v_outcome -> 'changes');
end
$$;
comment on function beliefdb.add_claims_to_source(text, jsonb, jsonb) is 'Accept gated claims against the version of a source in force';

-- Whether a belief was believed at a moment, on valid and recorded time together: recorded by
-- then, valid then, not retracted, not yet superseded then, and quoted then from a source
-- version that was the latest one recorded by then.
create or replace function beliefdb.believed_at(p_belief beliefdb.belief, p_at timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select p_belief.recorded_at <= p_at
       and p_belief.valid_time @> p_at
       and p_belief.status <> 'retracted'
       and not exists (
            select from beliefdb.relation r
             where r.workspace_id = p_belief.workspace_id and r.to_belief = p_belief.id and r.kind = 'supersedes'
               and r.created_at <= p_at)
       and exists (
            select from beliefdb.evidence e
              join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
              join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
             where e.workspace_id = p_belief.workspace_id and e.belief_id = p_belief.id and e.role = 'supports'
               and e.created_at <= p_at and v.recorded_at <= p_at
               and not exists (
                    select from beliefdb.source_version later
                     where later.workspace_id = v.workspace_id and later.source_id = v.source_id
                       and later.version > v.version and later.recorded_at <= p_at))
$$;
comment on function beliefdb.believed_at(beliefdb.belief, timestamptz) is 'Whether a belief was believed at a moment (valid time and recorded time together)';

-- What the bound workspace believed at a moment, with the status it had then.
create or replace function beliefdb.beliefs_as_of(p_at timestamptz) returns setof beliefdb.belief
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select b.workspace_id, b.id, b.node_kind, b.statement, b.subject, b.attribute, b.value, b.kind, b.scope,
           b.valid_time, b.recorded_at, b.confidence, b.confidence_kind,
           -- the status it had then: believed, and conflicting if a tie was already open
           case when exists (select from beliefdb.relation c
                              where c.workspace_id = b.workspace_id and c.kind = 'conflicts_with'
                                and b.id in (c.from_belief, c.to_belief) and c.created_at <= p_at)
                then 'conflicting' else 'current' end::beliefdb.belief_status,
           b.revision, b.owner, b.search, b.provenance
      from beliefdb.belief b
     where b.workspace_id = beliefdb.current_workspace_id()
       and beliefdb.believed_at(b, p_at)
$$;
comment on function beliefdb.beliefs_as_of(timestamptz) is 'What the bound workspace believed at a moment (valid time and recorded time together)';

-- A node id from a full uuid or a unique prefix of at least 4 hex digits (dashes as in the id),
-- among the nodes of the given kinds (all kinds when null). A prefix is a range of ids: the
-- primary key is read between its lowest and highest completion.
create or replace function beliefdb.resolve_node(p_ref text, p_kinds beliefdb.node_kind[] default null) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_hex text := replace(lower(trim(coalesce(p_ref, ''))), '-', '');
    v_ids uuid[];
    v_what text := coalesce((select string_agg(k::text, ' or ') from unnest(p_kinds) k), 'node');
begin
    if v_ref ~ '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' then
        select array_agg(n.id) into v_ids from beliefdb.node n
         where n.workspace_id = v_ws and n.id = v_hex::uuid and (p_kinds is null or n.kind = any(p_kinds));
    elsif v_ref ~ '^[0-9a-f-]{4,36}$' and length(v_hex) >= 4
          and v_ref = left(rpad(v_hex, 32, '0')::uuid::text, length(v_ref)) then
        select array_agg(n.id) into v_ids
          from (select n.id from beliefdb.node n
                 where n.workspace_id = v_ws
                   and n.id between rpad(v_hex, 32, '0')::uuid and rpad(v_hex, 32, 'f')::uuid
                   and (p_kinds is null or n.kind = any(p_kinds))
                 limit 21) n;
    end if;
    if coalesce(cardinality(v_ids), 0) = 0 then
        raise exception 'unknown % %', v_what, p_ref using errcode = 'BD004';
    elsif cardinality(v_ids) > 1 then
        raise exception '% id prefix % is ambiguous (% matches%)', v_what, p_ref, least(cardinality(v_ids), 20),
            case when cardinality(v_ids) > 20 then ' or more' else '' end using errcode = 'BD006';
    end if;
    return v_ids[1];
end
$$;
comment on function beliefdb.resolve_node(text, beliefdb.node_kind[]) is 'Resolve a node id or unique id prefix (among some kinds) in the bound workspace';

-- A belief id from a full uuid or a unique prefix of at least 4 hex digits.
create or replace function beliefdb.resolve_belief(p_ref text) returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb.resolve_node(p_ref, '{belief}')
$$;
comment on function beliefdb.resolve_belief(text) is 'Resolve a belief id or unique id prefix in the bound workspace';
