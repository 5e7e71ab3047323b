-- beliefdb: what the application role and the reader's role may do, and row-level security
-- (docs/rules.md, rule 13). Each sees one workspace: the one bound by the beliefdb.workspace_id setting.

-- What the application role and the reader's role hold is what this file grants, whatever an earlier
-- release, a default privilege or a grant by hand gave them: taken back first, then granted below.
-- What they held before is kept (beliefdb_role_privilege_before) so that the last block of this file
-- names each of them that held a privilege this file did not grant again, as it names every other role
-- it revoked from (a grant by hand to beliefdb_reader was taken back unsaid).
drop view if exists pg_temp.beliefdb_role_privilege;
create temporary view beliefdb_role_privilege as
select r.grantee, r.kind, r.object, r.columns, r.privilege_type
  from (select a.grantee, 'routine' as kind, p.oid::pg_catalog.regprocedure::text as object, null::text as columns,
               a.privilege_type
          from pg_catalog.pg_proc p cross join lateral pg_catalog.aclexplode(p.proacl) a
         where p.pronamespace = 'beliefdb'::regnamespace
        union all
        select a.grantee, case c.relkind when 'S' then 'sequence' else 'table' end, c.oid::pg_catalog.regclass::text,
               null, a.privilege_type
          from pg_catalog.pg_class c cross join lateral pg_catalog.aclexplode(c.relacl) a
         where c.relnamespace = 'beliefdb'::regnamespace
        union all
        select x.grantee, 'table', c.oid::pg_catalog.regclass::text, pg_catalog.quote_ident(t.attname), x.privilege_type
          from pg_catalog.pg_class c
          join pg_catalog.pg_attribute t on t.attrelid = c.oid
         cross join lateral pg_catalog.aclexplode(t.attacl) x
         where c.relnamespace = 'beliefdb'::regnamespace
        union all
        select a.grantee, 'schema', pg_catalog.quote_ident(n.nspname), null, a.privilege_type
          from pg_catalog.pg_namespace n cross join lateral pg_catalog.aclexplode(n.nspacl) a
         where n.nspname = 'beliefdb') r
 where r.grantee in (select o.oid from pg_catalog.pg_roles o where o.rolname in ('beliefdb_app', 'beliefdb_reader'));
drop table if exists pg_temp.beliefdb_role_privilege_before;
create temporary table beliefdb_role_privilege_before as select * from pg_temp.beliefdb_role_privilege;
revoke all on schema beliefdb from public, beliefdb_app, beliefdb_reader;
revoke all on all tables in schema beliefdb from public, beliefdb_app, beliefdb_reader;
revoke all on all sequences in schema beliefdb from public, beliefdb_app, beliefdb_reader;
grant usage on schema beliefdb to beliefdb_app, beliefdb_reader;

-- Functions are not public. The application role gets beliefdb's API (sql/api/) by this
-- allow-list, one line each. Everything else (sql/internal/: integrity,
-- derived-index upkeep, closure and propagation, rule 8, confidence, claims, ownership checks,
-- audit internals) runs inside these functions with their owner's rights, or in triggers, is
-- named with a leading underscore, and is not the application's to call. Not granted either, and
-- not internal: the DBA's tools ensure_vector_index, evaluate, propagate, rebuild_adjacency, rebuild_supports and
-- refresh_decision_reasons (api/70_dba_tools.sql, docs/dba.md). Nothing granted lets the
-- application forge what beliefdb records: the audit chain takes events only from beliefdb's own
-- changes (beliefdb._audit, not granted). What is granted and looks internal reads only or hashes
-- (audit_payload_hash, audit_link_hash, audit_genesis and belief_sha256 for audit_verify; evaluate_closure,
-- support_walk, change_rows, expand_targets and due_to_expire for impact; floored_product, supporting_quotes, correction_supports and written_by_step for confidence_factors; confidence_factors_given and confidences_at for confidence_factors_at; in_force for
-- the views), or takes a lock any writer takes first anyway (lock_workspace).
revoke execute on all functions in schema beliefdb from public, beliefdb_app, beliefdb_reader;
-- The extensions' functions (vector, pg_trgm) are not in this schema (schema/02_extensions.sql) and
-- keep what create extension gave them: executable by everyone. beliefdb's functions run them with
-- their owner's rights (storing an embedding, recall), and the application role reads vectors with
-- them in SQL of its own (the distance of one it is shown). It finds pgvector's
-- type by oid and sends vectors in binary, so it needs no usage on a team's extension schema; it
-- gets usage on beliefdb's own, where it may name them in SQL of its own.
do $$
begin
    if pg_catalog.to_regnamespace('beliefdb_ext') is not null then
        grant usage on schema beliefdb_ext to beliefdb_app, beliefdb_reader;
    end if;
