-- beliefdb: the internals of the vector index (issue 21). ensure_vector_index (api/70_dba_tools.sql)
-- decides which index a dimension needs; this builds the IVFFlat one, and tells recall what it has.

-- (Re)build a dimension's vector index as IVFFlat with p_lists lists over the vectors cast to
-- halfvec, trained on the vectors stored now, and drop its HNSW index: writes keep one vector index,
-- and recall orders by the one left. halfvec halves what a search reads (768 bytes a vector at 384
-- dimensions instead of 1,536) for the same recall: recall re-ranks what the index returns by the
-- full-precision distance. Why IVFFlat from a store's size on, and why halfvec: docs/benchmarks.md,
-- "Recall of the vector path (issue 21)".
create or replace function beliefdb._build_vector_index(p_dim integer, p_lists integer) returns void
language plpgsql security definer
-- pgvector's types, operator class and vector_dims wherever the extension is installed
set search_path from current
as $$
begin
    -- pgvector indexes halfvec up to 4,000 dimensions
    if p_dim is null or p_dim < 1 or p_dim > 4000 then
        raise exception 'invalid embedding dimension % for an IVFFlat index (1 to 4,000)', p_dim using errcode = 'BD005';
    end if;
    if p_lists is null or p_lists < 1 or p_lists > 32768 then
        raise exception 'invalid number of lists %', p_lists using errcode = 'BD005';
    end if;
    execute pg_catalog.format('drop index if exists beliefdb.%I', 'belief_embedding_ivf_' || p_dim);
    execute pg_catalog.format(
        'create index %I on beliefdb.belief_embedding using ivfflat ((embedding::halfvec(%s)) '
        'halfvec_cosine_ops) with (lists = %s) where vector_dims(embedding) = %s',
        'belief_embedding_ivf_' || p_dim, p_dim, p_lists, p_dim);
    execute pg_catalog.format('drop index if exists beliefdb.%I', 'belief_embedding_hnsw_' || p_dim);
end
$$;
comment on function beliefdb._build_vector_index(integer, integer) is 'Rebuild a dimension''s vector index as IVFFlat over halfvec with this many lists (drops its HNSW index)';

-- How many lists the IVFFlat index over halfvec of a dimension has; null when the dimension has no
-- such index (HNSW, no index, or an IVFFlat index over full vectors that ensure_vector_index has not
-- rebuilt yet): recall then orders by the full vectors.
create or replace function beliefdb._halfvec_lists(p_dim integer) returns integer
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select o.option_value::integer
      from pg_catalog.pg_index i
      join pg_catalog.pg_class c on c.oid = i.indexrelid
      join pg_catalog.pg_opclass oc on oc.oid = i.indclass[0]
     cross join lateral pg_catalog.pg_options_to_table(c.reloptions) o
     where i.indexrelid = pg_catalog.to_regclass(pg_catalog.format('beliefdb.belief_embedding_ivf_%s', p_dim))
       and oc.opcname = 'halfvec_cosine_ops' and o.option_name = 'lists'
$$;
comment on function beliefdb._halfvec_lists(integer) is 'Lists of a dimension''s IVFFlat index over halfvec (null when it has none)';

-- How many IVFFlat lists a search reads: 12 % of the lists, and at least 2 per candidate wanted.
-- Measured (docs/benchmarks.md, "Recall of the vector path"): recall@10 against exact search with
-- the truth filter depends on the k-means of the build; at 1M (2,000 lists) one build gave 0.975
-- reading 8 %, the next 0.9475 at 8 %, 0.9525 at 10 % and 0.9675 at 12 %; at 100k (1,000 lists)
-- 0.967 at 8 %. A search's cost follows the vectors it reads: 12 % of the store.
create or replace function beliefdb._ivfflat_probes(p_lists integer, p_candidates integer) returns integer
language sql immutable
set search_path = pg_catalog, pg_temp
as $$
    select greatest(2 * p_candidates, 10, (p_lists * 12 + 99) / 100)
$$;
comment on function beliefdb._ivfflat_probes(integer, integer) is 'How many IVFFlat lists a vector search reads: 12 % of the lists, at least 2 per candidate';

