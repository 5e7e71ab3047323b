-- beliefdb: decisions, actions, derived beliefs, corrections, retraction and the review queue
-- (truth rules 4, 5, 6, 7 and the second half of 8). Each function is one user-visible change
-- and ends by propagating it, so flags always agree with the holding fixpoint.

-- Insert one justification of p_node with the given antecedents, all of one edge kind.
create or replace function beliefdb._add_justification(p_workspace_id uuid, p_node uuid, p_antecedents uuid[],
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
comment on function beliefdb._add_justification(uuid, uuid, uuid[], beliefdb.edge_kind) is 'Add one reason for a node: all antecedents needed';

-- A decision citing beliefs. p_justifications is a JSON array of arrays of ids: each inner
-- array is one alternative reason, all of whose beliefs are needed. With no reason at all the
-- decision is still recorded (an agent wanted to act without evidence, and that is worth
-- knowing), as needs_review with the review item "No source-backed answer yet": nothing may carry
-- it out until a person approves it.
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
    perform beliefdb._begin_changes();
    if p_justifications is not null and jsonb_typeof(p_justifications) <> 'array' then
        raise exception 'a decision''s reasons are an array of arrays of belief ids' using errcode = 'BD005';
    end if;
    if coalesce(jsonb_array_length(p_justifications), 0) = 0 then
        insert into beliefdb.decision (workspace_id, title, status) values (v_ws, p_title, 'needs_review')
        returning id into v_id;
        insert into beliefdb.review_item (workspace_id, kind, node, reason)
        values (v_ws, 'decision_flagged', v_id, 'No source-backed answer yet: recorded without any reason');
        perform beliefdb.audit('decide', jsonb_build_object('decision', v_id, 'reasons', 0));
        return jsonb_build_object('id', v_id, 'status', 'needs_review');
    end if;
    insert into beliefdb.decision (workspace_id, title) values (v_ws, p_title) returning id into v_id;
    for v_reason in select r from jsonb_array_elements(p_justifications) r loop
        perform beliefdb._add_justification(
            v_ws, v_id, array(select x::uuid from jsonb_array_elements_text(v_reason) x), 'cites');
    end loop;
    perform beliefdb.propagate(v_ws, array[v_id]);
    select d.status into v_status from beliefdb.decision d where d.workspace_id = v_ws and d.id = v_id;
    return jsonb_build_object('id', v_id, 'status', v_status);
end
$$;
comment on function beliefdb.decide(text, jsonb) is 'Record a decision and its reasons ([[belief, ...], ...]: alternatives of joint supports); none: needs review';

-- An action carrying out a decision; held at once if the decision needs review. Nothing carries
-- out a rejected decision, nor one recorded without reasons until a person approves it.
create or replace function beliefdb.act(p_decision uuid, p_description text) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_status text;
    v_decision beliefdb.decision;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    select * into v_decision from beliefdb.decision d where d.workspace_id = v_ws and d.id = p_decision;
    if not found then
        raise exception 'unknown decision %', p_decision using errcode = 'BD004';
    elsif v_decision.status = 'rejected' then
        raise exception 'decision % was rejected: nothing may carry it out', p_decision using errcode = 'BD005';
    elsif v_decision.status = 'needs_review'
          and not exists (select from beliefdb.justification j where j.workspace_id = v_ws and j.consequent = p_decision) then
        raise exception 'decision % has no source-backed reason yet: a person must approve it before anything carries it out',
            p_decision using errcode = 'BD005';
    end if;
    insert into beliefdb.action (workspace_id, decision_id, description)
    values (v_ws, p_decision, p_description) returning id into v_id;
    perform beliefdb._add_justification(v_ws, v_id, array[p_decision], 'carries_out');
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
    perform beliefdb._begin_changes();
    -- derived from anything that is not production history, it belongs to that world (rule 15)
    insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, confidence_kind, status,
                                 provenance)
    values (v_ws, p_statement, p_subject, p_attribute, p_value, p_kind, 'derived', 'unsupported',
            coalesce((select max(b.provenance) from beliefdb.belief b where b.workspace_id = v_ws and b.id = any(p_from)),
                     'production'))
    returning id into v_id;
    perform beliefdb._add_justification(v_ws, v_id, p_from, 'derives');
    perform beliefdb.propagate(v_ws, array[v_id]);
    select b.status into v_status from beliefdb.belief b where b.workspace_id = v_ws and b.id = v_id;
    return jsonb_build_object('id', v_id, 'status', v_status);
