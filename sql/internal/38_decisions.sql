-- beliefdb: the internals of decisions, corrections and retraction (api/60_decisions.sql).
-- Adding a reason for a node; idempotency keys (rule 18) and recording a decision; whether a
-- correction is a proposal to the belief's owner, proposing it, making it, and the whole of a
-- correction's apply (docs/rules.md, rules 6 and 17); what a retraction target names, and the
-- retraction itself (rules 4 and 5).

-- A decision's reasons as a caller gives them (decide, decide_in_run: p_justifications), checked once
-- before anything is written: null, or an array of reasons, each an array of the beliefs it needs
-- together (their ids or unique prefixes: strings), at least one (an empty one is no reason: it was
-- refused only by _add_justification, as "a justification needs at least one antecedent"). The first
-- problem is invalid_input (BD005) naming the reason (1 for the first).
create or replace function beliefdb._check_reasons(p_justifications jsonb) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_problem text;
begin
    if pg_catalog.jsonb_typeof(p_justifications) <> 'array' then
        raise exception 'a decision''s reasons are an array of arrays of belief ids or prefixes ([["3f2a"], ["9c1d", "77ab"]]), not %',
            beliefdb._json_kind(p_justifications) using errcode = 'BD005';
    end if;
    select case when pg_catalog.jsonb_typeof(r.reason) <> 'array'
                then pg_catalog.format('reason %s of a decision is %s, not an array of belief ids or prefixes (the beliefs it needs together: [["3f2a"], ["9c1d", "77ab"]])',
                                       r.n, beliefdb._json_kind(r.reason))
                when r.reason = '[]'::jsonb
                then pg_catalog.format('reason %s of a decision names no belief: a reason lists at least one belief id or prefix (the beliefs it needs together: [["3f2a"], ["9c1d", "77ab"]])',
                                       r.n)
                else (select pg_catalog.format('reason %s of a decision lists belief ids or prefixes (strings), not %s',
                                               r.n, beliefdb._json_kind(b.belief))
                        from pg_catalog.jsonb_array_elements(r.reason) with ordinality b (belief, m)
                       where pg_catalog.jsonb_typeof(b.belief) <> 'string'
                       order by b.m limit 1) end
      into v_problem
      from pg_catalog.jsonb_array_elements(coalesce(p_justifications, '[]')) with ordinality r (reason, n)
     where pg_catalog.jsonb_typeof(r.reason) <> 'array' or r.reason = '[]'::jsonb
        or exists (select from pg_catalog.jsonb_array_elements(r.reason) b (belief)
                    where pg_catalog.jsonb_typeof(b.belief) <> 'string')
     order by r.n
     limit 1;
    if v_problem is not null then
        raise exception '%', v_problem using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._check_reasons(jsonb) is 'Refuse (BD005) a decision''s reasons that are not an array of non-empty arrays of belief ids or prefixes, naming the first bad reason';

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

-- An idempotency key as a caller gives it (rule 18 of docs/rules.md: decide, decide_in_run, act,
-- record_outcome): none, or a key that names something. A blank one is refused (BD005): stored, ""
-- would name every later request of its kind in the workspace as a reuse of that key.
create or replace function beliefdb._check_idempotency_key(p_key text) returns void
language plpgsql immutable
set search_path = pg_catalog, pg_temp
as $$
begin
    if p_key is not null and pg_catalog.btrim(p_key) = '' then
        raise exception 'the idempotency key is blank: give a key that names this request, or none'
            using errcode = 'BD005';
    end if;
end
$$;
comment on function beliefdb._check_idempotency_key(text) is 'Refuse (BD005) a blank idempotency key';

-- A belief a decision's request cites, as the request's digest names it (beliefdb._decision_request): the
-- id it resolves to (a whole id, a prefix, upper case: the same belief), or, when it names none (unknown,
-- ambiguous, no id: refused where the decision is recorded), the reference as given, trimmed and in lower
-- case.
create or replace function beliefdb._cited_belief(p_ref text) returns text
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    return beliefdb.resolve_belief(p_ref)::text;
exception when sqlstate 'BD004' or sqlstate 'BD005' or sqlstate 'BD006' then
    return pg_catalog.lower(pg_catalog.btrim(p_ref));
end
$$;
comment on function beliefdb._cited_belief(text) is 'The belief id a decision''s request cites (the reference as given, in lower case, when it names none)';

