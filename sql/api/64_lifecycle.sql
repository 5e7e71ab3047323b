-- beliefdb: belief lifecycle and governance (docs/rules.md, rules 9 and 14): decay of confidence
-- over time, outcomes of what was decided and done, and forgetting that leaves nothing behind.

-- Recompute every belief's confidence of the bound workspace, as of p_now (default: the clock).
-- Half-lives apply from each belief's last verification; beliefs under the retrieval threshold
-- are low confidence (demoted and labelled, never deleted); new evidence re-verifies them. One
-- statement computes them all; a derived belief reads what it is derived from as stored, so the
-- beliefs derived from those that moved are computed again, each once after what it derives from
-- and at any depth (beliefdb._propagate_confidence_from, propagate's walk): one run reaches the
-- fixpoint. A scheduler such as pg_cron can call it. p_preview: the same report, exactly, and
-- nothing written (the run happens in a subtransaction that is rolled back).
-- p_now moves the clock for computing only: the confidences are read with the clock at p_now, then
-- written with the session's own clock back. What decay writes as of another moment than the clock
-- is what the confidences will be (or were) then, not what they are: it is the call of a login that may
-- fix its clock (beliefdb_clock), as a write with a fixed clock is (BD010); any login may preview it.
create or replace function beliefdb.decay(p_now timestamptz default null, p_action text default 'decay',
                                          p_preview boolean default false)
returns beliefdb.confidence_report
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform beliefdb._bound_workspace();
    if not pg_catalog.isfinite(p_now) then
        raise exception 'decay needs a moment in time, not %', p_now using errcode = 'BD005';
    end if;
    -- the action names the audit event: any other name would be an event beliefdb did not make
    if p_action is null or p_action not in ('decay', 'recompute') then
        raise exception 'decay''s action is decay or recompute, not %', coalesce(p_action, '<NULL>')
            using errcode = 'BD005';
    end if;
    if p_preview is null then
        raise exception 'preview is true or false, not null' using errcode = 'BD005';
    end if;
    if p_preview then
        return jsonb_populate_record(null::beliefdb.confidence_report, beliefdb._dry_run(
            'select beliefdb._decay(($1 ->> ''now'')::timestamptz, $1 ->> ''action'')',
            jsonb_build_object('now', p_now, 'action', p_action)) || jsonb_build_object('preview', true));
    end if;
    if p_now is distinct from null and p_now is distinct from beliefdb.clock()
       and not pg_catalog.pg_has_role(session_user, 'beliefdb_clock', 'member') then
        raise exception 'decay as of % would store the confidences of that moment, not of now: login % may only preview it, or decay as of now',
            p_now, session_user
            using errcode = 'BD010',
                  hint = 'beliefdb.decay(p_now => ..., p_preview => true) writes nothing; a login granted beliefdb_clock may write as of another moment';
    end if;
    return jsonb_populate_record(null::beliefdb.confidence_report,
                                 beliefdb._decay(p_now, p_action) || jsonb_build_object('preview', false));
end
$$;
comment on function beliefdb.decay(timestamptz, text, boolean) is 'Recompute all confidences of the bound workspace as of a moment (half-lives, policy weights) to their fixpoint; counts of what moved (p_preview: nothing written; another moment than now is written by a beliefdb_clock login only)';

-- Process what expired (rule 16): the bound workspace's beliefs whose valid time ended since the
-- last change stop being current, and what rests on them stops holding: decisions that lose their
-- last support are flagged and their actions held, as for any change. Every writer of the
-- workspace does this first (when it takes the write lock, beliefdb.lock_workspace), beliefdb's
-- commands call it before they read, and a scheduler such as pg_cron may call it (e.g. every
-- minute). Audited when anything expired. The report: how many expired, their ids, and the change
-- report (beliefdb._changes).
create or replace function beliefdb.expire() returns beliefdb.expired
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
begin
    -- (nothing due: no lock, so a scheduler's call every minute keeps no writer waiting)
    if cardinality(beliefdb.due_to_expire(v_ws)) = 0 then
        return row(0, '{}', beliefdb.clock(), beliefdb._as_changes(beliefdb._empty_changes()))::beliefdb.expired;
    end if;
    -- (under the lock, read again: a concurrent writer may have processed them), each as of the
    -- moment it ended
    return beliefdb._lock_workspace();
end
$$;
comment on function beliefdb.expire() is 'Process the bound workspace''s beliefs whose valid time ended: not current any more, and what rests on them re-evaluated';

-- What beliefdb's commands (the library, the CLI, the servers) call before they read (rule 16): what
-- expired is processed (beliefdb.expire), unless the session fixed its clock (beliefdb.now), to read as
-- of another time (rule 13): then nothing is processed, and nothing written. The reads' valid-time
-- test reads the clock already, and the stored statuses are what the real clock left: processed at a
-- clock set past a valid time, the expiry was stored dated when it ended, and on the real clock the
-- belief was no longer current and the decisions on it flagged (and an agent's login, which may not
-- write with its clock fixed, could not read). Nor in a read-only transaction (a hot standby, a database
-- or role set default_transaction_read_only): it could not write there, and every read failed once
-- anything was due; the same valid-time test hides what is due, and the next read of a writable database
-- processes it. Nor for a role that writes nothing (beliefdb_reader, beliefdb.read_only_session): a
-- reader's read is a read, and leaves what is due to the next writer. A writer still processes what is
-- due at its clock when it takes the lock (beliefdb.lock_workspace), and so does beliefdb.expire called
-- itself. Whether it took the workspace's write lock (the caller then commits that first, so no writer
-- waits on its read).
create or replace function beliefdb.expire_before_read() returns boolean
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (nor in a read-only transaction: a hot standby, default_transaction_read_only; a write there is
    -- refused; nor for a reader's role)
    if coalesce(pg_catalog.current_setting('beliefdb.now', true), '') <> '' or beliefdb.read_only_session() then
        return false;
    end if;
    perform beliefdb.expire();
    return coalesce(pg_catalog.current_setting('beliefdb.locked_at', true), '') <> '';
end
$$;
comment on function beliefdb.expire_before_read() is 'Before a read: process what expired (beliefdb.expire), nothing when the session fixed its clock (a read writes nothing), the transaction is read-only (a standby) or the role writes nothing (beliefdb_reader); whether that took the write lock';

-- Record what actually happened after a decision or an action (its id or a unique prefix; audited).
-- Nothing carries out a rejected decision (rule 4): a success or a failure of it, or of one of its
-- actions, is refused; what was done before the rejection may still be rolled back, and anything disputed.
-- Nor one that needs review until a person approves it (rule 4: flagged, or recorded without a
-- source-backed reason): a success or a failure of the decision is refused, as its held actions' are
-- (an action a person released meanwhile may be carried out); a roll-back or a dispute is not.
-- What expired first, under the lock, as every writer does (rule 16): an outcome is dated when it took
-- the lock, and an action whose decision's last reason ended before then was held then; its success
-- recorded against it as scheduled would be followed by the hold, dated before it.
-- An idempotency key names one request (rule 18 of docs/rules.md): the same node, outcome and note again
-- with it record nothing and answer the outcome it recorded (already_applied; the action's status now);
-- another request with it is refused (idempotency_key_reused, BD009).
create or replace function beliefdb.record_outcome(p_node text, p_outcome text, p_note text default null,
                                                   p_idempotency_key text default null)
returns beliefdb.outcome_recorded
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_node uuid;
    v_kind beliefdb.node_kind;
    v_id uuid;
    v_status text;
    v_decision beliefdb.decision;
    v_keyed beliefdb.outcome;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._check_idempotency_key(p_idempotency_key);
    -- (a node of another kind is not found: outcomes are recorded for decisions and actions)
    v_node := beliefdb.resolve_node(p_node, '{decision,action}');
    select n.kind into v_kind from beliefdb.node n where n.workspace_id = v_ws and n.id = v_node;
    if p_outcome is null or p_outcome not in ('succeeded', 'failed', 'rolled_back', 'disputed') then
        raise exception 'outcome must be succeeded, failed, rolled_back or disputed' using errcode = 'BD005';
    end if;
    -- the same request again by its key: the outcome it recorded, nothing written, whatever the node's
    -- state says now (rule 18)
    if p_idempotency_key is not null then
        select * into v_keyed from beliefdb.outcome o where o.workspace_id = v_ws and o.idempotency_key = p_idempotency_key;
        if found and (v_keyed.node, v_keyed.outcome, v_keyed.note, v_keyed.recorded_by)
                     is distinct from (v_node, p_outcome, p_note, beliefdb.current_principal()) then
            raise exception 'idempotency key % was used for another request (outcome % of %): a new request needs a new key',
                p_idempotency_key, v_keyed.id, v_keyed.node using errcode = 'BD009';
        elsif found then
            return row(v_keyed.id, v_keyed.node, v_kind, v_keyed.outcome,
                       (select a.status from beliefdb.action a where a.workspace_id = v_ws and a.id = v_keyed.node),
                       true)::beliefdb.outcome_recorded;
        end if;
    end if;
    -- the decision, or the one the action carries out: a rejected one was not to be carried out, whatever
    -- an action's own status says (succeeded or failed says something carried it out)
    select d.* into v_decision from beliefdb.decision d
     where d.workspace_id = v_ws
       and d.id = coalesce((select a.decision_id from beliefdb.action a where a.workspace_id = v_ws and a.id = v_node),
                           v_node);
    if v_decision.status = 'rejected' and p_outcome in ('succeeded', 'failed') then
        raise exception 'decision % was rejected: nothing may carry it out', v_decision.id using errcode = 'BD005';
    elsif v_kind = 'decision' and v_decision.status = 'needs_review' and p_outcome in ('succeeded', 'failed') then
        raise exception 'decision % needs review: nothing may carry it out until a person approves it',
            v_decision.id using errcode = 'BD005';
    end if;
    -- an action ends as its outcome says (a dispute changes nothing); a held or cancelled one
    -- was not to be carried out
    if v_kind = 'action' then
        select a.status into v_status from beliefdb.action a where a.workspace_id = v_ws and a.id = v_node;
        if v_status in ('held', 'cancelled') and p_outcome <> 'disputed' then
            raise exception 'action % is %: it was not to be carried out (its decision %)', v_node, v_status,
                case v_status when 'held' then 'needs review' else 'was rejected' end using errcode = 'BD005';
        end if;
        update beliefdb.action a
           set status = case p_outcome when 'succeeded' then 'done' when 'failed' then 'failed'
                                       when 'rolled_back' then 'rolled_back' else a.status end
         where a.workspace_id = v_ws and a.id = v_node
        returning a.status into v_status;
    end if;
    insert into beliefdb.outcome (workspace_id, node, outcome, note, idempotency_key)
    values (v_ws, v_node, p_outcome, p_note, p_idempotency_key)
    returning id into v_id;
    perform beliefdb._audit('outcome', jsonb_build_object('node', v_node, 'kind', v_kind, 'outcome', p_outcome));
    return row(v_id, v_node, v_kind, p_outcome, v_status, false)::beliefdb.outcome_recorded;
end
$$;
comment on function beliefdb.record_outcome(text, text, text, text) is 'Record the outcome of a decision or action: succeeded, failed, rolled_back or disputed; a key names one request (rule 18)';

-- The latest outcome of a node, if any.
create or replace function beliefdb.latest_outcome(p_workspace_id uuid, p_node uuid) returns beliefdb.last_outcome
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select o.outcome, o.note, o.recorded_at, o.recorded_by
      from beliefdb.outcome o
     where o.workspace_id = p_workspace_id and o.node = p_node
     order by o.recorded_at desc, o.id desc
     limit 1
$$;
comment on function beliefdb.latest_outcome(uuid, uuid) is 'The latest recorded outcome of a decision or action (null when none)';

-- The latest outcome of a decision or action recorded by a moment (what why shows as of then).
create or replace function beliefdb.outcome_at(p_workspace_id uuid, p_node uuid, p_at timestamptz)
returns beliefdb.last_outcome
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select o.outcome, o.note, o.recorded_at, o.recorded_by
      from beliefdb.outcome o
     where o.workspace_id = p_workspace_id and o.node = p_node and o.recorded_at <= p_at
     order by o.recorded_at desc, o.id desc
     limit 1
$$;
comment on function beliefdb.outcome_at(uuid, uuid, timestamptz) is 'The latest outcome of a decision or action recorded by a moment (null when none)';

-- Forget (rule 14): a source (its text, versions, fragments), a subject's beliefs, or one
-- belief; with them their evidence, embeddings, relations, every belief left without support, and
-- every belief whose every quote was in what is forgotten (held before or not). Decisions that lose their last support are flagged (rule 4). Forgetting a subject or a
-- belief also takes its quotes out of the source texts they come from: every occurrence is masked
-- (same length, so the offsets of all other evidence stay valid), recorded in beliefdb.redaction
-- by offsets only. The audit chain keeps the events' keys and hashes; payloads that name a
-- forgotten source are redacted (their hashes stay, so the chain still verifies). The planner
-- statistics of the tables that held the text are gathered again, so pg_statistic does not keep
-- it. Only what the acting principal owns is forgotten: another's source, or another's belief that
-- forgetting would delete, is refused (not_owner, naming the owner), unless the session's login was
-- granted beliefdb_eraser (beliefdb._forget_core). p_preview: the same report, exactly, and the same
-- refusals (the forget runs in a subtransaction that is rolled back). p_ref names what p_target is:
-- a source by its name, a subject, or a belief by its id or a unique prefix. Forgetting a subject
-- forgets what it said too: p_speakers names the speakers whose turns are the subject's own words
-- (the library passes those whose name is the subject: "Maya" for maya). Their turns go as fragments
-- do (so does every belief left without support), and are masked in the conversation texts with
-- the speaker's name in the line that labels each. The report's mentions list where people typed the
-- subject's name (beliefdb._forget_mentions; the first 100, then an entry of kind more with how many in
-- all) and, of kind text, where the stored source texts still name it once its own words and quotes are masked: another speaker's turn ("Nice to meet you Maya"), another
-- document (beliefdb._text_mentions: each version, how many times, a masked excerpt; the first 100, then
-- an entry of kind more with how many in all). Forget leaves
-- those, another's words; with p_mask_mentions (a subject's alone) it masks the name there too, as it
-- masks a quote (offsets stay valid; fragments and evidence quotes with it; counted in redacted, each
-- span recorded in beliefdb.redaction), in sources the acting principal owns (an eraser's: any).
-- Then, of kind queued and proposed, where the texts waiting to be stored name it (a job's document not
-- ingested yet, a version or a correction proposed to an owner: beliefdb._pending_mentions); with
-- p_mask_mentions the name is masked in the queued and proposed texts too (a job's submitter's call, a
-- source owner's; an eraser's: any), counted in jobs and proposals, so that neither a worker nor an
-- approval brings it back; a proposed correction, typed words, is listed and left as typed. Of kind
-- speaker, the speakers of stored turns whose label names it but is not the subject's ("Maya's mum":
-- beliefdb._speaker_mentions; the first 100, then an entry of kind more), whose turns stay; with
-- p_mask_mentions masked in each turn's label (and in the waiting turns' labels), the turns so masked
-- counted in the audit event's labels_masked.
-- (the signature before the name could be masked where others wrote it)
drop function if exists beliefdb.forget(text, text, boolean, text[]);
create or replace function beliefdb.forget(p_target text, p_ref text, p_preview boolean default false,
                                           p_speakers text[] default '{}', p_mask_mentions boolean default false)
