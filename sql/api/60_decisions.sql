-- beliefdb: decisions, actions, derived beliefs, corrections, retraction and the review queue
-- (docs/rules.md, rules 4, 5, 6, 7 and the second half of 8). Each function is one user-visible
-- change and ends by propagating it, so flags always agree with the holding fixpoint.

-- A decision citing beliefs. p_justifications is a JSON array of arrays of beliefs (each its id or
-- a unique prefix of it): each inner array is one alternative reason, all of whose beliefs are
-- needed (at least one: an empty one is refused, BD005). With no reason at all the
-- decision is still recorded (an agent wanted to act without evidence, and that is worth
-- knowing), as needs_review with the review item "No source-backed answer yet": nothing may carry
-- it out until a person approves it. A reason given twice (the same beliefs, by id or by prefix, in
-- any order) is recorded once. One none of whose reasons holds (it cites no current belief,
-- rule 19) is needs_review too, its reasons kept, and its review item says it has no source-backed
-- answer (it never had support to lose); an action on it is held at once, as on any flagged one.
-- A decision is production's: a fixture or synthetic belief (rule 15) is refused as any part of
-- any reason (BD002), or test data would keep it, and its actions, alive.
-- An idempotency key (p_idempotency_key) names one request (rule 18): the same title and reasons again
-- (the same beliefs, by id or prefix, in any order: beliefdb._decision_request) with it record nothing
-- and answer the decision it recorded (already_applied); another request with it is refused
-- (idempotency_key_reused, BD009). Keys are per workspace, and a decision's are its own.
create or replace function beliefdb.decide(p_title text, p_justifications jsonb, p_idempotency_key text default null)
returns beliefdb.recorded
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    -- (the request's digest names a keyed request only: none is read without a key)
    return beliefdb._decide(p_title, p_justifications, p_idempotency_key,
                            case when p_idempotency_key is not null
                                 then beliefdb._decision_request(null, p_justifications) end);
end
$$;
comment on function beliefdb.decide(text, jsonb, text) is 'Record a decision and its reasons ([[belief id or prefix, ...], ...]: alternatives of joint supports); none: needs review; a key names one request (rule 18)';

-- An action carrying out a decision (its id or a unique prefix); held at once if the decision needs
-- review. Nothing carries out a rejected decision, nor one recorded without reasons until a person
-- approves it, nor one that cites a fixture or synthetic belief (recorded before decide refused
-- them, rule 15: BD002). An idempotency key names one request (rule 18): the same decision and
-- description again with it record nothing and answer the action it recorded, whatever became of the
-- decision since (already_applied); another request with it is refused (idempotency_key_reused, BD009).
create or replace function beliefdb.act(p_decision text, p_description text, p_idempotency_key text default null)
returns beliefdb.recorded
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_status text;
    v_decision beliefdb.decision;
    v_other record;
    v_keyed beliefdb.action;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if coalesce(btrim(p_description), '') = '' then
        raise exception 'an action needs a description' using errcode = 'BD005';
    end if;
    perform beliefdb._check_idempotency_key(p_idempotency_key);
    select * into v_decision from beliefdb.decision d
     where d.workspace_id = v_ws and d.id = (select beliefdb.resolve_node(p_decision, '{decision}'));
    if not found then
        raise exception 'unknown decision %', p_decision using errcode = 'BD004';
    end if;
    -- the same request again by its key: the action it recorded, nothing written (rule 18)
    if p_idempotency_key is not null then
        select * into v_keyed from beliefdb.action a where a.workspace_id = v_ws and a.idempotency_key = p_idempotency_key;
        if found and (v_keyed.decision_id, v_keyed.description, v_keyed.owner)
                     is distinct from (v_decision.id, p_description, beliefdb.current_principal()) then
            raise exception 'idempotency key % was used for another request (action % carrying out decision %): a new request needs a new key',
                p_idempotency_key, v_keyed.id, v_keyed.decision_id using errcode = 'BD009';
        elsif found then
            return row(v_keyed.id, v_keyed.status, true)::beliefdb.recorded;
        end if;
    end if;
    if v_decision.status = 'rejected' then
        raise exception 'decision % was rejected: nothing may carry it out', v_decision.id using errcode = 'BD005';
    elsif v_decision.status = 'needs_review'
          and not exists (select from beliefdb.justification j
                           where j.workspace_id = v_ws and j.consequent = v_decision.id) then
        raise exception 'decision % has no source-backed reason yet: a person must approve it before anything carries it out',
            v_decision.id using errcode = 'BD005';
    end if;
    select b.id, b.provenance into v_other
      from beliefdb.justification j
      join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
      join beliefdb.belief b on b.workspace_id = a.workspace_id and b.id = a.antecedent
     where j.workspace_id = v_ws and j.consequent = v_decision.id and b.provenance <> 'production'
     order by b.id
     limit 1;
    if found then
        raise exception 'decision % rests on belief %, % material, not production history: nothing may carry it out',
            v_decision.id, v_other.id, v_other.provenance using errcode = 'BD002';
    end if;
    insert into beliefdb.action (workspace_id, decision_id, description, idempotency_key)
    values (v_ws, v_decision.id, p_description, p_idempotency_key) returning id into v_id;
    perform beliefdb._add_justification(v_ws, v_id, array[v_decision.id], 'carries_out');
    perform beliefdb.propagate(v_ws, array[v_id]);
    select a.status into v_status from beliefdb.action a where a.workspace_id = v_ws and a.id = v_id;
    return row(v_id, v_status, false)::beliefdb.recorded;
end
$$;
comment on function beliefdb.act(text, text, text) is 'Record an action carrying out a decision (its id or a unique prefix); a key names one request (rule 18)';

-- A belief derived from others (each its id or a unique prefix): one justification needing all of them.
create or replace function beliefdb.derive(p_statement text, p_subject text, p_attribute text, p_value text,
                                           p_from text[], p_kind text default 'fact') returns beliefdb.recorded
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_status text;
    v_from uuid[];
    v_provenance beliefdb.provenance;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if coalesce(btrim(p_statement), '') = '' or coalesce(btrim(p_subject), '') = ''
       or coalesce(btrim(p_attribute), '') = '' then
        raise exception 'a derived belief needs a statement, a subject and an attribute' using errcode = 'BD005';
    elsif p_kind is null or p_kind not in ('fact', 'rule', 'policy', 'preference', 'procedure', 'event',
                                            'observation', 'other') then
        raise exception 'unknown belief kind % (choose from: fact, rule, policy, preference, procedure, event, observation, other)',
            coalesce(p_kind, '<NULL>') using errcode = 'BD005';
    end if;
    v_from := array(select beliefdb.resolve_belief(f.ref) from unnest(p_from) with ordinality f (ref, n) order by f.n);
    -- derived from anything that is not production history, it belongs to that world (rule 15)
    v_provenance := coalesce((select max(b.provenance) from beliefdb.belief b
                               where b.workspace_id = v_ws and b.id = any(v_from)), 'production');
    -- the same derivation again (the acting principal's, the same belief from the same beliefs, not
    -- superseded or retracted since) is the belief it made (already_applied): an agent that repeats a
    -- step does not make the belief twice
    select b.id, b.status::text into v_id, v_status
      from beliefdb.belief b
     where b.workspace_id = v_ws and b.subject = p_subject and b.attribute = p_attribute
       and b.value = p_value and b.statement = p_statement and b.kind = p_kind
       and b.confidence_kind = 'derived' and b.provenance = v_provenance
       and b.owner = beliefdb.current_principal() and b.status not in ('superseded', 'retracted')
       and exists (select from beliefdb.justification j
                    where j.workspace_id = v_ws and j.consequent = b.id
                      and array(select distinct a.antecedent from beliefdb.justification_antecedent a
                                 where a.workspace_id = v_ws and a.justification_id = j.id
                                   and a.edge_kind = 'derives' order by 1)
                          = array(select distinct x from unnest(v_from) x order by 1))
     order by b.recorded_at, b.id
     limit 1;
    if v_id is not null then
        return row(v_id, v_status, true)::beliefdb.recorded;
    end if;
    -- stored current, as an ingested claim is: the propagation below settles its status. A new belief
    -- starts at revision 1 whatever status that gives it (nothing changed it since it was recorded,
    -- and a preview of its correction shows that revision), so a status other than current, set by
    -- the propagation of its own derivation, does not count as a change (stored unsupported, every
    -- new derived belief that held started at revision 2)
    insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, confidence_kind,
                                 provenance)
    values (v_ws, p_statement, p_subject, p_attribute, p_value, p_kind, 'derived', v_provenance)
    returning id into v_id;
    perform beliefdb._add_justification(v_ws, v_id, v_from, 'derives');
    perform beliefdb.propagate(v_ws, array[v_id]);
    update beliefdb.belief b set revision = 1
     where b.workspace_id = v_ws and b.id = v_id and b.revision <> 1
    returning b.status into v_status;
    if not found then
        select b.status into v_status from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_id;
    end if;
    return row(v_id, v_status, false)::beliefdb.recorded;