-- What a keyed decision's request gave besides its title: the SHA-256 of its reasons, as the beliefs
-- they resolve to (each reason's ids sorted and once, the reasons sorted and once: a belief cited by
-- its id or by a prefix, in any case, in any order or twice, is the same request, as the decision
-- keeps it), and the run it was recorded in (null: none; a uuid, resolved by the caller). A run's
-- refused citations are part of it (the run keeps none of them as reasons): the same refused again is
-- the same request. Reasons that are not an array of arrays of ids are hashed as given (refused where
-- the decision is recorded: beliefdb._check_reasons).
create or replace function beliefdb._decision_request(p_run uuid, p_justifications jsonb) returns bytea
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_reasons jsonb := coalesce(p_justifications, '[]');
begin
    if pg_catalog.jsonb_typeof(v_reasons) = 'array'
       and not exists (select from pg_catalog.jsonb_array_elements(v_reasons) r (reason)
                        where pg_catalog.jsonb_typeof(r.reason) <> 'array'
                           or exists (select from pg_catalog.jsonb_array_elements(r.reason) x (ref)
                                       where pg_catalog.jsonb_typeof(x.ref) <> 'string')) then
        v_reasons := coalesce((select pg_catalog.jsonb_agg(distinct g.ids order by g.ids)
                                 from (select coalesce((select pg_catalog.jsonb_agg(distinct c.id order by c.id)
                                                          from (select beliefdb._cited_belief(x.ref) as id
                                                                  from pg_catalog.jsonb_array_elements_text(r.reason)
                                                                       x (ref)) c),
                                                       '[]') as ids
                                         from pg_catalog.jsonb_array_elements(v_reasons) r (reason)) g), '[]');
    end if;
    return pg_catalog.sha256(pg_catalog.convert_to(
        pg_catalog.jsonb_build_object('run', p_run, 'reasons', v_reasons)::text, 'UTF8'));
end
$$;
comment on function beliefdb._decision_request(uuid, jsonb) is 'The SHA-256 of the reasons (as the beliefs they resolve to, sorted and once) and run a decision''s request gave';

-- The decision an idempotency key names in the workspace (rule 18): null when there is no key, or no
-- decision recorded with it; the same request again (the same title, the same beliefs as reasons and
-- the same run: beliefdb._decision_request) is that decision, recorded once; another request with the key, another principal's too, is refused
-- (idempotency_key_reused, BD009).
create or replace function beliefdb._keyed_decision(p_workspace_id uuid, p_key text, p_title text, p_request bytea)
returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_decision beliefdb.decision;
begin
    if p_key is null then
        return null;
    end if;
    select * into v_decision from beliefdb.decision d where d.workspace_id = p_workspace_id and d.idempotency_key = p_key;
    if not found then
        return null;
    -- (another principal's request with the key is another request: never theirs answered as one's own)
    elsif (v_decision.title, v_decision.request_sha256, v_decision.owner)
          is distinct from (p_title, p_request, beliefdb.current_principal()) then
        raise exception 'idempotency key % was used for another request (decision %): a new request needs a new key',
            p_key, v_decision.id using errcode = 'BD009';
    end if;
    return v_decision.id;
end
$$;
comment on function beliefdb._keyed_decision(uuid, text, text, bytea) is 'The decision an idempotency key recorded for the same request (null: none); another request with the key is refused (BD009)';

