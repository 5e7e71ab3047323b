-- beliefdb: beliefs, evidence, supersession and conflicts (truth rules 1, 3, 8).
-- Python reads files and proposes claims with offsets; everything that decides what is
-- true is here.

-- The fragment at exactly these offsets of a version, created if missing.
create or replace function beliefdb.fragment_at(p_workspace_id uuid, p_source_version_id uuid,
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
comment on function beliefdb.fragment_at(uuid, uuid, integer, integer) is 'Find or create the fragment at exact offsets of a source version';

-- Evidence for a belief: the fragment becomes one justification of the belief. False if it existed.
create or replace function beliefdb.add_evidence(p_workspace_id uuid, p_belief_id uuid, p_fragment_id uuid,
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
comment on function beliefdb.add_evidence(uuid, uuid, uuid, text) is 'Record that a fragment supports a belief (one justification per piece of evidence)';

-- What rule 8 ranks a belief by: its strongest source, its valid-time start, its latest recorded version.
create or replace function beliefdb.belief_rank(p_workspace_id uuid, p_belief_id uuid,
    out authority beliefdb.authority, out valid_from timestamptz, out recorded timestamptz)
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select max(s.authority), lower(b.valid_time), max(v.recorded_at)
      from beliefdb.belief b
      left join beliefdb.evidence e
        on e.workspace_id = b.workspace_id and e.belief_id = b.id and e.role = 'supports'
      left join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
      left join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
      left join beliefdb.source s
        on s.workspace_id = v.workspace_id and s.id = v.source_id and s.retracted_at is null
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     group by b.valid_time
$$;
comment on function beliefdb.belief_rank(uuid, uuid) is 'Rule 8 rank of a belief: authority, valid-time start, latest recorded source version';

-- Rule 8: 1 if belief a beats b, -1 if b beats a, 0 for a tie.
-- Higher authority wins; then the later valid-time start; when either has none, the later
-- recorded source version. Equal on all counts is a tie, never a coin toss.
create or replace function beliefdb.compare_beliefs(p_workspace_id uuid, p_a uuid, p_b uuid) returns integer
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
      from beliefdb.belief_rank(p_workspace_id, p_a) a, beliefdb.belief_rank(p_workspace_id, p_b) b
$$;
comment on function beliefdb.compare_beliefs(uuid, uuid, uuid) is 'Rule 8 comparison of two beliefs: 1 a wins, -1 b wins, 0 tie';

-- Rivals of a belief: current beliefs on the same subject, attribute and scope, with another
-- value, whose valid times overlap.
create or replace function beliefdb.rivals(p_workspace_id uuid, p_belief_id uuid) returns setof uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select r.id
      from beliefdb.belief b
      join beliefdb.belief r
        on r.workspace_id = b.workspace_id and r.subject = b.subject and r.attribute = b.attribute
       and r.scope = b.scope and r.value <> b.value and r.valid_time && b.valid_time
       and r.status in ('current', 'conflicting') and r.id <> b.id
     where b.workspace_id = p_workspace_id and b.id = p_belief_id
     order by r.recorded_at, r.id
$$;
comment on function beliefdb.rivals(uuid, uuid) is 'Current beliefs that contradict a belief: same subject, attribute, scope; other value; overlapping valid time';

-- Settle a new belief against its rivals by rule 8. Returns {"superseded": [{old,new}], "conflicts": [{a,b}]}.
-- The loser is superseded only when the acting principal owns it; a rival owned by someone
-- else is not overruled but put in conflict, for its owner to settle from the review queue.
create or replace function beliefdb.settle(p_workspace_id uuid, p_belief_id uuid) returns jsonb
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
    -- only a belief that is current can win or tie (it may have just lost to one settled before it)
    if not exists (select from beliefdb.belief b
                    where b.workspace_id = p_workspace_id and b.id = p_belief_id
                      and b.status in ('current', 'conflicting')) then
        return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
    end if;
    for v_rival in select beliefdb.rivals(p_workspace_id, p_belief_id) loop
        v_cmp := beliefdb.compare_beliefs(p_workspace_id, p_belief_id, v_rival);
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
            -- a conflict opens once; settling the same pair again changes nothing
            continue when exists (
                select from beliefdb.relation r
                 where r.workspace_id = p_workspace_id and r.kind = 'conflicts_with'
                   and (r.from_belief, r.to_belief) in ((p_belief_id, v_rival), (v_rival, p_belief_id)));
            insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
            values (p_workspace_id, p_belief_id, v_rival, 'conflicts_with',
                    case when v_loser is null then 'rule 8: equal authority and recency'
                         else 'rule 8: the loser has another owner' end);
            update beliefdb.belief set status = 'conflicting', revision = revision + 1
             where workspace_id = p_workspace_id and id in (p_belief_id, v_rival) and status <> 'conflicting';
            insert into beliefdb.review_item (workspace_id, kind, node, other_node, reason)
            values (p_workspace_id, 'conflict', p_belief_id, v_rival, v_reason)
            on conflict do nothing;
            v_conflicts := v_conflicts || jsonb_build_object('a', p_belief_id, 'b', v_rival);
        end if;
    end loop;
    return jsonb_build_object('superseded', v_superseded, 'conflicts', v_conflicts);
end
$$;
comment on function beliefdb.settle(uuid, uuid) is 'Apply rule 8 between a belief and its rivals: supersede the loser, or mark a tie conflicting';

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
     where base.confidence_kind in ('extracted', 'agent_asserted')
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
create or replace function beliefdb.refresh_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns uuid[]
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
comment on function beliefdb.refresh_confidence(uuid, uuid[]) is 'Store the computed confidence of beliefs; returns those whose confidence changed';

-- The same, returning how many changed.
create or replace function beliefdb.recompute_confidence(p_workspace_id uuid, p_beliefs uuid[]) returns integer
language sql
set search_path = pg_catalog, pg_temp
as $$
    select cardinality(beliefdb.refresh_confidence(p_workspace_id, p_beliefs))
$$;
comment on function beliefdb.recompute_confidence(uuid, uuid[]) is 'Store the computed confidence of beliefs; returns how many changed';

-- Accept gated claims against one source version. Each claim is a JSON object with
-- statement, subject, attribute, value, quote, start, end and optional kind, scope,
-- valid_from, valid_to. Returns the outcome of each claim.
create or replace function beliefdb.add_claims(p_workspace_id uuid, p_source_version_id uuid, p_claims jsonb,
                                               p_rejected jsonb default '[]')
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
begin
    select v.content into v_content
      from beliefdb.source_version v
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
        v_fragment := beliefdb.fragment_at(p_workspace_id, p_source_version_id, v_start, v_end);
        v_fragments := v_fragments || v_fragment;

        select b.id into v_belief
          from beliefdb.belief b
         where b.workspace_id = p_workspace_id
           and b.subject = v_claim ->> 'subject' and b.attribute = v_claim ->> 'attribute'
           and b.value = v_claim ->> 'value'
           and b.scope = coalesce(v_claim -> 'scope', '{}')
           and b.status in ('current', 'conflicting')
         order by b.recorded_at
         limit 1;

        if v_belief is not null then
            if beliefdb.add_evidence(p_workspace_id, v_belief, v_fragment) then
                v_corroborated := v_corroborated || jsonb_build_object(
                    'id', v_belief, 'statement', v_claim ->> 'statement', 'quote', v_claim ->> 'quote',
                    'start', v_start, 'end', v_end);
                -- new support can change the rank: settle again
                v_settled := beliefdb.settle(p_workspace_id, v_belief);
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
                                     valid_time, recorded_at, confidence_kind)
        values (p_workspace_id, v_claim ->> 'statement', v_claim ->> 'subject', v_claim ->> 'attribute',
                v_claim ->> 'value', coalesce(v_claim ->> 'kind', 'fact'), coalesce(v_claim -> 'scope', '{}'),
                v_valid, beliefdb.clock(),
                -- a claim may call itself an agent's assertion; a reviewer's correction or a
                -- derivation comes only from the functions that make those
                case when v_claim ->> 'confidence_kind' = 'agent_asserted' then 'agent_asserted'
                     else 'extracted' end::beliefdb.confidence_kind)
        returning id into v_belief;
        perform beliefdb.add_evidence(p_workspace_id, v_belief, v_fragment);
        v_accepted := v_accepted || jsonb_build_object(
            'id', v_belief, 'statement', v_claim ->> 'statement', 'subject', v_claim ->> 'subject',
            'attribute', v_claim ->> 'attribute', 'value', v_claim ->> 'value',
            'quote', v_claim ->> 'quote', 'start', v_start, 'end', v_end);
        v_settled := beliefdb.settle(p_workspace_id, v_belief);
        v_superseded := v_superseded || (v_settled -> 'superseded');
        v_conflicts := v_conflicts || (v_settled -> 'conflicts');
        v_touched := v_touched || v_belief
            || array(select (c ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') c)
            || array(select (c ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') c);
    end loop;

    return jsonb_build_object('accepted', v_accepted, 'rejected', v_rejected, 'corroborated', v_corroborated,
                              'unchanged', v_unchanged, 'superseded', v_superseded, 'conflicts', v_conflicts,
                              'changes', beliefdb.propagate(p_workspace_id, v_touched || v_fragments));
end
$$;
comment on function beliefdb.add_claims(uuid, uuid, jsonb, jsonb) is 'Accept gated claims from one source version and propagate (p_rejected: what the caller''s gate already rejected, reported with the rest)';

-- When a new version of a source comes into force, beliefs whose quote it repeats keep their
-- support through a fragment of the new version (rule 2). Returns the re-verified beliefs.
create or replace function beliefdb.carry_forward(p_workspace_id uuid, p_source_version_id uuid) returns uuid[]
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
        perform beliefdb.add_evidence(
            p_workspace_id, v_item.belief_id,
            beliefdb.fragment_at(p_workspace_id, p_source_version_id, v_item.start_offset,
                                 v_item.start_offset + length(v_item.quote)));
        v_carried := v_carried || v_item.belief_id;
    end loop;
    return v_carried;
end
$$;
comment on function beliefdb.carry_forward(uuid, uuid) is 'Re-verify beliefs whose quote a new source version repeats, through a fragment of that version';

-- The report of an ingest: the claims' outcome, what stopped holding as a result (beliefs now
-- unsupported), and the decisions flagged and actions held.
create or replace function beliefdb.ingest_report(p_workspace_id uuid, p_outcome jsonb, p_changes jsonb) returns jsonb
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select (p_outcome - 'changes') || jsonb_build_object(
        'unsupported', coalesce((
            select jsonb_agg(b.id)
              from jsonb_array_elements_text(p_changes -> 'stopped_holding') x
              join beliefdb.belief b on b.workspace_id = p_workspace_id and b.id = x::uuid
                                    and b.status = 'unsupported'), '[]'),
        'flagged', coalesce(p_changes -> 'flagged', '[]'),
        'held', coalesce(p_changes -> 'held', '[]'))
$$;
comment on function beliefdb.ingest_report(uuid, jsonb, jsonb) is 'Shape an ingest report: outcome of claims, beliefs left unsupported, decisions flagged, actions held';

-- Ingest one text as a version of a named source: one call, one transaction, one report.
-- p_fragments: [{"start", "end"}]; p_claims: see add_claims. Same text as the latest
-- version is a no-op (new_version false).
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
    v_latest beliefdb.source_version;
    v_version_id uuid;
    v_version integer;
    v_fragments integer;
    v_carried uuid[];
    v_changes jsonb;
    v_outcome jsonb;
begin
    perform beliefdb.lock_workspace();
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
    else
        perform beliefdb.require_correction_owner(v_ws, v_source.id, 'replace the text of its correction');
    end if;
    if (p_origin is not null and p_origin <> v_source.origin_type)
       or (p_authority is not null and p_authority <> v_source.authority)
       or (p_provenance is not null and p_provenance <> v_source.provenance) then
        -- authority and provenance weigh on every belief the source supports: their owners' call
        perform beliefdb.require_owner(v_ws, e.belief_id, 'change the authority or label of a source it rests on')
           from beliefdb.evidence e
           join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
           join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          where e.workspace_id = v_ws and v.source_id = v_source.id;
        update beliefdb.source s
           set origin_type = coalesce(p_origin, s.origin_type),
               authority = coalesce(p_authority, s.authority),
               provenance = coalesce(p_provenance, s.provenance)
         where s.workspace_id = v_ws and s.id = v_source.id
        returning * into v_source;
    end if;

    select * into v_latest
      from beliefdb.source_version v
     where v.workspace_id = v_ws and v.source_id = v_source.id
     order by v.version desc
     limit 1;
    if found and v_latest.sha256 = sha256(convert_to(p_content, 'UTF8')) then
        -- the same text again: no new version; claims are still settled against it (a no-op
        -- when they were settled before)
        v_outcome := beliefdb.add_claims(v_ws, v_latest.id, p_claims, p_rejected);
        if jsonb_array_length(v_outcome -> 'accepted') + jsonb_array_length(v_outcome -> 'corroborated') > 0 then
            perform beliefdb.audit('claims', jsonb_build_object(
                'source', v_source.name, 'version', v_latest.version,
                'accepted', jsonb_array_length(v_outcome -> 'accepted'),
                'corroborated', jsonb_array_length(v_outcome -> 'corroborated')));
        end if;
        return beliefdb.ingest_report(v_ws, v_outcome, v_outcome -> 'changes') || jsonb_build_object(
            'source', v_source.name, 'source_id', v_source.id, 'version', v_latest.version,
            'version_id', v_latest.id, 'new_version', false, 'fragments', 0, 'reverified', '[]'::jsonb);
    end if;

    v_version := coalesce(v_latest.version, 0) + 1;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label, path)
    values (v_ws, v_source.id, v_version, p_content, ''::bytea, p_label, p_path)
    returning id into v_version_id;

    insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
    select v_ws, v_version_id, (f ->> 'start')::integer, (f ->> 'end')::integer,
           substr(p_content, (f ->> 'start')::integer + 1, (f ->> 'end')::integer - (f ->> 'start')::integer)
      from jsonb_array_elements(coalesce(p_fragments, '[]')) f
    on conflict do nothing;
    get diagnostics v_fragments = row_count;

    v_carried := beliefdb.carry_forward(v_ws, v_version_id);
    v_outcome := beliefdb.add_claims(v_ws, v_version_id, p_claims, p_rejected);
    -- which version is in force moved: every fragment of the source may have changed holding
    -- what moved out of force is the version in force before this one: its fragments, and the new ones
    v_changes := beliefdb.merge_changes(v_outcome -> 'changes', beliefdb.propagate(v_ws, beliefdb.expand_targets(
        v_ws, array[v_version_id] || array(
            select v.id from beliefdb.source_version v
             where v.workspace_id = v_ws and v.source_id = v_source.id and v.version < v_version
               and v.retracted_at is null
             order by v.version desc limit 1))));

    v_outcome := beliefdb.ingest_report(v_ws, v_outcome, v_changes) || jsonb_build_object(
        'source', v_source.name, 'source_id', v_source.id, 'version', v_version, 'version_id', v_version_id,
        'new_version', true, 'fragments', v_fragments, 'reverified', to_jsonb(v_carried));
    perform beliefdb.audit('ingest', jsonb_build_object(
        'source', v_source.name, 'version', v_version, 'sha256', encode(sha256(convert_to(p_content, 'UTF8')), 'hex'),
        'accepted', jsonb_array_length(v_outcome -> 'accepted'),
        'rejected', jsonb_array_length(v_outcome -> 'rejected'),
        'superseded', v_outcome -> 'superseded', 'conflicts', v_outcome -> 'conflicts'));
    return v_outcome;
end
$$;
comment on function beliefdb.ingest_version(text, text, beliefdb.origin_type, beliefdb.authority, beliefdb.provenance, text, text, jsonb, jsonb, jsonb)
    is 'Store a new version of a source with its fragments and claims, and settle what it changes';

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
    select v.id into v_version_id
      from beliefdb.source s
      join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
     where s.workspace_id = v_ws and s.name = p_source and s.retracted_at is null
     order by v.version desc
     limit 1;
    if v_version_id is null then
        raise exception 'unknown source %', p_source using errcode = 'BD004';
    end if;
    v_outcome := beliefdb.add_claims(v_ws, v_version_id, p_claims, p_rejected);
    perform beliefdb.audit('remember', jsonb_build_object(
        'source', p_source, 'accepted', jsonb_array_length(v_outcome -> 'accepted'),
        'rejected', jsonb_array_length(v_outcome -> 'rejected')));
    return beliefdb.ingest_report(v_ws, v_outcome, v_outcome -> 'changes');
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
           b.revision, b.owner, b.search
      from beliefdb.belief b
     where b.workspace_id = beliefdb.current_workspace_id()
       and beliefdb.believed_at(b, p_at)
$$;
comment on function beliefdb.beliefs_as_of(timestamptz) is 'What the bound workspace believed at a moment (valid time and recorded time together)';

-- A belief id from a full uuid or a unique prefix of at least 4 hex digits.
create or replace function beliefdb.resolve_belief(p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];
    v_ref text := lower(trim(p_ref));
begin
    if v_ref ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        select array_agg(b.id) into v_ids from beliefdb.belief b
         where b.workspace_id = beliefdb.current_workspace_id() and b.id = v_ref::uuid;
    elsif v_ref ~ '^[0-9a-f-]{4,36}$' then
        select array_agg(b.id) into v_ids from beliefdb.belief b
         where b.workspace_id = beliefdb.current_workspace_id() and b.id::text like v_ref || '%';
    end if;
    if coalesce(cardinality(v_ids), 0) = 0 then
        raise exception 'unknown belief %', p_ref using errcode = 'BD004';
    elsif cardinality(v_ids) > 1 then
        raise exception 'belief id prefix % is ambiguous (% matches)', p_ref, cardinality(v_ids) using errcode = 'BD006';
    end if;
    return v_ids[1];
end
$$;
comment on function beliefdb.resolve_belief(text) is 'Resolve a belief id or unique id prefix in the bound workspace';
