-- Frozen at revision 0013: a typed SQL API. Never edit: change tables and types through a new
-- revision, and sql/schema/10_tables.sql with it.
-- The API's functions return these composite types instead of jsonb (the reports that are not
-- flat stay jsonb), and take what names a belief, decision, action or node as text (an id or a
-- unique prefix), resolved inside. Neither a result type nor a parameter type changes in place: the
-- old signatures are dropped here and the re-applied files create the new (no view and no other
-- function depends on them: a function body names its callees as text).

-- What the API returns (sql/api/): one composite type per kind of result, whose fields are those
-- of the Python model it is loaded into (beliefdb/models/). Arrays of them are lists of records.

-- A decision, action or derived belief just recorded (decide, act, derive).
create type beliefdb.recorded as (id uuid, status text);
comment on type beliefdb.recorded is 'A decision, action or derived belief just recorded, with the status the truth rules gave it';

-- One live reason of a decision that lost another (its antecedents): a decision surviving on two
-- reasons is two of these, so a change report stays a flat list.
create type beliefdb.still_supported as (decision uuid, reason uuid[]);
comment on type beliefdb.still_supported is 'One reason (its antecedents) that still holds a decision which lost another';

-- The net change report of one operation (rule 7), and of a proposal to a source's owner.
create type beliefdb.changes as (
    stopped_holding uuid[], started_holding uuid[], stopped_current uuid[], became_current uuid[],
    flagged uuid[], held uuid[], survives beliefdb.still_supported[],
    proposed boolean, review_item uuid, owner text);
comment on type beliefdb.changes is 'What one change did (or would do): holding, current, flags, holds, surviving reasons; a proposal to an owner changes nothing';

-- What decay or recompute moved (rule 9).
create type beliefdb.confidence_report as (
    now timestamptz, beliefs integer, changed integer, lowered integer, raised integer, became_low integer,
    recovered integer, low_confidence integer, threshold real, preview boolean);
comment on type beliefdb.confidence_report is 'What a decay or recompute of every confidence moved (preview: would move)';

-- Beliefs whose valid time ended, processed (rule 16).
create type beliefdb.expired as (expired integer, beliefs uuid[], now timestamptz, changes beliefdb.changes);
comment on type beliefdb.expired is 'Beliefs whose valid time had ended, processed, and the change they made';

-- What forget took away (rule 14).
create type beliefdb.forget_result as (
    target text, versions integer, fragments integer, beliefs integer, evidence integer, embeddings integer,
    redacted integer, flagged uuid[], would_flag uuid[], held uuid[], changes beliefdb.changes, preview boolean);
comment on type beliefdb.forget_result is 'What forgetting a source, a subject or a belief took away (preview: would take away)';

-- An outcome just recorded.
create type beliefdb.outcome_recorded as (id uuid, node uuid, kind text, outcome text, status text);
comment on type beliefdb.outcome_recorded is 'An outcome recorded for a decision or action, and the action''s status after it';

-- The latest outcome of a decision or action.
create type beliefdb.last_outcome as (outcome text, note text, at timestamptz, by text);
comment on type beliefdb.last_outcome is 'The latest recorded outcome of a decision or action, its note, when and by whom';

-- One effect of a change (impact): detail is free-form (a title, a description, reasons).
create type beliefdb.impact_row as (node uuid, kind text, effect text, detail jsonb);
comment on type beliefdb.impact_row is 'One effect of a change: stops_holding, becomes_current, flag, hold or survives, with free-form detail';

-- What a correction would change (rules 6, 7).
create type beliefdb.correction_preview as (
    belief uuid, revision integer, would_flag uuid[], would_hold uuid[], still_supported beliefdb.still_supported[],
    owner text, proposed boolean, changes beliefdb.changes, if_approved beliefdb.impact_row[]);
comment on type beliefdb.correction_preview is 'What a correction would change, with the revision it saw; a proposal shows what the owner''s approval would change';

-- A correction applied, or proposed to the belief's owner.
create type beliefdb.correction_result as (
    correction uuid, replacement uuid, superseded uuid[], flagged uuid[], held uuid[], already_applied boolean,
    proposed boolean, review_item uuid, owner text, changes beliefdb.changes);
comment on type beliefdb.correction_result is 'A correction applied (or already applied), or proposed to the belief''s owner as a review item';

-- A review item resolved; the reports of what an approval applied keep their own (jsonb) shapes.
create type beliefdb.review_resolution as (
    item uuid, kind text, node uuid, source_id uuid, status text, correction jsonb, applied jsonb);
comment on type beliefdb.review_resolution is 'A review item approved or rejected, with the report of what an approved proposal applied';

-- One item of a repair plan (rule 10).
create type beliefdb.plan_item as (
    node uuid, node_kind text, step_kind text, run_id uuid, seq integer, action text, reason text, saved_by uuid[]);
comment on type beliefdb.plan_item is 'One item of a repair plan: delete, quarantine, invalidate, replay or preserve a node, and why';

-- A repair carried out (its store side).
create type beliefdb.repair_result as (
    repair_id uuid, faulty uuid[], plan beliefdb.plan_item[], changes beliefdb.changes);
comment on type beliefdb.repair_result is 'A repair''s store side carried out: its id, the faulty memories, the plan in order and the change';

-- A batch of a run recorded.
create type beliefdb.trace_recorded as (run uuid, steps integer, memories integer);
comment on type beliefdb.trace_recorded is 'A batch of an agent run recorded: the run and how many steps and memories it added';

drop function if exists beliefdb.act(uuid,text);
drop function if exists beliefdb.apply_correction(uuid,text,text,text,text,integer,text);
drop function if exists beliefdb.correction_preview(uuid,text,text);
drop function if exists beliefdb.decay(timestamp with time zone,text,boolean);
drop function if exists beliefdb.decide(text,jsonb);
drop function if exists beliefdb.derive(text,text,text,text,uuid[],text);
drop function if exists beliefdb.expire();
drop function if exists beliefdb.forget(text,uuid,text,boolean);
drop function if exists beliefdb.impact(uuid[]);
drop function if exists beliefdb.latest_outcome(uuid,uuid);
drop function if exists beliefdb.record_outcome(uuid,text,text);
drop function if exists beliefdb.record_trace(jsonb,jsonb,jsonb,jsonb);
drop function if exists beliefdb.repair_apply(uuid[],boolean);
drop function if exists beliefdb.repair_plan(uuid[],boolean,boolean);
drop function if exists beliefdb.repair_plan_json(uuid[],boolean);
drop function if exists beliefdb.retract(text,uuid,text,integer,boolean);
drop function if exists beliefdb.retract_preview(text,uuid,integer,boolean);
drop function if exists beliefdb.review_resolve(uuid,text,text,uuid);
drop function if exists beliefdb.simulate_retraction(uuid[]);