-- The citations a decision of a run could not keep, as its decide_in_run event recorded them (for the
-- same request again, by its key): the workspace's events read newest first, back to the decision's
-- own moment; none when none was refused (or the event's payload was redacted since).
create or replace function beliefdb._run_refusals(p_workspace_id uuid, p_decision uuid) returns beliefdb.refusal[]
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_since timestamptz;
    v_event record;
begin
    select d.created_at into v_since from beliefdb.decision d where d.workspace_id = p_workspace_id and d.id = p_decision;
    for v_event in
        select e.at, e.action, e.payload from beliefdb.audit_event e where e.workspace_id = p_workspace_id
         order by e.seq desc
    loop
        exit when v_event.at < v_since;
        if v_event.action = 'decide_in_run' and v_event.payload ->> 'decision' = p_decision::text then
            return array(select row(r.x ->> 'belief', r.x ->> 'reason')::beliefdb.refusal
                           from pg_catalog.jsonb_array_elements(v_event.payload -> 'refused')
                                with ordinality r (x, n)
                          order by r.n);
        end if;
    end loop;
    return '{}';
end
$$;
comment on function beliefdb._run_refusals(uuid, uuid) is 'The citations a decision of a run could not keep, as its decide_in_run event recorded them';

-- A decision as beliefdb.decide records it (and beliefdb.decide_in_run, the reasons it kept): with
-- p_idempotency_key, the key names this request (its title and p_request: beliefdb._decision_request),
-- and the same request again is the decision it recorded, nothing written (already_applied).
create or replace function beliefdb._decide(p_title text, p_justifications jsonb, p_idempotency_key text,
                                            p_request bytea) returns beliefdb.recorded
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_id uuid;
    v_reason jsonb;
    v_status text;
    v_beliefs uuid[];
    v_key text;
    v_seen text[] := '{}';
    v_other record;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    if coalesce(btrim(p_title), '') = '' then
        raise exception 'a decision needs a title' using errcode = 'BD005';
    end if;
    perform beliefdb._check_idempotency_key(p_idempotency_key);
    perform beliefdb._check_reasons(p_justifications);
    -- the same request again by its key: the decision it recorded, nothing written (rule 18)
    v_id := beliefdb._keyed_decision(v_ws, p_idempotency_key, p_title, p_request);
    if v_id is not null then
        select d.status into v_status from beliefdb.decision d where d.workspace_id = v_ws and d.id = v_id;
        return row(v_id, v_status, true)::beliefdb.recorded;
    end if;
    if coalesce(jsonb_array_length(p_justifications), 0) = 0 then
        insert into beliefdb.decision (workspace_id, title, status, idempotency_key, request_sha256)
        values (v_ws, p_title, 'needs_review', p_idempotency_key, p_request)
        returning id into v_id;
        insert into beliefdb.review_item (workspace_id, kind, node, reason)
        values (v_ws, 'decision_flagged', v_id, 'No source-backed answer yet: recorded without any reason');
        perform beliefdb._audit('decide', jsonb_build_object('decision', v_id, 'reasons', 0));
        return row(v_id, 'needs_review', false)::beliefdb.recorded;
    end if;
    insert into beliefdb.decision (workspace_id, title, idempotency_key, request_sha256)
    values (v_ws, p_title, p_idempotency_key, p_request) returning id into v_id;
    for v_reason in select r from jsonb_array_elements(p_justifications) r loop
        v_beliefs := array(select beliefdb.resolve_belief(x.ref)
                             from jsonb_array_elements_text(v_reason) with ordinality x (ref, n) order by x.n);
        -- a reason cited twice (the same beliefs, by id or prefix, in any order) is one reason
        v_key := array_to_string(array(select distinct b from unnest(v_beliefs) b order by b), ' ');
        if v_key = any(v_seen) then
            continue;
        end if;
        v_seen := v_seen || v_key;
        select b.id, b.provenance into v_other
          from beliefdb.belief b
         where b.workspace_id = v_ws and b.id = any(v_beliefs) and b.provenance <> 'production'
         order by array_position(v_beliefs, b.id)
         limit 1;
        if found then
            raise exception 'belief % is % material, not production history: a decision may not rest on it',
                v_other.id, v_other.provenance using errcode = 'BD002';
        end if;
        perform beliefdb._add_justification(v_ws, v_id, v_beliefs, 'cites');
    end loop;
    perform beliefdb.propagate(v_ws, array[v_id]);
    select d.status into v_status from beliefdb.decision d where d.workspace_id = v_ws and d.id = v_id;
    if v_status = 'needs_review' then
        -- none of its reasons holds (each cites a belief that is not current: rule 19): it never had
        -- support to lose, and its review item says so. Its reasons are kept (the decision holds again
        -- if they come back)
        update beliefdb.review_item r
           set reason = 'No source-backed answer yet: none of its reasons is current'
         where r.workspace_id = v_ws and r.kind = 'decision_flagged' and r.node = v_id and r.status = 'open';
    end if;
    return row(v_id, v_status, false)::beliefdb.recorded;
end
$$;
comment on function beliefdb._decide(text, jsonb, text, bytea) is 'Record a decision and its reasons (beliefdb.decide; a repeat of a keyed request: the decision it recorded)';

-- The belief that superseded p_belief most recently, of the supersessions still in effect (null
-- when none is: a belief left superseded by a rival that no longer holds).
create or replace function beliefdb._superseded_by(p_workspace_id uuid, p_belief uuid) returns uuid
language sql stable
set search_path = pg_catalog, pg_temp
as $$
    select r.from_belief
      from beliefdb.relation r
     where r.workspace_id = p_workspace_id and r.to_belief = p_belief and r.kind = 'supersedes'
       and r.ended_at is null
     order by r.created_at desc, r.id desc
     limit 1
$$;
comment on function beliefdb._superseded_by(uuid, uuid) is 'The belief that superseded a belief most recently, of the supersessions in effect';

-- Whether the acting principal's correction of p_belief is a proposal to its owner (rule 17), and
-- whether the belief can be corrected at all: a superseded or retracted one cannot (correct what
-- replaced it, which the message names: the newest supersession in effect, and the belief in force
-- at the end of the chain when that one was replaced in turn), and another principal's correction
-- is proposed only for a belief that is current (or in a tie): of one that is not, the proposal
-- would close before its owner read it. Each refusal is BD005 with the detail
-- {"not_correctable": status} (and "superseded_by", "in_force"): a conflict with the belief's state,
-- which the servers answer 409 (beliefdb.errors.NotCorrectable). The preview and the apply both ask
-- this, so the preview refuses what the apply refuses.
create or replace function beliefdb._correction_is_proposal(p_belief beliefdb.belief) returns boolean
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_by uuid;
    v_end uuid;
    v_next uuid;
    v_hops integer := 0;
begin
    if p_belief.status = 'superseded' then
        v_by := beliefdb._superseded_by(p_belief.workspace_id, p_belief.id);
        v_end := v_by;
        -- (supersession is acyclic; the walk is bounded all the same)
        while v_end is not null and v_hops < 100 loop
            select beliefdb._superseded_by(b.workspace_id, b.id) into v_next
              from beliefdb.belief b
             where b.workspace_id = p_belief.workspace_id and b.id = v_end and b.status = 'superseded';
            exit when v_next is null;
            v_end := v_next;
            v_hops := v_hops + 1;
        end loop;
        if v_by is null then
            raise exception 'belief % is superseded: correct the belief that replaced it instead', p_belief.id
                using errcode = 'BD005', detail = jsonb_build_object('not_correctable', 'superseded')::text;
        elsif v_end = v_by then
            raise exception 'belief % is superseded by belief %: correct that belief instead', p_belief.id, v_by
                using errcode = 'BD005', detail = jsonb_build_object(
                    'not_correctable', 'superseded', 'superseded_by', v_by, 'in_force', v_end)::text;
        else
            raise exception 'belief % is superseded by belief %, itself superseded since: the belief in force is %; correct that one instead',
                p_belief.id, v_by, v_end
                using errcode = 'BD005', detail = jsonb_build_object(
                    'not_correctable', 'superseded', 'superseded_by', v_by, 'in_force', v_end)::text;
        end if;
    elsif p_belief.status = 'retracted' then
        -- nothing replaced a retracted belief: there is no other belief to send the user to
        raise exception 'belief % is retracted: restore it first (undo its retraction), then correct it', p_belief.id
            using errcode = 'BD005', detail = jsonb_build_object('not_correctable', 'retracted')::text;
    end if;
    if p_belief.owner is not distinct from beliefdb.current_principal() then
        return false;
    end if;
    if p_belief.status not in ('current', 'conflicting') then
        raise exception 'belief % is %: only a current belief can be corrected by a proposal to its owner (%)',
            p_belief.id, p_belief.status, p_belief.owner
            using errcode = 'BD005', detail = jsonb_build_object('not_correctable', p_belief.status)::text;
    end if;
    return true;
end
$$;
comment on function beliefdb._correction_is_proposal(beliefdb.belief) is 'Whether a correction by the acting principal is a proposal to the owner; refuses (BD005) a belief that cannot be corrected';

-- A correction of a belief the acting principal does not own: a review item for the owner,
-- holding the proposal. The same proposal again (same principal, text, value and revision, or
-- the same idempotency key for the same request) returns the open item with already_applied.
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
    -- (a key found names this very request: beliefdb._require_same_request refused any other)
    if not found then
        v_existing := false;
        insert into beliefdb.review_item (workspace_id, kind, node, reason, proposed_by, proposal)
        values (p_workspace_id, 'correction_proposed', p_belief.id,
                pg_catalog.format('%s proposes "%s" (%s); belief owned by %s', beliefdb.current_principal(),
                                  p_statement, coalesce(p_reason, 'no reason given'), p_belief.owner),
                beliefdb.current_principal(), v_proposal)
        returning * into v_item;
        perform beliefdb._audit('correction.propose', jsonb_build_object(
            'item', v_item.id, 'belief', p_belief.id, 'owner', p_belief.owner, 'reviewer', p_reviewer));
    end if;
    return jsonb_build_object(
        'proposed', true, 'review_item', v_item.id, 'belief', p_belief.id, 'owner', p_belief.owner,
        'correction', null, 'replacement', null, 'superseded', '[]'::jsonb, 'flagged', '[]'::jsonb,
        'held', '[]'::jsonb, 'already_applied', v_existing, 'changes', beliefdb._empty_changes());
end
$$;
comment on function beliefdb._propose_correction(uuid, beliefdb.belief, text, text, text, text, text) is 'Queue a correction of another principal''s belief for its owner to approve or reject';

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
    v_fragment uuid := pg_catalog.gen_random_uuid();
    v_correction uuid := pg_catalog.gen_random_uuid();
    v_replacement uuid := pg_catalog.gen_random_uuid();
    v_justification uuid := pg_catalog.gen_random_uuid();
    v_changes jsonb;
    v_settled jsonb;
begin
    select * into v_old from beliefdb.belief b where b.workspace_id = p_workspace_id and b.id = p_belief;
    -- the three nodes it makes, in one statement: each statement costs its triggers (audit,
    -- adjacency), and create_node finds them made. Each is stored as the propagation below finds it
    -- (as a bulk ingest stores its first fragments): the fragment of a new version of a new source
    -- and the correction are premises that hold (rank 0), the replacement holds by its one
    -- justification on that fragment (rank 1) and is current unless its valid time has ended. So
    -- the edge's unmet recount finds nothing to write, the propagation does not write them again
    -- (nor move unmet back), and the replacement is not "current again" there: it meets its rivals
    -- once, below. (Were one of them stored wrong, the propagation would write it as for any node.)
    insert into beliefdb.node (workspace_id, id, kind, holds, current, support, support_rank)
    values (p_workspace_id, v_fragment, 'fragment', true, true, null, 0),
           (p_workspace_id, v_replacement, 'belief', true,
            not coalesce(not upper_inf(v_old.valid_time) and upper(v_old.valid_time) <= beliefdb.clock(), false),
            v_justification, 1),
           (p_workspace_id, v_correction, 'correction', true, true, null, 0);
    -- the reviewer's text is a source of its own, so the correction is evidence, not an edit
    insert into beliefdb.source (workspace_id, name, origin_type, authority, provenance)
    values (p_workspace_id, 'correction:' || pg_catalog.gen_random_uuid(), 'human_reviewer', 'official',
            v_old.provenance)
    returning id into v_source;
    insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256, label)
    values (p_workspace_id, v_source, 1, p_statement, ''::bytea, 'reviewer ' || p_reviewer)
    returning id into v_version;
    -- the whole of the reviewer's text (the version is new: no fragment of it exists yet)
    insert into beliefdb.fragment (workspace_id, id, source_version_id, start_offset, end_offset, text)
    values (p_workspace_id, v_fragment, v_version, 0, length(p_statement), p_statement);

    insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, kind, scope, valid_time,
                                 confidence, confidence_kind, status, provenance)
    values (p_workspace_id, v_replacement, p_statement, v_old.subject, v_old.attribute, coalesce(p_value, v_old.value),
            v_old.kind, v_old.scope, v_old.valid_time,
            -- what confidence_factors computes for it now: the policy's weight (no other factor
            -- yet: it is verified now, and an open conflict comes only with _settle below)
            coalesce((select p.weight from beliefdb.confidence_policy p
                       where p.factor = 'correction' and p.key = 'human_correction'), 0),
            'human_correction', 'current', v_old.provenance);
    -- its one piece of evidence, as _add_evidence records it (both are new: nothing to look up first)
    insert into beliefdb.justification (workspace_id, id, consequent)
    values (p_workspace_id, v_justification, v_replacement);
    insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
    values (p_workspace_id, v_justification, v_fragment, 'evidence');
    insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role, justification_id)
    values (p_workspace_id, v_replacement, v_fragment, p_statement, 'supports', v_justification);
    -- the correction after its replacement, so it is written once, replacement and all (an update
    -- afterwards cost a statement and its triggers)
    insert into beliefdb.correction (workspace_id, id, belief_id, belief_revision, reviewer, new_statement, new_value,
                                     reason, idempotency_key, fragment_id, replacement_belief_id)
    values (p_workspace_id, v_correction, p_belief, v_old.revision, p_reviewer, p_statement, p_value, p_reason,
            p_idempotency_key, v_fragment, v_replacement);
    insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind, reason)
    values (p_workspace_id, v_replacement, p_belief, 'supersedes', 'correction by ' || p_reviewer);
    update beliefdb.belief set revision = revision + 1 where workspace_id = p_workspace_id and id = p_belief;

    -- no seed's confidence factors moved: the replacement is stored with its confidence, the fragment
    -- and the correction are not beliefs, and the old belief's factors are its own (superseded is
    -- not one of them; leaving an open conflict, which is, the propagation finds itself)
    v_changes := beliefdb.propagate(p_workspace_id, array[p_belief, v_replacement, v_fragment, v_correction], '{}');
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

