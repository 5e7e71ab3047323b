-- beliefdb: what the application role may do, and row-level security (truth rule 13).
-- The application role sees one workspace: the one bound by the beliefdb.workspace_id setting.

grant usage on schema beliefdb to beliefdb_app;

-- Functions are not public: the application role gets them explicitly, except the audit
-- internals, which only run inside triggers and beliefdb.audit (security definer).
revoke execute on all functions in schema beliefdb from public;
grant execute on all functions in schema beliefdb to beliefdb_app;
revoke execute on function
    beliefdb.audit_append(uuid, text, jsonb), beliefdb.audit_rows(), beliefdb.audit_workspace_created(),
    beliefdb.audit_redact_source(text), beliefdb.ensure_vector_index(integer), beliefdb.dry_run(text, jsonb),
    beliefdb.analyze_text_tables()
    from beliefdb_app;

-- The workspace directory: readable, and creatable by name only (ids come from the server).
grant select on beliefdb.workspace to beliefdb_app;
grant insert (name) on beliefdb.workspace to beliefdb_app;

-- Workspace data: readable, and written only through beliefdb's functions (security definer,
-- confined to the bound workspace), which keep the truth rules and ownership: only a belief's
-- owner changes its status (25_ownership.sql). Revoked first, so a database migrated from an
-- earlier release loses the direct writes it had.
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
    to beliefdb_app;

-- What impact's closure walk reads (derived from node, justification, their edges and relation;
-- written only by triggers).
grant select on beliefdb.adjacency to beliefdb_app;

-- Embeddings only nominate candidates for retrieval (truth decides what is returned), so the
-- application writes them itself.
grant select, insert, update, delete on beliefdb.embedding_model, beliefdb.belief_embedding to beliefdb_app;

-- The audit chain: readable, appended only through beliefdb.audit_append.
grant select on beliefdb.audit_event, beliefdb.audit_head to beliefdb_app;

-- Confidence weights and half-lives are read by everyone and changed by a DBA.
grant select on beliefdb.confidence_policy, beliefdb.confidence_half_life to beliefdb_app;

-- The error codes beliefdb raises (one meaning each): read by everyone, changed only by beliefdb.
grant select on beliefdb.error_code to beliefdb_app;

grant select on beliefdb.current_beliefs, beliefdb.belief_evidence, beliefdb.belief_history, beliefdb.holding,
    beliefdb.decision_support, beliefdb.review_queue to beliefdb_app;

-- Row-level security on every table holding workspace rows.
do $$
declare
    v_table text;
begin
    foreach v_table in array array[
        'node', 'source', 'source_version', 'fragment', 'belief', 'justification',
        'justification_antecedent', 'evidence', 'relation', 'decision', 'action', 'correction',
        'run', 'step', 'review_item', 'trace_edge', 'repair', 'embedding_model', 'belief_embedding', 'outcome',
        'audit_event', 'audit_head', 'adjacency', 'redaction']
    loop
        execute pg_catalog.format('alter table beliefdb.%I enable row level security', v_table);
        execute pg_catalog.format('drop policy if exists workspace_isolation on beliefdb.%I', v_table);
        execute pg_catalog.format(
            'create policy workspace_isolation on beliefdb.%I to beliefdb_app '
            'using (workspace_id = (select beliefdb.current_workspace_id())) '
            'with check (workspace_id = (select beliefdb.current_workspace_id()))', v_table);
    end loop;
end
$$;
