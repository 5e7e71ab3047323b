-- beliefdb: the internals of the vector index (issue 21). ensure_vector_index (api/70_dba_tools.sql)
-- decides which index a dimension needs; this builds the IVFFlat one.

-- (Re)build a dimension's vector index as IVFFlat with p_lists lists, trained on the vectors stored
-- now, and drop its HNSW index: writes keep one vector index, and recall orders by the one left.
-- Why IVFFlat from a store's size on: docs/benchmarks.md, "Recall of the vector path (issue 21)".
create or replace function beliefdb._build_vector_index(p_dim integer, p_lists integer) returns void
language plpgsql security definer
-- pgvector's type, operator class and vector_dims wherever the extension is installed
set search_path from current
as $$
begin
    if p_dim is null or p_dim < 1 or p_dim > 16000 then
        raise exception 'invalid embedding dimension %', p_dim using errcode = 'BD005';
    end if;
    if p_lists is null or p_lists < 1 or p_lists > 32768 then
        raise exception 'invalid number of lists %', p_lists using errcode = 'BD005';
    end if;
    execute pg_catalog.format('drop index if exists beliefdb.%I', 'belief_embedding_ivf_' || p_dim);
    execute pg_catalog.format(
        'create index %I on beliefdb.belief_embedding using ivfflat ((embedding::vector(%s)) '
        'vector_cosine_ops) with (lists = %s) where vector_dims(embedding) = %s',
        'belief_embedding_ivf_' || p_dim, p_dim, p_lists, p_dim);
    execute pg_catalog.format('drop index if exists beliefdb.%I', 'belief_embedding_hnsw_' || p_dim);
end
$$;
comment on function beliefdb._build_vector_index(integer, integer) is 'Rebuild a dimension''s vector index as IVFFlat with this many lists (drops its HNSW index)';