end
$$;
comment on function beliefdb.derive(text, text, text, text, text[], text) is 'Record a belief derived from others (its confidence: the product of theirs)';

-- What correcting a belief would do, before doing it (rule 7): the revision it saw, and exactly
-- what the apply would change (the correction itself runs in a rolled-back subtransaction): the
-- decisions that would be flagged, the actions held, the decisions other support keeps, and
-- what stops being or becomes current. Without a statement (null), the belief's own (what depends on
-- the old belief is the same whatever replaces it; its rivals under rule 8 may not be); a statement
-- given blank is refused as the apply refuses it (BD005), before the belief is looked up. A belief
-- another principal owns is not changed by an apply, only proposed to its owner: the preview
-- says so, and shows under if_approved what the owner's approval would change (as impact's rows,
-- beliefdb.change_rows): approving applies the proposal as the owner's own correction
-- (beliefdb.review_resolve), so it is the same correction run as the owner, rolled back (the
-- replacement is the owner's, may supersede the owner's belief and meets its rivals as the owner's:
-- not the dry run of taking the belief away, which would say that it stops holding and that what
-- it superseded is current again). Only a session that may act as another principal (the schema
-- owner's, as the library, the CLI and the servers are: beliefdb.principal) can run it; an agent's
-- own login cannot, and gets no if_approved (null). The belief: its id or a unique prefix.
create or replace function beliefdb.correction_preview(p_belief text, p_statement text default null,
                                                       p_value text default null)
returns beliefdb.correction_preview
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_old beliefdb.belief;
    v_changes beliefdb.changes;
    v_principal text;
    v_approval beliefdb.changes;
    v_as_owner boolean;
    v_run text := 'select (beliefdb._apply_correction_core(($1 ->> ''workspace'')::uuid, ($1 ->> ''belief'')::uuid, $1 ->> ''statement'', $1 ->> ''value'', ''preview'', null, null) -> ''changes'')';
    v_args jsonb;
begin
    -- what beliefdb.apply_correction refuses of the statement, the preview refuses (rule 7: the preview
    -- is what the apply does, and a blank statement is no correction the apply makes)
    if p_statement is not null and btrim(p_statement) = '' then
        raise exception 'a correction needs the new statement' using errcode = 'BD005';
    end if;
    select * into v_old from beliefdb.belief b
     where b.workspace_id = v_ws and b.id = (select beliefdb.resolve_belief(p_belief));
    if not found then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004', detail = '{"unknown": ["belief"]}';
    end if;
    -- what expired and no writer has processed yet, the apply processes first, at its lock (rule 16),
    -- and that gives the beliefs it changes a new revision: the revision shown is the one the apply
    -- will check, read in a rolled-back run of that lock, as the dry run below sees the belief (the
    -- one stored before it would make every apply stale, and each stale apply rolls the expiry back)
    if cardinality(beliefdb.due_to_expire(v_ws)) > 0 then
        v_old.revision := (beliefdb._dry_run(
            'select pg_catalog.jsonb_build_object(''revision'', b.revision) from beliefdb.belief b where b.workspace_id = ($1 ->> ''workspace'')::uuid and b.id = ($1 ->> ''belief'')::uuid',
            jsonb_build_object('workspace', v_ws, 'belief', v_old.id)) ->> 'revision')::integer;
    end if;
    v_args := jsonb_build_object('workspace', v_ws, 'belief', v_old.id,
                                 'statement', coalesce(p_statement, v_old.statement), 'value', p_value);
    if beliefdb._correction_is_proposal(v_old) then
        -- the owner's approval: the same correction, acting as the owner for its dry run only (the
        -- setting is put back after it, and an error ends it with the statement)
        v_principal := current_setting('beliefdb.principal', true);
        perform set_config('beliefdb.principal', v_old.owner, true);
        v_as_owner := beliefdb.current_principal() = v_old.owner;
        if v_as_owner then
            v_approval := beliefdb._as_changes(beliefdb._dry_run(v_run, v_args));
        end if;
        perform set_config('beliefdb.principal', coalesce(v_principal, ''), true);
        return row(v_old.id, v_old.revision, '{}', '{}', '{}', v_old.owner, true,
                   beliefdb._as_changes(beliefdb._empty_changes()
                                        || jsonb_build_object('proposed', true, 'owner', v_old.owner)),
                   case when v_as_owner then
                       array(select i from beliefdb.change_rows(v_ws, v_approval) i order by i.effect, i.node)
                   end)::beliefdb.correction_preview;
    end if;
    v_changes := beliefdb._as_changes(beliefdb._dry_run(v_run, v_args));
    return row(v_old.id, v_old.revision, v_changes.flagged, v_changes.held, v_changes.survives, v_old.owner, false,
               v_changes, '{}')::beliefdb.correction_preview;
