-- beliefdb: retrieval that similarity cannot outvote (docs/rules.md, rule 11).
-- Vector search, full-text search and subject names only nominate candidates; the truth rules
-- decide what comes back: only beliefs current at the moment asked about, in scope, and not
-- fixtures unless asked. Low-confidence beliefs are demoted and labelled, never hidden.

-- The provenance label of a belief: the world it belongs to (rule 15), the label of the source
-- that first stated it; every piece of its evidence comes from that world.
create or replace function beliefdb.belief_provenance(p_workspace_id uuid, p_belief uuid) returns text
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select b.provenance::text from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = p_belief
$$;
comment on function beliefdb.belief_provenance(uuid, uuid) is 'Provenance label of a belief: the world it belongs to (production, fixture, synthetic)';

-- Whether a belief applies in a scope: every condition it has on a key the asker names must
-- agree (a belief without conditions applies everywhere).
create or replace function beliefdb.in_scope(p_belief_scope jsonb, p_scope jsonb) returns boolean
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select not exists (select from jsonb_each_text(p_belief_scope) c
                        where coalesce(p_scope, '{}') ? c.key and p_scope ->> c.key is distinct from c.value)
$$;
comment on function beliefdb.in_scope(jsonb, jsonb) is 'Whether a belief''s conditions agree with the asker''s scope on every key both name';

-- The truth filter of retrieval: current now (or believed at p_as_of, on valid and recorded
-- time together), in scope, and production history unless fixtures are asked for.
-- No `set search_path` here, unlike the house style: a SQL function with one is never inlined,
-- and this one runs for every candidate of every search of recall (an executor call each; inlined,
-- its cheap conditions run first and in_scope is skipped when no scope is named). Inlined, its
-- body is planned with the caller's search path, so it names every function, operator and type
-- with its schema; it has invoker rights and calls only functions that set their own path.
create or replace function beliefdb.recallable(p_belief beliefdb.belief, p_as_of timestamptz, p_scope jsonb,
                                               p_include_fixtures boolean) returns boolean
language sql stable
as $$
    select case when p_as_of is null
                then p_belief.status operator(pg_catalog.=) any ('{current,conflicting}'::beliefdb.belief_status[])
                     and p_belief.valid_time operator(pg_catalog.@>) beliefdb.clock()
                else beliefdb.believed_at(p_belief, p_as_of) end
       -- most askers and most beliefs name no scope: in_scope is called only when both do
       and (p_scope is null or p_scope operator(pg_catalog.=) '{}'::pg_catalog.jsonb
            or p_belief.scope operator(pg_catalog.=) '{}'::pg_catalog.jsonb
            or beliefdb.in_scope(p_belief.scope, p_scope))
       and (p_include_fixtures or p_belief.provenance operator(pg_catalog.=) 'production'::beliefdb.provenance)
$$;
comment on function beliefdb.recallable(beliefdb.belief, timestamptz, jsonb, boolean) is 'Truth filter of retrieval: current (or believed at as-of), in scope, production unless fixtures are asked for';