end
$$;
grant execute on function beliefdb.act(text,text,text) to beliefdb_app;
grant execute on function beliefdb.add_claims_to_source(text,jsonb,jsonb) to beliefdb_app;
grant execute on function beliefdb.append_turn(text,text,jsonb,jsonb,jsonb,text,boolean) to beliefdb_app;
grant execute on function beliefdb.apply_correction(text,text,text,text,text,integer,text) to beliefdb_app;
grant execute on function beliefdb.audit_genesis() to beliefdb_app;
grant execute on function beliefdb.bulk_analyze() to beliefdb_app;
grant execute on function beliefdb.bulk_ingest_batch(beliefdb.origin_type,beliefdb.authority,beliefdb.provenance) to beliefdb_app;
grant execute on function beliefdb.bulk_stage() to beliefdb_app;
grant execute on function beliefdb.audit_link_hash(bytea,uuid,bigint,timestamp with time zone,text,text,bytea) to beliefdb_app;
grant execute on function beliefdb.audit_payload_hash(jsonb) to beliefdb_app;
grant execute on function beliefdb.audit_verify(uuid) to beliefdb_app;
grant execute on function beliefdb.authenticate(bytea) to beliefdb_app;
grant execute on function beliefdb.belief_provenance(uuid,uuid) to beliefdb_app;
grant execute on function beliefdb.belief_sha256(text,text,text,text,text,jsonb,tstzrange,beliefdb.provenance) to beliefdb_app;
grant execute on function beliefdb.beliefs_as_of(timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.believed_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.held_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.node_held_at(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.live_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.superseded_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.in_force_at(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.authority_at(beliefdb.source,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.reason_live_at(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.status_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.belief_status_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.confidence_at(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.confidence_factors_at(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.confidence_factors_given(uuid,uuid,timestamp with time zone,uuid[],real[]) to beliefdb_app;
grant execute on function beliefdb.confidences_at(uuid,uuid[],timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.decision_status_at(beliefdb.decision,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.action_status_at(beliefdb.action,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.outcome_at(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.support_walk(uuid,uuid[]) to beliefdb_app;
grant execute on function beliefdb.change_rows(uuid,beliefdb.changes) to beliefdb_app;
grant execute on function beliefdb.clock() to beliefdb_app;
grant execute on function beliefdb.confidence_factors(uuid,uuid) to beliefdb_app;
grant execute on function beliefdb.correction_preview(text,text,text) to beliefdb_app;
grant execute on function beliefdb.current_principal() to beliefdb_app;
grant execute on function beliefdb.job_readable(text) to beliefdb_app;
grant execute on function beliefdb.current_workspace_id() to beliefdb_app;
grant execute on function beliefdb.decay(timestamp with time zone,text,boolean) to beliefdb_app;
grant execute on function beliefdb.decide(text,jsonb,text) to beliefdb_app;
grant execute on function beliefdb.decide_in_run(uuid,text,jsonb,text) to beliefdb_app;
grant execute on function beliefdb.derive(text,text,text,text,text[],text) to beliefdb_app;
grant execute on function beliefdb.due_to_expire(uuid) to beliefdb_app;
grant execute on function beliefdb.evaluate_closure(uuid,uuid[],uuid[],boolean) to beliefdb_app;
grant execute on function beliefdb.expand_targets(uuid,uuid[]) to beliefdb_app;
grant execute on function beliefdb.expire() to beliefdb_app;
grant execute on function beliefdb.expire_before_read() to beliefdb_app;
grant execute on function beliefdb.read_only_session() to beliefdb_app;
grant execute on function beliefdb.floored_product(double precision) to beliefdb_app;
grant execute on function beliefdb.supporting_quotes(uuid,uuid) to beliefdb_app;
grant execute on function beliefdb.correction_supports(uuid,uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.written_by_step(uuid,uuid,boolean) to beliefdb_app;
grant execute on function beliefdb.forget(text,text,boolean,text[],boolean) to beliefdb_app;
grant execute on function beliefdb.impact(text[]) to beliefdb_app;
grant execute on function beliefdb.in_force(uuid,uuid) to beliefdb_app;
grant execute on function beliefdb.in_scope(jsonb,jsonb) to beliefdb_app;
grant execute on function beliefdb.ingest_preview(text,text,beliefdb.origin_type,beliefdb.authority,beliefdb.provenance,text,text,jsonb,jsonb,jsonb) to beliefdb_app;
grant execute on function beliefdb.ingest_version(text,text,beliefdb.origin_type,beliefdb.authority,beliefdb.provenance,text,text,jsonb,jsonb,jsonb) to beliefdb_app;
grant execute on function beliefdb.job_fail(bigint,text,double precision,boolean) to beliefdb_app;
grant execute on function beliefdb.job_finish(bigint,jsonb) to beliefdb_app;
grant execute on function beliefdb.job_started(bigint,text) to beliefdb_app;
grant execute on function beliefdb.job_start_lost(bigint) to beliefdb_app;
grant execute on function beliefdb.job_wait(bigint,bigint) to beliefdb_app;
grant execute on function beliefdb.job_retry(bigint[]) to beliefdb_app;
grant execute on function beliefdb.job_cancel(bigint[],text) to beliefdb_app;
grant execute on function beliefdb.job_submit(text,jsonb,integer) to beliefdb_app;
grant execute on function beliefdb.job_take(text) to beliefdb_app;
grant execute on function beliefdb.job_totals(text,bigint) to beliefdb_app;
grant execute on function beliefdb.jobs(text,integer,bigint) to beliefdb_app;
grant execute on function beliefdb.latest_outcome(uuid,uuid) to beliefdb_app;
grant execute on function beliefdb.lock_workspace() to beliefdb_app;
grant execute on function beliefdb.recall(text,vector,text,integer,timestamp with time zone,jsonb,real,boolean,double precision,real,integer,text[]) to beliefdb_app;
grant execute on function beliefdb.recall_warnings(uuid,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.refresh_ranking_stats(boolean) to beliefdb_app;
grant execute on function beliefdb.replaced_on(tstzrange,tstzrange,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.shown_as_replaced(beliefdb.belief,timestamp with time zone) to beliefdb_app;
grant execute on function beliefdb.recall_fragments(text,integer,timestamp with time zone,boolean,integer) to beliefdb_app;
grant execute on function beliefdb.store_embedding(uuid,text,vector) to beliefdb_app;
grant execute on function beliefdb.record_embedding_model(text,integer) to beliefdb_app;
grant execute on function beliefdb.embedding_target(text,integer) to beliefdb_app;
grant execute on function beliefdb.embedding_switch(text) to beliefdb_app;
grant execute on function beliefdb.recallable(beliefdb.belief,timestamp with time zone,jsonb,boolean) to beliefdb_app;
grant execute on function beliefdb.record_outcome(text,text,text,text) to beliefdb_app;
grant execute on function beliefdb.record_trace(jsonb,jsonb,jsonb,jsonb) to beliefdb_app;
grant execute on function beliefdb.repair_apply(text[],boolean) to beliefdb_app;
grant execute on function beliefdb.repair_plan(text[],boolean,boolean) to beliefdb_app;
grant execute on function beliefdb.repair_plan_json(text[],boolean) to beliefdb_app;
grant execute on function beliefdb.repair_replayed(uuid) to beliefdb_app;
grant execute on function beliefdb.repair_to_replay(uuid) to beliefdb_app;
grant execute on function beliefdb.resolve_belief(text) to beliefdb_app;
grant execute on function beliefdb.resolve_memory(text) to beliefdb_app;
grant execute on function beliefdb.explain_confidence(text) to beliefdb_app;
grant execute on function beliefdb.resolve_node(text,beliefdb.node_kind[]) to beliefdb_app;
grant execute on function beliefdb.resolve_target(text) to beliefdb_app;
grant execute on function beliefdb.resolve_source(text,integer) to beliefdb_app;
grant execute on function beliefdb.retract(text,text,text,integer,boolean) to beliefdb_app;
grant execute on function beliefdb.retract_preview(text,text,integer,boolean) to beliefdb_app;
grant execute on function beliefdb.review_items(integer,text,text[]) to beliefdb_app;
grant execute on function beliefdb.resolve_review_item(text,text[]) to beliefdb_app;
grant execute on function beliefdb.review_count() to beliefdb_app;
grant execute on function beliefdb.review_resolve(text,text,text,text) to beliefdb_app;
grant execute on function beliefdb.simulate_retraction(text[]) to beliefdb_app;
grant execute on function beliefdb.use_workspace(text) to beliefdb_app;
grant execute on function beliefdb.workspace_bound() to beliefdb_app;
grant execute on function beliefdb.workspace_hint() to beliefdb_app;
grant execute on function beliefdb.workspace_visible(uuid) to beliefdb_app;
grant execute on function beliefdb.workspace_creatable(uuid,text) to beliefdb_app;


-- The reader's role (beliefdb_reader, schema/00_schema.sql: an auditor's login, granted it) gets by
-- this allow-list, one line each, the API functions that only read, and never one that writes, even
-- as a rolled-back subtransaction: not the previews (correction_preview, retract_preview,
-- ingest_preview, simulate_retraction, decay's), which take the workspace's write lock and write what
-- they roll back, nor repair_plan and repair_plan_json (they fill the evaluation's working tables),
-- nor what the servers or a replay call (authenticate, repair_to_replay), nor the directory's insert
-- check (workspace_creatable). Two readers would write as every other session does, and do not for
-- this role (beliefdb.read_only_session, as in a read-only transaction): expire_before_read processes
-- no expiry, and impact answers on what is stored, refusing (42501) the impact only a rolled-back
-- retraction answers. recall and recall_fragments run with their owner's rights and set only
-- settings of their transaction. Everything else here is stable or immutable (its statements may
-- not write) and calls only what is listed here: it runs as the caller, under row-level security,
-- or with its owner's rights confined to the bound workspace (current_workspace_id,
-- workspace_visible, jobs, job_totals, resolve_source). tests/test_reader_role.py keeps it so, and
-- that nothing granted here that runs as its caller calls a function not granted here (the reader
-- met "permission denied for function resolve_review_item" in review_items).
grant execute on function beliefdb.action_status_at(beliefdb.action,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.audit_genesis() to beliefdb_reader;
grant execute on function beliefdb.audit_link_hash(bytea,uuid,bigint,timestamp with time zone,text,text,bytea) to beliefdb_reader;
grant execute on function beliefdb.audit_payload_hash(jsonb) to beliefdb_reader;
grant execute on function beliefdb.audit_verify(uuid) to beliefdb_reader;
grant execute on function beliefdb.authority_at(beliefdb.source,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.belief_provenance(uuid,uuid) to beliefdb_reader;
grant execute on function beliefdb.belief_sha256(text,text,text,text,text,jsonb,tstzrange,beliefdb.provenance) to beliefdb_reader;
grant execute on function beliefdb.belief_status_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.beliefs_as_of(timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.believed_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.change_rows(uuid,beliefdb.changes) to beliefdb_reader;
grant execute on function beliefdb.clock() to beliefdb_reader;
grant execute on function beliefdb.confidence_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.confidence_factors(uuid,uuid) to beliefdb_reader;
grant execute on function beliefdb.confidence_factors_at(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.confidence_factors_given(uuid,uuid,timestamp with time zone,uuid[],real[]) to beliefdb_reader;
grant execute on function beliefdb.confidences_at(uuid,uuid[],timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.correction_supports(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.current_principal() to beliefdb_reader;
grant execute on function beliefdb.current_workspace_id() to beliefdb_reader;
grant execute on function beliefdb.decision_status_at(beliefdb.decision,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.due_to_expire(uuid) to beliefdb_reader;
grant execute on function beliefdb.evaluate_closure(uuid,uuid[],uuid[],boolean) to beliefdb_reader;
grant execute on function beliefdb.expand_targets(uuid,uuid[]) to beliefdb_reader;
grant execute on function beliefdb.expire_before_read() to beliefdb_reader;
grant execute on function beliefdb.explain_confidence(text) to beliefdb_reader;
grant execute on function beliefdb.floored_product(double precision) to beliefdb_reader;
grant execute on function beliefdb.held_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.impact(text[]) to beliefdb_reader;
grant execute on function beliefdb.in_force(uuid,uuid) to beliefdb_reader;
grant execute on function beliefdb.in_force_at(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.in_scope(jsonb,jsonb) to beliefdb_reader;
grant execute on function beliefdb.job_readable(text) to beliefdb_reader;
grant execute on function beliefdb.job_totals(text,bigint) to beliefdb_reader;
grant execute on function beliefdb.jobs(text,integer,bigint) to beliefdb_reader;
grant execute on function beliefdb.latest_outcome(uuid,uuid) to beliefdb_reader;
grant execute on function beliefdb.live_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.node_held_at(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.outcome_at(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.read_only_session() to beliefdb_reader;
grant execute on function beliefdb.reason_live_at(uuid,uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.recall(text,vector,text,integer,timestamp with time zone,jsonb,real,boolean,double precision,real,integer,text[]) to beliefdb_reader;
grant execute on function beliefdb.recall_fragments(text,integer,timestamp with time zone,boolean,integer) to beliefdb_reader;
grant execute on function beliefdb.recall_warnings(uuid,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.recallable(beliefdb.belief,timestamp with time zone,jsonb,boolean) to beliefdb_reader;
grant execute on function beliefdb.replaced_on(tstzrange,tstzrange,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.resolve_belief(text) to beliefdb_reader;
grant execute on function beliefdb.resolve_memory(text) to beliefdb_reader;
grant execute on function beliefdb.resolve_node(text,beliefdb.node_kind[]) to beliefdb_reader;
grant execute on function beliefdb.resolve_review_item(text,text[]) to beliefdb_reader;
grant execute on function beliefdb.resolve_source(text,integer) to beliefdb_reader;
grant execute on function beliefdb.resolve_target(text) to beliefdb_reader;
grant execute on function beliefdb.review_count() to beliefdb_reader;
grant execute on function beliefdb.review_items(integer,text,text[]) to beliefdb_reader;
grant execute on function beliefdb.shown_as_replaced(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.status_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.superseded_at(beliefdb.belief,timestamp with time zone) to beliefdb_reader;
grant execute on function beliefdb.support_walk(uuid,uuid[]) to beliefdb_reader;
grant execute on function beliefdb.supporting_quotes(uuid,uuid) to beliefdb_reader;
grant execute on function beliefdb.use_workspace(text) to beliefdb_reader;
grant execute on function beliefdb.workspace_bound() to beliefdb_reader;
grant execute on function beliefdb.workspace_hint() to beliefdb_reader;
grant execute on function beliefdb.workspace_visible(uuid) to beliefdb_reader;
grant execute on function beliefdb.written_by_step(uuid,uuid,boolean) to beliefdb_reader;

-- The workspace directory: readable, and creatable by name only (ids come from the server).
grant select on beliefdb.workspace to beliefdb_app, beliefdb_reader;
grant insert (name) on beliefdb.workspace to beliefdb_app;
-- An agent's login reads only its own workspace in it (beliefdb.workspace_visible): it listed every
-- workspace's name and id while it may act in one. Other sessions read every one, to choose by name.
alter table beliefdb.workspace enable row level security;
drop policy if exists directory on beliefdb.workspace;
create policy directory on beliefdb.workspace for select to beliefdb_app, beliefdb_reader
    using (beliefdb.workspace_visible(id));
drop policy if exists directory_create on beliefdb.workspace;
create policy directory_create on beliefdb.workspace for insert to beliefdb_app
    with check (beliefdb.workspace_creatable(id, name));

-- Workspace data: readable, and written only through beliefdb's functions (security definer,
-- confined to the bound workspace), which keep the truth rules and ownership: only a belief's
-- owner changes its status (internal/26_ownership.sql). Revoked first, so a database migrated
-- from an earlier release loses the direct writes it had.
revoke insert, update, delete on
    beliefdb.node, beliefdb.source, beliefdb.source_version, beliefdb.fragment, beliefdb.belief,
    beliefdb.justification, beliefdb.justification_antecedent, beliefdb.evidence, beliefdb.relation,
    beliefdb.decision, beliefdb.action, beliefdb.correction, beliefdb.run, beliefdb.step, beliefdb.review_item,
    beliefdb.trace_edge, beliefdb.repair, beliefdb.outcome, beliefdb.redaction
    from beliefdb_app;
revoke update (retracted_at, retraction_reason) on beliefdb.source_version from beliefdb_app;
grant select on
    beliefdb.node, beliefdb.source, beliefdb.source_version, beliefdb.fragment, beliefdb.belief,
    beliefdb.justification, beliefdb.justification_antecedent, beliefdb.evidence, beliefdb.relation,
    beliefdb.decision, beliefdb.action, beliefdb.correction, beliefdb.run, beliefdb.step, beliefdb.review_item,
    beliefdb.trace_edge, beliefdb.repair, beliefdb.outcome, beliefdb.redaction
    to beliefdb_app, beliefdb_reader;

-- What impact's closure walk reads (derived from node, justification, their edges and relation;
-- written only by triggers).
grant select on beliefdb.adjacency to beliefdb_app, beliefdb_reader;

-- When things were retracted and restored, which as-of questions read (written only by triggers).
grant select on beliefdb.retraction_period to beliefdb_app, beliefdb_reader;

-- A source's authority before each change of it, which as-of confidence reads (written only by a trigger).
grant select on beliefdb.authority_change to beliefdb_app, beliefdb_reader;

-- Vectors and the workspace's embedding model: readable, and written only through their functions
-- (api/68_retrieval.sql: store_embedding, record_embedding_model, embedding_target, embedding_switch),
-- each confined to the bound workspace. A role that may update or delete a table may lock it in
-- access exclusive mode, and every workspace's searches read these two: an agent's login held that
-- lock and another workspace's ask waited. The model is recorded once and then only moved to
-- another, never deleted (the vectors would be left of no recorded model); a workspace's model goes
-- with the workspace, deleted by its owner. Revoked first, so a database migrated from an earlier
-- release loses the direct writes it had.
revoke insert, update, delete on beliefdb.belief_embedding, beliefdb.embedding_model from beliefdb_app;
grant select on beliefdb.belief_embedding, beliefdb.embedding_model to beliefdb_app, beliefdb_reader;

-- The audit chain: readable, appended only by beliefdb's own changes (their triggers and summaries).
grant select on beliefdb.audit_event, beliefdb.audit_head to beliefdb_app, beliefdb_reader;

-- Confidence weights and half-lives are read by everyone and changed by a DBA.
grant select on beliefdb.confidence_policy, beliefdb.confidence_half_life to beliefdb_app, beliefdb_reader;

-- The error codes beliefdb raises (one meaning each): read by everyone, changed only by beliefdb.
grant select on beliefdb.error_code to beliefdb_app, beliefdb_reader;

grant select on beliefdb.current_beliefs, beliefdb.belief_evidence, beliefdb.belief_history, beliefdb.holding,
    beliefdb.decision_support, beliefdb.review_queue, beliefdb.fixture_decisions to beliefdb_app, beliefdb_reader;

-- Row-level security on every table holding workspace rows, for both roles (the reader's role holds
-- select only: the with check of its policies is never asked).
do $$
declare
    v_table text;
begin
    foreach v_table in array array[
        'node', 'source', 'source_version', 'fragment', 'belief', 'justification',
        'justification_antecedent', 'evidence', 'relation', 'decision', 'action', 'correction',
        'run', 'step', 'review_item', 'trace_edge', 'repair', 'embedding_model', 'belief_embedding', 'outcome',
        'audit_event', 'audit_head', 'adjacency', 'redaction', 'api_token', 'lexeme_frequency',
        'retraction_period', 'audit_key', 'authority_change']
    loop
        execute pg_catalog.format('alter table beliefdb.%I enable row level security', v_table);
        execute pg_catalog.format('drop policy if exists workspace_isolation on beliefdb.%I', v_table);
        execute pg_catalog.format(
            'create policy workspace_isolation on beliefdb.%I to beliefdb_app, beliefdb_reader '
            'using (workspace_id = (select beliefdb.current_workspace_id())) '
            'with check (workspace_id = (select beliefdb.current_workspace_id()))', v_table);
    end loop;
end
$$;

-- The workspace each login made by beliefdb agent create is bound to (beliefdb.agent_login): the
-- application role has no privilege on it (beliefdb.current_workspace_id reads it with its owner's
-- rights), and it is under row-level security like every table with workspace rows.
alter table beliefdb.agent_login enable row level security;
drop policy if exists workspace_isolation on beliefdb.agent_login;
create policy workspace_isolation on beliefdb.agent_login to beliefdb_app
    using (workspace_id = (select beliefdb.current_workspace_id()))
    with check (workspace_id = (select beliefdb.current_workspace_id()));

-- The queue of jobs (api/58_jobs.sql): readable, and written only through its functions, which
-- confine a worker to its workspace and an agent's login to its own jobs.
revoke insert, update, delete on beliefdb.job, beliefdb.job_start from beliefdb_app;
grant select on beliefdb.job, beliefdb.job_start to beliefdb_app, beliefdb_reader;
-- A job's payload holds a document not stored yet: an agent's login reads the jobs it submitted only
-- (its text is not another principal's to read), an eraser every job of its workspace, the schema
-- owner's sessions (workers, servers, the trusted CLI) every one (beliefdb.job_readable; beliefdb.jobs
-- lists every job of the workspace without its text).
alter table beliefdb.job enable row level security;
drop policy if exists workspace_isolation on beliefdb.job;
create policy workspace_isolation on beliefdb.job to beliefdb_app, beliefdb_reader
    using (workspace_id = (select beliefdb.current_workspace_id()) and beliefdb.job_readable(submitted_by))
    with check (workspace_id = (select beliefdb.current_workspace_id()));
do $$
declare
    v_table text;
begin
    foreach v_table in array array['job_start']
    loop
        execute pg_catalog.format('alter table beliefdb.%I enable row level security', v_table);
        execute pg_catalog.format('drop policy if exists workspace_isolation on beliefdb.%I', v_table);
        execute pg_catalog.format(
            'create policy workspace_isolation on beliefdb.%I to beliefdb_app, beliefdb_reader '
            'using (workspace_id = (select beliefdb.current_workspace_id())) '
            'with check (workspace_id = (select beliefdb.current_workspace_id()))', v_table);
    end loop;
end
$$;

-- Nothing else: beliefdb's privileges are the ones above. The migrating role's default privileges
-- (alter default privileges, common in a team's database) apply to every object a migration creates
-- and gave the roles they name usage on this schema and execute on every function, internals that
-- append to the audit chain or read an audit key included; a grant by hand is not on the list
-- either. Every privilege on schema beliefdb and its functions, tables, sequences, columns and types
-- held by a role other than the object's owner, beliefdb_app and beliefdb_reader (whose grants this
-- file made afresh; a column privilege neither holds is revoked from them too) is revoked, and each
-- role it was revoked from is named in a warning (beliefdb migrate prints it), beliefdb_app and
-- beliefdb_reader too when they held one this file did not grant again (beliefdb_role_privilege_before).
-- public keeps its usage of the types, PostgreSQL's default. beliefdb_ext, where beliefdb creates
-- the extensions a database lacks, holds the extensions' objects, not beliefdb's: a team may grant
-- its roles usage there. A role gets beliefdb's API by membership in beliefdb_app, and its reads
-- alone by membership in beliefdb_reader.
do $$
declare
    v_r record;
    v_grantee text;
    v_what text[];
begin
    drop table if exists pg_temp.beliefdb_foreign_grant;
    create temporary table beliefdb_foreign_grant (grantee oid, kind text, object text, columns text);
    insert into pg_temp.beliefdb_foreign_grant
    select a.grantee, 'routine', p.oid::pg_catalog.regprocedure::text, null
      from pg_catalog.pg_proc p cross join lateral pg_catalog.aclexplode(p.proacl) a
     where p.pronamespace = 'beliefdb'::regnamespace and a.grantee <> p.proowner
       and a.grantee not in ('beliefdb_app'::regrole, 'beliefdb_reader'::regrole)
    union
    select a.grantee, case c.relkind when 'S' then 'sequence' else 'table' end, c.oid::pg_catalog.regclass::text, null
      from pg_catalog.pg_class c cross join lateral pg_catalog.aclexplode(c.relacl) a
     where c.relnamespace = 'beliefdb'::regnamespace and a.grantee <> c.relowner
       and a.grantee not in ('beliefdb_app'::regrole, 'beliefdb_reader'::regrole)
    union
    select x.grantee, 'table', c.oid::pg_catalog.regclass::text, pg_catalog.quote_ident(t.attname)
      from pg_catalog.pg_class c
      join pg_catalog.pg_attribute t on t.attrelid = c.oid
     cross join lateral pg_catalog.aclexplode(t.attacl) x
     where c.relnamespace = 'beliefdb'::regnamespace and x.grantee <> c.relowner
       and x.grantee <> 'beliefdb_app'::regrole
    union
    select a.grantee, 'type', t.oid::pg_catalog.regtype::text, null
      from pg_catalog.pg_type t cross join lateral pg_catalog.aclexplode(t.typacl) a
     where t.typnamespace = 'beliefdb'::regnamespace and a.grantee not in (t.typowner, 0)
    union
    select a.grantee, 'schema', pg_catalog.quote_ident(n.nspname), null
      from pg_catalog.pg_namespace n cross join lateral pg_catalog.aclexplode(n.nspacl) a
     where n.nspname = 'beliefdb' and a.grantee <> n.nspowner
       and a.grantee not in ('beliefdb_app'::regrole, 'beliefdb_reader'::regrole);
    for v_r in select * from pg_temp.beliefdb_foreign_grant loop
        v_grantee := case v_r.grantee when 0 then 'public' else pg_catalog.quote_ident(v_r.grantee::regrole::text) end;
        if v_r.columns is not null then
            execute pg_catalog.format('revoke all (%s) on table %s from %s cascade', v_r.columns, v_r.object, v_grantee);
        else
            execute pg_catalog.format('revoke all on %s %s from %s cascade', v_r.kind, v_r.object, v_grantee);
        end if;
    end loop;
    -- (a grant this role may not revoke, one made by another grantor, stays: it is not said revoked)
    delete from pg_temp.beliefdb_foreign_grant f
     where (f.kind = 'routine' and f.grantee in (select a.grantee from pg_catalog.pg_proc p
                                                 cross join lateral pg_catalog.aclexplode(p.proacl) a
                                                 where p.oid = f.object::pg_catalog.regprocedure))
        or (f.kind in ('table', 'sequence') and f.columns is null
            and f.grantee in (select a.grantee from pg_catalog.pg_class c cross join lateral pg_catalog.aclexplode(c.relacl) a
                               where c.oid = f.object::pg_catalog.regclass))
        or (f.kind = 'table' and f.columns is not null
            and f.grantee in (select a.grantee from pg_catalog.pg_attribute t cross join lateral pg_catalog.aclexplode(t.attacl) a
                               where t.attrelid = f.object::pg_catalog.regclass and pg_catalog.quote_ident(t.attname) = f.columns))
        or (f.kind = 'type' and f.grantee in (select a.grantee from pg_catalog.pg_type t
                                              cross join lateral pg_catalog.aclexplode(t.typacl) a
                                              where t.oid = f.object::pg_catalog.regtype))
        or (f.kind = 'schema' and f.grantee in (select a.grantee from pg_catalog.pg_namespace n
                                                cross join lateral pg_catalog.aclexplode(n.nspacl) a
                                                where n.nspname = 'beliefdb'));
    -- (beliefdb_app and beliefdb_reader: what they held before this file and do not hold now)
    insert into pg_temp.beliefdb_foreign_grant
    select distinct b.grantee, b.kind, b.object, b.columns
      from (select * from pg_temp.beliefdb_role_privilege_before
            except
            select * from pg_temp.beliefdb_role_privilege) b;
    for v_grantee, v_what in
        select case g.grantee when 0 then 'public' else g.grantee::regrole::text end,
               pg_catalog.array_agg(pg_catalog.format('%s %s', g.n, case when g.n = 1 then g.kind else g.kind || 's' end)
                                    order by g.kind)
          from (select f.grantee, pg_catalog.replace(f.kind, 'routine', 'function') as kind,
                       pg_catalog.count(distinct f.object) as n
                  from pg_temp.beliefdb_foreign_grant f group by 1, 2) g
         group by g.grantee order by 1
    loop
        raise warning 'beliefdb revoked privileges not on beliefdb''s allow-list from role %: on %', v_grantee,
            pg_catalog.array_to_string(v_what, ', ')
            using hint = case when v_grantee in ('beliefdb_app', 'beliefdb_reader')
                              then pg_catalog.format('%s holds what beliefdb grants it (sql/api/80_privileges.sql), '
                                                     'no more: a grant to it by hand is taken back by every migration',
                                                     v_grantee)
                              else 'a role gets beliefdb''s API by membership in beliefdb_app, its reads alone in '
                                   'beliefdb_reader' end;
    end loop;
    drop table pg_temp.beliefdb_foreign_grant;
    drop table pg_temp.beliefdb_role_privilege_before;
    drop view pg_temp.beliefdb_role_privilege;
end
$$;