end
$$;
comment on function beliefdb.derive(text, text, text, text, uuid[], text) is 'Record a belief derived from others (its confidence: the product of theirs)';

-- What correcting a belief would do, before doing it (rule 7): the revision it saw, and exactly
-- what the apply would change (the correction itself runs in a rolled-back subtransaction): the
-- decisions that would be flagged, the actions held, the decisions other support keeps, and
-- what stops being or becomes current. Without a statement, the belief's own (what depends on
-- the old belief is the same whatever replaces it; its rivals under rule 8 may not be). A belief
-- another principal owns is not changed by an apply, only proposed to its owner: the preview
-- says so, and shows under if_approved what the owner's approval would change (the dry run of
-- taking the belief away).
create or replace function beliefdb.correction_preview(p_belief uuid, p_statement text default null,
                                                       p_value text default null) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_old beliefdb.belief;
    v_changes jsonb;
begin
    select * into v_old from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_belief;
    if not found then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004';
    end if;
    if beliefdb._correction_is_proposal(v_old) then
        return jsonb_build_object(
            'belief', p_belief, 'revision', v_old.revision, 'owner', v_old.owner, 'proposed', true,
            'would_flag', '[]'::jsonb, 'would_hold', '[]'::jsonb, 'still_supported', '[]'::jsonb,
            'changes', beliefdb._empty_changes(),
            'if_approved', coalesce((select jsonb_agg(jsonb_build_object('node', i.node, 'kind', i.kind,
                                                                         'effect', i.effect, 'detail', i.detail)
                                                      order by i.effect, i.node)
                                       from beliefdb.impact(array[p_belief]) i), '[]'));
    end if;
    v_changes := beliefdb._dry_run(
        'select (beliefdb._apply_correction_core(($1 ->> ''workspace'')::uuid, ($1 ->> ''belief'')::uuid, $1 ->> ''statement'', $1 ->> ''value'', ''preview'', null, null) -> ''changes'')',
        jsonb_build_object('workspace', v_ws, 'belief', p_belief,
                           'statement', coalesce(nullif(p_statement, ''), v_old.statement), 'value', p_value));
    return jsonb_build_object(
        'belief', p_belief, 'revision', v_old.revision, 'owner', v_old.owner, 'proposed', false,
        'would_flag', v_changes -> 'flagged', 'would_hold', v_changes -> 'held',
        'still_supported', v_changes -> 'survives', 'changes', v_changes);
end
$$;
comment on function beliefdb.correction_preview(uuid, text, text) is 'Preview a correction exactly: revision seen, decisions flagged, actions held, decisions still supported, what stops being or becomes current';

-- Whether the acting principal's correction of p_belief is a proposal to its owner (rule 17), and
-- whether the belief can be corrected at all: a superseded or retracted one cannot (correct what
-- replaced it), and another principal's correction is proposed only for a belief that is current
-- (or in a tie): of one that is not, the proposal would close before its owner read it (BD005).
-- The preview and the apply both ask this, so the preview refuses what the apply refuses.
create or replace function beliefdb._correction_is_proposal(p_belief beliefdb.belief) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_belief.status in ('superseded', 'retracted') then
        raise exception 'belief % is %: correct the belief that replaced it instead', p_belief.id, p_belief.status
            using errcode = 'BD005';
    end if;
    if p_belief.owner is not distinct from beliefdb.current_principal() then
        return false;
    end if;
    if p_belief.status not in ('current', 'conflicting') then
        raise exception 'belief % is %: only a current belief can be corrected by a proposal to its owner (%)',
            p_belief.id, p_belief.status, p_belief.owner using errcode = 'BD005';
    end if;
    return true;