end
$$;
comment on function beliefdb.correction_preview(text, text, text) is 'Preview a correction exactly: revision seen, decisions flagged, actions held, decisions still supported, what stops being or becomes current';

-- Apply a correction (rules 6, 7), in one transaction: a correction record, a human-correction
-- fragment holding the reviewer's text, a replacement supported only by that fragment, the old
-- belief superseded, and the dependency check (beliefdb._apply_correction). A changed revision is
-- stale (BD007); the same correction again returns the existing result with already_applied and
-- re-runs the check. Another principal's belief: proposed to its owner (no change report). The
-- belief: its id or a unique prefix.
create or replace function beliefdb.apply_correction(
    p_belief text, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_expected_revision integer, p_idempotency_key text default null
) returns beliefdb.correction_result
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_report jsonb;
    v_result beliefdb.correction_result;
begin
    perform beliefdb.lock_workspace();
    -- what the library checks before it calls (beliefdb/store/corrections.py), and rule 7's revision:
    -- a null one would skip the stale-preview check
    if coalesce(btrim(p_statement), '') = '' then
        raise exception 'a correction needs the new statement' using errcode = 'BD005';
    elsif coalesce(btrim(p_reviewer), '') = '' then
        raise exception 'a correction needs a reviewer' using errcode = 'BD005';
    elsif p_expected_revision is null then
        raise exception 'a correction needs the revision its preview showed (beliefdb.correction_preview)'
            using errcode = 'BD005';
    end if;
    v_report := beliefdb._apply_correction(beliefdb.resolve_belief(p_belief), p_statement, p_value, p_reviewer,
                                           p_reason, p_expected_revision, p_idempotency_key);
    v_result := jsonb_populate_record(null::beliefdb.correction_result, v_report - 'changes');
    if not v_result.proposed then
        v_result.changes := beliefdb._as_changes(v_report -> 'changes');
    end if;
    return v_result;
end
$$;
comment on function beliefdb.apply_correction(text, text, text, text, text, integer, text) is 'Apply a reviewer''s correction atomically; stale revision is BD007; a repeat is already_applied';

