-- Frozen at revision 0012: the internals are marked. Never edit.
-- Functions the application never calls are named with a leading underscore (beliefdb._settle, …) and
-- are not granted (sql/60_privileges.sql). The re-applied files create them under their new names
-- after this revision; here the old names go, so a migrated database has exactly what sql/ makes.
-- A function body names its callees as text, so dropping one that another calls is safe: the caller
-- is re-created with the new names right after.
drop function if exists beliefdb.add_claims(uuid,uuid,jsonb,jsonb,boolean);
drop function if exists beliefdb.add_evidence(uuid,uuid,uuid,text);
drop function if exists beliefdb.add_justification(uuid,uuid,uuid[],beliefdb.edge_kind);
drop function if exists beliefdb.analyze_text_tables();
drop function if exists beliefdb.apply_correction_core(uuid,uuid,text,text,text,text,text);
drop function if exists beliefdb.audit_append(uuid,text,jsonb);
drop function if exists beliefdb.audit_redact_source(text);
drop function if exists beliefdb.begin_changes();
drop function if exists beliefdb.belief_rank(uuid,uuid);
drop function if exists beliefdb.carry_forward(uuid,uuid);
drop function if exists beliefdb.changes(uuid);
drop function if exists beliefdb.common_lexemes(text[],double precision);
drop function if exists beliefdb.compare_beliefs(uuid,uuid,uuid);
drop function if exists beliefdb.dry_run(text,jsonb);
drop function if exists beliefdb.empty_changes();
drop function if exists beliefdb.forget_core(uuid,text,uuid,text);
drop function if exists beliefdb.fragment_at(uuid,uuid,integer,integer);
drop function if exists beliefdb.in_open_conflict(uuid,uuid);
drop function if exists beliefdb.ingest_report(uuid,jsonb,jsonb);
drop function if exists beliefdb.ingest_version_core(uuid,uuid,jsonb);
drop function if exists beliefdb.is_related(uuid,uuid);
drop function if exists beliefdb.masked(text,int4range[]);
drop function if exists beliefdb.nominating_query(text[],text[]);
drop function if exists beliefdb.note_changes(uuid,uuid[]);
drop function if exists beliefdb.occurrences(text,text[]);
drop function if exists beliefdb.prepare_evaluation();
drop function if exists beliefdb.propose_correction(uuid,beliefdb.belief,text,text,text,text,text);
drop function if exists beliefdb.question_lexemes(text);
drop function if exists beliefdb.question_query(text);
drop function if exists beliefdb.recompute_confidence(uuid,uuid[]);
drop function if exists beliefdb.redact_quotes(uuid,uuid[],text[],text);
drop function if exists beliefdb.refresh_confidence(uuid,uuid[]);
drop function if exists beliefdb.refresh_leaf_entries(uuid[],uuid[]);
drop function if exists beliefdb.refresh_leaf_standing(uuid[],uuid[]);
drop function if exists beliefdb.require_correction_owner(uuid,uuid,text);
drop function if exists beliefdb.require_current_for_proposal(beliefdb.belief);
drop function if exists beliefdb.require_owner(uuid,uuid,text);
drop function if exists beliefdb.require_source_owner(uuid,uuid,text);
drop function if exists beliefdb.retract_ids(uuid,uuid[],text,boolean);
drop function if exists beliefdb.retraction_targets(uuid,text,uuid,integer);
drop function if exists beliefdb.rivals(uuid,uuid);
drop function if exists beliefdb.settle(uuid,uuid);
drop function if exists beliefdb.settle_review_items(uuid);
drop function if exists beliefdb.settle_source_items(uuid,uuid[]);
drop function if exists beliefdb.trace_edges(jsonb,jsonb);
-- replaced, before it was released, by beliefdb._correction_is_proposal
drop function if exists beliefdb._require_current_for_proposal(beliefdb.belief);