end
$$;
comment on function beliefdb._correction_is_proposal(beliefdb.belief) is 'Whether a correction by the acting principal is a proposal to the owner; refuses (BD005) a belief that cannot be corrected';

-- A correction of a belief the acting principal does not own: a review item for the owner,
-- holding the proposal. The same proposal again (same principal, text, value and revision, or
-- the same idempotency key) returns the open item with already_applied.
create or replace function beliefdb._propose_correction(
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
        'held', '[]'::jsonb, 'already_applied', v_existing, 'changes', beliefdb._empty_changes());
end
$$;
comment on function beliefdb._propose_correction(uuid, beliefdb.belief, text, text, text, text, text) is 'Queue a correction of another principal''s belief for its owner to approve or reject';

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
    v_changes jsonb;
    v_result jsonb;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
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
            'proposed', false, 'changes', v_changes);
    end if;

    if v_old.revision <> p_expected_revision then
        raise exception 'stale_correction_preview: belief % is at revision %, the preview saw %',
            p_belief, v_old.revision, p_expected_revision using errcode = 'BD007';
    end if;
    -- someone else's belief: the correction waits in the review queue for its owner
    if beliefdb._correction_is_proposal(v_old) then
        return beliefdb._propose_correction(v_ws, v_old, p_statement, p_value, p_reviewer, p_reason,
                                           p_idempotency_key);
    end if;

    v_result := beliefdb._apply_correction_core(v_ws, p_belief, p_statement, p_value, p_reviewer, p_reason,
                                               p_idempotency_key);
    perform beliefdb.audit('correction.apply', jsonb_build_object(
        'correction', v_result -> 'correction', 'belief', p_belief, 'replacement', v_result -> 'replacement',
        'reviewer', p_reviewer, 'flagged', v_result -> 'flagged', 'held', v_result -> 'held'));
    return v_result;
end
$$;
comment on function beliefdb.apply_correction(uuid, text, text, text, text, integer, text) is 'Apply a reviewer''s correction atomically; stale revision is BD007; a repeat is already_applied';

-- The change a correction makes, once who may make it and at which revision is settled: the
-- reviewer's text becomes a source of its own (in the world of the corrected belief), its one
-- fragment supports the replacement alone, and the old belief is superseded; then what that
-- changes is propagated and the replacement meets the old belief's rivals under rule 8.
create or replace function beliefdb._apply_correction_core(
    p_workspace_id uuid, p_belief uuid, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_idempotency_key text
) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_old beliefdb.belief;
    v_source uuid;
    v_version uuid;
    v_fragment uuid;
    v_correction uuid;
    v_replacement uuid;
    v_changes jsonb;
    v_settled jsonb;