-- recall's vector search (api/68_retrieval.sql): the p_candidates beliefs nearest to p_embedding
-- among those that pass the truth filter (recallable, inside the index scan: an iterative scan
-- goes on while the filter rejects what it reads, so a selective filter cannot starve the result),
-- nearest first, with their similarity, only those of similarity p_min_similarity or more.
-- The order comes from the dimension's vector index, never from a sort (a sort would read every
-- vector of the workspace). Over an IVFFlat index on halfvec, the index returns 4 candidates per
-- one kept and they are re-ranked by the full-precision distance (half precision moves a distance
-- by ~1e-4; neighbours can be closer than that). p_ef_search and p_probes override the search
-- width (hnsw.ef_search, ivfflat.probes) for the benchmark; null = recall's own. p_subjects: only
-- beliefs about these subjects, as given (null: any), filtered inside the scan as the truth filter is.
-- (the signature before p_subjects, replaced)
drop function if exists beliefdb._vector_candidates(vector, uuid, text, real, timestamptz, jsonb, boolean, integer,
                                                    double precision, integer, integer);
create or replace function beliefdb._vector_candidates(
    p_embedding vector, p_workspace_id uuid, p_model text, p_min_confidence real, p_as_of timestamptz,
    p_scope jsonb, p_include_fixtures boolean, p_candidates integer, p_min_similarity double precision,
    p_ef_search integer default null, p_probes integer default null, p_subjects text[] default null)
returns table (belief_id uuid, similarity double precision, rank integer)
language plpgsql security definer
-- pgvector's types, operators and vector_dims wherever the extension is installed
set search_path from current
as $$
declare
    v_dim integer := vector_dims(p_embedding);
    v_lists integer := beliefdb._halfvec_lists(v_dim);
    v_probes integer := coalesce(p_probes, beliefdb._ivfflat_probes(coalesce(v_lists, 0), p_candidates));
    v_sort text := current_setting('enable_sort');
    v_work_mem text := current_setting('work_mem');
    v_ids uuid[];
    v_sims double precision[];
    v_exact_max integer := case when current_setting('beliefdb.exact_vector_search_max', true) ~ '^[0-9]{1,9}$'
                                then current_setting('beliefdb.exact_vector_search_max', true)::integer
                                else 2000 end;
    v_exact boolean;
