-- beliefdb: bulk ingest (docs/rules.md, rules 1, 2, 8, 12, 17 and 18): many documents in one
-- transaction per batch. The client stages the batch with binary COPY into this transaction's
-- staging tables (bulk_stage), then one call (bulk_ingest_batch) stores every document as
-- ingest_version does: a run of documents that each start a new source set-based
-- (internal/37_bulk.sql, _bulk_first_versions), any other document through the same body as
-- ingest_version (internal/36_claims.sql, _ingest_text); then one summary event for the batch in
-- the audit chain, with the hash of the staged rows and how many rows of each table the batch
-- inserted, updated and deleted (the statements' own events are counted into it: _audit_batch).
-- What expires while a batch runs is processed before the next document (or run of new sources), as
-- a change of its own (an expire event, its statements' own events), as at any writer's lock.

-- This transaction's staging tables, empty (dropped at commit or rollback): the batch's documents
-- (n: order in the batch), their fragments' offsets and their gated claims. The application role
-- may only insert into them (COPY); bulk_ingest_batch reads them with its owner's rights.
create or replace function beliefdb.bulk_stage() returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_tables constant text[] := array['beliefdb_bulk_document', 'beliefdb_bulk_fragment', 'beliefdb_bulk_claim'];
begin
    perform beliefdb._bound_workspace();
    perform beliefdb._refuse_foreign_temp_tables(v_tables);
    perform beliefdb._drop_temp_tables(v_tables);
    create temporary table beliefdb_bulk_document (
        n integer not null, source text not null, content text not null, label text, path text,
        rejected jsonb not null default '[]'
    ) on commit drop;
    create temporary table beliefdb_bulk_fragment (
        n integer not null, start_offset integer not null, end_offset integer not null
    ) on commit drop;
    create temporary table beliefdb_bulk_claim (
        n integer not null, ord integer not null, statement text not null, subject text not null,
        attribute text not null, value text not null, quote text not null, start_offset integer,
        end_offset integer, kind text, scope jsonb, valid_from text, valid_to text
    ) on commit drop;
    grant insert on pg_temp.beliefdb_bulk_document, pg_temp.beliefdb_bulk_fragment, pg_temp.beliefdb_bulk_claim
       to beliefdb_app;
end
$$;
comment on function beliefdb.bulk_stage() is 'Create this transaction''s empty staging tables for a bulk ingest batch (the application role COPYs into them)';

-- Store every staged document (in order) as the next version of its source, exactly as
-- ingest_version would one by one (owners, proposals, idempotency by content, corroboration,
-- rule-8 settling, supersession, conflicts, what stops holding), in this one transaction: a
-- failure leaves nothing of the batch. Returns one ingest report per document, in order. The audit
-- chain gets one event for the batch (rule 12; bulk_ingest: counts of documents and claims, the
-- SHA-256 of the staged rows (each row's text as select t::text prints it, documents by n, fragments
-- by n and offsets, claims by n and ord, joined by newlines), and under "rows" how many rows of each
-- table every statement of the batch inserted, updated or deleted, e.g. {"belief.insert": 50}), in
-- place of one event per statement; a proposal to another source's owner is its own event, as one
-- by one. It names no source, so forgetting one leaves nothing of it in the chain's payloads.
create or replace function beliefdb.bulk_ingest_batch(
    p_origin beliefdb.origin_type default null, p_authority beliefdb.authority default null,
    p_provenance beliefdb.provenance default null
) returns setof jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_doc record;
    v_reports jsonb[] := '{}';
    v_run integer[] := '{}';
    v_run_names text[] := '{}';
    v_hash bytea;
    v_counts integer[];
    v_rows jsonb;
begin
    perform beliefdb.lock_workspace();
    -- (the staging tables bulk_stage made: a relation of one of their names that the session's
    -- login made instead would be read with owner rights)
    perform beliefdb._require_own_working_tables(
        array['beliefdb_bulk_document', 'beliefdb_bulk_fragment', 'beliefdb_bulk_claim'],
        'nothing staged: call beliefdb.bulk_stage() and COPY the batch first');
    perform beliefdb._refuse_foreign_temp_tables(array['beliefdb_audit_batch']);
    -- the staged claims are checked as ingest_version checks a document's (beliefdb._check_claims),
    -- all in one call: a bad one is named by its document and its place there
    declare
        v_detail text;
        v_claim jsonb;
        v_at record;
    begin
        perform beliefdb._check_claims(coalesce((
            select jsonb_agg(jsonb_build_object('statement', c.statement, 'subject', c.subject,
                                                'attribute', c.attribute, 'value', c.value, 'quote', c.quote,
                                                'start', c.start_offset, 'end', c.end_offset)
                             || case when c.kind is null then '{}' else jsonb_build_object('kind', c.kind) end
                             || case when c.scope is null then '{}' else jsonb_build_object('scope', c.scope) end
                             || case when c.valid_from is null then '{}' else jsonb_build_object('valid_from', c.valid_from) end
                             || case when c.valid_to is null then '{}' else jsonb_build_object('valid_to', c.valid_to) end
                             order by c.n, c.ord)
              from pg_temp.beliefdb_bulk_claim c), '[]'));
    exception when sqlstate 'BD005' then
        get stacked diagnostics v_detail = pg_exception_detail;
        v_claim := nullif(v_detail, '')::jsonb;
        if v_claim is null or not v_claim ? 'claim' then
            raise;
        end if;
        select d.n, d.source, c.ord into v_at
          from (select c.n, c.ord, row_number() over (order by c.n, c.ord) as k from pg_temp.beliefdb_bulk_claim c) c
          join pg_temp.beliefdb_bulk_document d on d.n = c.n
         where c.k = (v_claim ->> 'claim')::bigint;
        raise exception '%', pg_catalog.format('document %s (source %s), claim %s%s', v_at.n + 1, v_at.source,
                                               v_at.ord + 1, v_claim ->> 'problem')
            using errcode = 'BD005';
    end;
    -- the batch's statements count their rows here for its one event (_audit_batch), not an event each
    perform beliefdb._drop_temp_tables(array['beliefdb_audit_batch']);
    create temporary table beliefdb_audit_batch (action text not null, n bigint not null) on commit drop;
    perform pg_catalog.set_config('beliefdb.audit_batch', v_ws::text, true);
    -- (the batch dates its documents itself, _bulk_expire_due: not from a value its caller set)
    perform pg_catalog.set_config('beliefdb.batch_clock', '', true);
    -- (the staged rows as text, documents, fragments, then claims, each in the order of its key, the
    -- text last for rows whose key repeats, joined by newlines: the rows' own text and their keys,
    -- where each row made into JSON and all sorted by that text took 0.09 s of a batch of 10,000)
    select sha256(convert_to(coalesce(string_agg(x.r, E'\n' order by x.t, x.n, x.a, x.b, x.r), ''), 'UTF8'))
      into v_hash
      from (select 1 as t, d.n, 0 as a, 0 as b, d::text as r from pg_temp.beliefdb_bulk_document d
            union all select 2, f.n, f.start_offset, f.end_offset, f::text from pg_temp.beliefdb_bulk_fragment f
            union all select 3, c.n, c.ord, 0, c::text from pg_temp.beliefdb_bulk_claim c) x;
    -- (a value spelled with other whitespace than a belief's is that belief's value, as
    -- beliefdb._stored_spellings has it for a document of a source stored already, which goes through
    -- it: here the claims of the documents that start a source, in the batch's world)
    if exists (select from beliefdb.belief b
                where b.workspace_id = v_ws
                  and b.value ~ '[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]{2}|[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]')
       or exists (select from pg_temp.beliefdb_bulk_claim x where beliefdb._one_spaced(x.value) <> x.value) then
        update pg_temp.beliefdb_bulk_claim c
           set value = s.value
          from (select x.n, x.ord,
                       beliefdb._stored_spelling(v_ws, coalesce(p_provenance, 'production'), x.subject, x.attribute,
                                                 x.scope, x.value) as value
                  from pg_temp.beliefdb_bulk_claim x
                  join pg_temp.beliefdb_bulk_document d on d.n = x.n
                 where not exists (select from beliefdb.source o where o.workspace_id = v_ws and o.name = d.source)) s
         where s.n = c.n and s.ord = c.ord and s.value is not null;
    end if;
    for v_doc in select d.n, d.source from pg_temp.beliefdb_bulk_document d order by d.n loop
        -- a run of documents that each start a new source is stored set-based (_bulk_first_versions)
        if not v_doc.source = any(v_run_names)
           and not exists (select from beliefdb.source s where s.workspace_id = v_ws and s.name = v_doc.source) then
            v_run := array_append(v_run, v_doc.n);
            v_run_names := array_append(v_run_names, v_doc.source);
            continue;
        end if;
        if cardinality(v_run) > 0 then
            perform beliefdb._bulk_expire_due(v_ws);
            v_reports := v_reports || beliefdb._bulk_first_versions(v_ws, v_run, p_origin, p_authority, p_provenance);
            v_run := '{}';
            v_run_names := '{}';
        end if;
        -- (each document recorded when the batch came to it, as one by one: rule 8 orders them so)
        perform beliefdb._bulk_expire_due(v_ws);
        v_reports := array_append(v_reports, beliefdb._ingest_text(v_ws, v_doc.source, (
            select jsonb_build_object(
                       'content', d.content, 'origin', p_origin, 'authority', p_authority, 'provenance', p_provenance,
                       'label', d.label, 'path', d.path,
                       'fragments', coalesce((select jsonb_agg(jsonb_build_object('start', f.start_offset, 'end', f.end_offset)
                                                               order by f.start_offset, f.end_offset)
                                                from pg_temp.beliefdb_bulk_fragment f where f.n = d.n), '[]'),
                       'claims', coalesce((select jsonb_agg(jsonb_build_object(
                                                      'statement', c.statement, 'subject', c.subject,
                                                      'attribute', c.attribute, 'value', c.value, 'quote', c.quote,
                                                      'start', c.start_offset, 'end', c.end_offset,
                                                      'kind', coalesce(c.kind, 'fact'), 'scope', coalesce(c.scope, '{}'),
                                                      'valid_from', c.valid_from, 'valid_to', c.valid_to) order by c.ord)
                                             from pg_temp.beliefdb_bulk_claim c where c.n = d.n), '[]'),
                       'rejected', d.rejected)
              from pg_temp.beliefdb_bulk_document d where d.n = v_doc.n)));
    end loop;
    if cardinality(v_run) > 0 then
        perform beliefdb._bulk_expire_due(v_ws);
        v_reports := v_reports || beliefdb._bulk_first_versions(v_ws, v_run, p_origin, p_authority, p_provenance);
    end if;
    select array[count(*)::integer, (count(*) filter (where (r ->> 'new_version')::boolean))::integer,
                 coalesce(sum(jsonb_array_length(r -> 'accepted')), 0)::integer,
                 coalesce(sum(jsonb_array_length(r -> 'corroborated')), 0)::integer,
                 coalesce(sum(jsonb_array_length(r -> 'rejected')), 0)::integer]
      into v_counts
      from unnest(v_reports) as r;
    perform pg_catalog.set_config('beliefdb.batch_clock', '', true);
    perform pg_catalog.set_config('beliefdb.audit_batch', '', true);
    select jsonb_object_agg(a.action, a.n order by a.action) into v_rows
      from (select b.action, sum(b.n) as n from pg_temp.beliefdb_audit_batch b group by b.action) a;
    drop table pg_temp.beliefdb_audit_batch;
    if v_counts[2] + v_counts[3] + v_counts[4] > 0 or v_rows is not null then
        perform beliefdb._audit('bulk_ingest', jsonb_build_object(
            'documents', v_counts[1], 'new_versions', v_counts[2], 'accepted', v_counts[3],
            'corroborated', v_counts[4], 'rejected', v_counts[5], 'rows_sha256', encode(v_hash, 'hex'),
            'rows', coalesce(v_rows, '{}')));
    end if;
    drop table pg_temp.beliefdb_bulk_document, pg_temp.beliefdb_bulk_fragment, pg_temp.beliefdb_bulk_claim;
    return query select unnest(v_reports);
end
$$;
comment on function beliefdb.bulk_ingest_batch(beliefdb.origin_type, beliefdb.authority, beliefdb.provenance)
    is 'Store the staged batch of documents as ingest_version would, one transaction and one summary audit event (what expires meanwhile: an expire event of its own); jsonb: one ingest report per document';

-- Planner statistics of the tables an ingest grows, gathered again after a bulk ingest (the plans
-- of what follows were made for the tables before it) for each table that grew by a tenth or more
-- since its statistics were gathered (its pages now against those its statistics counted), or that
-- has none: as autovacuum's analyze threshold would, but at once. A table that grew less keeps
-- statistics that still describe it (the planner scales their row counts by its pages now), and
-- autovacuum gathers them again in its time; analyzing a million-row table after every few thousand
-- rows cost as much as storing them. Only in a session of the schema's owner (beliefdb._may_analyze):
-- another login's would hold the tables every workspace shares until its transaction ended.
create or replace function beliefdb.bulk_analyze() returns void
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_table regclass;
begin
    perform beliefdb._may_analyze('a bulk ingest of this login stores everything and leaves them to autovacuum');
    for v_table in
        select c.oid::regclass
          from pg_catalog.pg_class c
         where c.oid in ('beliefdb.node'::regclass, 'beliefdb.source'::regclass, 'beliefdb.source_version'::regclass,
                         'beliefdb.fragment'::regclass, 'beliefdb.belief'::regclass, 'beliefdb.evidence'::regclass,
                         'beliefdb.justification'::regclass, 'beliefdb.justification_antecedent'::regclass,
                         'beliefdb.relation'::regclass, 'beliefdb.adjacency'::regclass)
           and (c.reltuples < 0
                or pg_catalog.pg_relation_size(c.oid) / pg_catalog.current_setting('block_size')::bigint
                   >= 1.1 * c.relpages + 1)
         order by c.relname
    loop
        execute pg_catalog.format('analyze %s', v_table);
    end loop;
    -- RANKING-STATISTICS (issue 20, ask): the per-workspace ranking statistics are refreshed here
exception when lock_not_available then
    -- another session's ANALYZE held a table past lock_timeout: said so in the detail, for a program
    -- (beliefdb.db.connector.translate), as every ANALYZE of beliefdb's tables says it
    raise exception using errcode = 'lock_not_available', message = sqlerrm, detail = '{"waited_for": "analyze"}';
end
$$;
comment on function beliefdb.bulk_analyze() is 'Gather planner statistics of the tables a bulk ingest grew by a tenth or more';