begin
    select * into v_old from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = p_belief;
    -- the reviewer's text is a source of its own, so the correction is evidence, not an edit
    insert into beliefdb.source (workspace_id, name, origin_type, authority, provenance)
    values (p_workspace_id, 'correction:' || pg_catalog.gen_random_uuid(), 'human_reviewer', 'official',
            v_old.provenance)
    returning id into v_source;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label)
    values (p_workspace_id, v_source, 1, p_statement, ''::bytea, 'reviewer ' || p_reviewer)
    returning id into v_version;
    v_fragment := beliefdb._fragment_at(p_workspace_id, v_version, 0, length(p_statement));

    insert into beliefdb.correction (workspace_id, belief_id, belief_revision, reviewer, new_statement, new_value,
                                     reason, idempotency_key, fragment_id)
    values (p_workspace_id, p_belief, v_old.revision, p_reviewer, p_statement, p_value, p_reason,
            p_idempotency_key, v_fragment)
    returning id into v_correction;

    insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, kind, scope, valid_time,
                                 confidence, confidence_kind, status, provenance)
    values (p_workspace_id, p_statement, v_old.subject, v_old.attribute, coalesce(p_value, v_old.value), v_old.kind,
            v_old.scope, v_old.valid_time,
            coalesce((select p.weight from beliefdb.confidence_policy p
                       where p.factor = 'correction' and p.key = 'human_correction'), 0.95),
            'human_correction', 'current', v_old.provenance)
    returning id into v_replacement;
    perform beliefdb._add_evidence(p_workspace_id, v_replacement, v_fragment);
    update beliefdb.correction set replacement_belief_id = v_replacement
     where workspace_id = p_workspace_id and id = v_correction;
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
    values (p_workspace_id, v_replacement, p_belief, 'supersedes', 'correction by ' || p_reviewer);
    update beliefdb.belief set revision = revision + 1 where workspace_id = p_workspace_id and id = p_belief;

    v_changes := beliefdb.propagate(p_workspace_id, array[p_belief, v_replacement, v_fragment, v_correction]);
    -- the replacement meets the old belief's rivals under rule 8 like any new belief
    v_settled := beliefdb._settle(p_workspace_id, v_replacement);
    if jsonb_array_length(v_settled -> 'superseded') + jsonb_array_length(v_settled -> 'conflicts') > 0 then
        v_changes := beliefdb.propagate(p_workspace_id, array[v_replacement]
            || array(select (x ->> 'old')::uuid from jsonb_array_elements(v_settled -> 'superseded') x)
            || array(select (x ->> 'b')::uuid from jsonb_array_elements(v_settled -> 'conflicts') x));
    end if;
    return jsonb_build_object(
        'correction', v_correction, 'replacement', v_replacement, 'superseded', jsonb_build_array(p_belief),
        'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'already_applied', false,
        'proposed', false, 'changes', v_changes);
end
$$;
comment on function beliefdb._apply_correction_core(uuid, uuid, text, text, text, text, text) is 'Make a correction (no owner or revision check: apply_correction and its preview do those)';

