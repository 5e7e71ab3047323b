-- beliefdb: decisions, actions, derived beliefs, corrections, retraction and the review queue
-- (truth rules 4, 5, 6, 7 and the second half of 8). Each function is one user-visible change
-- and ends by propagating it, so flags always agree with the holding fixpoint.

-- Insert one justification of p_node with the given antecedents, all of one edge kind.
create or replace function beliefdb.add_justification(p_workspace_id uuid, p_node uuid, p_antecedents uuid[],
                                                      p_edge beliefdb.edge_kind) returns uuid
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_id uuid;
    v_missing uuid;
begin
    if coalesce(cardinality(p_antecedents), 0) = 0 then
        raise exception 'a justification needs at least one antecedent' using errcode = 'BD005';
    end if;
    select x.id into v_missing
      from unnest(p_antecedents) x (id)
     where not exists (select from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = x.id)
     limit 1;
    if v_missing is not null then
        raise exception 'unknown node %', v_missing using errcode = 'BD004';
    end if;
    insert into beliefdb.justification (workspace_id, consequent) values (p_workspace_id, p_node)
    returning id into v_id;
    insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
    select distinct p_workspace_id, v_id, x.id, p_edge from unnest(p_antecedents) x (id);
    return v_id;
end
$$;
comment on function beliefdb.add_justification(uuid, uuid, uuid[], beliefdb.edge_kind) is 'Add one reason for a node: all antecedents needed';

-- A decision citing beliefs. p_justifications is a JSON array of arrays of ids: each inner
-- array is one alternative reason, all of whose beliefs are needed.
create or replace function beliefdb.decide(p_title text, p_justifications jsonb) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_reason jsonb;
    v_status text;
begin
    perform beliefdb.lock_workspace();
    if jsonb_typeof(p_justifications) is distinct from 'array' or jsonb_array_length(p_justifications) = 0 then
        raise exception 'a decision needs at least one reason (--because or --all-of)' using errcode = 'BD005';
    end if;
    insert into beliefdb.decision (workspace_id, title) values (v_ws, p_title) returning id into v_id;
    for v_reason in select r from jsonb_array_elements(p_justifications) r loop
        perform beliefdb.add_justification(
            v_ws, v_id, array(select x::uuid from jsonb_array_elements_text(v_reason) x), 'cites');
    end loop;
    perform beliefdb.propagate(v_ws, array[v_id]);
    select d.status into v_status from beliefdb.decision d where d.workspace_id = v_ws and d.id = v_id;
    return jsonb_build_object('id', v_id, 'status', v_status);
end
$$;
comment on function beliefdb.decide(text, jsonb) is 'Record a decision and its reasons ([[belief, ...], ...]: alternatives of joint supports)';

-- An action carrying out a decision; held at once if the decision needs review.
create or replace function beliefdb.act(p_decision uuid, p_description text) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_status text;
begin
    perform beliefdb.lock_workspace();
    if not exists (select from beliefdb.decision d where d.workspace_id = v_ws and d.id = p_decision) then
        raise exception 'unknown decision %', p_decision using errcode = 'BD004';
    end if;
    insert into beliefdb.action (workspace_id, decision_id, description)
    values (v_ws, p_decision, p_description) returning id into v_id;
    perform beliefdb.add_justification(v_ws, v_id, array[p_decision], 'carries_out');
    perform beliefdb.propagate(v_ws, array[v_id]);
    select a.status into v_status from beliefdb.action a where a.workspace_id = v_ws and a.id = v_id;
    return jsonb_build_object('id', v_id, 'status', v_status);
end
$$;
comment on function beliefdb.act(uuid, text) is 'Record an action carrying out a decision';

-- A belief derived from others: one justification needing all of them.
create or replace function beliefdb.derive(p_statement text, p_subject text, p_attribute text, p_value text,
                                           p_from uuid[], p_kind text default 'fact') returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_status text;