-- Candidates from vector search, full-text search and subject names, fused by reciprocal rank
-- (k = 60), truth-filtered inside each search so a selective filter cannot starve the result
-- (the vector index's iterative scan: _vector_candidates). p_embedding null = text only. Ranked: not low confidence first, then
-- fused score. Vector hits count only above p_min_similarity (thresholds are per model). p_scope: the
-- situation asked about, an object of named text conditions (null or {}: none); any other is BD005.
-- p_subjects: only beliefs about these subjects, each as given (null: any), filtered inside each search
-- as the truth filter is, so the best of them come back however many other beliefs match better (a
-- LangGraph store's search under a namespace prefix).
-- (the signature before p_subjects, replaced)
drop function if exists beliefdb.recall(text, vector, text, integer, timestamptz, jsonb, real, boolean, double precision,
                                        real, integer);
create or replace function beliefdb.recall(
    p_question text,
    p_embedding vector default null,
    p_model text default null,
    p_k integer default 5,
    p_as_of timestamptz default null,
    p_scope jsonb default '{}',
    p_min_confidence real default 0,
    p_include_fixtures boolean default false,
    p_min_similarity double precision default 0,
    p_low_confidence real default null,
    p_candidates integer default 40,
    p_subjects text[] default null)
returns table (belief_id uuid, score double precision, similarity double precision, vector_rank integer,
               text_rank integer, name_rank integer, low_confidence boolean)
language plpgsql
-- owner rights: under row-level security PostgreSQL will not use a non-leakproof operator (@@,
-- pg_trgm's <%) as an index condition, so the text and name indexes would go unused; every
-- search here is confined to the bound workspace explicitly
security definer
-- pg_catalog, the schemas of pgvector and pg_trgm (wherever they are installed), pg_temp: the path
-- schema/02_extensions.sql gives the session that applies this file, taken as the function's own
set search_path from current
-- plan the searches once per session, not once per call: the plans do not depend on the question
-- (custom plans were no better, and planning each call made recall 3x slower at 100k)
set plan_cache_mode = force_generic_plan
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_vector_ids uuid[] := '{}';
    v_vector_sims double precision[] := '{}';
    -- (and the workspace's belief words a CJK word of the question lies in: CJK is not spaced)
    v_lexemes text[] := beliefdb._question_lexemes(p_question) || beliefdb._cjk_vocabulary(v_ws, p_question);
    v_query tsquery := beliefdb._any_of(v_lexemes);
    -- words in more than 1,000 of the workspace's beliefs nominate nothing on their own (see
    -- _nominating_query); counted in this workspace only, so no other one changes the ranking
    v_common text[] := beliefdb._common_lexemes(v_ws, v_lexemes, 1000);
    v_nominate tsquery := beliefdb._nominating_query(v_lexemes, v_common);
    v_words text[];
    -- a small workspace (at most 500 beliefs: counted up to 501, in its key's index) is searched by
    -- reading its own beliefs (own, below), not through the text and name indexes, which hold every
    -- workspace's: beside two of 50,000 beliefs with the question's word, the text index handed over
    -- 91,577 rows to keep 25 of a workspace of 96 (1 ms alone, 160-300 ms beside them)
    v_small boolean := (select count(*) from (select from beliefdb.belief b where b.workspace_id = v_ws
                                               limit 501) b) <= 500;
    v_low real := coalesce(p_low_confidence,
                           (select p.weight from beliefdb.confidence_policy p
                             where p.factor = 'retrieval' and p.key = 'low_confidence'), 0.3);
begin
    if p_k is null or p_k < 1 then
        raise exception 'k must be at least 1' using errcode = 'BD005';
    end if;
    -- (a scope the library refuses, {"region": 5}, matched nothing, silently: refused in the same words)
    if beliefdb._scope_problem(p_scope) is not null then
        raise exception '%', beliefdb._scope_problem(p_scope) using errcode = 'BD005';
    end if;
    if p_embedding is not null then
        select coalesce(array_agg(c.belief_id order by c.rank), '{}'),
               coalesce(array_agg(c.similarity order by c.rank), '{}')
          into v_vector_ids, v_vector_sims
          from beliefdb._vector_candidates(p_embedding, v_ws, p_model, p_min_confidence, p_as_of, p_scope,
                                           p_include_fixtures, p_candidates, p_min_similarity,
                                           p_subjects => p_subjects) c;
    end if;

    -- words that may name a subject: not a stop word, and not common in the workspace (a common
    -- word would name thousands of subjects, none in particular)
    v_words := array(select distinct w from regexp_split_to_table(lower(p_question), '[^[:alnum:]]+') w
                      where length(w) >= 4
                        and not tsvector_to_array(to_tsvector('pg_catalog.english', w)) <@ v_common);
    perform set_config('pg_trgm.word_similarity_threshold', '0.6', true);

    return query
    with vector_found as (
        select v.id, v.rank, v_vector_sims[v.rank] as similarity
          from unnest(v_vector_ids) with ordinality as v (id, rank)
    ),
    -- A small workspace's beliefs (v_small), read once by its workspace and searched below with the
    -- conditions the text and name searches ask of their indexes' rows. Each search keeps the same
    -- rows either way: the text search's limit (1,000) is more than such a workspace has, and a word
    -- that names more of its subjects than the name search keeps of a word (50: those the index
    -- hands over first) is searched in the index. Empty for a larger workspace, searched in the indexes
    -- only: their cost follows what every workspace holds with the question's words.
    own as materialized (
        select b.id, b.search, b.subject, b.confidence, b.status
          from beliefdb.belief b
         where v_small and b.workspace_id = v_ws
    ),
    -- full text: the matches are ranked on a bounded set (a common word can match most of a
    -- workspace), and the truth filter runs on the best of them only.
    -- Here and in name_found the workspace test is `is not distinct from`, not `=`: the same test on a
    -- not-null column, but not an index condition. workspace_id has no statistics (10_tables), so
    -- with `=` the planner ANDs a bitmap of the whole workspace from belief_subject_attribute to the
    -- GIN bitmap: at 100k beliefs that alone took 6 ms per text search and 4 ms per name word.
    text_found as (
        select m.id, m.r
          from (select b.id, ts_rank_cd(b.search, v_query) as r
                  from ((select b0.id, b0.search from beliefdb.belief b0
                          where not v_small and v_nominate is not null and b0.search @@ v_nominate
                            and b0.workspace_id is not distinct from v_ws
                            and (p_subjects is null or b0.subject = any (p_subjects))
                            -- (as of a moment, the confidence of then is asked below, of the candidates)
                            and (p_as_of is not null or b0.confidence >= p_min_confidence)
                            and (p_as_of is not null or b0.status in ('current', 'conflicting'))
                          limit 1000)
                        union all
                        select o.id, o.search from own o
                         where v_nominate is not null and o.search @@ v_nominate
                           and (p_subjects is null or o.subject = any (p_subjects))
                           and (p_as_of is not null or o.confidence >= p_min_confidence)
                           and (p_as_of is not null or o.status in ('current', 'conflicting'))) b
                 order by r desc, b.id
                 limit p_candidates * 4) m
          -- each candidate's belief by its key, then the truth filter on it: as a join, the filter (on the
          -- belief alone) could be pushed down to a scan of the workspace's beliefs repeated for every
          -- candidate, and as of a moment each call reads history (believed_at): 40 s for 24 beliefs
          cross join lateral (select b from beliefdb.belief b where b.workspace_id = v_ws and b.id = m.id
                               offset 0) k
         where beliefdb.recallable(k.b, p_as_of, p_scope, p_include_fixtures)
           and (p_as_of is null or p_min_confidence <= 0 or beliefdb.confidence_at(k.b, p_as_of) >= p_min_confidence)
         order by m.r desc, m.id
         limit p_candidates
    ),
    name_found as (
        select m.id, m.s
          from (select b.id, max(word_similarity(w.w, b.subject)) as s
                  from unnest(v_words) w (w)
                  -- the small workspace's subjects the word names, up to 51 (the letters first: a cheap
                  -- test most subjects fail, before the similarity)
                  cross join lateral (
                        select array_agg(o.id) as ids, array_agg(o.subject) as subjects
                          from (select o.id, o.subject from own o
                                 where o.subject ilike '%' || left(w.w, 5) || '%'
                                   and w.w <% o.subject
                                   and (p_subjects is null or o.subject = any (p_subjects))
                                   and (p_as_of is not null or o.confidence >= p_min_confidence)
                                   and (p_as_of is not null or o.status in ('current', 'conflicting'))
                                 limit 51) o) o
                  -- a word common to many names (customer_1, customer_2, ...) names none
                  -- of them in particular: a bounded number of subjects per word
                  cross join lateral (
                        (select b.id, b.subject
                           from beliefdb.belief b
                          where (not v_small or coalesce(cardinality(o.ids), 0) > 50)
                            and w.w <% b.subject
                            -- and its first five letters as written: the trigram index then
                            -- needs all of their trigrams, so a similar common name
                            -- (contact / contract_...) is not rechecked thousands of times
                            and b.subject ilike '%' || left(w.w, 5) || '%'
                            and b.workspace_id is not distinct from v_ws
                            and (p_subjects is null or b.subject = any (p_subjects))
                            and (p_as_of is not null or b.confidence >= p_min_confidence)
                            and (p_as_of is not null or b.status in ('current', 'conflicting'))
                          limit 50)
                        union all
                        select u.id, u.subject from unnest(o.ids, o.subjects) u (id, subject)
                         where coalesce(cardinality(o.ids), 0) <= 50) b
                 group by b.id
                 order by s desc, b.id
                 limit p_candidates * 4) m
          -- (by its key, then filtered: as text_found)
          cross join lateral (select b from beliefdb.belief b where b.workspace_id = v_ws and b.id = m.id
                               offset 0) k
         where beliefdb.recallable(k.b, p_as_of, p_scope, p_include_fixtures)
           and (p_as_of is null or p_min_confidence <= 0 or beliefdb.confidence_at(k.b, p_as_of) >= p_min_confidence)
         order by m.s desc, m.id
         limit p_candidates
    ),
    -- Equal text ranks or name similarities (every belief that names "Maya" matches her name alike),
    -- and equal fused scores, are ordered by how close each belief is to the question's vector, when
    -- there is one, even below the vector search's own threshold; by id last. Ordered by id alone, the
    -- order of such ties (and so which of them made the first k) changed with the random ids of every
    -- new load. (Each candidate's vector by its key: a join was planned as a hash of the workspace's.)
    closeness as (
        select c.id, (select 1 - (e.embedding <=> p_embedding) from beliefdb.belief_embedding e
                       where e.workspace_id = v_ws and e.belief_id = c.id and e.model = p_model) as closeness
          from (select t.id from text_found t union select n.id from name_found n) c
         where p_embedding is not null
    ),
    -- Before closeness: whether the question names a candidate's attribute (its English stems). One
    -- statement quoted for two claims ("I live in Lisbon and I work as a nurse": lives_in and job) is
    -- one text, one vector and one name to the searches; "where does Maya live?" names lives_in.
    -- (and what each says: the same subject, attribute, value, scope and world said twice, "I live in
    -- Lisbon" in March and again in May, is two current beliefs by rule 16; an answer lists it once)
    candidate as (
        select c.id, k.attribute, k.says
          from (select v.id from vector_found v union select t.id from text_found t
                union select n.id from name_found n) c
         cross join lateral (select b.attribute,
                                    jsonb_build_array(b.subject, b.attribute, b.value, b.scope, b.provenance) as says
                               from beliefdb.belief b where b.workspace_id = v_ws and b.id = c.id
                             offset 0) k
    ),
    named as (
        -- (each attribute's stems once: many candidates share one)
        select c.id, c.says, coalesce(a.named, false) as named
          from candidate c
          left join (select a.attribute,
                            tsvector_to_array(to_tsvector('pg_catalog.english', replace(a.attribute, '_', ' ')))
                            && v_lexemes as named
                       from (select distinct c.attribute from candidate c) a) a on a.attribute = c.attribute
    ),
    by_vector as (
        select v.id, (row_number() over (order by v.similarity desc, a.named desc, v.rank))::integer as rank,
               v.similarity
          from vector_found v join named a on a.id = v.id
    ),
    by_text as (
        select t.id, (row_number() over (order by t.r desc, a.named desc, c.closeness desc nulls last, t.id))::integer
               as rank
          from text_found t join named a on a.id = t.id left join closeness c on c.id = t.id
    ),
    by_name as (
        select n.id, (row_number() over (order by n.s desc, a.named desc, c.closeness desc nulls last, n.id))::integer
               as rank
          from name_found n join named a on a.id = n.id left join closeness c on c.id = n.id
    ),
    fused as (
        select c.id,
               sum(1.0 / (60 + c.rank)) as score,
               max(c.similarity) as similarity,
               min(c.rank) filter (where c.source = 'vector') as vector_rank,
               min(c.rank) filter (where c.source = 'text') as text_rank,
               min(c.rank) filter (where c.source = 'name') as name_rank
          from (select v.id, v.rank, v.similarity, 'vector' as source from by_vector v
                union all
                select t.id, t.rank, null::double precision, 'text' from by_text t
                union all
                select n.id, n.rank, null::double precision, 'name' from by_name n) c
         group by c.id
    )
    -- (each candidate's confidence by its key: a join here was planned as a hash of the whole
    -- workspace's beliefs once the closeness subqueries made the candidates look costly)
    -- (of the beliefs that say the same, the first in this order)
    select o.id, o.score, o.similarity, o.vector_rank, o.text_rank, o.name_rank, o.low
      from (select f.id, f.score::double precision as score, f.similarity, f.vector_rank, f.text_rank, f.name_rank,
                   f.low, a.named, coalesce(c.closeness, f.similarity) as near,
                   row_number() over (partition by a.says
                                      order by f.low, f.score desc, a.named desc,
                                               coalesce(c.closeness, f.similarity) desc nulls last, f.id) as nth
              -- (as of a moment, the confidence it had then: beliefdb.confidence_at)
              from (select f.*, (select case when p_as_of is null then b.confidence
                                             else beliefdb.confidence_at(b, p_as_of) end
                                   from beliefdb.belief b
                                  where b.workspace_id = v_ws and b.id = f.id) < v_low as low
                      from fused f) f
              join named a on a.id = f.id
              left join closeness c on c.id = f.id) o
     where o.nth = 1
     order by o.low, o.score desc, o.named desc, o.near desc nulls last, o.id
     limit p_k;
end
$$;
comment on function beliefdb.recall(text, vector, text, integer, timestamptz, jsonb, real, boolean, double precision, real, integer, text[]) is 'Hybrid recall (vector, full text, subject names; reciprocal rank fusion) with the truth filter applied inside every search, of the subjects given when given';

-- When a value was replaced, as a reader dates it: when its replacement became valid (a turn's date),
-- if that is after the replaced value became valid; else (no valid time, or a stronger source that
-- says an earlier start: a correction of January's value that beat a statement of May, rule 8) when
-- the replacement was recorded. Never before the replaced value was valid.
create or replace function beliefdb.replaced_on(p_new tstzrange, p_old tstzrange, p_recorded timestamptz)
returns timestamptz
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select case when pg_catalog.lower(p_new) > coalesce(pg_catalog.lower(p_old), '-infinity'::timestamptz)
                then pg_catalog.lower(p_new) else p_recorded end
$$;
comment on function beliefdb.replaced_on(tstzrange, tstzrange, timestamptz) is 'When a value was replaced, as shown: its replacement''s valid start if after its own, else when the replacement was recorded';

-- Whether a value a belief replaced is shown as its history (ask's warnings and history items): a
-- value that was true once. Not one retracted, nor one whose every quote was retracted (its fragment,
-- version or source): that was never true. A quote of a version replaced since still counts (a
-- document's new version replaced the value; it was true until then), as does holding by reasons.
-- As of a moment: what was retracted by then, as beliefdb.held_at reads it.
create or replace function beliefdb.shown_as_replaced(p_old beliefdb.belief, p_as_of timestamptz) returns boolean
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select case
        when p_as_of is null then
            p_old.status = 'superseded'
            and (exists (select from beliefdb.node n
                          where n.workspace_id = p_old.workspace_id and n.id = p_old.id and n.holds)
                 or exists (select from beliefdb.evidence e
                              join beliefdb.node fn on fn.workspace_id = e.workspace_id and fn.id = e.fragment_id
                              join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                              join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                              join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                             where e.workspace_id = p_old.workspace_id and e.belief_id = p_old.id and e.role = 'supports'
                               and fn.retracted_at is null and v.retracted_at is null and s.retracted_at is null))
        else
            beliefdb.held_at(p_old, p_as_of)
            or (not exists (select from beliefdb.retraction_period r
                             where r.workspace_id = p_old.workspace_id and r.node_id = p_old.id
                               and r.retracted_at <= p_as_of and (r.restored_at is null or r.restored_at > p_as_of))
                and exists (select from beliefdb.evidence e
                              join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                              join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
                             where e.workspace_id = p_old.workspace_id and e.belief_id = p_old.id and e.role = 'supports'
                               and e.created_at <= p_as_of
                               and not exists (select from beliefdb.retraction_period r
                                                where r.workspace_id = f.workspace_id
                                                  and (r.node_id = f.id or r.source_version_id = v.id
                                                       or r.source_id = v.source_id)
                                                  and r.retracted_at <= p_as_of
                                                  and (r.restored_at is null or r.restored_at > p_as_of))))
        end
$$;
comment on function beliefdb.shown_as_replaced(beliefdb.belief, timestamptz) is 'Whether a replaced value is shown as history: true once, not retracted and not resting only on retracted quotes (as of a moment: as then)';

-- What a caller should know about a recalled belief: open conflicts (with the other values),
-- what it replaced and when, and its provenance label. An id that names no belief of the bound
-- workspace is not found (BD004), not a belief without warnings.
create or replace function beliefdb.recall_warnings(p_belief uuid, p_as_of timestamptz default null) returns jsonb
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003', hint = beliefdb.workspace_hint();
    end if;
    if not exists (select from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_belief) then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004', detail = '{"unknown": ["belief"]}';
    end if;
    return jsonb_build_object(
        'conflicts', coalesce((
            select jsonb_agg(jsonb_build_object('belief', o.id, 'value', o.value, 'statement', o.statement)
                             order by o.id)
              from beliefdb.relation r
              join beliefdb.belief o
                on o.workspace_id = r.workspace_id
               and o.id = case when r.from_belief = p_belief then r.to_belief else r.from_belief end
             where r.workspace_id = v_ws and r.kind = 'conflicts_with'
               and p_belief in (r.from_belief, r.to_belief)
               and (p_as_of is null and o.status in ('current', 'conflicting')
                    or p_as_of is not null and r.created_at <= p_as_of and beliefdb.believed_at(o, p_as_of))),
            '[]'),
        'replaced', coalesce((
            select jsonb_agg(jsonb_build_object('belief', o.id, 'value', o.value, 'statement', o.statement,
                                                'at', r.created_at, 'reason', r.reason,
                                                'on', beliefdb.replaced_on(n.valid_time, o.valid_time, r.created_at))
                             order by r.created_at)
              from beliefdb.relation r
              join beliefdb.belief o on o.workspace_id = r.workspace_id and o.id = r.to_belief
              join beliefdb.belief n on n.workspace_id = r.workspace_id and n.id = r.from_belief
             where r.workspace_id = v_ws and r.kind = 'supersedes'
               and r.from_belief = p_belief
               and (p_as_of is null and r.ended_at is null
                    or r.created_at <= p_as_of and (r.ended_at is null or r.ended_at > p_as_of))
               and beliefdb.shown_as_replaced(o, p_as_of)),
            '[]'),
        'provenance', beliefdb.belief_provenance(v_ws, p_belief));
end
$$;
comment on function beliefdb.recall_warnings(uuid, timestamptz) is 'Warnings for a recalled belief: open conflicts, what it replaced and when, provenance label; jsonb: two lists of different records and a label';

-- The asked workspace's ranking statistics counted again from its beliefs (triggers keep them; a
-- load that bypassed the triggers, or a repair, calls this), and, unless p_analyze is false, the
-- planner statistics of the tables retrieval reads gathered again (right after a large import
-- the planner still plans for the tables as they were). Returns how many lexemes the workspace has.
-- The planner statistics only in a session of the schema's owner (beliefdb._may_analyze): another
-- login's ANALYZE would hold the tables every workspace shares until its transaction ended.
create or replace function beliefdb.refresh_ranking_stats(p_analyze boolean default true) returns bigint
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_n bigint;
begin
    if p_analyze then
        perform beliefdb._may_analyze('refresh_ranking_stats(false) counts the ranking statistics alone');
    end if;
    v_n := beliefdb._refresh_ranking_stats(v_ws);
    if p_analyze then
        begin
            -- (in order of their names, as every ANALYZE of beliefdb: beliefdb._analyze_text_tables)
            analyze beliefdb.belief, beliefdb.belief_embedding, beliefdb.evidence, beliefdb.fragment,
                    beliefdb.lexeme_frequency;
        exception when lock_not_available then
            -- another session's ANALYZE held a table past lock_timeout: said so in the detail, for a
            -- program (beliefdb.db.connector.translate), as every ANALYZE of beliefdb's tables says it
            raise exception using errcode = 'lock_not_available', message = sqlerrm,
                detail = '{"waited_for": "analyze"}';
        end;
    end if;
    return v_n;
end
$$;
comment on function beliefdb.refresh_ranking_stats(boolean) is 'Count the workspace''s ranking statistics again from its beliefs and gather the retrieval tables'' planner statistics';

-- Text that matches a question and from which no belief was extracted: ask's fallback when too few
-- beliefs answer (rule 11 of docs/rules.md still holds: these are not beliefs, ask labels them as
-- unextracted text). Only fragments of a version in force of a source that is not retracted, not
-- retracted themselves, of production sources unless fixtures are asked for; with p_as_of, all of
-- that as it stood then (in_force_at, beliefdb.retraction_period); a fragment any belief quotes, in
-- whole or in part, is left out (its belief, current or not, speaks for it: an old value never
-- comes back as text), and so is one with text forgotten in it (rule 14). Full text only: fragments have no
-- embeddings; a CJK question's terms (pairs of characters, _cjk_terms) are found inside the text. A
-- markdown heading's bare title ("# Returns policy") is a title of what follows, no answer, and is
-- left out (_heading_title), and so is a question heading ("## Can I return a sale item?": the text
-- below answers); one that carries a value ("## Support: 9am to 5pm on weekdays": a ':' before more
-- words, a verb, or a number with a unit, time, percent, amount or preposition, _bare_title) is text
-- like any other. A turn of a
-- conversation must share a word with the question besides the names of the people in that
-- conversation (its speakers): "Hi Maya!" answers nothing about Maya, as a
-- belief matched by its subject's name alone is no word match for ask (a speaker named like a word,
-- "Bill" or "user", makes that word a name in that conversation). Ranked by ts_rank_cd over
-- the question's words, a turn's speaker's name among its words (as a belief's subject is among
-- its); of turns that match equally the later one first (a conversation's newer value before the
-- one it replaced, issue 20).
create or replace function beliefdb.recall_fragments(
    p_question text,
    p_k integer default 5,
    p_as_of timestamptz default null,
    p_include_fixtures boolean default false,
    p_candidates integer default 40)
returns table (fragment_id uuid, score double precision, text_rank integer)
language plpgsql
-- owner rights, as recall: under row-level security the full-text index would go unused; every
-- search here is confined to the bound workspace explicitly
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_lexemes text[] := beliefdb._question_lexemes(p_question);
    v_query tsquery := beliefdb._question_query(p_question);
    v_nominate tsquery := beliefdb._nominating_query(v_lexemes, beliefdb._common_lexemes(v_ws, v_lexemes, 1000));
    -- the question's CJK terms, as patterns a fragment's text is matched with (CJK is not spaced: a
    -- fragment's stored words hold "我住在上海" whole, which "上海" is not)
    v_cjk text[] := array(select '%' || t || '%' from unnest(beliefdb._cjk_terms(p_question)) t);
    -- a small workspace (at most 1,000 fragments, the most candidates kept below: counted up to 1,001,
    -- in its key's index) is searched by reading its own fragments, not through the text index, which
    -- holds every workspace's (as recall's beliefs: beside 100,000 other fragments with the question's
    -- word, the planner scanned the whole table for the 96 of one workspace, 2 -> 36 ms)
    v_small boolean := (select count(*) from (select from beliefdb.fragment f where f.workspace_id = v_ws
                                               limit 1001) f) <= 1000;
begin
    if p_k is null or p_k < 1 then
        raise exception 'k must be at least 1' using errcode = 'BD005';
    end if;
    return query
    with c as materialized (
        -- the stored words, which the fragment_search index covers (schema/10_tables.sql), of
        -- fragments no belief quotes: quoted ones, which cannot come back, are left out before the
        -- limit, so that they do not fill the candidates, and at most 10,000 matches are looked at
        -- (a store where most fragments are quoted reads that many for a question of rare words:
        -- ~15 ms). A probe of evidence_fragment per fragment as they come, which stops with the
        -- limit: as an anti join, the planner may hash all of the workspace's evidence.
        select f0.id, f0.words, f0.source_version_id, f0.speaker
          from ((select f0.id,
                        case when cardinality(v_cjk) > 0 then f0.search || beliefdb._cjk_words(f0.text)
                             else f0.search end as words, f0.source_version_id, f0.speaker, f0.start_offset, f0.end_offset
                   from beliefdb.fragment f0
                  where not v_small
                    and v_nominate is not null
                    and f0.search @@ v_nominate
                    and f0.workspace_id is not distinct from v_ws
                  limit 10000)
                union all
                -- a small workspace's fragments (v_small), read by its workspace and matched one by one:
                -- the same fragments as the index gives, as no limit here keeps fewer than it has
                (select f0.id,
                        case when cardinality(v_cjk) > 0 then f0.search || beliefdb._cjk_words(f0.text)
                             else f0.search end, f0.source_version_id, f0.speaker, f0.start_offset, f0.end_offset
                   from (select f0.id, f0.search, f0.text, f0.source_version_id, f0.speaker, f0.start_offset,
                                f0.end_offset
                           from beliefdb.fragment f0
                          where v_small and f0.workspace_id = v_ws
                         offset 0) f0
                  where v_nominate is not null
                    and f0.search @@ v_nominate)
                union all
                -- a CJK question's terms inside the text (no index has them: the workspace's fragments
                -- are read, for a question with CJK only), their words with the text's CJK terms
                (select f0.id, f0.search || beliefdb._cjk_words(f0.text), f0.source_version_id, f0.speaker,
                        f0.start_offset, f0.end_offset
                   from beliefdb.fragment f0
                  where cardinality(v_cjk) > 0
                    and f0.workspace_id = v_ws
                    and f0.text like any (v_cjk)
                    and not (v_nominate is not null and f0.search @@ v_nominate)
                  limit 10000)) f0
         where (select e.fragment_id from beliefdb.evidence e
                 where e.workspace_id = v_ws and e.fragment_id = f0.id limit 1) is null
           -- nor a fragment a quote lies in, in part or across it (a quote cut inside a sentence, or
           -- over two): its belief speaks for those words too. The fragments of its version that
           -- start before it ends, read in the version's key index (a partition's fragments end
           -- before it starts, and are passed over in the index), the evidence probed only for those
           -- that overlap it
           and not exists (select from beliefdb.fragment q
                            where q.workspace_id = v_ws and q.source_version_id = f0.source_version_id
                              and q.start_offset < f0.end_offset and q.end_offset > f0.start_offset
                              and q.id <> f0.id
                              and exists (select from beliefdb.evidence e
                                           where e.workspace_id = v_ws and e.fragment_id = q.id))
           -- nor one with forgotten text in it (rule 14): what is left of a sentence whose quote was
           -- masked ("Maya's █████") would name whom it was about (the version's redactions, by its key)
           and not exists (select from beliefdb.redaction r
                            where r.workspace_id = v_ws and r.source_version_id = f0.source_version_id
                              and r.start_offset < f0.end_offset and r.end_offset > f0.start_offset)
         limit 1000
    ), named as (
        -- per conversation among the candidates, the question's words that name a person in it: its
        -- speakers, read one after the other by the index fragment_speaker (a probe a speaker, not a
        -- read of every turn)
        select v.source_version_id, array_agg(distinct l.lexeme) as lexemes
          from (select distinct c.source_version_id from c where c.speaker is not null) v
         cross join lateral (
                with recursive p (speaker) as (
                    (select f.speaker from beliefdb.fragment f
                      where f.workspace_id = v_ws and f.source_version_id = v.source_version_id
                        and f.speaker is not null
                      order by f.speaker limit 1)
                    union all
                    select (select f.speaker from beliefdb.fragment f
                             where f.workspace_id = v_ws and f.source_version_id = v.source_version_id
                               and f.speaker > p.speaker
                             order by f.speaker limit 1)
                      from p
                     where p.speaker is not null
                )
                select p.speaker from p where p.speaker is not null) p
         cross join lateral unnest(beliefdb._speaker_words(p.speaker)) l (lexeme)
         where l.lexeme = any(v_lexemes)
         group by v.source_version_id
    )
    select h.id, h.r::double precision,
           (row_number() over (order by h.r desc, h.spoken_at desc nulls last, h.id))::integer
      from (select ranked.id, ranked.r, ranked.spoken_at
              from (
                select m.id, m.r, x.spoken_at, x.source_version_id, x.start_offset, x.speaker, x.text
                  from (select c.id,
                               -- (a turn's words and its speaker's name, as a belief's words hold its subject)
                               ts_rank_cd(case when c.speaker is null then c.words
                                               else c.words || to_tsvector('pg_catalog.english', c.speaker)
                                                    || to_tsvector('pg_catalog.simple', c.speaker) end, v_query) as r
                          from c
                          left join named on named.source_version_id = c.source_version_id
                         where named.lexemes is null
                            or exists (select from unnest(tsvector_to_array(c.words)) w (lexeme)
                                        where w.lexeme = any(v_lexemes) and not w.lexeme = any(named.lexemes))
                         order by r desc, c.id
                         limit p_candidates * 4) m
                 -- Each ranked candidate looked up by its keys, one after the other (offset 0, and subqueries
                 -- rather than joins): with no statistics on workspace_id (schema/10_tables.sql) the planner
                 -- takes a workspace's rows for a handful, and joined it read every source version of the
                 -- workspace once per candidate (14 s at 15,000 versions)
                 cross join lateral (
                        select f.spoken_at, f.source_version_id, f.start_offset, f.speaker, f.text
                          from beliefdb.fragment f
                         where f.workspace_id = v_ws and f.id = m.id
                           and (select (p_include_fixtures or s.provenance = 'production')
                                  from beliefdb.source_version v
                                  join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                                 where v.workspace_id = v_ws and v.id = f.source_version_id)
                           -- not retracted, of a version in force: now, or then (retractions as they stood then)
                           and case when p_as_of is null
                                    then (select n.retracted_at is null from beliefdb.node n where n.workspace_id = v_ws and n.id = f.id)
                                         and beliefdb.in_force(v_ws, f.source_version_id)
                                    else not exists (select from beliefdb.retraction_period r
                                                      where r.workspace_id = v_ws and r.node_id = f.id and r.retracted_at <= p_as_of
                                                        and (r.restored_at is null or r.restored_at > p_as_of))
                                         and beliefdb.in_force_at(v_ws, f.source_version_id, p_as_of) end
                        offset 0) x
                 order by m.r desc, x.spoken_at desc nulls last, m.id
                   offset 0) ranked
             -- and no heading's bare title ("# Returns policy"; a document's fragment: a turn is
             -- none; one that carries a value, "## Support: 9am to 5pm", is text like any other),
             -- read from the text just before it, in rank order until k are found: the version's
             -- text is read (its prefix up to the fragment decompressed) for those few, of the
             -- fragments whose own text could be a bare title. Checked for every ranked candidate, a
             -- question of which 8,000 lines of a 460,000-character document matched took 60 ms
             -- instead of 17; so, 22-25 (18-20 without it, under load)
             where case when ranked.speaker is null and beliefdb._bare_title(ranked.text)
                        then not beliefdb._heading_title((select v.content from beliefdb.source_version v
                                                           where v.workspace_id = v_ws
                                                             and v.id = ranked.source_version_id),
                                                          ranked.start_offset)
                        else true end
             order by ranked.r desc, ranked.spoken_at desc nulls last, ranked.id
             limit p_k) h
     order by h.r desc, h.spoken_at desc nulls last, h.id;
end
$$;
comment on function beliefdb.recall_fragments(text, integer, timestamptz, boolean, integer) is 'Unextracted text matching a question: fragments in force that no belief quotes, ranked by full text (ask''s fallback; not beliefs)';

-- The application's writes of vectors, each confined to the bound workspace. It reads
-- belief_embedding and embedding_model but writes neither itself: a login that may update or delete
-- a table may also lock it (lock table ... in access exclusive mode), and an agent's login holding
-- that lock kept every workspace's searches waiting.

-- Store a belief's vector of a model, replacing any of the same model; refused when the workspace's
-- vectors are of another model (nor is it the one a reembed moves to), or its vectors of that model
-- have another dimension (an endpoint serving another model under the same name): such a vector is
-- never compared with a question's, so it would never be found.
create or replace function beliefdb.store_embedding(p_belief uuid, p_model text, p_embedding vector) returns void
language plpgsql
security definer
-- pgvector's vector_dims wherever the extension is installed
set search_path from current
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_model beliefdb.embedding_model;
    v_dim integer;
begin
    if p_belief is null or coalesce(btrim(p_model), '') = '' or p_embedding is null then
        raise exception 'a vector is stored for a belief (p_belief), of a model (p_model): % given',
            pg_catalog.concat_ws(', ', case when p_belief is null then 'no belief' end,
                                 case when coalesce(btrim(p_model), '') = '' then 'no model' end,
                                 case when p_embedding is null then 'no vector' end) using errcode = 'BD005';
    end if;
    select * into v_model from beliefdb.embedding_model m where m.workspace_id = v_ws;
    v_dim := case p_model when v_model.model then v_model.dim when v_model.target_model then v_model.target_dim end;
    -- (a write that checked the model before a reembed switched the workspace to another)
    if v_model.model is not null and v_dim is null then
        raise exception 'this workspace''s vectors are of model %, not %: nothing was stored', v_model.model, p_model
            using errcode = 'BD011';
    end if;
    if v_dim <> vector_dims(p_embedding) then
        raise exception 'vectors of model % have % dimensions in this workspace, not % (another model under the same name?): nothing was stored',
            p_model, v_dim, vector_dims(p_embedding) using errcode = 'BD011';
    end if;
    insert into beliefdb.belief_embedding (workspace_id, belief_id, model, embedding)
    values (v_ws, p_belief, p_model, p_embedding)
    on conflict (workspace_id, belief_id, model) do update set embedding = excluded.embedding;
end
$$;
comment on function beliefdb.store_embedding(uuid, text, vector) is 'Store a belief''s vector of a model in the bound workspace, replacing any of the same model; refused (BD011) of another model than the workspace''s, or in another dimension than its vectors of that model';

-- Record the bound workspace's embedding model, unless one is recorded (its first embedding).
create or replace function beliefdb.record_embedding_model(p_model text, p_dim integer) returns void
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._check_embedding_model(p_model, p_dim);
    insert into beliefdb.embedding_model (workspace_id, model, dim)
    values (beliefdb._bound_workspace(), p_model, p_dim)
    on conflict do nothing
$$;
comment on function beliefdb.record_embedding_model(text, integer) is 'Record the bound workspace''s embedding model unless one is recorded';

-- Start moving the bound workspace to another embedding model (reembed: its vectors are stored
-- beside the old model's until the switch).
create or replace function beliefdb.embedding_target(p_model text, p_dim integer) returns void
language sql
security definer
set search_path = pg_catalog, pg_temp
as $$
    select beliefdb._check_embedding_model(p_model, p_dim);
    update beliefdb.embedding_model m set target_model = p_model, target_dim = p_dim
     where m.workspace_id = beliefdb._bound_workspace()
$$;
comment on function beliefdb.embedding_target(text, integer) is 'Start moving the bound workspace to another embedding model';

-- Move the bound workspace to the model it was moving to, and drop every other model's vectors.
create or replace function beliefdb.embedding_switch(p_model text) returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
begin
    update beliefdb.embedding_model m
       set model = m.target_model, dim = m.target_dim, target_model = null, target_dim = null,
           updated_at = beliefdb.clock()
     where m.workspace_id = v_ws and m.target_model = p_model;
    delete from beliefdb.belief_embedding e where e.workspace_id = v_ws and e.model <> p_model;
end
$$;
comment on function beliefdb.embedding_switch(text) is 'Move the bound workspace to the embedding model it was moving to and drop the other models'' vectors';