-- Retract (p_undo false) or restore (p_undo true) a belief, fragment, correction, decision,
-- whole source, or one version of a source; then propagate. Returns what changed (the change
-- report of beliefdb._changes, with proposed false). A source belongs to the principal that first
-- ingested it: anyone else's retraction of it (or of one of its versions) changes nothing and
-- waits in the review queue for the owner (proposed true, review_item, owner).
create or replace function beliefdb.retract(p_target text, p_id uuid, p_reason text, p_version integer default null,
                                            p_undo boolean default false) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ids uuid[];
    v_owner text;
    v_item uuid;
    v_changes jsonb;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    v_ids := beliefdb._retraction_targets(v_ws, p_target, p_id, p_version);
    if p_target in ('source', 'version') then
        select s.owner into v_owner from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
        if not found then
            raise exception 'nothing to %: source % is unknown', case when p_undo then 'restore' else 'retract' end,
                p_id using errcode = 'BD004';
        elsif v_owner is distinct from beliefdb.current_principal() then
            select r.id into v_item
              from beliefdb.review_item r
             where r.workspace_id = v_ws and r.kind = 'retraction_proposed' and r.status = 'open'
               and r.source_id = p_id and r.proposed_by = beliefdb.current_principal()
               and r.proposal = jsonb_build_object('target', p_target, 'version', p_version, 'undo', p_undo,
                                                   'reason', p_reason);
            if v_item is null then
                insert into beliefdb.review_item (workspace_id, kind, source_id, reason, proposed_by, proposal)
                values (v_ws, 'retraction_proposed', p_id,
                        pg_catalog.format('%s proposes to %s %s (%s); source owned by %s', beliefdb.current_principal(),
                                          case when p_undo then 'restore' else 'retract' end,
                                          case when p_version is null then 'the source'
                                               else 'version ' || p_version end,
                                          coalesce(nullif(p_reason, ''), 'no reason given'), v_owner),
                        beliefdb.current_principal(),
                        jsonb_build_object('target', p_target, 'version', p_version, 'undo', p_undo, 'reason', p_reason))
                returning id into v_item;
                perform beliefdb.audit('retraction.propose', jsonb_build_object(
                    'item', v_item, 'source_id', p_id, 'version', p_version, 'owner', v_owner));
            end if;
            return beliefdb._empty_changes() || jsonb_build_object('proposed', true, 'review_item', v_item,
                                                                  'owner', v_owner);
        end if;
        perform beliefdb._require_correction_owner(v_ws, p_id, 'retract its correction');
    else
        -- only its owner retracts a belief, decision or action, or the correction (or the
        -- correction's fragment) that replaced a belief
        perform beliefdb._require_owner(v_ws, p_id, 'retract it');
        perform beliefdb._require_owner(v_ws, c.replacement_belief_id, 'retract its correction')
           from beliefdb.correction c
          where c.workspace_id = v_ws and (c.id = p_id or c.fragment_id = p_id);
    end if;
    v_changes := beliefdb._retract_ids(v_ws, v_ids, p_reason, p_undo);
    if v_changes is null then
        raise exception 'nothing to %: % % is unknown or already %', case when p_undo then 'restore' else 'retract' end,
            p_target, p_id, case when p_undo then 'in force' else 'retracted' end using errcode = 'BD004';
    end if;
    perform beliefdb.audit(case when p_undo then 'unretract' else 'retract' end, jsonb_build_object(
        'target', p_target, 'id', p_id, 'version', p_version, 'reason', case when p_undo then null else p_reason end,
        'stopped_holding', jsonb_array_length(v_changes -> 'stopped_holding'),
        'flagged', v_changes -> 'flagged'));
    return v_changes || jsonb_build_object('proposed', false, 'owner', v_owner);
end
$$;
comment on function beliefdb.retract(text, uuid, text, integer, boolean) is 'Retract or restore a node, source or source version, and propagate what that changes (another principal''s source: a proposal to its owner)';

-- The ids a retraction target names: a node (and, for a correction, its fragment), a source, or
-- one version of a source (by number). BD004 when there is no such version; BD005 for an unknown
-- kind of target.
create or replace function beliefdb._retraction_targets(p_workspace_id uuid, p_target text, p_id uuid,
                                                       p_version integer) returns uuid[]
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];
begin
    if p_target = 'source' then
        return array[p_id];
    elsif p_target = 'version' then
        v_ids := array(select v.id from beliefdb.source_version v
                        where v.workspace_id = p_workspace_id and v.source_id = p_id and v.version = p_version);
        if cardinality(v_ids) = 0 then
            raise exception 'unknown version % of source %', p_version, p_id using errcode = 'BD004';
        end if;
        return v_ids;
    elsif p_target = 'node' then
        -- a correction is evidence through its fragment: retracting one retracts the other
        return array[p_id] || array(select c.fragment_id from beliefdb.correction c
                                     where c.workspace_id = p_workspace_id and c.id = p_id and c.fragment_id is not null);
    end if;
    raise exception 'unknown retraction target %', p_target using errcode = 'BD005';
end
$$;
comment on function beliefdb._retraction_targets(uuid, text, uuid, integer) is 'The node, source and version ids a retraction target names';

-- Retract (or restore) nodes, sources and source versions by id and propagate what that changes.
-- No owner check and no audit: retract, and the dry runs of impact and previews, do those.
-- Returns the operation's change report, or null when nothing was retracted (or restored).
create or replace function beliefdb._retract_ids(p_workspace_id uuid, p_ids uuid[], p_reason text, p_undo boolean)
returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_at timestamptz := case when p_undo then null else beliefdb.clock() end;
    v_reason text := case when p_undo then null else p_reason end;
    v_changed integer := 0;
    v_count integer;
    v_sources uuid[];