returns beliefdb.forget_result
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (if null then: false, and the erasure would run)
    if p_preview is null then
        raise exception 'preview is true or false, not null' using errcode = 'BD005';
    end if;
    if p_preview then
        -- (the forget itself, but for the statistics it would gather: the rollback would discard them)
        return jsonb_populate_record(null::beliefdb.forget_result, beliefdb._dry_run(
            'select to_jsonb(r) from beliefdb._forget_apply($1 ->> ''target'', $1 ->> ''ref'',
                                                            array(select jsonb_array_elements_text($1 -> ''speakers'')),
                                                            false, ($1 ->> ''mask_mentions'')::boolean) r',
            jsonb_build_object('target', p_target, 'ref', p_ref, 'speakers', to_jsonb(coalesce(p_speakers, '{}')),
                               'mask_mentions', coalesce(p_mask_mentions, false)))
            || jsonb_build_object('preview', true));
    end if;
    return beliefdb._forget_apply(p_target, p_ref, p_speakers, true, coalesce(p_mask_mentions, false));
end
$$;
comment on function beliefdb.forget(text, text, boolean, text[], boolean) is 'Forget a source, a subject''s beliefs and turns or a belief, every belief left without support, and their quotes in source texts (with p_mask_mentions, the subject''s name where others wrote it); audit keeps hashes only';
