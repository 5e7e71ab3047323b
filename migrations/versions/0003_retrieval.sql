-- Revision 0003: retrieval (issue 4): embeddings, full-text and trigram search.
-- Never edit once released: change tables through a new revision, and sql/10_tables.sql with it.

-- Edited once after release, for revision 0015 (issue 19): this revision created pgvector and
-- pg_trgm in schema beliefdb and refused them anywhere else. They are now found wherever they are
-- (or created in beliefdb_ext) by sql/schema/02_extensions.sql, which a migration applies before
-- its revisions and which puts their schemas on the search path: their types and operator classes
-- are named unqualified here. Databases that ran the first text have them in schema beliefdb until
-- revision 0015 moves them.

-- Words of a belief for full-text search: English stems of the statement, and every word as
-- written (the simple configuration) so non-English text and names still match.
alter table beliefdb.belief
    add column search tsvector generated always as (
        setweight(pg_catalog.to_tsvector('pg_catalog.english'::regconfig, statement), 'A')
        || setweight(pg_catalog.to_tsvector('pg_catalog.simple'::regconfig,
                                            statement || ' ' || pg_catalog.replace(subject, '_', ' ') || ' '
                                            || pg_catalog.replace(attribute, '_', ' ') || ' ' || value), 'B')
    ) stored;

create index belief_search on beliefdb.belief using gin (search);
create index belief_subject_trgm on beliefdb.belief using gin (subject gin_trgm_ops);

-- The embedding model of each workspace; switching model is an explicit reembed.
create table beliefdb.embedding_model (
    workspace_id uuid primary key default beliefdb.current_workspace_id()
        references beliefdb.workspace (id) on delete cascade,
    model text not null,
    dim integer not null check (dim > 0),
    target_model text,
    target_dim integer check (target_dim > 0),
    updated_at timestamptz not null default beliefdb.clock(),
    check ((target_model is null) = (target_dim is null))
);
comment on table beliefdb.embedding_model is 'The embedding model (name, dimension) of each workspace, and the one a reembed in progress moves to';

-- Belief embeddings: one per belief and model, never mixed across models in one search.
create table beliefdb.belief_embedding (
    workspace_id uuid not null default beliefdb.current_workspace_id(),
    belief_id uuid not null,
    model text not null,
    embedding vector not null,
    created_at timestamptz not null default beliefdb.clock(),
    primary key (workspace_id, belief_id, model),
    foreign key (workspace_id, belief_id) references beliefdb.belief (workspace_id, id) on delete cascade
);
comment on table beliefdb.belief_embedding is 'Embedding of a belief''s statement under one model; searched only with query vectors of the same model';

-- HNSW (cosine) for the default model's dimension; other dimensions get theirs on reembed.
create index belief_embedding_hnsw_384 on beliefdb.belief_embedding
    using hnsw ((embedding::vector(384)) vector_cosine_ops)
    where vector_dims(embedding) = 384;

-- No statistics on workspace_id: a new workspace is not in the most-common-values list, so the
-- planner would take it for empty and walk its rows by workspace alone; without statistics the
-- planner keeps using the rest of each index's key.
do $$
declare
    v_table text;
begin
    for v_table in
        select c.relname from pg_catalog.pg_class c
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r'
    loop
        execute pg_catalog.format('alter table beliefdb.%I alter column workspace_id set statistics 0', v_table);
    end loop;
end
$$;