begin
    update beliefdb.source s set retracted_at = v_at, retraction_reason = v_reason
     where s.workspace_id = p_workspace_id and s.id = any(p_ids) and (s.retracted_at is null) = not p_undo;
    get diagnostics v_count = row_count;
    v_changed := v_changed + v_count;
    update beliefdb.source_version v set retracted_at = v_at, retraction_reason = v_reason
     where v.workspace_id = p_workspace_id and v.id = any(p_ids) and (v.retracted_at is null) = not p_undo;
    get diagnostics v_count = row_count;
    v_changed := v_changed + v_count;
    update beliefdb.node n set retracted_at = v_at, retraction_reason = v_reason
     where n.workspace_id = p_workspace_id and n.id = any(p_ids) and (n.retracted_at is null) = not p_undo;
    get diagnostics v_count = row_count;
    v_changed := v_changed + v_count;
    if v_changed = 0 then
        return null;
    end if;
    -- a source or version change moves which version is in force: every fragment of the source
    v_sources := array(select s.id from beliefdb.source s where s.workspace_id = p_workspace_id and s.id = any(p_ids)
                       union
                       select v.source_id from beliefdb.source_version v
                        where v.workspace_id = p_workspace_id and v.id = any(p_ids));
    perform beliefdb._settle_source_items(p_workspace_id, v_sources);
    return beliefdb.propagate(p_workspace_id,
        array(select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = any(p_ids))
        || beliefdb.expand_targets(p_workspace_id, v_sources));
end
$$;
comment on function beliefdb._retract_ids(uuid, uuid[], text, boolean) is 'Retract or restore nodes, sources and versions by id and propagate (no owner check, no audit)';

-- What a retraction (or a restore) would change, exactly: the retraction runs in a subtransaction
-- that is rolled back. The same report as retract, with the owner and whether the apply would
-- only be a proposal (another principal's source: then nothing changes until its owner approves,
-- and the report shows what the approval would change).
create or replace function beliefdb.retract_preview(p_target text, p_id uuid, p_version integer default null,
                                                    p_undo boolean default false) returns jsonb
language plpgsql
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_ids uuid[] := beliefdb._retraction_targets(v_ws, p_target, p_id, p_version);
    v_owner text;
    v_changes jsonb;
begin
    if v_ws is null then
        raise exception 'no workspace is bound to this session' using errcode = 'BD003';
    end if;
    if p_target in ('source', 'version') then
        select s.owner into v_owner from beliefdb.source s where s.workspace_id = v_ws and s.id = p_id;
    end if;
    v_changes := beliefdb._dry_run(
        'select beliefdb._retract_ids(($1 ->> ''workspace'')::uuid, array(select jsonb_array_elements_text($1 -> ''ids''))::uuid[], ''preview'', ($1 ->> ''undo'')::boolean)',
        jsonb_build_object('workspace', v_ws, 'ids', to_jsonb(v_ids), 'undo', p_undo));
    if v_changes = 'null'::jsonb then
        raise exception 'nothing to %: % % is unknown or already %', case when p_undo then 'restore' else 'retract' end,
            p_target, p_id, case when p_undo then 'in force' else 'retracted' end using errcode = 'BD004';
    end if;
    return v_changes || jsonb_build_object('proposed', v_owner is distinct from beliefdb.current_principal()
                                                       and v_owner is not null,
                                           'owner', v_owner);
end
$$;
comment on function beliefdb.retract_preview(text, uuid, integer, boolean) is 'Exactly what a retraction or restore would change, computed in a rolled-back subtransaction';