begin
    -- A workspace of at most 2,000 vectors of the model (the setting beliefdb.exact_vector_search_max,
    -- when it is a number) is searched exactly: a few milliseconds at most, and what exact search
    -- finds. The shared index, built with random levels (HNSW) and searched with the workspace as a
    -- filter among every other workspace's vectors, found a different part of a small workspace's
    -- neighbours from one build to the next.
    v_exact := (select count(*) from (select from beliefdb.belief_embedding e
                                       where e.workspace_id = p_workspace_id and e.model = p_model
                                       limit v_exact_max + 1) e) <= v_exact_max;
    -- The beliefs of given subjects, when they have at most as many vectors, are searched exactly
    -- from their subjects (belief_subject_attribute): an index scan filtered by subject stops at its
    -- scan limits (hnsw.max_scan_tuples, ivfflat.max_probes) before reaching a subject whose vectors
    -- are far from the question, however many other vectors are nearer.
    if not v_exact and p_subjects is not null
       and (select count(*) from (select from beliefdb.belief b
                                    join beliefdb.belief_embedding e
                                      on e.workspace_id = b.workspace_id and e.belief_id = b.id and e.model = p_model
                                   where b.workspace_id = p_workspace_id and b.subject = any (p_subjects)
                                   limit v_exact_max + 1) x) <= v_exact_max then
        return query
            select x.belief_id, 1 - x.distance, (row_number() over (order by x.distance, x.belief_id))::integer
              from (select b.id as belief_id, e.embedding <=> p_embedding as distance
                      from beliefdb.belief b
                      join beliefdb.belief_embedding e
                        on e.workspace_id = b.workspace_id and e.belief_id = b.id and e.model = p_model
                     where b.workspace_id = p_workspace_id and b.subject = any (p_subjects)
                       and vector_dims(e.embedding) = v_dim
                       and beliefdb.recallable(b, p_as_of, p_scope, p_include_fixtures)
                       and case when p_as_of is null then b.confidence >= p_min_confidence
                                else p_min_confidence <= 0 or beliefdb.confidence_at(b, p_as_of) >= p_min_confidence end
                     order by distance, b.id
                     limit p_candidates) x
             where 1 - x.distance >= p_min_similarity
             order by x.distance, x.belief_id;
        return;
    end if;
    perform set_config('hnsw.iterative_scan', 'relaxed_order', true);
    -- a wide candidate list: the questions' true neighbours are a few beliefs apart from the mass
    -- of a store, and a narrow greedy search misses them (bench/retrieval at 100k: recall@10 0.42
    -- with 160, 0.54 with 400, for 2 ms more)
    perform set_config('hnsw.ef_search', coalesce(p_ef_search, greatest(10 * p_candidates, 100))::text, true);
    -- more lists when the truth filter rejects what they hold, up to 4 times as many (as HNSW stops
    -- at hnsw.max_scan_tuples: a filter nothing passes must not read the whole store)
    perform set_config('ivfflat.iterative_scan', 'relaxed_order', true);
    perform set_config('ivfflat.probes', v_probes::text, true);
    perform set_config('ivfflat.max_probes', (4 * v_probes)::text, true);
    -- the index scan sorts every vector of the lists it reads: in memory (at 1M vectors 160 lists
    -- hold ~80,000; with the default 4 MB the sort spilled to disk); an exact search sorts what it
    -- compares itself
    perform set_config('work_mem', '64MB', true);
    perform set_config('enable_sort', case when v_exact then v_sort else 'off' end, true);
    -- The order names the index: the cast to the model's dimension matches the partial HNSW index of
    -- that dimension; IVFFlat orders by halfvec, taking 4 candidates per one wanted to re-rank them by
    -- the full vectors; the distance without a cast matches no index, so the search is exact.
    execute pg_catalog.format($q$
        select coalesce((array_agg(x.belief_id order by x.distance, x.belief_id))[1:$8], '{}'),
               coalesce((array_agg(1 - x.distance order by x.distance, x.belief_id))[1:$8], '{}')
          from (select e.belief_id,
                       e.embedding::vector(%1$s) <=> $1::vector(%1$s) as distance
                  from beliefdb.belief_embedding e
                  -- each vector's belief by its key, then the truth filter on it: as a join, the filter
                  -- could be pushed down to a scan of the workspace's beliefs repeated for every vector
                  cross join lateral (select b from beliefdb.belief b
                                       where b.workspace_id = e.workspace_id and b.id = e.belief_id offset 0) k
                 where e.workspace_id = $2 and e.model = $3 and vector_dims(e.embedding) = %1$s
                   and beliefdb.recallable(k.b, $5, $6, $7)
                   and ($10::text[] is null or (k.b).subject = any ($10::text[]))
                   -- (as of a moment, the confidence of then: stored confidence is today's)
                   and case when $5 is null then (k.b).confidence >= $4
                            else $4 <= 0 or beliefdb.confidence_at(k.b, $5) >= $4 end
                 order by %2$s
                 limit %3$s * $8) x
         where 1 - x.distance >= $9$q$,
        v_dim,
        case when v_exact then '(e.embedding <=> $1)'
             when v_lists is null then pg_catalog.format('e.embedding::vector(%1$s) <=> $1::vector(%1$s)', v_dim)
             else pg_catalog.format('e.embedding::halfvec(%1$s) <=> $1::halfvec(%1$s)', v_dim) end,
        case when v_exact or v_lists is null then 1 else 4 end)
      into v_ids, v_sims
      using p_embedding, p_workspace_id, p_model, p_min_confidence, p_as_of, p_scope, p_include_fixtures,
            p_candidates, p_min_similarity, p_subjects;
    perform set_config('enable_sort', v_sort, true);
    perform set_config('work_mem', v_work_mem, true);
    return query select u.id, u.sim, u.n::integer from unnest(v_ids, v_sims) with ordinality u (id, sim, n);
end
$$;
comment on function beliefdb._vector_candidates(vector, uuid, text, real, timestamptz, jsonb, boolean, integer, double precision, integer, integer, text[]) is 'recall''s vector search: the nearest truth-filtered candidates, exact in a workspace of at most 2,000 vectors or over the given subjects'' when they have at most as many, else by the dimension''s vector index (halfvec re-ranked exactly)';