-- An idempotency key names one request (rule 18): a correction's belief, text, value, reviewer,
-- reason and the revision it was made at. The key of a correction made, or of a correction proposed
-- to a belief's owner (in any state), with anything else is refused (idempotency_key_reused, BD009)
-- rather than answered already_applied while the new request is dropped. No key, or the same
-- request again: nothing to refuse.
create or replace function beliefdb._require_same_request(
    p_workspace_id uuid, p_key text, p_belief uuid, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_revision integer
) returns void
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_other text;
begin
    if p_key is null then
        return;
    end if;
    select pg_catalog.format('a correction of belief %s at revision %s', c.belief_id, c.belief_revision)
      into v_other
      from beliefdb.correction c
     where c.workspace_id = p_workspace_id and c.idempotency_key = p_key
       and (c.belief_id, c.new_statement, c.new_value, c.reviewer, c.reason, c.belief_revision)
           is distinct from (p_belief, p_statement, p_value, p_reviewer, p_reason, p_revision);
    if v_other is null then
        select pg_catalog.format('a correction of belief %s at revision %s proposed by %s (review item %s)', r.node,
                                 r.proposal ->> 'revision', r.proposed_by, r.id)
          into v_other
          from beliefdb.review_item r
         where r.workspace_id = p_workspace_id and r.kind = 'correction_proposed'
           and r.proposal ->> 'idempotency_key' = p_key
           and (r.node, r.proposal ->> 'statement', r.proposal ->> 'value', r.proposal ->> 'reviewer',
                r.proposal ->> 'reason', (r.proposal ->> 'revision')::integer)
               is distinct from (p_belief, p_statement, p_value, p_reviewer, p_reason, p_revision)
         order by r.created_at, r.id
         limit 1;
    end if;
    if v_other is not null then
        raise exception 'idempotency key % was used for another request (%): a new request needs a new key',
            p_key, v_other using errcode = 'BD009';
    end if;