-- Resolve a review item: approve or reject. Approving a flagged decision accepts it as it is
-- and releases its held actions; rejecting it cancels them. Approving a held action releases
-- it, rejecting cancels it. Approving a conflict needs the winner, which supersedes the loser.
-- A proposed correction, new version or retraction is its owner's to approve (which applies it
-- as the owner's own change) or reject.
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
    perform beliefdb._begin_changes();
    if p_verdict not in ('approved', 'rejected') then
        raise exception 'verdict must be approved or rejected' using errcode = 'BD005';
    end if;
    select * into v_item from beliefdb.review_item r where r.workspace_id = v_ws and r.id = p_item for update;
    if not found then
        raise exception 'unknown review item %', p_item using errcode = 'BD004';
    elsif v_item.status <> 'open' then
        raise exception 'review item % is already %', p_item,
            v_item.status || case when v_item.status = 'closed' then ' (' || v_item.note || ')' else '' end
            using errcode = 'BD005';
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
        perform beliefdb._require_owner(v_ws, v_item.node, 'approve or reject a correction of it');
        if p_verdict = 'approved' then
            v_result := beliefdb.apply_correction(
                v_item.node, v_item.proposal ->> 'statement', v_item.proposal ->> 'value',
                v_item.proposal ->> 'reviewer', v_item.proposal ->> 'reason', (v_item.proposal ->> 'revision')::integer,
                v_item.proposal ->> 'idempotency_key');
        end if;
    elsif v_item.kind in ('version_proposed', 'retraction_proposed') then
        perform beliefdb._require_source_owner(v_ws, v_item.source_id, 'approve or reject a change to it');
        if p_verdict = 'approved' and v_item.kind = 'version_proposed' then
            v_result := beliefdb._ingest_version_core(v_ws, v_item.source_id, v_item.proposal);
        elsif p_verdict = 'approved' then
            v_result := beliefdb._retract_ids(v_ws, beliefdb._retraction_targets(
                            v_ws, v_item.proposal ->> 'target', v_item.source_id, (v_item.proposal ->> 'version')::integer),
                            v_item.proposal ->> 'reason', coalesce((v_item.proposal ->> 'undo')::boolean, false));
            perform beliefdb.audit(case when (v_item.proposal ->> 'undo')::boolean then 'unretract' else 'retract' end,
                jsonb_build_object('target', v_item.proposal ->> 'target', 'id', v_item.source_id,
                                   'version', v_item.proposal -> 'version', 'item', v_item.id,
                                   'proposed_by', v_item.proposed_by));
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
    return jsonb_build_object('item', p_item, 'kind', v_item.kind, 'node', v_item.node, 'source_id', v_item.source_id,
                              'status', p_verdict,
                              'correction', case when v_item.kind = 'correction_proposed' then v_result end,
                              'applied', case when v_item.kind in ('version_proposed', 'retraction_proposed')
                                              then v_result end);
end
$$;
comment on function beliefdb.review_resolve(uuid, text, text, uuid) is 'Approve or reject a review item (flagged decision, held action, conflict, proposed correction, version or retraction)';

-- Proposals about sources whose question settled by itself close (status closed, by beliefdb): a
-- proposed retraction (or restore) of a source or version that is now retracted (or restored), and
-- a proposed text that is now the version in force.
create or replace function beliefdb._settle_source_items(p_workspace_id uuid, p_sources uuid[]) returns integer
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_closed integer;
begin
    update beliefdb.review_item r
       set status = 'closed', resolved_at = beliefdb.clock(), resolved_by = 'beliefdb',
           note = case r.kind when 'version_proposed' then 'settled: the source has this text in force now'
                              else 'settled: it is ' || case when (r.proposal ->> 'undo')::boolean then 'restored'
                                                              else 'retracted' end || ' already' end
      from beliefdb.source s
     where r.workspace_id = p_workspace_id and r.status = 'open' and r.source_id = any(p_sources)
       and s.workspace_id = r.workspace_id and s.id = r.source_id
       and case r.kind
               when 'version_proposed' then
                    exists (select from beliefdb.source_version v
                             where v.workspace_id = s.workspace_id and v.source_id = s.id
                               and v.sha256 = sha256(convert_to(r.proposal ->> 'content', 'UTF8'))
                               and beliefdb.in_force(v.workspace_id, v.id))
               when 'retraction_proposed' then
                    coalesce((r.proposal ->> 'undo')::boolean, false) = (
                        case when r.proposal ->> 'target' = 'source' then s.retracted_at is null
                             else exists (select from beliefdb.source_version v
                                           where v.workspace_id = s.workspace_id and v.source_id = s.id
                                             and v.version = (r.proposal ->> 'version')::integer
                                             and v.retracted_at is null) end)
               else false
           end;
    get diagnostics v_closed = row_count;
    return v_closed;
end
$$;
comment on function beliefdb._settle_source_items(uuid, uuid[]) is 'Close the open proposals about sources whose question settled by itself';