-- Retract (p_undo false) or restore (p_undo true) a belief, fragment, correction, decision,
-- whole source, or one version of a source; then propagate. p_target says what p_ref names
-- (beliefdb._retraction_target): a belief (its id or a unique prefix), a node (any node's id or
-- unique prefix, a source's name or a source version's id), a source (its name) or a version of a
-- source (its name, and p_version). Returns what changed (the change report of beliefdb._changes,
-- with proposed false). A source belongs to the principal that first ingested it: anyone else's
-- retraction of it (or of one of its versions or fragments, however named: beliefdb._source_part)
-- changes nothing and waits in the review queue for the owner (proposed true, review_item, owner).
create or replace function beliefdb.retract(p_target text, p_ref text, p_reason text, p_version integer default null,
                                            p_undo boolean default false) returns beliefdb.changes
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_target text := case when p_target = 'belief' then 'node' else p_target end;
    v_id uuid;
    v_ids uuid[];
    v_source uuid;
    v_version integer := p_version;
    v_owner text;
    v_item uuid;
    v_proposal jsonb;
    v_changes jsonb;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if p_undo is null then
        raise exception 'undo is true (restore) or false (retract), not null' using errcode = 'BD005';
    end if;
    -- (as the library and the CLI ask: a retraction says why, in its audit event; a restore need not)
    if not p_undo and coalesce(btrim(p_reason), '') = '' then
        raise exception 'a retraction needs a reason (p_reason): why it is withdrawn, kept in its audit event'
            using errcode = 'BD005';
    end if;
    v_id := beliefdb._retraction_target(v_ws, p_target, p_ref);
    if v_id is null and v_target in ('source', 'version') then
        raise exception 'nothing to %: source % is unknown', case when p_undo then 'restore' else 'retract' end,
            p_ref using errcode = 'BD004';
    end if;
    v_ids := beliefdb._retraction_targets(v_ws, v_target, v_id, p_version);
    -- a source, a version or a fragment named as a node is its source's owner's (rule 17): a source or
    -- a version as if named so, a fragment with its source (the owner's to approve)
    select r.target, r.id, r.source_id, r.version into v_target, v_id, v_source, v_version
      from beliefdb._retraction_subject(v_ws, v_target, v_id, p_version) r;
    if v_source is not null then
        select s.owner into v_owner from beliefdb.source s where s.workspace_id = v_ws and s.id = v_source;
        if not found then
            raise exception 'nothing to %: source % is unknown', case when p_undo then 'restore' else 'retract' end,
                p_ref using errcode = 'BD004';
        elsif v_owner is distinct from beliefdb.current_principal() then
            if v_target = 'node' then
                perform beliefdb._require_fragment_in_force(v_ws, v_id);
            end if;
            v_proposal := jsonb_build_object('target', v_target, 'version', v_version, 'undo', p_undo, 'reason', p_reason)
                          || case when v_target = 'node' then jsonb_build_object('node', v_id) else '{}' end;
            select r.id into v_item
              from beliefdb.review_item r
             where r.workspace_id = v_ws and r.kind = 'retraction_proposed' and r.status = 'open'
               and r.source_id = v_source and r.proposed_by = beliefdb.current_principal()
               and r.proposal = v_proposal;
            if v_item is null then
                insert into beliefdb.review_item (workspace_id, kind, source_id, reason, proposed_by, proposal)
                values (v_ws, 'retraction_proposed', v_source,
                        pg_catalog.format('%s proposes to %s %s (%s); source owned by %s', beliefdb.current_principal(),
                                          case when p_undo then 'restore' else 'retract' end,
                                          case when v_target = 'node' then 'fragment ' || v_id
                                               when v_version is null then 'the source'
                                               else 'version ' || v_version end,
                                          coalesce(nullif(p_reason, ''), 'no reason given'), v_owner),
                        beliefdb.current_principal(), v_proposal)
                returning id into v_item;
                perform beliefdb._audit('retraction.propose', jsonb_build_object(
                    'item', v_item, 'source_id', v_source, 'version', v_version, 'owner', v_owner)
                    || case when v_target = 'node' then jsonb_build_object('node', v_id) else '{}' end);
            end if;
            return beliefdb._as_changes(beliefdb._empty_changes()
                                        || jsonb_build_object('proposed', true, 'review_item', v_item, 'owner', v_owner));
        end if;
    end if;
    perform beliefdb._require_retraction_owner(v_ws, v_target, v_id);
    v_changes := beliefdb._retract_ids(v_ws, v_ids, p_reason, p_undo);
    if v_changes is null then  -- (what it names was found: it is in that state already, a retry's case)
        raise exception 'nothing to %: % % is already %', case when p_undo then 'restore' else 'retract' end,
            p_target, p_ref, case when p_undo then 'in force' else 'retracted' end using errcode = 'BD004',
            detail = jsonb_build_object('already', case when p_undo then 'in_force' else 'retracted' end)::text;
    end if;
    perform beliefdb._audit(case when p_undo then 'unretract' else 'retract' end, jsonb_build_object(
        'target', v_target, 'id', v_id, 'version', v_version, 'reason', case when p_undo then null else p_reason end,
        'stopped_holding', jsonb_array_length(v_changes -> 'stopped_holding'),
        'flagged', v_changes -> 'flagged'));
    return beliefdb._as_changes(v_changes || jsonb_build_object('proposed', false));
end
$$;
comment on function beliefdb.retract(text, text, text, integer, boolean) is 'Retract or restore a node, source or source version, and propagate what that changes (another principal''s source: a proposal to its owner)';

-- What a retraction (or a restore) would change, exactly: the retraction runs in a subtransaction
-- that is rolled back. The same report as retract, with the owner and whether the apply would
-- only be a proposal (another principal's source: then nothing changes until its owner approves,
-- and the report shows what the approval would change). p_target and p_ref: as for retract.
create or replace function beliefdb.retract_preview(p_target text, p_ref text, p_version integer default null,
                                                    p_undo boolean default false) returns beliefdb.changes
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb._bound_workspace();
    v_target text := case when p_target = 'belief' then 'node' else p_target end;
    v_id uuid;
    v_ids uuid[];
    v_source uuid;
    v_owner text;
    v_changes jsonb;
    v_principal text;
    v_proposed boolean;
begin
    if p_undo is null then
        raise exception 'undo is true (restore) or false (retract), not null' using errcode = 'BD005';
    end if;
    v_id := beliefdb._retraction_target(v_ws, p_target, p_ref);
    if v_id is null and v_target in ('source', 'version') then
        raise exception 'nothing to %: source % is unknown', case when p_undo then 'restore' else 'retract' end,
            p_ref using errcode = 'BD004';
    end if;
    v_ids := beliefdb._retraction_targets(v_ws, v_target, v_id, p_version);
    -- (a source, version or fragment named as a node: its source's owner's, as retract reads it)
    select r.target, r.id, r.source_id into v_target, v_id, v_source
      from beliefdb._retraction_subject(v_ws, v_target, v_id, p_version) r;
    if v_source is not null then
        select s.owner into v_owner from beliefdb.source s where s.workspace_id = v_ws and s.id = v_source;
    end if;
    -- what the apply would only propose is previewed as its owner's approval; anything else is
    -- refused here as the apply would refuse it
    if v_source is null or v_owner is not distinct from beliefdb.current_principal() then
        perform beliefdb._require_retraction_owner(v_ws, v_target, v_id);
    end if;
    -- a proposal is previewed as its owner's approval, which applies it as the owner's own change: a
    -- belief it brings back meets its rivals under rule 8 as the owner's (superseding the owner's own
    -- rival, where the proposer's change would leave the two in conflict). Acting as the owner for the
    -- dry run only (the setting is put back after it, and an error ends it with the statement); a
    -- session that may not act as another principal (an agent's login) previews as itself.
    v_proposed := v_owner is distinct from beliefdb.current_principal() and v_owner is not null;
    if v_proposed and v_target = 'node' then
        perform beliefdb._require_fragment_in_force(v_ws, v_id);
    end if;
    if v_proposed then
        v_principal := current_setting('beliefdb.principal', true);
        perform set_config('beliefdb.principal', v_owner, true);
    end if;
    v_changes := beliefdb._standing_dry_run(
        'select beliefdb._retract_ids(($1 ->> ''workspace'')::uuid, array(select jsonb_array_elements_text($1 -> ''ids''))::uuid[], ''preview'', ($1 ->> ''undo'')::boolean)',
        jsonb_build_object('workspace', v_ws, 'ids', to_jsonb(v_ids), 'undo', p_undo));
    if v_proposed then
        perform set_config('beliefdb.principal', coalesce(v_principal, ''), true);
    end if;
    if v_changes = 'null'::jsonb then
        raise exception 'nothing to %: % % is already %', case when p_undo then 'restore' else 'retract' end,
            p_target, p_ref, case when p_undo then 'in force' else 'retracted' end using errcode = 'BD004',
            detail = jsonb_build_object('already', case when p_undo then 'in_force' else 'retracted' end)::text;
    end if;
    return beliefdb._as_changes(v_changes || jsonb_build_object('proposed', v_proposed, 'owner', v_owner));
end
$$;
comment on function beliefdb.retract_preview(text, text, integer, boolean) is 'Exactly what a retraction or restore would change, computed in a rolled-back subtransaction';

-- A review item of the bound workspace by its id or a prefix of it (4 hex digits or more), among the
-- items of these statuses (open, approved, rejected, closed; all when null): null when none is. An
-- empty reference, one that is no id, or a prefix shorter than 4 is bad input (BD005); a prefix that
-- begins several items is ambiguous (BD006), naming the first few it begins as resolve_node names
-- nodes, so that which to give is a choice, not another guess. Runs as its caller: row-level security
-- keeps it in the bound workspace. review_resolve, review_items (p_after) and why (an id that names no
-- node) read items by it.
create or replace function beliefdb.resolve_review_item(p_ref text, p_statuses text[] default null) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ref text := lower(trim(coalesce(p_ref, '')));
    v_hex text := replace(lower(trim(coalesce(p_ref, ''))), '-', '');
    v_ids uuid[];
begin
    -- an empty or short reference would be a prefix of every item, or of many: it names none
    if v_ref = '' then
        raise exception 'no review item id given: give an id or at least 4 characters of one' using errcode = 'BD005';
    elsif v_ref !~ '^[0-9a-f-]+$' then
        raise exception 'review item id % is not an id: give an id or at least 4 of its first hex digits', p_ref
            using errcode = 'BD005';
    elsif length(v_hex) < 4 then
        raise exception 'review item id prefix % is too short: give at least 4 characters', p_ref using errcode = 'BD005';
    end if;
    -- (the ids it begins, by the primary key's range of them, the first 21 in id order; its dashes where an
    -- id has them)
    v_ids := array(select r.id from beliefdb.review_item r
                    where r.workspace_id = v_ws
                      and r.id between rpad(left(v_hex, 32), 32, '0')::uuid and rpad(left(v_hex, 32), 32, 'f')::uuid
                      and left(r.id::text, length(v_ref)) = v_ref
                      and (p_statuses is null or r.status = any(p_statuses))
                    order by r.id
                    limit 21);
    if cardinality(v_ids) > 1 then
        raise exception 'review item id prefix % is ambiguous (%): give more characters of the id', p_ref,
            least(cardinality(v_ids), 20)::text || ' matches'
            || case when cardinality(v_ids) > 20 then ' or more' else '' end || ': '
            || (select string_agg(case when length(v_hex) < 6 then left(u.id::text, 8) else u.id::text end, ', '
                                  order by u.n)
                  from unnest(v_ids[1:5]) with ordinality as u (id, n))
            || case when cardinality(v_ids) > 5 then ', ...' else '' end
            using errcode = 'BD006';
    end if;
    return v_ids[1];
end
$$;
comment on function beliefdb.resolve_review_item(text, text[]) is 'A review item of the bound workspace by its id or a unique prefix of 4 hex digits or more, among items of some statuses; null when none, ambiguous naming the first few it begins';

-- Resolve a review item: approve or reject. Approving a flagged decision accepts it as it is
-- and releases its held actions; rejecting it cancels every action of it not finished (held, or
-- scheduled because a person released it: rule 4, nothing carries out a rejected decision). Approving a held action releases
-- it, rejecting cancels it. Approving a conflict needs the winner, which supersedes the loser; its
-- report (applied) is the winner, the loser and the change report of that supersession (the decisions
-- it flagged, the actions it held). A proposed correction, new version or retraction is its owner's to
-- approve (which applies it as the owner's own change) or reject. closed: the other review items the
-- verdict resolved, by the resolutions' order (resolved_seq): settled by what it changed (a correction
-- proposed of a belief it superseded), or resolved with it (a flagged decision's held actions), each
-- with its note saying why. The item: its id or a prefix of it naming one open item; one approved,
-- rejected or closed already is said to be (BD005 with DETAIL {"already": "resolved", "status", "by"}:
-- the library's already_resolved, so that a verdict sent again reads apart from bad input); the
-- winner, only with approving a conflict: a belief's id or a unique prefix. What expired is processed
-- first, under the lock, as every writer does (rule 16): the verdict is dated when it took the lock and is on the state a reader then
-- saw. Approving a decision whose last reason ended before then approves the loss it shows (rule 4: only
-- a loss after the approval flags it again); a tie one side of which expired is settled (closed), and
-- a proposed correction of a belief that expired closes too: they are no longer open to resolve.
create or replace function beliefdb.review_resolve(p_item text, p_verdict text, p_note text default null,
                                                   p_winner text default null) returns beliefdb.review_resolution
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_item beliefdb.review_item;
    v_items uuid[];
    v_winner uuid;
    v_loser uuid;
    v_result jsonb;
    v_left jsonb;
    v_seq bigint;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    -- (an empty, short or ambiguous reference is refused by resolve_review_item, before the verdict)
    v_items := array_remove(array[beliefdb.resolve_review_item(p_item, array['open', 'closed'])], null);
    if p_verdict is null or p_verdict not in ('approved', 'rejected') then
        raise exception 'verdict must be approved or rejected' using errcode = 'BD005';
    end if;
    if cardinality(v_items) = 0 then
        -- an item approved or rejected already: said so (a resolve sent again is told what happened, not
        -- that the id names nothing), when the reference names one such item
        v_items := array_remove(array[beliefdb.resolve_review_item(p_item, array['approved', 'rejected'])], null);
        if cardinality(v_items) = 1 then
            select * into v_item from beliefdb.review_item r where r.workspace_id = v_ws and r.id = v_items[1];
            if v_item.kind = 'conflict' and v_item.status = 'rejected' then
                -- (a conflict rejected leaves both conflicting: what settles them now)
                raise exception 'review item % is already % (by %)', v_item.id, v_item.status, v_item.resolved_by
                    using errcode = 'BD005', hint = 'both beliefs stay conflicting: to settle them, correct one'
                                                    || ' (beliefdb correct ID --preview) or retract the source of one',
                          detail = beliefdb._already_resolved(v_item);
            end if;
            raise exception 'review item % is already % (by %)', v_item.id, v_item.status, v_item.resolved_by
                using errcode = 'BD005', detail = beliefdb._already_resolved(v_item);
        end if;
        raise exception 'no open review item %', p_item using errcode = 'BD004';
    end if;
    select * into v_item from beliefdb.review_item r where r.workspace_id = v_ws and r.id = v_items[1] for update;
    if not found then
        raise exception 'unknown review item %', p_item using errcode = 'BD004';
    elsif v_item.status <> 'open' then
        raise exception 'review item % is already %', v_item.id,
            v_item.status || case when v_item.status = 'closed' then ' (' || v_item.note || ')' else '' end
            using errcode = 'BD005', detail = beliefdb._already_resolved(v_item);
    end if;
    -- the resolutions before this verdict's (under the lock: what expired, processed above, among them)
    v_seq := coalesce((select max(r.resolved_seq) from beliefdb.review_item r where r.workspace_id = v_ws), 0);
    -- a winner settles a conflict: given with anything else it would be dropped, and the caller believe
    -- it had picked one
    if p_winner is not null then
        if v_item.kind <> 'conflict' then
            raise exception 'review item % is a % item: only approving a conflict takes a winner', v_item.id, v_item.kind
                using errcode = 'BD005';
        elsif p_verdict <> 'approved' then
            raise exception 'rejecting a conflict takes no winner: approve it with the winner' using errcode = 'BD005';
        end if;
        v_winner := beliefdb.resolve_belief(p_winner);
    end if;

    if v_item.kind = 'decision_flagged' then
        -- (the decision's status is its owner's to change, rule 17: another agent of the workspace
        -- releasing the owner's held actions would undo the hold it is there for; the owner's verdict
        -- covers every action of the decision)
        perform beliefdb._require_owner(v_ws, v_item.node, 'approve or reject its flag');
        update beliefdb.decision set status = p_verdict, revision = revision + 1
         where workspace_id = v_ws and id = v_item.node;
        -- (rejected: an action a person released while the decision was flagged is cancelled too; what
        -- was done, failed or rolled back stays so)
        update beliefdb.action set status = case when p_verdict = 'approved' then 'scheduled' else 'cancelled' end
         where workspace_id = v_ws and decision_id = v_item.node
           and (status = 'held' or (p_verdict = 'rejected' and status = 'scheduled'));
        update beliefdb.review_item
           set status = p_verdict, resolved_at = beliefdb.clock(), resolved_by = beliefdb.current_principal(),
               note = 'resolved with decision ' || v_item.node
         where workspace_id = v_ws and kind = 'action_held' and status = 'open'
           and node in (select a.id from beliefdb.action a where a.workspace_id = v_ws and a.decision_id = v_item.node);
    elsif v_item.kind = 'action_held' then
        -- (its decision's owner's call: the hold is there because the decision lost its support; an
        -- action another principal recorded on it, released by that principal, would be carried out while
        -- the decision waits for its owner)
        perform beliefdb._require_owner(v_ws, (select a.decision_id from beliefdb.action a
                                                where a.workspace_id = v_ws and a.id = v_item.node),
                                        'approve or reject the holds of its actions');
        update beliefdb.action set status = case when p_verdict = 'approved' then 'scheduled' else 'cancelled' end
         where workspace_id = v_ws and id = v_item.node and status = 'held';
    elsif v_item.kind = 'correction_proposed' then
        -- the owner decides; approving applies the proposal as if the owner had made it
        perform beliefdb._require_owner(v_ws, v_item.node, 'approve or reject a correction of it');
        if p_verdict = 'approved' then
            v_result := beliefdb._apply_correction(
                v_item.node, v_item.proposal ->> 'statement', v_item.proposal ->> 'value',
                v_item.proposal ->> 'reviewer', v_item.proposal ->> 'reason', (v_item.proposal ->> 'revision')::integer,
                v_item.proposal ->> 'idempotency_key');
        end if;
    elsif v_item.kind in ('version_proposed', 'retraction_proposed') then
        perform beliefdb._require_source_owner(v_ws, v_item.source_id, 'approve or reject a change to it');
        if p_verdict = 'approved' and v_item.kind = 'version_proposed' then
            v_result := beliefdb._ingest_version_core(v_ws, v_item.source_id,
                                                      beliefdb._rebased_turns(v_ws, v_item.source_id, v_item.proposal));
            -- (what a forget masked in its text while it waited: redaction rows of the version stored,
            -- beliefdb._lines_recorded; a piece that could not be recorded there stays with it)
            v_left := beliefdb._lines_recorded(v_ws, (v_result ->> 'version_id')::uuid, v_item.proposal ->> 'content',
                                               v_item.proposal -> 'forgotten_lines', 'forgotten while it was proposed');
            -- (what the review history keeps of it: masked where it repeats a line forgotten in the
            -- source, as the version stored from it is; rule 14)
            update beliefdb.review_item r
               set proposal = m.proposal
              from (select beliefdb._forgotten_proposal(v_ws, v_item.source_id, v_item.proposal - 'forgotten_lines')
                           || case when jsonb_array_length(v_left) > 0 then jsonb_build_object('forgotten_lines', v_left)
                                   else '{}' end as proposal) m
             where r.workspace_id = v_ws and r.id = v_item.id and r.proposal is distinct from m.proposal;
        elsif p_verdict = 'approved' then
            -- (a fragment's retraction names it: proposal's node; a source's or a version's, the source)
            v_result := beliefdb._retract_ids(v_ws, beliefdb._retraction_targets(
                            v_ws, v_item.proposal ->> 'target', coalesce((v_item.proposal ->> 'node')::uuid, v_item.source_id),
                            (v_item.proposal ->> 'version')::integer),
                            v_item.proposal ->> 'reason', coalesce((v_item.proposal ->> 'undo')::boolean, false));
            perform beliefdb._audit(case when (v_item.proposal ->> 'undo')::boolean then 'unretract' else 'retract' end,
                jsonb_build_object('target', v_item.proposal ->> 'target',
                                   'id', coalesce((v_item.proposal ->> 'node')::uuid, v_item.source_id),
                                   'version', v_item.proposal -> 'version', 'item', v_item.id,
                                   'proposed_by', v_item.proposed_by));
        end if;
    elsif v_item.kind = 'conflict' and p_verdict = 'approved' then
        if v_winner is null or v_winner not in (v_item.node, v_item.other_node) then
            -- (the detail, for a program: what is missing and the two it may be; the words are for psql)
            raise exception 'approving a conflict needs its winner: % or %', v_item.node, v_item.other_node
                using errcode = 'BD005', detail = jsonb_build_object(
                    'needs', 'winner', 'candidates', jsonb_build_array(v_item.node, v_item.other_node))::text;
        end if;
        -- only the loser's owner may (relation_supersession_by_owner refuses anyone else)
        v_loser := case when v_winner = v_item.node then v_item.other_node else v_item.node end;
        -- (with the reviewer's note: the one place why and belief_history read who chose and why, where
        -- a reviewer working as the loser's owner, rule 17, put their own name and reason)
        perform beliefdb._supersede(v_ws, v_winner, v_loser, 'conflict resolved by ' || beliefdb.current_principal()
                                    || coalesce(': ' || pg_catalog.left(nullif(pg_catalog.regexp_replace(pg_catalog.btrim(p_note), '\s+', ' ', 'g'),
                                                                             ''), 200), ''));
        perform beliefdb.propagate(v_ws, array[v_winner, v_loser]);
        -- (what the loss cascaded to, as an approved correction or retraction reports it: the decisions
        -- that rested on the loser alone are flagged, their actions held)
        v_result := jsonb_build_object('winner', v_winner, 'loser', v_loser) || beliefdb._changes(v_ws);
    elsif v_item.kind = 'conflict' then
        -- rejected, both stay conflicting and the item leaves the queue of the owner who must choose:
        -- one of the two beliefs' owners says so (rule 17), not a third principal
        if not exists (select from beliefdb.belief b
                        where b.workspace_id = v_ws and b.id in (v_item.node, v_item.other_node)
                          and b.owner is not distinct from beliefdb.current_principal()) then
            raise exception 'conflict % is between beliefs of %: only one of their owners can reject it', v_item.id,
                (select string_agg(distinct coalesce(b.owner, '(no owner)'), ' and ')
                   from beliefdb.belief b where b.workspace_id = v_ws and b.id in (v_item.node, v_item.other_node))
                using errcode = 'BD008', hint = 'the review item waits for them in the review queue';
        end if;
    end if;

    update beliefdb.review_item
       set status = p_verdict, resolved_at = beliefdb.clock(), resolved_by = beliefdb.current_principal(), note = p_note
     where workspace_id = v_ws and id = v_item.id;
    -- (an approved proposal's report keeps the shape of its own change: a correction, an ingest or a
    -- retraction, as jsonb; an approved conflict's names its winner and loser beside its change report)
    return row(v_item.id, v_item.kind, v_item.node, v_item.source_id, p_verdict,
               case when v_item.kind = 'correction_proposed' then v_result end,
               case when v_item.kind in ('version_proposed', 'retraction_proposed', 'conflict') then v_result end,
               coalesce((select jsonb_agg(jsonb_build_object('id', r.id, 'kind', r.kind, 'node', r.node,
                                                             'source_id', r.source_id, 'status', r.status,
                                                             'note', r.note)
                                          order by r.resolved_seq)
                           from beliefdb.review_item r
                          where r.workspace_id = v_ws and r.resolved_seq > v_seq and r.id <> v_item.id), '[]')
              )::beliefdb.review_resolution;
end
$$;
comment on function beliefdb.review_resolve(text, text, text, text) is 'Approve or reject a review item (flagged decision, held action, conflict, proposed correction, version or retraction): what it applied, and the other review items it closed';

-- The open review items, oldest first (the review_queue view's rows, in created_at, id order), a
-- page at a time: at most p_limit (all when null), those after the item p_after (the last of the
-- page before: its id or a prefix of at least 4 characters naming one item, open or resolved since,
-- as review_resolve takes it). The page starts at that item's (created_at, id), never by skipping
-- the items before it. Runs as its caller: the view's row-level security keeps it in the bound
-- workspace. node_holds: whether the node it is about holds now (null for an item of a source): a
-- flagged decision whose support came back holds again, and its item stays open until a person
-- resolves it (rule 4). other_subject: the statement of a conflict's other belief (other_node), so
-- that the items of a three-way tie, each about one pair, read apart (rule 8). p_kinds: only items of
-- these kinds (all when null), read from the same index in the same order: a page of conflicts is not
-- a page of everything filtered after it. owners: who may resolve it, as review_resolve checks (rule
-- 17): the owner of the decision a flagged decision or held action is about, of the belief a proposed
-- correction would change, of the source a proposed version or retraction would change; of a
-- conflict, the owners of its two beliefs (either rejects it; approving it supersedes the loser,
-- which only the loser's owner may).
create or replace function beliefdb.review_items(p_limit integer default null, p_after text default null,
                                                 p_kinds text[] default null)
returns table (id uuid, kind text, node uuid, other_node uuid, subject text, reason text,
               created_at timestamptz, proposed_by text, proposal jsonb, source_id uuid, node_holds boolean,
               other_subject text, owners text[])
language plpgsql stable
set search_path = pg_catalog, pg_temp
-- (with no statistics on workspace_id the planner takes a workspace for a few rows, for which a
-- bitmap of all its open items and a sort look cheaper than the index in order)
set enable_bitmapscan = off
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_after uuid[];
    v_at timestamptz := '-infinity';
    v_id uuid := '00000000-0000-0000-0000-000000000000';
begin
    if p_limit < 1 then
        raise exception 'the limit must be at least 1, not %', p_limit using errcode = 'BD005';
    end if;
    if p_after is not null then
        -- (open or resolved since: an empty, short or ambiguous reference is refused by resolve_review_item)
        v_after := array_remove(array[beliefdb.resolve_review_item(p_after)], null);
        if cardinality(v_after) = 0 then
            raise exception 'unknown review item %', p_after using errcode = 'BD004';
        end if;
        select r.created_at, r.id into v_at, v_id
          from beliefdb.review_item r where r.workspace_id = v_ws and r.id = v_after[1];
    end if;
    -- the page's items first, read in order from review_item_queue until the limit, then what each
    -- names by its key (what review_queue shows as its subject): through the view, the plan joined
    -- every open item, decision, action and source of the workspace before it sorted and cut
    -- (15,000 open items: a page of 100 in 700-1,000 ms)
    return query
        select r.id, r.kind, r.node, r.other_node, coalesce(d.title, a.description, b.statement, s.name),
               r.reason, r.created_at, r.proposed_by, r.proposal - 'forgotten_lines', r.source_id, n.holds,
               ob.statement,
               case when r.kind = 'conflict'
                    then array(select distinct o.owner from unnest(array[b.owner, ob.owner]) o (owner)
                                where o.owner is not null order by o.owner)
                    else array_remove(array[coalesce(d.owner, a.owner, b.owner, s.owner)], null) end
          from (select r.id, r.kind, r.node, r.other_node, r.reason, r.created_at, r.proposed_by, r.proposal,
                       r.source_id
                  from beliefdb.review_item r
                 where r.workspace_id = v_ws and r.status = 'open' and beliefdb.workspace_bound()
                   and (r.created_at, r.id) > (v_at, v_id)
                   and (p_kinds is null or r.kind = any(p_kinds))
                 order by r.created_at, r.id
                 limit p_limit) r
          left join lateral (select d.title, d.owner from beliefdb.decision d
                              where d.workspace_id = v_ws and d.id = r.node offset 0) d on true
          -- (a held action waits for its decision's owner, as a flagged decision does)
          left join lateral (select a.description, o.owner from beliefdb.action a
                               join beliefdb.decision o on o.workspace_id = a.workspace_id and o.id = a.decision_id
                              where a.workspace_id = v_ws and a.id = r.node offset 0) a on true
          left join lateral (select b.statement, b.owner from beliefdb.belief b
                              where b.workspace_id = v_ws and b.id = r.node offset 0) b on true
          left join lateral (select s.name, s.owner from beliefdb.source s
                              where s.workspace_id = v_ws and s.id = r.source_id offset 0) s on true
          left join lateral (select n.holds from beliefdb.node n
                              where n.workspace_id = v_ws and n.id = r.node offset 0) n on true
          left join lateral (select b.statement, b.owner from beliefdb.belief b
                              where b.workspace_id = v_ws and b.id = r.other_node offset 0) ob on true
         order by r.created_at, r.id;
end
$$;
comment on function beliefdb.review_items(integer, text, text[]) is 'The open review items (of the kinds p_kinds, all when null), oldest first, a page at a time: at most p_limit after the item p_after (id or prefix), read from that item on; node_holds: whether the node it is about holds now; other_subject: the statement of a conflict''s other belief; owners: who may resolve it';

-- How many review items are open in the bound workspace: counted in review_item_queue alone (the
-- browser's queue page shows the count beside a page; reading the items to count them read them all).
create or replace function beliefdb.review_count() returns bigint
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select count(*)
      from beliefdb.review_item r
     where r.workspace_id = beliefdb.current_workspace_id() and r.status = 'open' and beliefdb.workspace_bound()
$$;
comment on function beliefdb.review_count() is 'How many review items are open in the bound workspace';