begin
    perform beliefdb.lock_workspace();
    insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, confidence_kind, status)
    values (v_ws, p_statement, p_subject, p_attribute, p_value, p_kind, 'derived', 'unsupported')
    returning id into v_id;
    perform beliefdb.add_justification(v_ws, v_id, p_from, 'derives');
    perform beliefdb.propagate(v_ws, array[v_id]);
    select b.status into v_status from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_id;
    return jsonb_build_object('id', v_id, 'status', v_status);
end
$$;
comment on function beliefdb.derive(text, text, text, text, uuid[], text) is 'Record a belief derived from others (its confidence: the product of theirs)';

-- What correcting a belief would do, before doing it (rule 7): the revision it saw, the
-- decisions that would be flagged, the actions held, and the decisions other support keeps.
create or replace function beliefdb.correction_preview(p_belief uuid) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_revision integer;
    v_result jsonb;
begin
    select b.revision into v_revision from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_belief;
    if v_revision is null then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004';
    end if;
    select jsonb_build_object(
        'belief', p_belief,
        'revision', v_revision,
        'would_flag', coalesce(jsonb_agg(i.node) filter (where i.effect = 'flag'), '[]'),
        'would_hold', coalesce(jsonb_agg(i.node) filter (where i.effect = 'hold'), '[]'),
        'still_supported', coalesce(jsonb_agg(jsonb_build_object('decision', i.node, 'by', i.detail -> 'by'))
                                    filter (where i.effect = 'survives'), '[]'))
      into v_result
      from beliefdb.impact(array[p_belief]) i;
    return v_result;
end
$$;
comment on function beliefdb.correction_preview(uuid) is 'Preview a correction: revision seen, decisions that would be flagged, actions held, decisions still supported';

-- A correction of a belief the acting principal does not own: a review item for the owner,
-- holding the proposal. The same proposal again (same principal, text, value and revision, or
-- the same idempotency key) returns the open item with already_applied.
create or replace function beliefdb.propose_correction(
    p_workspace_id uuid, p_belief beliefdb.belief, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_idempotency_key text
) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_proposal jsonb := jsonb_build_object(
        'statement', p_statement, 'value', p_value, 'reviewer', p_reviewer, 'reason', p_reason,
        'revision', p_belief.revision, 'idempotency_key', p_idempotency_key);
    v_item beliefdb.review_item;
    v_existing boolean := true;
begin
    select * into v_item
      from beliefdb.review_item r
     where r.workspace_id = p_workspace_id and r.kind = 'correction_proposed' and r.status = 'open'
       and ((p_idempotency_key is not null and r.proposal ->> 'idempotency_key' = p_idempotency_key)
            or (r.node = p_belief.id and r.proposed_by = beliefdb.current_principal()
                and r.proposal - 'idempotency_key' - 'reason' - 'reviewer' = v_proposal - 'idempotency_key' - 'reason' - 'reviewer'))
     limit 1;
    if found and v_item.node <> p_belief.id then
        raise exception 'idempotency key % was used for a correction of belief %', p_idempotency_key, v_item.node
            using errcode = 'BD005';
    elsif not found then
        v_existing := false;
        insert into beliefdb.review_item (workspace_id, kind, node, reason, proposed_by, proposal)
        values (p_workspace_id, 'correction_proposed', p_belief.id,
                pg_catalog.format('%s proposes "%s" (%s); belief owned by %s', beliefdb.current_principal(),
                                  p_statement, coalesce(p_reason, 'no reason given'), p_belief.owner),
                beliefdb.current_principal(), v_proposal)
        returning * into v_item;
        perform beliefdb.audit('correction.propose', jsonb_build_object(
            'item', v_item.id, 'belief', p_belief.id, 'owner', p_belief.owner, 'reviewer', p_reviewer));
    end if;
    return jsonb_build_object(
        'proposed', true, 'review_item', v_item.id, 'belief', p_belief.id, 'owner', p_belief.owner,
        'correction', null, 'replacement', null, 'superseded', '[]'::jsonb, 'flagged', '[]'::jsonb,
        'held', '[]'::jsonb, 'already_applied', v_existing);
end
$$;
comment on function beliefdb.propose_correction(uuid, beliefdb.belief, text, text, text, text, text) is 'Queue a correction of another principal''s belief for its owner to approve or reject';