end
$$;
comment on function beliefdb._require_same_request(uuid, text, uuid, text, text, text, text, integer) is 'Refuse (idempotency_key_reused) an idempotency key already used for another correction request';

-- A correction as beliefdb.apply_correction makes it (the report as jsonb, as review_resolve keeps
-- it when an owner approves a proposed correction): the belief locked, a key used for another
-- request refused (BD009), a repeat found (the same correction, or its idempotency key), a belief
-- that cannot be corrected refused (BD005, not_correctable, whatever the revision), the revision
-- checked (BD007), another principal's belief proposed to its owner, else the change made
-- (beliefdb._apply_correction_core) and audited as one event (correction.apply, its statements'
-- rows as its entries: beliefdb._audit_open).
create or replace function beliefdb._apply_correction(
    p_belief uuid, p_statement text, p_value text, p_reviewer text, p_reason text,
    p_expected_revision integer, p_idempotency_key text default null
) returns jsonb
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ws uuid := beliefdb.current_workspace_id();
    v_old beliefdb.belief;
    v_existing beliefdb.correction;
    v_changes jsonb;
    v_result jsonb;
    v_opened boolean;
    v_summary jsonb;
    v_proposal boolean;
begin
    perform beliefdb.lock_workspace();
    perform beliefdb._begin_changes();
    select * into v_old from beliefdb.belief b where b.workspace_id = v_ws and b.id = p_belief for update;
    if not found then
        raise exception 'unknown belief %', p_belief using errcode = 'BD004', detail = '{"unknown": ["belief"]}';
    end if;

    perform beliefdb._require_same_request(v_ws, p_idempotency_key, p_belief, p_statement, p_value, p_reviewer,
                                           p_reason, p_expected_revision);
    select * into v_existing
      from beliefdb.correction c
     where c.workspace_id = v_ws
       and ((p_idempotency_key is not null and c.idempotency_key = p_idempotency_key)
            or (c.belief_id = p_belief and c.new_statement = p_statement
                and c.new_value is not distinct from p_value and c.belief_revision = p_expected_revision))
     limit 1;
    if found then
        v_changes := beliefdb.propagate(v_ws, array[v_existing.belief_id, v_existing.replacement_belief_id]);
        return jsonb_build_object(
            'correction', v_existing.id, 'replacement', v_existing.replacement_belief_id,
            'superseded', jsonb_build_array(v_existing.belief_id),
            'flagged', v_changes -> 'flagged', 'held', v_changes -> 'held', 'already_applied', true,
            'proposed', false, 'changes', v_changes);
    end if;

    -- a belief that cannot be corrected now (superseded or retracted meanwhile, or another's no longer
    -- current) is refused as a preview now refuses it, naming what replaced it, whatever revision the
    -- apply brings: a new preview would not help (BD005, not_correctable); only a belief still
    -- correctable whose revision moved is stale
    v_proposal := beliefdb._correction_is_proposal(v_old);
    if v_old.revision < p_expected_revision then
        -- (no preview saw a revision the belief never had: the caller sent another number)
        raise exception 'belief % is at revision %: it never had revision %; nothing was changed: give the revision its preview says',
            p_belief, v_old.revision, p_expected_revision using errcode = 'BD007';
    elsif v_old.revision <> p_expected_revision then
        raise exception 'belief % changed since the preview: it is at revision %, the preview saw %; nothing was changed: preview the correction again',
            p_belief, v_old.revision, p_expected_revision using errcode = 'BD007';
    end if;
    -- someone else's belief: the correction waits in the review queue for its owner
    if v_proposal then
        return beliefdb._propose_correction(v_ws, v_old, p_statement, p_value, p_reviewer, p_reason,
                                           p_idempotency_key);
    end if;

    -- one audit event for the whole apply: its statements' events become entries of it (rows)
    v_opened := beliefdb._audit_open(v_ws);
    v_result := beliefdb._apply_correction_core(v_ws, p_belief, p_statement, p_value, p_reviewer, p_reason,
                                               p_idempotency_key);
    v_summary := jsonb_build_object(
        'correction', v_result -> 'correction', 'belief', p_belief, 'replacement', v_result -> 'replacement',
        'reviewer', p_reviewer, 'flagged', v_result -> 'flagged', 'held', v_result -> 'held');
    perform beliefdb._audit_finish(v_opened, 'correction.apply', v_summary);
    return v_result;
end
$$;
comment on function beliefdb._apply_correction(uuid, text, text, text, text, integer, text) is 'A correction checked, proposed or made, and audited (the jsonb report of apply_correction)';

-- The id a retraction's reference names (retract, retract_preview): a belief by its id or a unique
-- prefix, a node as beliefdb.resolve_target finds it (a node's id or unique prefix, a source's name
-- or id, a source version's id), a source (or a version of it) by the source's name: null when no
-- source has that name, or for a target retract does not know (beliefdb._retraction_targets says so).
create or replace function beliefdb._retraction_target(p_workspace_id uuid, p_target text, p_ref text) returns uuid
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
begin
    case p_target
        when 'belief' then
            return beliefdb.resolve_belief(p_ref);
        when 'node' then  -- (a fragment, as a retraction names it: unknown, said so, not "no node ... is named")
            begin
                return beliefdb.resolve_target(p_ref);
            exception when sqlstate 'BD004' then
                raise exception 'unknown fragment %', p_ref using errcode = 'BD004';
            end;
        when 'source', 'version' then
            return (select s.id from beliefdb.source s where s.workspace_id = p_workspace_id and s.name = p_ref);
        else
            return null;
    end case;
end
$$;
comment on function beliefdb._retraction_target(uuid, text, text) is 'The id a retraction''s reference names: a belief, a node (or source, or version), or a source by its name';

-- The ids a retraction target names: a node (and, for a correction, its fragment), a source, or
-- one version of a source (by number). BD004 when there is no such version (naming the source and
-- the versions it has); BD005 for an unknown kind of target.
create or replace function beliefdb._retraction_targets(p_workspace_id uuid, p_target text, p_id uuid,
                                                       p_version integer) returns uuid[]
language plpgsql stable
set search_path = pg_catalog, pg_temp
as $$
declare
    v_ids uuid[];
    v_name text;
    v_first integer;
    v_last integer;
begin
    if p_target = 'source' then
        return array[p_id];
    elsif p_target = 'version' then
        v_ids := array(select v.id from beliefdb.source_version v
                        where v.workspace_id = p_workspace_id and v.source_id = p_id and v.version = p_version);
        if cardinality(v_ids) = 0 then
            select s.name, min(v.version), max(v.version) into v_name, v_first, v_last
              from beliefdb.source s
              left join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
             where s.workspace_id = p_workspace_id and s.id = p_id
             group by s.name;
            -- no number given is a missing argument, not a version that does not exist
            if p_version is null then
                raise exception 'retracting a version needs its number (p_version): source ''%'' has %',
                    coalesce(v_name, p_id::text),
                    case when v_first is null then 'no versions'
                         when v_first = v_last then format('version %s only', v_first)
                         else format('versions %s to %s', v_first, v_last)
                    end
                    using errcode = 'BD005';
            end if;
            raise exception 'unknown version % of source ''%'': %', p_version, coalesce(v_name, p_id::text),
                case when v_first is null then 'it has no versions'
                     when v_first = v_last then format('it has version %s only', v_first)
                     else format('it has versions %s to %s', v_first, v_last)
                end
                using errcode = 'BD004';
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
    -- (a proposal to retract a fragment is about its source: it settles with the fragment)
    perform beliefdb._settle_source_items(p_workspace_id, v_sources || array(
        select v.source_id from beliefdb.fragment f
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
         where f.workspace_id = p_workspace_id and f.id = any(p_ids)));
    return beliefdb.propagate(p_workspace_id,
        array(select n.id from beliefdb.node n where n.workspace_id = p_workspace_id and n.id = any(p_ids))
        || beliefdb.expand_targets(p_workspace_id, v_sources));
end
$$;
comment on function beliefdb._retract_ids(uuid, uuid[], text, boolean) is 'Retract or restore nodes, sources and versions by id and propagate (no owner check, no audit)';

-- Trigger: the history of retracted_at (beliefdb.retraction_period), whoever writes it (a retraction,
-- its undo, a repair deleting a faulty memory). Setting it opens a period; clearing it, or setting it
-- to another moment, closes the open one at the clock. Row by row: the triggers fire only for
-- statements that set retracted_at, and a retraction sets it on a handful of rows (propagation's
-- updates of node, which never set it, do not fire them).
create or replace function beliefdb.retraction_history() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    if tg_op = 'UPDATE' and old.retracted_at is not null then
        if tg_table_name = 'node' then
            update beliefdb.retraction_period p set restored_at = beliefdb.clock()
             where p.workspace_id = new.workspace_id and p.node_id = new.id and p.restored_at is null;
        elsif tg_table_name = 'source' then
            update beliefdb.retraction_period p set restored_at = beliefdb.clock()
             where p.workspace_id = new.workspace_id and p.source_id = new.id and p.restored_at is null;
        else
            update beliefdb.retraction_period p set restored_at = beliefdb.clock()
             where p.workspace_id = new.workspace_id and p.source_version_id = new.id and p.restored_at is null;
        end if;
    end if;
    if new.retracted_at is not null then
        insert into beliefdb.retraction_period (workspace_id, node_id, source_id, source_version_id, retracted_at,
                                                reason)
        values (new.workspace_id, case when tg_table_name = 'node' then new.id end,
                case when tg_table_name = 'source' then new.id end,
                case when tg_table_name = 'source_version' then new.id end, new.retracted_at, new.retraction_reason);
    end if;
    return null;
end
$$;
comment on function beliefdb.retraction_history() is 'Trigger: open a retraction period when retracted_at is set, close it when it is cleared (what as-of questions read)';

-- Trigger: the history of a source's authority (beliefdb.authority_change), whoever changes it: the
-- authority before the change, and when (what as-of confidence reads, rule 9).
create or replace function beliefdb.authority_history() returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $$
begin
    insert into beliefdb.authority_change (workspace_id, source_id, authority_before, changed_at)
    values (new.workspace_id, new.id, old.authority, beliefdb.clock());
    return null;
end
$$;
comment on function beliefdb.authority_history() is 'Trigger: keep a source''s authority before each change of it, and when (what as-of confidence reads)';

create or replace trigger source_authority_history after update of authority on beliefdb.source
    for each row when (old.authority is distinct from new.authority)
    execute function beliefdb.authority_history();

create or replace trigger node_retraction_history after update of retracted_at on beliefdb.node
    for each row when (old.retracted_at is distinct from new.retracted_at)
    execute function beliefdb.retraction_history();
create or replace trigger node_retraction_history_insert after insert on beliefdb.node
    for each row when (new.retracted_at is not null) execute function beliefdb.retraction_history();
create or replace trigger source_retraction_history after update of retracted_at on beliefdb.source
    for each row when (old.retracted_at is distinct from new.retracted_at)
    execute function beliefdb.retraction_history();
create or replace trigger source_retraction_history_insert after insert on beliefdb.source
    for each row when (new.retracted_at is not null) execute function beliefdb.retraction_history();
create or replace trigger source_version_retraction_history after update of retracted_at on beliefdb.source_version
    for each row when (old.retracted_at is distinct from new.retracted_at)
    execute function beliefdb.retraction_history();
create or replace trigger source_version_retraction_history_insert after insert on beliefdb.source_version
    for each row when (new.retracted_at is not null) execute function beliefdb.retraction_history();