-- Apply a correction (rules 6, 7), in one transaction: a correction record, a human-correction
-- fragment holding the reviewer's text, a replacement supported only by that fragment, the old
-- belief superseded, and the dependency check. A changed revision is stale (BD007); the same
-- correction again returns the existing result with already_applied and re-runs the check.
create or replace function beliefdb.apply_correction(
    p_belief uuid, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_expected_revision integer, p_idempotency_key text default null
) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_old beliefdb.belief;
    v_existing beliefdb.correction;
    v_source uuid;
    v_version uuid;
    v_fragment uuid;
    v_correction uuid;
    v_replacement uuid;
    v_changes jsonb;
    v_settled jsonb;
begin
    perform beliefdb.lock_workspace();
    select * into v_old from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_belief for update;
    if not found then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004';
    end if;

    select * into v_existing
      from beliefdb.correction c
     where c.workspace_id = v_ws
       and ((p_idempotency_key is not null and c.idempotency_key = p_idempotency_key)
            or (c.belief_id = p_belief and c.new_statement = p_statement
                and c.new_value is not distinct from p_value and c.belief_revision = p_expected_revision))
     limit 1;
    if found and v_existing.belief_id <> p_belief then
        raise exception 'idempotency key % was used for a correction of belief %', p_idempotency_key,
            v_existing.belief_id using errcode = 'BD005';
    elsif found then
        v_changes := beliefdb.propagate(v_ws, array[v_existing.belief_id, v_existing.replacement_belief_id]);
        return jsonb_build_object(
            'correction', v_existing.id, 'replacement', v_existing.replacement_belief_id,
            'superseded', jsonb_build_array(v_existing.belief_id),
            'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'already_applied', true,
            'proposed', false);
    end if;

    if v_old.revision <> p_expected_revision then
        raise exception 'stale_correction_preview: belief % is at revision %, the preview saw %',
            p_belief, v_old.revision, p_expected_revision using errcode = 'BD007';
    end if;
    if v_old.status in ('superseded', 'retracted') then
        raise exception 'belief % is %: correct the belief that replaced it instead', p_belief, v_old.status
            using errcode = 'BD005';
    end if;
    -- someone else's belief: the correction waits in the review queue for its owner
    if v_old.owner is distinct from beliefdb.current_principal() then
        return beliefdb.propose_correction(v_ws, v_old, p_statement, p_value, p_reviewer, p_reason,
                                           p_idempotency_key);
    end if;

    -- the reviewer's text is a source of its own, so the correction is evidence, not an edit
    insert into beliefdb.source (workspace_id, name, origin_type, authority, provenance)
    values (v_ws, 'correction:' || pg_catalog.gen_random_uuid(), 'human_reviewer', 'official', 'production')
    returning id into v_source;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label)
    values (v_ws, v_source, 1, p_statement, ''::bytea, 'reviewer ' || p_reviewer)
    returning id into v_version;
    v_fragment := beliefdb.fragment_at(v_ws, v_version, 0, length(p_statement));

    insert into beliefdb.correction (workspace_id, belief_id, belief_revision, reviewer, new_statement, new_value,
                                     reason, idempotency_key, fragment_id)
    values (v_ws, p_belief, p_expected_revision, p_reviewer, p_statement, p_value, p_reason, p_idempotency_key,
            v_fragment)
    returning id into v_correction;

    insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, scope, valid_time,
                                 confidence, confidence_kind, status)
    values (v_ws, p_statement, v_old.subject, v_old.attribute, coalesce(p_value, v_old.value), v_old.kind,
            v_old.scope, v_old.valid_time,
            coalesce((select p.weight from beliefdb.confidence_policy p
                       where p.factor = 'correction' and p.key = 'human_correction'), 0.95),
            'human_correction', 'current')
    returning id into v_replacement;
    perform beliefdb.add_evidence(v_ws, v_replacement, v_fragment);
    update beliefdb.correction set replacement_belief_id = v_replacement
     where workspace_id = v_ws and id = v_correction;
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
    values (v_ws, v_replacement, p_belief, 'supersedes', 'correction by ' || p_reviewer);
    update beliefdb.belief set revision = revision + 1 where workspace_id = v_ws and id = p_belief;

    v_changes := beliefdb.propagate(v_ws, array[p_belief, v_replacement, v_fragment, v_correction]);
    -- the replacement meets the old belief's rivals under rule 8 like any new belief
    v_settled := beliefdb.settle(v_ws, v_replacement);
    if jsonb_array_length(v_settled -> 'superseded') + jsonb_array_length(v_settled -> 'conflicts') > 0 then
        v_changes := beliefdb.merge_changes(v_changes, beliefdb.propagate(v_ws, array[v_replacement]
            || array(select (x ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') x)));
    end if;
    perform beliefdb.audit('correction.apply', jsonb_build_object(
        'correction', v_correction, 'belief', p_belief, 'replacement', v_replacement, 'reviewer', p_reviewer,
        'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held'));
    return jsonb_build_object(
        'correction', v_correction, 'replacement', v_replacement, 'superseded', jsonb_build_array(p_belief),
        'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'already_applied', false,
        'proposed', false);
end
$$;
comment on function beliefdb.apply_correction(uuid, text, text, text, text, integer, text) is 'Apply a reviewer''s correction atomically; stale revision is BD007; a repeat is already_applied';

-- Retract (p_undo false) or restore (p_undo true) a belief, fragment, correction, decision,
-- whole source, or one version of a source; then propagate. Returns what changed.
create or replace function beliefdb.retract(p_target text, p_id uuid, p_reason text, p_version integer default null,
                                            p_undo boolean default false) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_at timestamptz := case when p_undo then null else beliefdb.clock() end;
    v_reason text := case when p_undo then null else p_reason end;
    v_seeds uuid[];
    v_changes jsonb;
begin
    perform beliefdb.lock_workspace();
    if p_target in ('source', 'version') then
        perform beliefdb.require_correction_owner(v_ws, p_id, 'retract its correction');
    end if;
    if p_target = 'source' then
        update beliefdb.source s set retracted_at = v_at, retraction_reason = v_reason
         where s.workspace_id = v_ws and s.id = p_id and (s.retracted_at is null) = not p_undo;
    elsif p_target = 'version' then
        update beliefdb.source_version v set retracted_at = v_at, retraction_reason = v_reason
         where v.workspace_id = v_ws and v.source_id = p_id and v.version = p_version
           and (v.retracted_at is null) = not p_undo;
    elsif p_target = 'node' then
        -- only its owner retracts a belief, decision or action, or the correction (or the
        -- correction's fragment) that replaced a belief
        perform beliefdb.require_owner(v_ws, p_id, 'retract it');
        perform beliefdb.require_owner(v_ws, c.replacement_belief_id, 'retract its correction')
           from beliefdb.correction c
          where c.workspace_id = v_ws and (c.id = p_id or c.fragment_id = p_id);
        -- a correction is evidence through its fragment: retracting one retracts the other
        update beliefdb.node n set retracted_at = v_at, retraction_reason = v_reason
         where n.workspace_id = v_ws and (n.retracted_at is null) = not p_undo
           and n.id in (select p_id
                        union all
                        select c.fragment_id from beliefdb.correction c
                         where c.workspace_id = v_ws and c.id = p_id and c.fragment_id is not null);
    else
        raise exception 'unknown retraction target %', p_target using errcode = 'BD005';
    end if;
    if not found then
        raise exception 'nothing to %: % % is unknown or already %', case when p_undo then 'restore' else 'retract' end,
            p_target, p_id, case when p_undo then 'in force' else 'retracted' end using errcode = 'BD004';
    end if;
    -- a source or version change moves which version is in force: every fragment of the source
    v_seeds := case when p_target = 'node'
                    then array[p_id] || array(select c.fragment_id from beliefdb.correction c
                                               where c.workspace_id = v_ws and c.id = p_id and c.fragment_id is not null)
                    else beliefdb.expand_targets(v_ws, array[p_id]) end;
    v_changes := beliefdb.propagate(v_ws, v_seeds);
    perform beliefdb.audit(case when p_undo then 'unretract' else 'retract' end, jsonb_build_object(
        'target', p_target, 'id', p_id, 'version', p_version, 'reason', v_reason,
        'stopped_holding', jsonb_array_length(v_changes -> 'stopped_holding'),
        'flagged', v_changes -> 'flagged'));
    return v_changes;
end
$$;
comment on function beliefdb.retract(text, uuid, text, integer, boolean) is 'Retract or restore a node, source or source version, and propagate what that changes';

-- Resolve a review item: approve or reject. Approving a flagged decision accepts it as it is
-- and releases its held actions; rejecting it cancels them. Approving a held action releases
-- it, rejecting cancels it. Approving a conflict needs the winner, which supersedes the loser.
create or replace function beliefdb.review_resolve(p_item uuid, p_verdict text, p_note text default null,
                                                   p_winner uuid default null) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_item beliefdb.review_item;
    v_loser uuid;
    v_result jsonb;
begin
    perform beliefdb.lock_workspace();
    if p_verdict not in ('approved', 'rejected') then
        raise exception 'verdict must be approved or rejected' using errcode = 'BD005';
    end if;
    select * into v_item from beliefdb.review_item r where r.workspace_id = v_ws and r.id = p_item for update;
    if not found then
        raise exception 'unknown review item %', p_item using errcode = 'BD004';
    elsif v_item.status <> 'open' then
        raise exception 'review item % is already %', p_item, v_item.status using errcode = 'BD005';
    end if;

    if v_item.kind = 'decision_flagged' then
        update beliefdb.decision set status = p_verdict, revision = revision + 1
         where workspace_id = v_ws and id = v_item.node;
        update beliefdb.action set status = case when p_verdict = 'approved' then 'scheduled' else 'cancelled' end
         where workspace_id = v_ws and decision_id = v_item.node and status = 'held';
        update beliefdb.review_item
           set status = p_verdict, resolved_at = beliefdb.clock(), resolved_by = beliefdb.current_principal(),
               note = 'resolved with decision ' || v_item.node
         where workspace_id = v_ws and kind = 'action_held' and status = 'open'
           and node in (select a.id from beliefdb.action a where a.workspace_id = v_ws and a.decision_id = v_item.node);
    elsif v_item.kind = 'action_held' then
        update beliefdb.action set status = case when p_verdict = 'approved' then 'scheduled' else 'cancelled' end
         where workspace_id = v_ws and id = v_item.node and status = 'held';
    elsif v_item.kind = 'correction_proposed' then
        -- the owner decides; approving applies the proposal as if the owner had made it
        perform beliefdb.require_owner(v_ws, v_item.node, 'approve or reject a correction of it');
        if p_verdict = 'approved' then
            v_result := beliefdb.apply_correction(
                v_item.node, v_item.proposal ->> 'statement', v_item.proposal ->> 'value',
                v_item.proposal ->> 'reviewer', v_item.proposal ->> 'reason', (v_item.proposal ->> 'revision')::integer,
                v_item.proposal ->> 'idempotency_key');
        end if;
    elsif v_item.kind = 'conflict' and p_verdict = 'approved' then
        if p_winner is null or p_winner not in (v_item.node, v_item.other_node) then
            raise exception 'approving a conflict needs --winner: % or %', v_item.node, v_item.other_node
                using errcode = 'BD005';
        end if;
        -- only the loser's owner may (relation_supersession_by_owner refuses anyone else)
        v_loser := case when p_winner = v_item.node then v_item.other_node else v_item.node end;
        insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
        values (v_ws, p_winner, v_loser, 'supersedes', 'conflict resolved by ' || beliefdb.current_principal());
        perform beliefdb.propagate(v_ws, array[p_winner, v_loser]);
    end if;

    update beliefdb.review_item
       set status = p_verdict, resolved_at = beliefdb.clock(), resolved_by = beliefdb.current_principal(), note = p_note
     where workspace_id = v_ws and id = p_item;
    return jsonb_build_object('item', p_item, 'kind', v_item.kind, 'node', v_item.node, 'status', p_verdict,
                              'correction', v_result);
end
$$;
comment on function beliefdb.review_resolve(uuid, text, text, uuid) is 'Approve or reject a review item (flagged decision, held action, conflict)';
